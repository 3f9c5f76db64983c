package app

// Fuzz target of the OPML import. Run it with
//
//	go test ./app -run '^$' -fuzz '^FuzzOPMLImport$' -fuzztime 60s
//
// Inputs that fail are written to testdata/fuzz/FuzzOPMLImport/ and run by every `go test`.

import (
	"bytes"
	"encoding/xml"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzMessageProblem says why an error message is not fit for a person; "" if it is. input is
// what the person sent: a message may quote it, so what it holds is not counted as a leak.
func fuzzMessageProblem(msg string, input []byte) string {
	switch {
	case msg == "":
		return "empty"
	case !utf8.ValidString(msg):
		return "invalid UTF-8"
	case len(msg) > 500:
		return "longer than 500 bytes"
	}
	for _, leak := range []string{"strconv.", "ParseInt", "xml:", "encoding/", "Go value", "Go struct", "reflect", "app.", "main.", "views.", ": EOF", "<nil>", "%!"} {
		if strings.Contains(msg, leak) && !bytes.Contains(input, []byte(leak)) {
			return "it shows Go internals (" + leak + ")"
		}
	}
	return ""
}

// fuzzXMLChars reports whether every rune of s can be written in XML 1.0.
func fuzzXMLChars(s string) bool {
	for _, r := range s {
		if !(r == 0x09 || r == 0x0A || r == 0x0D || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF) {
			return false
		}
	}
	return true
}

// FuzzOPMLImport parses arbitrary bytes as OPML: no panic; either an EINVALID error with a
// message for a person, or entries with a trimmed URL and name in valid UTF-8, a known type,
// no more than the input can hold, whose URL the import turns into an http(s) address or
// refuses with a message; and exporting the entries as ExportOPML does reads back the same.
func FuzzOPMLImport(f *testing.F) {
	for _, s := range []string{
		`<?xml version="1.0" encoding="UTF-8"?>
<opml version="2.0"><head><title>Subscriptions</title></head><body>
<outline text="Tech" title="Tech"><outline text="Go blog" type="rss" xmlUrl="https://go.dev/blog/feed.atom" htmlUrl="https://go.dev/blog"/>
  <outline title="Sub &amp; more" text="ignored" xmlUrl=" https://example.com/rss " refreshIntervalMinutes="30"/>
  <outline text="Deeper"><outline text="Deepest"><outline text="x" xmlUrl="example.org/feed.xml" type="web"/></outline></outline></outline>
<outline text="golang" type="reddit" xmlUrl="https://www.reddit.com/r/golang"/>
<outline text="r" type="REDDIT" xmlUrl="r/programming"/>
<outline text="folder without feeds"/>
</body></opml>`,
		"<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<opml version=\"1.0\"><body><outline text=\"Caf\xe9\" xmlUrl=\"https://e.test/caf\xe9\"/></body></opml>",
		`<opml version="1.0"><body><outline text="js" xmlUrl="javascript:alert(1)"/><outline text="ftp" xmlUrl="ftp://e.test/x"/><outline text="rd" type="reddit" xmlUrl="javascript://x/r/golang"/><outline xmlUrl="http://"/></body></opml>`,
		`<opml><body><outline text="bad interval" xmlUrl="https://e.test/a" refreshIntervalMinutes="abc"/><outline xmlUrl="https://e.test/b" refreshIntervalMinutes="-5"/></body></opml>`,
		`<opml><body><outline text="unclosed" xmlUrl="https://e.test/a"><outline text="b" xmlUrl=https://e.test/b></body>`,
		"<opml><body><outline text=\"\x01\" xmlUrl=\"https://e.test/\xff\"/></body></opml>",
		`<!DOCTYPE opml [<!ENTITY a "https://e.test/a">]><opml><body><outline xmlUrl="&a;"/></body></opml>`,
		`<html><body>not opml</body></html>`,
		`<rss version="2.0"><channel><title>a feed, not OPML</title></channel></rss>`,
		"",
		"not xml at all",
		`<opml><body>` + strings.Repeat(`<outline text="n">`, 200) + `<outline xmlUrl="https://e.test/deep"/>` + strings.Repeat(`</outline>`, 200) + `</body></opml>`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := ParseOPML(bytes.NewReader(data))
		if err != nil {
			if ErrorCode(err) != EINVALID {
				t.Fatalf("error %v has code %q, not %q", err, ErrorCode(err), EINVALID)
			}
			if p := fuzzMessageProblem(ErrorMessage(err), data); p != "" {
				t.Fatalf("error message %q is not for a person: %s", ErrorMessage(err), p)
			}
			return
		}
		if len(entries) > len(data)/10 {
			t.Fatalf("%d entries from %d bytes", len(entries), len(data))
		}
		for i, e := range entries {
			if e.URL == "" || strings.TrimSpace(e.URL) != e.URL || !utf8.ValidString(e.URL) {
				t.Errorf("entry %d: URL %q", i, e.URL)
			}
			if strings.TrimSpace(e.Name) != e.Name || !utf8.ValidString(e.Name) {
				t.Errorf("entry %d: name %q", i, e.Name)
			}
			if !e.Type.Valid() {
				t.Errorf("entry %d: type %q", i, e.Type)
			}
			// What Sources.Add does with the entry's URL: an http(s) address, or a refusal.
			var normalized string
			var ok bool
			if e.Type == SourceReddit {
				var err error
				normalized, err = Subreddit(e.URL)
				ok = err == nil
			} else {
				var err error
				normalized, err = NormalizeURL(e.URL)
				if ok = err == nil; !ok {
					if ErrorCode(err) != EINVALID {
						t.Errorf("entry %d: NormalizeURL(%q): %v", i, e.URL, err)
					} else if p := fuzzMessageProblem(ErrorMessage(err), data); p != "" {
						t.Errorf("entry %d: NormalizeURL(%q) error %q: %s", i, e.URL, ErrorMessage(err), p)
					}
				}
			}
			if ok {
				u, err := url.Parse(normalized)
				if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
					t.Errorf("entry %d: %q (%s) is imported as %q, not an http(s) address", i, e.URL, e.Type, normalized)
				}
			}
		}

		// Export what was read the way ExportOPML does; reading it back gives the same entries.
		doc := opmlDoc{Version: "2.0", Title: "round trip"}
		for _, e := range entries {
			if !fuzzXMLChars(e.URL) || !fuzzXMLChars(e.Name) || !fuzzXMLChars(e.Folder) {
				return // not representable in XML: the encoder writes U+FFFD instead
			}
		}
		doc.Body = opmlOutlines(entries)
		// The export groups each folder's sources in its outline: compare in that order.
		var grouped []OPMLEntry
		seen := map[string]bool{}
		for i, e := range entries {
			if e.Folder == "" {
				grouped = append(grouped, e)
				continue
			}
			if seen[e.Folder] {
				continue
			}
			seen[e.Folder] = true
			for _, f := range entries[i:] {
				if f.Folder == e.Folder {
					grouped = append(grouped, f)
				}
			}
		}
		var buf bytes.Buffer
		buf.WriteString(xml.Header)
		if err := xml.NewEncoder(&buf).Encode(doc); err != nil {
			t.Fatalf("export: %v", err)
		}
		again, err := ParseOPML(&buf)
		if err != nil {
			t.Fatalf("reading the export back: %v\n%s", err, buf.String())
		}
		if len(again) != len(entries) {
			t.Fatalf("export read back has %d entries, not %d", len(again), len(entries))
		}
		for i := range grouped {
			if again[i] != grouped[i] {
				t.Errorf("entry %d: %+v exported and read back is %+v", i, grouped[i], again[i])
			}
		}
	})
}
