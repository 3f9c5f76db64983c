package feeds

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"io"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/mmcdole/gofeed"
)

// titleTypeKey is the gofeed.Item.Custom (and Feed.Custom) key under which parseFeed notes
// the type of an Atom title ("text", "html" or "xhtml").
const titleTypeKey = "morningdeck:title_type"

// titleText makes a title into plain text. A title the format defines as plain text (JSON
// Feed; Atom type="text", the default) is kept literally: "How the <video> element works"
// keeps its "<video>". Other titles (RSS, where nothing says, and Atom type="html") are
// flattened by a careful rule: only what is surely markup goes (see escapeStrayTags).
func titleText(s string, literal bool) string {
	if literal {
		return collapseSpace(s)
	}
	return PlainText(escapeStrayTags(s))
}

// voidTags are HTML elements that have no end tag.
var voidTags = map[string]bool{"br": true, "img": true, "hr": true, "wbr": true}

// escapeStrayTags escapes the '<' of everything in s that looks like a tag but is surely not
// markup, so that PlainText keeps it as text. A tag is markup when it is closed later
// ("<b>…</b>", "<script>…</script>"), when it has attributes ("<a href=…>"), when it is an
// element without an end tag ("<br>", "<img …>") or a comment, or when it is an end tag of an
// element opened before it. "Templates: <template> and <slot>" is not markup.
func escapeStrayTags(s string) string {
	if !strings.Contains(s, "<") {
		return s
	}
	lower := strings.ToLower(s)
	var b strings.Builder
	opened := map[string]bool{}
	done := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '<' {
			continue
		}
		rest := lower[i+1:]
		if strings.HasPrefix(rest, "!--") {
			continue
		}
		end := strings.IndexByte(rest, '>')
		if end < 0 {
			break
		}
		tag := rest[:end]
		closing := strings.HasPrefix(tag, "/")
		tag = strings.TrimPrefix(tag, "/")
		name, attrs, _ := strings.Cut(strings.TrimSuffix(tag, "/"), " ")
		if name == "" || !isTagName(name) {
			continue // "a < b": not a tag at all, PlainText keeps it
		}
		markup := false
		switch {
		case closing:
			markup = opened[name]
		case voidTags[name], strings.Contains(attrs, "="), strings.Contains(lower[i+1+end:], "</"+name):
			markup = true
			opened[name] = true
		}
		if !markup {
			b.WriteString(s[done:i])
			b.WriteString("&lt;")
			done = i + 1
		}
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

func isTagName(n string) bool {
	for i, c := range n {
		if !(c >= 'a' && c <= 'z' || i > 0 && (c >= '0' && c <= '9' || c == '-' || c == ':')) {
			return false
		}
	}
	return true
}

// noteAtomTitleTypes records, in Custom, the type attribute of the Atom feed's title and of
// each entry's title (gofeed decodes them all to strings and forgets which were plain text).
// It reads the bytes, not the XML (a second XML pass cost a third more allocations per
// feed): the feed's title is the first <title> before the first <entry>, an entry's the first
// <title> in it. Entries are matched with gofeed's in document order; if the counts differ
// (an "<entry" in a CDATA section, say), nothing is noted and titles are read as HTML.
func noteAtomTitleTypes(feed *gofeed.Feed, doc []byte) {
	if feed == nil || feed.FeedType != "atom" {
		return
	}
	var starts []int
	for i := 0; ; {
		j := indexTag(doc[i:], "entry")
		if j < 0 {
			break
		}
		starts = append(starts, i+j)
		i += j + 6
	}
	end := len(doc)
	if len(starts) > 0 {
		end = starts[0]
	}
	if typ, ok := titleType(doc[:end]); ok {
		if feed.Custom == nil {
			feed.Custom = map[string]string{}
		}
		feed.Custom[titleTypeKey] = typ
	}
	if len(starts) != len(feed.Items) {
		return
	}
	for i, it := range feed.Items {
		if it == nil {
			continue
		}
		end := len(doc)
		if i+1 < len(starts) {
			end = starts[i+1]
		}
		typ, ok := titleType(doc[starts[i]:end])
		if !ok {
			typ = "text"
		}
		if it.Custom == nil {
			it.Custom = map[string]string{}
		}
		it.Custom[titleTypeKey] = typ
	}
}

// indexTag returns the index of the first start tag <name (unprefixed) in b, -1 if none.
func indexTag(b []byte, name string) int {
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte("<"+name))
		if j < 0 {
			return -1
		}
		k := i + j + 1 + len(name)
		if k < len(b) && (b[k] == '>' || b[k] == ' ' || b[k] == '\t' || b[k] == '\n' || b[k] == '\r' || b[k] == '/') {
			return i + j
		}
		i = k
	}
}

var typeAttr = regexp.MustCompile(`\stype\s*=\s*["']([^"']*)["']`)

// titleType returns the type of the first <title> in b ("text" when it says none).
func titleType(b []byte) (string, bool) {
	i := indexTag(b, "title")
	if i < 0 {
		return "", false
	}
	end := bytes.IndexByte(b[i:], '>')
	if end < 0 {
		return "", false
	}
	if m := typeAttr.FindSubmatch(b[i : i+end]); m != nil {
		return strings.ToLower(strings.TrimSpace(string(m[1]))), true
	}
	return "text", true
}

// literalTitle reports whether a title of this feed or item is plain text by its format.
func literalTitle(feed *gofeed.Feed, custom map[string]string) bool {
	switch feed.FeedType {
	case "json":
		return true
	case "atom":
		typ := custom[titleTypeKey]
		return typ == "text" || typ == "text/plain" // Atom 0.3 wrote MIME types: text/html is HTML
	}
	return false
}

// base64Element is an element of an Atom 0.3 feed with mode="base64" content, the mode
// anywhere among its attributes.
var base64Element = regexp.MustCompile(`<([A-Za-z_][\w.-]*(?::[A-Za-z_][\w.-]*)?)((?:\s[^>]*?)?)\smode\s*=\s*["']base64["']([^>]*)>([A-Za-z0-9+/=\s]*)</([A-Za-z_][\w.:-]*)>`)

// decodeBase64Elements decodes the mode="base64" elements of an Atom 0.3 document in place
// (gofeed leaves those typed text/* as base64): the content becomes escaped text of the
// same type, without the mode.
func decodeBase64Elements(doc []byte) []byte {
	if !bytes.Contains(doc, []byte("base64")) {
		return doc
	}
	return base64Element.ReplaceAllFunc(doc, func(m []byte) []byte {
		sub := base64Element.FindSubmatch(m)
		if string(sub[1]) != string(sub[5]) {
			return m
		}
		dec, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(string(sub[4])), ""))
		if err != nil || !utf8.Valid(dec) {
			return m
		}
		var out bytes.Buffer
		out.WriteString("<")
		out.Write(sub[1])
		out.Write(sub[2])
		out.Write(sub[3])
		out.WriteString(">")
		_ = xml.EscapeText(&out, dec)
		out.WriteString("</")
		out.Write(sub[1])
		out.WriteString(">")
		return out.Bytes()
	})
}

// bodyKey is the gofeed.Item.Custom key under which noteItemBodies puts an RSS item's
// xhtml:body, body or fullitem content, which gofeed does not read.
const bodyKey = "morningdeck:body"

// noteItemBodies finds, in an RSS document, each item's full-content element that gofeed
// ignores — <xhtml:body> (or <body>) holding XHTML, <fullitem> holding escaped HTML — and
// records it in the item's Custom. Items are matched in document order; if the counts
// differ, nothing is noted.
func noteItemBodies(feed *gofeed.Feed, doc []byte) {
	if feed == nil || (feed.FeedType != "rss") || !bytes.Contains(doc, []byte("body")) && !bytes.Contains(doc, []byte("fullitem")) {
		return
	}
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.Strict = false
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	var (
		bodies  []string
		inItem  = -1
		depth   int
		capture = -1 // depth of the body element being captured
		start   int64
		kind    string
		text    strings.Builder
	)
	for {
		off := d.InputOffset()
		tok, err := d.RawToken()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch {
			case t.Name.Local == "item" && inItem < 0:
				inItem = depth
				bodies = append(bodies, "")
			case inItem > 0 && capture < 0 && depth == inItem+1 && (t.Name.Local == "body" || t.Name.Local == "fullitem"):
				capture, start, kind = depth, d.InputOffset(), t.Name.Local
				text.Reset()
			}
		case xml.CharData:
			if capture > 0 {
				text.Write(t)
			}
		case xml.EndElement:
			if depth == capture {
				if kind == "body" {
					bodies[len(bodies)-1] = strings.TrimSpace(string(doc[start:off]))
				} else {
					bodies[len(bodies)-1] = strings.TrimSpace(text.String())
				}
				capture = -1
			}
			if depth == inItem {
				inItem = -1
			}
			depth--
		}
	}
	if len(bodies) != len(feed.Items) {
		return
	}
	for i, it := range feed.Items {
		if it == nil || bodies[i] == "" {
			continue
		}
		if it.Custom == nil {
			it.Custom = map[string]string{}
		}
		it.Custom[bodyKey] = bodies[i]
	}
}

// preAtomNamespace matches the namespaces Atom had while it was being written (it was called
// Echo, then Pie, then Necho), which old feeds still declare.
var preAtomNamespace = regexp.MustCompile(`(<feed\b[^>]*\sxmlns\s*=\s*["'])(?:http://example\.com/newformat#|http://example\.com/necho|http://purl\.org/echo/|http://purl\.org/pie/)(["'])`)

// fixPreAtomNamespace makes a feed in a pre-Atom namespace an Atom 0.3 feed.
func fixPreAtomNamespace(doc []byte) []byte {
	head := doc[:min(len(doc), 4096)]
	loc := preAtomNamespace.FindSubmatchIndex(head)
	if loc == nil {
		return doc
	}
	out := make([]byte, 0, len(doc)+16)
	out = append(out, doc[:loc[3]]...)
	out = append(out, "http://purl.org/atom/ns#"...)
	return append(out, doc[loc[4]:]...)
}

// channelAuthor matches an RSS channel's <author> (not a standard element, but written),
// before its first item.
var channelAuthor = regexp.MustCompile(`<author>([^<]{1,400})</author>`)

// rssChannelAuthor returns the <author> of an RSS channel, "" if none.
func rssChannelAuthor(doc []byte) string {
	head := doc
	if i := bytes.Index(doc, []byte("<item")); i >= 0 {
		head = doc[:i]
	}
	if m := channelAuthor.FindSubmatch(head[:min(len(head), 64<<10)]); m != nil {
		var s string
		if err := xml.Unmarshal([]byte("<a>"+string(m[1])+"</a>"), &s); err == nil {
			return rssPersonName(strings.TrimSpace(s))
		}
	}
	return ""
}

// rssPerson is an RSS author: "Name (email)" or "email (Name)".
var rssPerson = regexp.MustCompile(`^(.*?)\s*\(([^()]*)\)$`)

// rssPersonName returns the name of an RSS author, or what is written when it has none.
func rssPersonName(s string) string {
	m := rssPerson.FindStringSubmatch(s)
	if m == nil {
		return s
	}
	a, b := strings.TrimSpace(m[1]), strings.TrimSpace(m[2])
	switch {
	case strings.Contains(a, "@") && b != "":
		return b
	case strings.Contains(b, "@") && a != "":
		return a
	}
	return s
}

// trimHrefs trims the white space around the value of every href attribute of an XML
// document: gofeed resolves an Atom href as written, so href="  http://e.example/a.mp3  "
// became "http://e.example/a.mp3%20%20" (RSS links, element text, are trimmed). Only a
// document with such a value is copied.
func trimHrefs(doc []byte) []byte {
	var out []byte
	done := 0 // doc[:done] is in out
	for i := 0; ; {
		j := bytes.Index(doc[i:], []byte("href"))
		if j < 0 {
			break
		}
		k := i + j + 4
		i = k
		if i-4 == 0 || !isXMLSpace(doc[i-5]) {
			continue // part of another name
		}
		for k < len(doc) && isXMLSpace(doc[k]) {
			k++
		}
		if k >= len(doc) || doc[k] != '=' {
			continue
		}
		k++
		for k < len(doc) && isXMLSpace(doc[k]) {
			k++
		}
		if k >= len(doc) || doc[k] != '"' && doc[k] != '\'' {
			continue
		}
		q := doc[k]
		end := bytes.IndexByte(doc[k+1:], q)
		if end < 0 {
			break
		}
		start, stop := k+1, k+1+end
		i = stop + 1
		a, b := start, stop
		for a < b && isXMLSpace(doc[a]) {
			a++
		}
		for b > a && isXMLSpace(doc[b-1]) {
			b--
		}
		if a == start && b == stop {
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(doc))
		}
		out = append(out, doc[done:start]...)
		out = append(out, doc[a:b]...)
		done = stop
	}
	if out == nil {
		return doc
	}
	return append(out, doc[done:]...)
}

func isXMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
