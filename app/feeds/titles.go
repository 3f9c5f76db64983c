package feeds

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"

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
// Entries are matched in document order; if the counts differ, nothing is noted.
func noteAtomTitleTypes(feed *gofeed.Feed, doc []byte) {
	if feed == nil || feed.FeedType != "atom" {
		return
	}
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.Strict = false
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	var (
		feedType string
		entries  []string
		depth    int
		entryAt  = -1
	)
	for {
		tok, err := d.RawToken()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch {
			case t.Name.Local == "entry" && depth == 2:
				entryAt = depth
				entries = append(entries, "text")
			case t.Name.Local == "title" && t.Name.Space == "":
				typ := "text"
				for _, a := range t.Attr {
					if a.Name.Local == "type" && a.Name.Space == "" {
						typ = strings.ToLower(strings.TrimSpace(a.Value))
					}
				}
				if depth == 2 {
					feedType = typ
				} else if entryAt > 0 && depth == entryAt+1 {
					entries[len(entries)-1] = typ
				}
			}
		case xml.EndElement:
			if depth == entryAt {
				entryAt = -1
			}
			depth--
		}
	}
	if feedType != "" {
		if feed.Custom == nil {
			feed.Custom = map[string]string{}
		}
		feed.Custom[titleTypeKey] = feedType
	}
	if len(entries) != len(feed.Items) {
		return
	}
	for i, it := range feed.Items {
		if it == nil {
			continue
		}
		if it.Custom == nil {
			it.Custom = map[string]string{}
		}
		it.Custom[titleTypeKey] = entries[i]
	}
}

// literalTitle reports whether a title of this feed or item is plain text by its format.
func literalTitle(feed *gofeed.Feed, custom map[string]string) bool {
	switch feed.FeedType {
	case "json":
		return true
	case "atom":
		typ := custom[titleTypeKey]
		return typ == "text" || strings.HasPrefix(typ, "text/")
	}
	return false
}
