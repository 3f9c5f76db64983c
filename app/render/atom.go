package render

import (
	"encoding/xml"
	"fmt"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// AtomFeed is an Atom feed (RFC 4287), the one writer of the app's feeds: a briefing's reports
// (ReportsAtom) and a Google Reader stream (reader/atom, in views). An element left empty that
// Atom does not require is left out.
type AtomFeed struct {
	XMLName xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	Title   AtomText    `xml:"title"`
	ID      string      `xml:"id"`
	Updated string      `xml:"updated"`
	Author  *AtomPerson `xml:"author,omitempty"`
	Links   []AtomLink  `xml:"link"`
	Entries []AtomEntry `xml:"entry"`
}

// AtomEntry is one entry of a feed; Source, when set, is the feed it came from.
type AtomEntry struct {
	Title      AtomText       `xml:"title"`
	ID         string         `xml:"id"`
	Published  string         `xml:"published,omitempty"`
	Updated    string         `xml:"updated"`
	Links      []AtomLink     `xml:"link"`
	Categories []AtomCategory `xml:"category"`
	Author     *AtomPerson    `xml:"author,omitempty"`
	Content    AtomText       `xml:"content"`
	Source     *AtomSource    `xml:"source,omitempty"`
}

// AtomPerson is an author.
type AtomPerson struct {
	Name string `xml:"name"`
}

// AtomLink is a link; Rel and Type are left out when empty.
type AtomLink struct {
	Href string `xml:"href,attr"`
	Rel  string `xml:"rel,attr,omitempty"`
	Type string `xml:"type,attr,omitempty"`
}

// AtomText is a text construct: plain text when Type is empty, else "html" (escaped HTML).
type AtomText struct {
	Type string `xml:"type,attr,omitempty"`
	Body string `xml:",chardata"`
}

// AtomCategory is a category of an entry.
type AtomCategory struct {
	Term   string `xml:"term,attr"`
	Scheme string `xml:"scheme,attr,omitempty"`
	Label  string `xml:"label,attr,omitempty"`
}

// AtomSource is the feed an entry came from.
type AtomSource struct {
	ID    string     `xml:"id"`
	Title string     `xml:"title"`
	Links []AtomLink `xml:"link"`
}

// Marshal writes the feed as an XML document, indented.
func (f *AtomFeed) Marshal() ([]byte, error) {
	out, err := xml.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), out...), nil
}

// ReportsAtom writes a briefing's reports (full, with items) as an Atom feed; baseURL is the
// app's address, for links back to each report. selfURL is the feed's own address (rel="self").
// Ids are tag: URIs made of the briefing's and reports' ids and creation dates, so they stay the
// same when the app moves to another address (RFC 4151).
func ReportsAtom(b *app.Briefing, reports []*app.Report, baseURL, selfURL string, loc *time.Location) ([]byte, error) {
	base := strings.TrimRight(baseURL, "/")
	f := AtomFeed{Title: AtomText{Body: b.Name + " — Morning Deck"}, ID: fmt.Sprintf("tag:morningdeck,%s:briefing-%d", b.CreatedAt.UTC().Format("2006-01-02"), b.ID),
		Updated: b.CreatedAt.UTC().Format(time.RFC3339), Author: &AtomPerson{Name: "Morning Deck"},
		Links: []AtomLink{{Href: base + "/briefings", Rel: "alternate", Type: "text/html"}}}
	if selfURL != "" {
		f.Links = append(f.Links, AtomLink{Href: selfURL, Rel: "self", Type: "application/atom+xml"})
	}
	for i, r := range reports {
		if i == 0 {
			f.Updated = r.GeneratedAt.UTC().Format(time.RFC3339)
		}
		href := fmt.Sprintf("%s/reports/%d", base, r.ID)
		f.Entries = append(f.Entries, AtomEntry{
			Title:   AtomText{Body: fmt.Sprintf("%s — %s", b.Name, r.PeriodEnd.In(loc).Format("Mon 2 Jan 2006"))},
			ID:      fmt.Sprintf("tag:morningdeck,%s:briefing-%d/report-%d", b.CreatedAt.UTC().Format("2006-01-02"), b.ID, r.ID),
			Updated: r.GeneratedAt.UTC().Format(time.RFC3339), Links: []AtomLink{{Href: href, Rel: "alternate", Type: "text/html"}},
			Content: AtomText{Type: "html", Body: ReportHTML(b, r, loc, HTMLStyle{BaseURL: base})},
		})
	}
	return f.Marshal()
}
