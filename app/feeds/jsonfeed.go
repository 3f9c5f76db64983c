package feeds

import (
	"bytes"
	"encoding/json"
	"errors"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/mmcdole/gofeed"

	"github.com/morningdeck/morningdeck/app"
)

// A JSON Feed is read here rather than by gofeed, for three reasons:
//
//   - memory: gofeed builds a struct for every element of every array of an item, so 10 MB of
//     items with thousands of empty attachments each took over 1 GB. Here the items array is
//     walked once, keeping the offsets of at most MaxItems items at each end, and no array
//     inside an item yields more than maxJSONArray elements; what is decoded is bounded
//     whatever the body (see TestHostileConcurrentPeak for the figure);
//   - tolerance: a field of the wrong type (tags or author as a string, authors as an object,
//     a number for a string) is coerced, never the end of the whole feed;
//   - "RSS in JSON" ({"rss":{"channel":…}}, what some converters write) is read as the RSS
//     it encodes; any other JSON is refused with a message, never taken as an empty feed.
const maxJSONArray = 64

// errNotJSONFeed is JSON that is neither a JSON Feed nor RSS in JSON.
func errNotJSONFeed() error {
	return &Error{Kind: KindParse, Message: "The content is not a feed we can read: it is JSON, but not a JSON Feed (it has no \"items\" list)."}
}

// parseJSONFeed reads a JSON Feed (or RSS in JSON) in UTF-8 into gofeed's shape; FeedType is
// "json", and the titles are plain text as the format says.
func parseJSONFeed(bud *budget, b []byte) (*gofeed.Feed, error) {
	var top map[string]json.RawMessage
	if err := json.NewDecoder(bud.reader(bytes.NewReader(b))).Decode(&top); err != nil {
		if bud.spent() {
			return nil, bud.err("feed")
		}
		return nil, &Error{Kind: KindParse, Message: "The content is not a feed we can read: " + describeJSONError(err) + ".", Err: err}
	}
	if rss, ok := top["rss"]; ok && top["items"] == nil {
		return parseRSSInJSON(bud, rss)
	}
	rawItems, hasItems := top["items"]
	if t := bytes.TrimSpace(rawItems); !hasItems && top["version"] == nil || len(t) > 0 && t[0] != '[' && t[0] != '{' && string(t) != "null" {
		return nil, errNotJSONFeed()
	}
	feed := &gofeed.Feed{FeedType: "json", FeedVersion: jsonString(top["version"])}
	feed.Title = jsonTitle(top["title"])
	feed.Description = jsonString(top["description"])
	feed.Link = jsonString(top["home_page_url"])
	feed.FeedLink = jsonString(top["feed_url"])
	feed.Authors = jsonAuthors(top["authors"], top["author"])
	if len(feed.Authors) > 0 {
		feed.Author = feed.Authors[0]
	}
	if icon := jsonString(top["icon"]); icon != "" {
		feed.Image = &gofeed.Image{URL: icon}
	}
	raws, err := jsonItems(bud, rawItems)
	if err != nil {
		return nil, err
	}
	for _, raw := range raws {
		var f map[string]json.RawMessage
		if json.Unmarshal(raw, &f) != nil {
			continue // an item that is not an object: skipped, the others kept
		}
		feed.Items = append(feed.Items, jsonItem(f))
	}
	return feed, nil
}

// jsonItems returns the items to keep of a JSON array: all when there are at most MaxItems,
// else the newest MaxItems (the first ones, or the last ones when the first is older than
// the last). Only the offsets of the items at both ends are held while the array is walked.
func jsonItems(bud *budget, raw json.RawMessage) ([]json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '[' {
		if len(raw) > 0 && raw[0] == '{' { // one item, not in a list
			return []json.RawMessage{raw}, nil
		}
		return nil, nil
	}
	d := json.NewDecoder(bud.reader(bytes.NewReader(raw)))
	if _, err := d.Token(); err != nil {
		return nil, nil
	}
	var head, tail []span // tail is a ring of the last MaxItems
	n := 0
	for d.More() {
		start := int(d.InputOffset())
		var skip struct{}
		if err := d.Decode(&skip); err != nil {
			var te *json.UnmarshalTypeError
			if !errors.As(err, &te) {
				if bud.spent() {
					return nil, bud.err("feed")
				}
				break // a broken list: keep what came before
			}
		}
		s := span{start: start, end: int(d.InputOffset())}
		if n < MaxItems {
			head = append(head, s)
		} else if len(tail) < MaxItems {
			tail = append(tail, s)
		} else {
			tail[n%MaxItems] = s
		}
		n++
	}
	item := func(s span) json.RawMessage {
		b := bytes.TrimLeft(raw[s.start:s.end], " \t\r\n,")
		return json.RawMessage(b)
	}
	keep := head
	if n > MaxItems {
		// The ring in order: oldest slot first.
		last := tail
		if len(tail) == MaxItems {
			last = make([]span, 0, len(tail))
			for i := range len(tail) {
				last = append(last, tail[(n+i)%MaxItems])
			}
		}
		if jsonItemDate(item(head[0])).Before(jsonItemDate(item(last[len(last)-1]))) {
			if len(last) < MaxItems { // fewer than 2×MaxItems: the newest span both lists
				keep = append(head[len(last):], last...)
			} else {
				keep = last
			}
		}
	}
	out := make([]json.RawMessage, 0, len(keep))
	for _, s := range keep {
		out = append(out, item(s))
	}
	return out, nil
}

// jsonItemDate is an item's date, the zero time when it has none.
func jsonItemDate(raw json.RawMessage) (t timeValue) {
	var f struct {
		Published, Modified json.RawMessage
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return t
	}
	f.Published, f.Modified = m["date_published"], m["date_modified"]
	for _, v := range []json.RawMessage{f.Published, f.Modified} {
		if d, ok := parseDate(jsonString(v)); ok {
			return timeValue{d.Unix(), true}
		}
	}
	return t
}

// timeValue is a date or none; none is before every date.
type timeValue struct {
	unix int64
	ok   bool
}

// Before reports whether t is known and earlier than u.
func (t timeValue) Before(u timeValue) bool { return t.ok && u.ok && t.unix < u.unix }

func jsonItem(f map[string]json.RawMessage) *gofeed.Item {
	it := &gofeed.Item{
		GUID:        jsonString(f["id"]),
		Title:       jsonTitle(f["title"]),
		Link:        jsonString(f["url"]),
		Content:     jsonString(f["content_html"]),
		Description: jsonString(f["summary"]),
		Published:   jsonString(f["date_published"]),
		Updated:     jsonString(f["date_modified"]),
	}
	if it.Content == "" {
		if text := jsonString(f["content_text"]); text != "" {
			it.Content = plainToHTML(text)
		}
	}
	if ext := jsonString(f["external_url"]); ext != "" {
		if it.Link == "" {
			it.Link = ext
		} else {
			it.Links = []string{it.Link, ext}
		}
	}
	if t, ok := parseDate(it.Published); ok {
		it.PublishedParsed = &t
	}
	if t, ok := parseDate(it.Updated); ok {
		it.UpdatedParsed = &t
	}
	it.Authors = jsonAuthors(f["authors"], f["author"])
	if len(it.Authors) > 0 {
		it.Author = it.Authors[0]
	}
	for _, tag := range jsonStrings(f["tags"]) {
		it.Categories = append(it.Categories, tag)
	}
	if img := app.FirstNonEmpty(jsonString(f["image"]), jsonString(f["banner_image"])); img != "" {
		it.Image = &gofeed.Image{URL: img}
	}
	for _, a := range jsonObjects(f["attachments"]) {
		u := jsonString(a["url"])
		if u == "" {
			continue
		}
		enc := &gofeed.Enclosure{URL: u, Type: jsonString(a["mime_type"])}
		if n := jsonString(a["size_in_bytes"]); n != "" && n != "0" {
			enc.Length = n
		}
		it.Enclosures = append(it.Enclosures, enc)
	}
	return it
}

// plainToHTML makes plain text into HTML: escaped, with its paragraphs and line breaks.
func plainToHTML(s string) string {
	var b strings.Builder
	for i, para := range strings.Split(strings.ReplaceAll(strings.TrimSpace(s), "\r\n", "\n"), "\n\n") {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("<p>")
		b.WriteString(strings.ReplaceAll(htmlEscaper.Replace(strings.TrimSpace(para)), "\n", "<br>"))
		b.WriteString("</p>")
	}
	return b.String()
}

var htmlEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")

// jsonString coerces a JSON value to a string: a string as it is, a number or boolean as
// written, anything else "".
func jsonString(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return ""
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case '{', '[', 'n':
		return ""
	default:
		if _, err := strconv.ParseFloat(string(raw), 64); err == nil || string(raw) == "true" || string(raw) == "false" {
			return string(raw)
		}
	}
	return ""
}

// jsonTitle is a JSON Feed title: plain text by the format, but feeds write HTML entities in
// it ("Task &amp; Sub Tasks", "I&#039;m"), which are decoded as other readers decode them; a
// "<template>" stays as written.
func jsonTitle(raw json.RawMessage) string {
	s := jsonString(raw)
	if strings.IndexByte(s, '&') < 0 {
		return s
	}
	return html.UnescapeString(s)
}

// jsonArray returns at most maxJSONArray elements of a JSON array; a single value that is not
// an array is a list of one.
func jsonArray(raw json.RawMessage) []json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if raw[0] != '[' {
		return []json.RawMessage{raw}
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	if _, err := d.Token(); err != nil {
		return nil
	}
	var out []json.RawMessage
	for len(out) < maxJSONArray && d.More() {
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			break
		}
		out = append(out, v)
	}
	return out
}

// jsonStrings coerces a list of strings, or one string, to strings (empty ones dropped).
func jsonStrings(raw json.RawMessage) []string {
	var out []string
	for _, v := range jsonArray(raw) {
		if s := strings.TrimSpace(jsonString(v)); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// jsonObjects returns the objects of a list of objects, or of one object.
func jsonObjects(raw json.RawMessage) []map[string]json.RawMessage {
	var out []map[string]json.RawMessage
	for _, v := range jsonArray(raw) {
		var m map[string]json.RawMessage
		if json.Unmarshal(v, &m) == nil && m != nil {
			out = append(out, m)
		}
	}
	return out
}

// jsonAuthors reads authors (JSON Feed 1.1) or else author (1.0): objects with a name, or
// plain strings, one or a list of them.
func jsonAuthors(raws ...json.RawMessage) []*gofeed.Person {
	for _, raw := range raws {
		var out []*gofeed.Person
		for _, v := range jsonArray(raw) {
			if s := strings.TrimSpace(jsonString(v)); s != "" {
				out = append(out, &gofeed.Person{Name: s})
				continue
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(v, &m) == nil {
				if name := strings.TrimSpace(app.FirstNonEmpty(jsonString(m["name"]), jsonString(m["email"]))); name != "" {
					out = append(out, &gofeed.Person{Name: name})
				}
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// parseRSSInJSON reads {"rss":{"channel":{"title":…,"item":[…]}}}.
func parseRSSInJSON(bud *budget, rss json.RawMessage) (*gofeed.Feed, error) {
	var r map[string]json.RawMessage
	if json.Unmarshal(rss, &r) != nil {
		return nil, errNotJSONFeed()
	}
	var ch map[string]json.RawMessage
	if json.Unmarshal(r["channel"], &ch) != nil || ch == nil {
		return nil, &Error{Kind: KindParse, Message: "The content is not a feed we can read: it is RSS written as JSON, without a channel."}
	}
	feed := &gofeed.Feed{FeedType: "rss-json", Title: jsonText(ch["title"]), Link: jsonText(ch["link"]), Description: jsonText(ch["description"])}
	raws, err := jsonItems(bud, ch["item"])
	if err != nil {
		return nil, err
	}
	for _, raw := range raws {
		var f map[string]json.RawMessage
		if json.Unmarshal(raw, &f) != nil {
			continue
		}
		it := &gofeed.Item{Title: jsonText(f["title"]), Link: jsonText(f["link"]), Description: jsonText(f["description"]),
			Content: jsonText(f["content:encoded"]), GUID: jsonText(f["guid"]), Published: jsonText(f["pubDate"])}
		if it.Published == "" {
			it.Published = jsonText(f["dc:date"])
		}
		if t, ok := parseDate(it.Published); ok {
			it.PublishedParsed = &t
		}
		if a := app.FirstNonEmpty(jsonText(f["author"]), jsonText(f["dc:creator"])); a != "" {
			it.Author = &gofeed.Person{Name: a}
		}
		for _, e := range jsonObjects(f["enclosure"]) {
			if u := app.FirstNonEmpty(jsonText(e["url"]), jsonText(e["@url"])); u != "" {
				it.Enclosures = append(it.Enclosures, &gofeed.Enclosure{URL: u, Type: app.FirstNonEmpty(jsonText(e["type"]), jsonText(e["@type"])),
					Length: app.FirstNonEmpty(jsonText(e["length"]), jsonText(e["@length"]))})
			}
		}
		feed.Items = append(feed.Items, it)
	}
	return feed, nil
}

// jsonText is jsonString that also reads the text of an XML element converted to JSON
// ({"#text": …} or {"_": …}, as converters write an element with attributes).
func jsonText(raw json.RawMessage) string {
	if s := jsonString(raw); s != "" {
		return s
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) == nil {
		return app.FirstNonEmpty(jsonString(m["#text"]), jsonString(m["_"]), jsonString(m["$t"]), jsonString(m["__text"]))
	}
	return ""
}

func describeJSONError(err error) string {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return "broken JSON at byte " + strconv.FormatInt(se.Offset, 10) + " (" + se.Error() + ")"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the JSON is cut short"
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "it is JSON, but not a JSON Feed (its top level is not an object)"
	}
	return "broken JSON"
}
