package views

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/greader"
	"github.com/morningdeck/morningdeck/app/render"
)

// reader/atom/STREAM is a stream as an Atom feed, the way Google Reader served it and the way
// newsboat (urls-source "feedhq") reads every subscription: each entry's id is the item's long
// id, and its reading state is a category of the scheme http://www.google.com/reader/ whose
// label newsboat understands ("read" or "fresh"; "starred" when starred).

const greaderScheme = "http://www.google.com/reader/"

func (s *Server) greaderAtom(w http.ResponseWriter, req *greaderRequest, rest string) error {
	stream, err := url.PathUnescape(strings.TrimPrefix(rest, "/"))
	if err != nil {
		return app.Errorf(app.EINVALID, "The stream in the address is not valid percent-encoding.")
	}
	q, items, c, err := s.greaderStream(req, stream)
	if err != nil {
		return err
	}
	title := greader.StreamTitle(q.ID)
	if q.SourceID != 0 {
		if src, err := s.opts.Sources.Get(req.r.Context(), req.user.ID, q.SourceID); err == nil {
			title = sourceTitle(src)
		}
	}
	feed := render.AtomFeed{ID: "tag:google.com,2005:reader/" + q.ID, Title: render.AtomText{Body: title}, Updated: time.Now().UTC().Format(time.RFC3339)}
	if c != "" {
		v := url.Values{}
		for k, vs := range req.params {
			v[k] = vs
		}
		v.Set("c", c)
		feed.Links = append(feed.Links, render.AtomLink{Rel: "next", Href: req.base + "/reader/atom/" + url.PathEscape(q.ID) + "?" + v.Encode()})
	}
	for _, it := range items {
		e := render.AtomEntry{ID: it.ID, Title: render.AtomText{Type: "html", Body: it.Title},
			Published: time.Unix(it.Published, 0).UTC().Format(time.RFC3339), Updated: time.Unix(it.Updated, 0).UTC().Format(time.RFC3339),
			Content: render.AtomText{Type: "html", Body: it.Summary.Content},
			Source:  &render.AtomSource{ID: "tag:google.com,2005:reader/" + it.Origin.StreamID, Title: it.Origin.Title, Links: []render.AtomLink{{Rel: "alternate", Href: it.Origin.HTMLURL, Type: "text/html"}}}}
		if len(it.Alternate) > 0 {
			e.Links = []render.AtomLink{{Rel: "alternate", Href: it.Alternate[0].Href, Type: "text/html"}}
		}
		if it.Author != "" {
			e.Author = &render.AtomPerson{Name: it.Author}
		}
		read := false
		for _, cat := range it.Categories {
			label := cat[strings.LastIndexByte(cat, '/')+1:]
			if cat == greader.StateRead {
				read = true
			}
			e.Categories = append(e.Categories, render.AtomCategory{Term: cat, Scheme: greaderScheme, Label: label})
		}
		if !read {
			e.Categories = append(e.Categories, render.AtomCategory{Term: greader.StateFresh, Scheme: greaderScheme, Label: "fresh"})
		}
		feed.Entries = append(feed.Entries, e)
	}
	out, err := feed.Marshal()
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/atom+xml; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(out)
	return nil
}
