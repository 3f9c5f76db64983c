package app

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/html/charset"
)

type opmlDoc struct {
	XMLName xml.Name      `xml:"opml"`
	Version string        `xml:"version,attr"`
	Title   string        `xml:"head>title"`
	Created string        `xml:"head>dateCreated,omitempty"`
	Body    []opmlOutline `xml:"body>outline"`
}

type opmlOutline struct {
	Text     string        `xml:"text,attr"`
	Title    string        `xml:"title,attr,omitempty"`
	Type     string        `xml:"type,attr,omitempty"`
	XMLURL   string        `xml:"xmlUrl,attr,omitempty"`
	HTMLURL  string        `xml:"htmlUrl,attr,omitempty"`
	Interval opmlMinutes   `xml:"refreshIntervalMinutes,attr,omitempty"`
	Children []opmlOutline `xml:"outline"`
}

// opmlMinutes is an interval attribute: a value that is not a whole number is ignored, so one
// odd attribute does not refuse the whole file.
type opmlMinutes int

func (m *opmlMinutes) UnmarshalXMLAttr(a xml.Attr) error {
	if n, err := strconv.Atoi(strings.TrimSpace(a.Value)); err == nil {
		*m = opmlMinutes(n)
	}
	return nil
}

// OPMLEntry is one source found in an OPML file.
type OPMLEntry struct {
	URL      string
	Name     string
	Type     SourceType
	Interval int
	Folder   string // the outermost folder outline it is in ("" at the top): folders are one level deep
}

// MaxOPMLBytes bounds an uploaded OPML file.
const MaxOPMLBytes = 5 << 20

// xmlDeclVersion matches the version of an XML declaration at the start of a document.
var xmlDeclVersion = regexp.MustCompile(`^(\xEF\xBB\xBF)?\s*<\?xml[^>]*?version\s*=\s*["']1\.[1-9]["']`)

// xml11To10 reads an XML 1.1 document as 1.0: encoding/xml refuses any version but 1.0, and
// what 1.1 adds (more name characters, NEL line ends) does not matter to the files we read.
func xml11To10(b []byte) []byte {
	loc := xmlDeclVersion.FindIndex(b)
	if loc == nil {
		return b
	}
	out := append([]byte(nil), b...)
	out[loc[1]-2] = '0' // the minor digit before the closing quote
	return out
}

// ParseOPML reads the sources of an OPML file, nested folders included: a source keeps the
// name of the outermost folder it is in (Morning Deck's folders are one level deep).
func ParseOPML(r io.Reader) ([]OPMLEntry, error) {
	var doc opmlDoc
	body, err := io.ReadAll(io.LimitReader(r, MaxOPMLBytes))
	if err != nil {
		return nil, Errorf(EINVALID, "The OPML file could not be read.")
	}
	dec := xml.NewDecoder(bytes.NewReader(xml11To10(body)))
	dec.Strict = false
	dec.CharsetReader = func(label string, input io.Reader) (io.Reader, error) {
		// Decode a declared legacy charset (ISO-8859-1, Windows-1252…); read an unknown one as UTF-8 rather than fail on it.
		if r, err := charset.NewReaderLabel(label, input); err == nil {
			return r, nil
		}
		return input, nil
	}
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, Errorf(EINVALID, "This is not an OPML file we can read: it is empty or not XML.")
		}
		// The parser's message may quote the file: keep it valid UTF-8 and short, and without
		// the package's "xml: " prefix.
		msg := Shorten(strings.ToValidUTF8(strings.TrimPrefix(err.Error(), "xml: "), "\uFFFD"), 200)
		return nil, Errorf(EINVALID, "This is not an OPML file we can read: %s.", msg)
	}
	var out []OPMLEntry
	var walk func([]opmlOutline, string)
	walk = func(os []opmlOutline, folder string) {
		for _, o := range os {
			if u := strings.TrimSpace(o.XMLURL); u != "" {
				name := strings.TrimSpace(o.Title)
				if name == "" {
					name = strings.TrimSpace(o.Text)
				}
				t := SourceType(strings.ToLower(o.Type))
				if t != SourceWeb && t != SourceReddit {
					t = SourceRSS
				}
				out = append(out, OPMLEntry{URL: u, Name: name, Type: t, Interval: int(o.Interval), Folder: folder})
			}
			inner := folder
			if inner == "" && len(o.Children) > 0 {
				inner = strings.TrimSpace(o.Title)
				if inner == "" {
					inner = strings.TrimSpace(o.Text)
				}
				if n, err := CleanFolderName(inner); err == nil {
					inner = n
				} else {
					inner = "" // a folder without a usable name: its sources go to the top
				}
			}
			walk(o.Children, inner)
		}
	}
	walk(doc.Body, "")
	return out, nil
}

// ImportResult says what an OPML import did.
type ImportResult struct {
	Added   int
	Skipped int // already followed, refused, or over the account's limit (OverLimit)
	// OverLimit: entries not added because the account follows the most sources allowed.
	OverLimit int
	Errors    []string
}

// ImportOPML adds every source of an OPML file that the user does not follow yet. Sources
// are added as their file says (no detection), each enqueued for its first fetch. The file is
// at most Limits.OPML bytes; once the account follows the most sources allowed, the rest are
// skipped and counted (OverLimit, and the first of Errors says so); a folder past the folder
// limit is not made, and its sources are added in no folder.
func (s *Sources) ImportOPML(ctx context.Context, userID int64, r io.Reader, progress func(done, total int)) (*ImportResult, error) {
	max := s.Limits.OPML()
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("opml: read: %w", err)
	}
	if int64(len(b)) > max {
		return nil, Errorf(EINVALID, "The OPML file is larger than %s, the most this server accepts (--max-opml-bytes).", FormatSize(max))
	}
	entries, err := ParseOPML(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, Errorf(EINVALID, "The OPML file lists no feeds.")
	}
	sum, err := s.Store.SourceSummary(ctx, userID)
	if err != nil {
		return nil, err
	}
	room := s.Limits.sources() - sum.Total
	have, err := s.Store.Folders(ctx, userID, FolderLookupCap)
	if err != nil {
		return nil, err
	}
	folders := map[string]bool{}
	for _, f := range have {
		folders[strings.ToLower(f.Name)] = true
	}
	res := &ImportResult{}
	unfiled := 0
	for i, e := range entries {
		if room <= 0 {
			res.OverLimit++
			res.Skipped++
			if progress != nil {
				progress(i+1, len(entries))
			}
			continue
		}
		var interval *int // an interval outside the allowed range gets the default
		if e.Interval >= MinRefreshInterval && e.Interval <= MaxRefreshInterval {
			interval = &e.Interval
		}
		folder := e.Folder
		if folder != "" && !folders[strings.ToLower(folder)] && len(folders) >= s.Limits.folders() {
			folder = ""
			unfiled++
		}
		_, err := s.Add(ctx, AddSource{UserID: userID, URL: e.URL, Name: e.Name, Type: e.Type, RefreshIntervalMinutes: interval, Folder: folder, Imported: true, counted: true})
		var ae *Error
		switch {
		case err == nil:
			res.Added++
			room--
			if folder != "" {
				folders[strings.ToLower(folder)] = true
			}
		case errors.As(err, &ae) && ae.Code == ECONFLICT:
			res.Skipped++
		case errors.As(err, &ae):
			res.Skipped++
			res.Errors = append(res.Errors, fmt.Sprintf("%s: %s", e.URL, ae.Message))
		default:
			return res, err
		}
		if progress != nil {
			progress(i+1, len(entries))
		}
	}
	var limits []string
	if res.OverLimit > 0 {
		limits = append(limits, fmt.Sprintf("%d %s not added: an account may follow at most %d %s on this server (--max-sources-per-user)",
			res.OverLimit, Plural(res.OverLimit, "source was", "sources were"), s.Limits.sources(), Plural(s.Limits.sources(), "source", "sources")))
	}
	if unfiled > 0 {
		limits = append(limits, fmt.Sprintf("%d %s added in no folder: an account may have at most %d %s on this server (--max-folders-per-user)",
			unfiled, Plural(unfiled, "source was", "sources were"), s.Limits.folders(), Plural(s.Limits.folders(), "folder", "folders")))
	}
	res.Errors = append(limits, res.Errors...)
	return res, nil
}

// ExportOPML writes the user's sources as OPML 2.0: the sources of each folder in an outline
// named after it, then those in no folder.
func (s *Sources) ExportOPML(ctx context.Context, userID int64, w io.Writer) error {
	srcs, err := s.Store.Sources(ctx, userID)
	if err != nil {
		return err
	}
	doc := opmlDoc{Version: "2.0", Title: "Morning Deck sources", Created: time.Now().UTC().Format(time.RFC1123Z)}
	entries := make([]OPMLEntry, 0, len(srcs))
	for _, src := range srcs {
		if src.Type == SourceIMAP {
			// A mail folder is no feed another reader could follow (and its account stays here).
			continue
		}
		entries = append(entries, OPMLEntry{URL: src.URL, Name: src.Name, Type: src.Type, Interval: src.RefreshIntervalMinutes, Folder: src.Folder})
	}
	doc.Body = opmlOutlines(entries)
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err = io.WriteString(w, "\n")
	return err
}

// opmlOutlines makes the outlines of an export: an outline per folder, where the folder first
// appears, holding its sources; sources in no folder at the top.
func opmlOutlines(entries []OPMLEntry) []opmlOutline {
	var out []opmlOutline
	folders := map[string]int{} // folder name → its outline's index in out
	for _, e := range entries {
		o := opmlOutline{Text: e.Name, Title: e.Name, Type: string(e.Type), XMLURL: e.URL, Interval: opmlMinutes(e.Interval)}
		if e.Folder == "" {
			out = append(out, o)
			continue
		}
		i, ok := folders[e.Folder]
		if !ok {
			i = len(out)
			folders[e.Folder] = i
			out = append(out, opmlOutline{Text: e.Folder, Title: e.Folder})
		}
		out[i].Children = append(out[i].Children, o)
	}
	return out
}
