package views

import (
	"encoding/xml"
	"github.com/morningdeck/morningdeck/app"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// reader/atom/STREAM is a stream as an Atom feed, the way Google Reader served it and the way
// newsboat (urls-source "feedhq") reads every subscription: each entry's id is the item's long
// id, and its reading state is a category of the scheme http://www.google.com/reader/ whose
// label newsboat understands ("read" or "fresh"; "starred" when starred).

const greaderScheme = "http://www.google.com/reader/"

type atomFeed struct {
	XMLName xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	ID      string      `xml:"id"`
	Title   string      `xml:"title"`
	Updated string      `xml:"updated"`
	Links   []atomLink  `xml:"link"`
	Entries []atomEntry `xml:"entry"`
}

type atomLink struct {
	Rel  string `xml:"rel,attr,omitempty"`
	Href string `xml:"href,attr"`
	Type string `xml:"type,attr,omitempty"`
}

type atomText struct {
	Type string `xml:"type,attr"`
	Body string `xml:",chardata"`
}

type atomCategory struct {
	Term   string `xml:"term,attr"`
	Scheme string `xml:"scheme,attr,omitempty"`
	Label  string `xml:"label,attr,omitempty"`
}

type atomEntry struct {
	ID         string         `xml:"id"`
	Title      atomText       `xml:"title"`
	Published  string         `xml:"published"`
	Updated    string         `xml:"updated"`
	Links      []atomLink     `xml:"link"`
	Categories []atomCategory `xml:"category"`
	Author     *atomAuthor    `xml:"author,omitempty"`
	Content    atomText       `xml:"content"`
	Source     atomSource     `xml:"source"`
}

type atomAuthor struct {
	Name string `xml:"name"`
}

type atomSource struct {
	ID    string     `xml:"id"`
	Title string     `xml:"title"`
	Links []atomLink `xml:"link"`
}

func (s *Server) greaderAtom(w http.ResponseWriter, req *greaderRequest, rest string) error {
	stream, err := url.PathUnescape(strings.TrimPrefix(rest, "/"))
	if err != nil {
		return app.Errorf(app.EINVALID, "The stream in the address is not valid percent-encoding.")
	}
	q, items, c, err := s.greaderStream(req, stream)
	if err != nil {
		return err
	}
	title := app.StreamTitle(q.ID)
	if q.SourceID != 0 {
		if src, err := s.opts.Sources.Get(req.r.Context(), req.user.ID, q.SourceID); err == nil {
			title = sourceTitle(src)
		}
	}
	feed := atomFeed{ID: "tag:google.com,2005:reader/" + q.ID, Title: title, Updated: time.Now().UTC().Format(time.RFC3339)}
	if c != "" {
		v := url.Values{}
		for k, vs := range req.params {
			v[k] = vs
		}
		v.Set("c", c)
		feed.Links = append(feed.Links, atomLink{Rel: "next", Href: req.base + "/reader/atom/" + url.PathEscape(q.ID) + "?" + v.Encode()})
	}
	for _, it := range items {
		e := atomEntry{ID: it.ID, Title: atomText{Type: "html", Body: it.Title},
			Published: time.Unix(it.Published, 0).UTC().Format(time.RFC3339), Updated: time.Unix(it.Updated, 0).UTC().Format(time.RFC3339),
			Content: atomText{Type: "html", Body: it.Summary.Content},
			Source:  atomSource{ID: "tag:google.com,2005:reader/" + it.Origin.StreamID, Title: it.Origin.Title, Links: []atomLink{{Rel: "alternate", Href: it.Origin.HTMLURL, Type: "text/html"}}}}
		if len(it.Alternate) > 0 {
			e.Links = []atomLink{{Rel: "alternate", Href: it.Alternate[0].Href, Type: "text/html"}}
		}
		if it.Author != "" {
			e.Author = &atomAuthor{Name: it.Author}
		}
		read := false
		for _, cat := range it.Categories {
			label := cat[strings.LastIndexByte(cat, '/')+1:]
			if cat == app.StateRead {
				read = true
			}
			e.Categories = append(e.Categories, atomCategory{Term: cat, Scheme: greaderScheme, Label: label})
		}
		if !read {
			e.Categories = append(e.Categories, atomCategory{Term: app.StateFresh, Scheme: greaderScheme, Label: "fresh"})
		}
		feed.Entries = append(feed.Entries, e)
	}
	out, err := xml.MarshalIndent(feed, "", " ")
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/atom+xml; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(xml.Header))
	_, _ = w.Write(out)
	return nil
}
