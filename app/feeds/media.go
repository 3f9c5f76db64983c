package feeds

import (
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/mmcdole/gofeed"
	ext "github.com/mmcdole/gofeed/extensions"

	"github.com/morningdeck/morningdeck/app"
)

// What a feed item carries besides its text is kept in app.Item.Extra under app's keys
// (app.ExtraEnclosures, …); these names are kept for the parser's code and tests.
const (
	ExtraEnclosures  = app.ExtraEnclosures
	ExtraThumbnail   = app.ExtraThumbnail
	ExtraDateMissing = app.ExtraDateMissing
	ExtraDateUnread  = app.ExtraDateUnread
)

// Enclosure is a media file attached to an item (app.Enclosure).
type Enclosure = app.Enclosure

// maxEnclosures caps the enclosures kept per item.
const maxEnclosures = 8

// dedupe drops the repeats of an item within one feed: an item whose GUID and link are an
// earlier item's. Items that share a GUID but not a link are kept with the GUID as given
// (repeated is then true): the feed gives one GUID to different posts, and the app keys them
// by GUID and link (app.IdentifyItems), which it can only do knowing the GUID.
func dedupe(items []app.Item) (out []app.Item, repeated bool) {
	out = make([]app.Item, 0, len(items)) // an Item is large: no regrowing
	type key struct{ guid, link string }
	links := make(map[string]string, len(items)) // the first link of each GUID
	seen := make(map[key]bool, len(items))
	for _, it := range items {
		k := key{it.GUID, it.Link}
		if l, ok := links[it.GUID]; ok && (l == "" || it.Link == "") {
			k.link = l // an item without a link is not another post
		}
		if seen[k] {
			continue
		}
		if l, ok := links[it.GUID]; !ok || l == "" {
			links[it.GUID] = it.Link
		} else if l != it.Link {
			repeated = true
		}
		seen[k] = true
		out = append(out, it)
	}
	return out, repeated
}

// mediaOf reads what an item carries besides text: enclosures, a thumbnail and, from Media
// RSS, a description (YouTube puts a video's whole description there).
func mediaOf(it *gofeed.Item, base *url.URL) (encs []Enclosure, thumb, description string) {
	add := func(rawURL, typ, length, medium string) {
		u := absoluteHTTP(base, rawURL)
		if u == "" || len(encs) >= maxEnclosures {
			return
		}
		for _, e := range encs {
			if e.URL == u {
				return
			}
		}
		e := Enclosure{URL: u, Type: strings.ToLower(strings.TrimSpace(typ)), Medium: strings.ToLower(strings.TrimSpace(medium))}
		if n, err := strconv.ParseInt(strings.TrimSpace(length), 10, 64); err == nil && n > 0 {
			e.Length = n
		}
		if e.Medium == "" {
			e.Medium = mediumOf(e.Type, u)
		}
		encs = append(encs, e)
	}
	for _, e := range it.Enclosures {
		if e != nil {
			add(e.URL, e.Type, e.Length, "")
		}
	}
	if media, ok := it.Extensions["media"]; ok {
		groups := append([]ext.Extension{{Children: media}}, media["group"]...)
		for _, g := range groups {
			for _, c := range g.Children["content"] {
				add(c.Attrs["url"], c.Attrs["type"], c.Attrs["fileSize"], c.Attrs["medium"])
			}
			for _, t := range g.Children["thumbnail"] {
				if thumb == "" {
					thumb = absoluteHTTP(base, t.Attrs["url"])
				}
			}
			for _, d := range g.Children["description"] {
				if description == "" {
					description = strings.TrimSpace(d.Value)
					if typ := d.Attrs["type"]; !strings.EqualFold(typ, "html") {
						description = plainToHTML(description)
					}
				}
			}
		}
	}
	if thumb == "" && it.ITunesExt != nil {
		thumb = absoluteHTTP(base, it.ITunesExt.Image)
	}
	if thumb == "" && it.Image != nil {
		thumb = absoluteHTTP(base, it.Image.URL)
	}
	if thumb == "" {
		for _, e := range encs {
			if e.Medium == "image" {
				thumb = e.URL
				break
			}
		}
	}
	return encs, thumb, description
}

var (
	audioExt = regexp.MustCompile(`(?i)\.(mp3|m4a|aac|ogg|oga|opus|wav|flac)$`)
	videoExt = regexp.MustCompile(`(?i)\.(mp4|m4v|mov|webm|ogv|mkv)$`)
	imageExt = regexp.MustCompile(`(?i)\.(jpe?g|png|gif|webp|avif)$`)
)

// mediumOf says whether a file is audio, video or an image, from its type or else its name.
func mediumOf(typ, u string) string {
	if m, _, ok := strings.Cut(typ, "/"); ok && (m == "audio" || m == "video" || m == "image") {
		return m
	}
	p := u
	if pu, err := url.Parse(u); err == nil {
		p = pu.Path
	}
	switch {
	case audioExt.MatchString(p):
		return "audio"
	case videoExt.MatchString(p):
		return "video"
	case imageExt.MatchString(p):
		return "image"
	}
	return ""
}

// extraLink returns the item's link from extensions when gofeed found none in <link>:
// feedburner:origLink (the publisher's own address, preferred over a FeedBurner redirect) and
// atom:link in an RSS item.
func origLink(it *gofeed.Item) string {
	if fb, ok := it.Extensions["feedburner"]; ok {
		for _, l := range fb["origLink"] {
			if v := strings.TrimSpace(l.Value); v != "" {
				return v
			}
		}
	}
	return ""
}

func atomLink(it *gofeed.Item) string {
	if a, ok := it.Extensions["atom"]; ok {
		for _, l := range a["link"] {
			if rel := l.Attrs["rel"]; rel == "" || rel == "alternate" {
				if h := strings.TrimSpace(l.Attrs["href"]); h != "" {
					return h
				}
			}
		}
	}
	return ""
}

// enclosureTitle names an item that has nothing but a file: the file's name.
func enclosureTitle(encs []Enclosure) string {
	for _, e := range encs {
		if u, err := url.Parse(e.URL); err == nil {
			if name, err := url.PathUnescape(path.Base(u.Path)); err == nil && name != "/" && name != "." {
				return name
			}
		}
	}
	return ""
}
