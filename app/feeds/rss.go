package feeds

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mmcdole/gofeed"
	"github.com/mmcdole/gofeed/rss"
	"golang.org/x/net/html"

	"github.com/morningdeck/morningdeck/app"
)

const acceptFeed = "application/rss+xml, application/atom+xml, application/feed+json, application/json;q=0.9, application/xml;q=0.9, text/xml;q=0.9, */*;q=0.5"

func (f *Fetcher) fetchFeed(ctx context.Context, req Request) (*Result, error) {
	resp, err := f.get(ctx, req.URL, acceptFeed, req.ETag, req.LastModified)
	if err != nil {
		return nil, err
	}
	defer resp.done() // the body's slot, held through the parse
	res := f.newResult(resp, req)
	if resp.notModified {
		res.CacheUntil = cacheUntil(resp.header, 0, f.clock.Now())
		return res, nil
	}
	_, cs := resp.contentType()
	feed, ttl, err := parseFeed(ctx, resp.body, cs)
	if err != nil {
		if looksHTML(resp.body) {
			page := parsePage(ctx, htmlToUTF8(resp.body, cs), resp.finalURL)
			if len(page.feeds) > 0 {
				return nil, parseError("this is a web page; it advertises a feed at %s.", page.feeds[0].URL)
			}
			return nil, parseError("this is a web page, not a feed.")
		}
		return nil, err
	}
	res.CacheUntil = cacheUntil(resp.header, ttl, f.clock.Now())
	f.fillFromFeed(res, feed, resp.finalURL)
	return res, nil
}

func (f *Fetcher) newResult(resp *response, req Request) *Result {
	res := &Result{
		NotModified:  resp.notModified,
		ETag:         resp.header.Get("ETag"),
		LastModified: resp.header.Get("Last-Modified"),
		FinalURL:     resp.finalURL.String(),
	}
	if resp.notModified {
		// A 304 need not repeat the validators.
		if res.ETag == "" {
			res.ETag = req.ETag
		}
		if res.LastModified == "" {
			res.LastModified = req.LastModified
		}
	}
	return res
}

// parseFeed parses RSS, RDF, Atom or JSON Feed bytes in any charset. ttl is the RSS <ttl>.
// The parse runs under a budget (deadline.go): past it, the error says the feed took too long.
func parseFeed(ctx context.Context, body []byte, httpCharset string) (feed *gofeed.Feed, ttl time.Duration, err error) {
	defer func() {
		if r := recover(); r != nil {
			feed, err = nil, &Error{Kind: KindParse, Message: "The content is not a feed we can read: the parser failed.", Err: fmt.Errorf("panic: %v", r)}
		}
	}()
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(body, utf8BOM), " \t\r\n")
	if len(trimmed) == 0 {
		return nil, 0, parseError("the response is empty.")
	}
	isJSON := trimmed[0] == '{'
	if !isJSON {
		body = trimHrefs(fixPreAtomNamespace(decodeBase64Elements(expandInternalEntities(dropBadCharRefs(dropControlChars(xmlToUTF8(body, httpCharset)))))))
		if body, err = boundXML(body); err != nil {
			return nil, 0, err
		}
	}
	bud := newBudget(ctx)
	if isJSON {
		feed, err = parseJSONFeed(bud, dropControlChars(toUTF8(body)))
		if err != nil {
			return nil, 0, err
		}
		return feed, 0, nil
	}
	feed, err = parseGofeedWithin(bud, body)
	if err != nil && bud.spent() {
		return nil, 0, bud.err("feed")
	}
	parsed := body
	if !isJSON && (err != nil || len(feed.Items) == 0 && hasItems(body)) {
		if fixed, ok := repairXML(body); ok {
			if again, err2 := parseGofeedWithin(bud, fixed); err2 == nil && (err != nil || len(again.Items) > len(feed.Items)) {
				feed, err, parsed = again, nil, fixed
			}
		}
	}
	if err == nil {
		noteAtomTitleTypes(feed, parsed)
		noteItemBodies(feed, parsed)
		if feed.FeedType == "rss" && feed.Author == nil && len(feed.Authors) == 0 {
			if a := rssChannelAuthor(parsed); a != "" {
				feed.Author = &gofeed.Person{Name: a}
			}
		}
	}
	if err != nil && bud.spent() {
		return nil, 0, bud.err("feed")
	}
	if err != nil {
		if errors.Is(err, gofeed.ErrFeedTypeNotDetected) {
			return nil, 0, &Error{Kind: KindParse, Message: "The content is not a feed we can read: it is neither RSS, Atom nor JSON Feed.", Err: err}
		}
		return nil, 0, &Error{Kind: KindParse, Message: "The content is not a feed we can read: " + describeParseError(err) + ".", Err: err}
	}
	if o, ok := feed.OriginalFeed().(*rss.Feed); ok {
		if mins, err := strconv.Atoi(strings.TrimSpace(o.TTL)); err == nil && mins > 0 {
			ttl = time.Duration(min(mins, 24*60)) * time.Minute
		}
	}
	return feed, ttl, nil
}

func parseGofeed(b []byte) (*gofeed.Feed, error) {
	return parseGofeedWithin(newBudget(context.Background()), b)
}

func parseGofeedWithin(bud *budget, b []byte) (*gofeed.Feed, error) {
	p := gofeed.NewParser()
	p.KeepOriginalFeed = true
	p.RSSTranslator = rssTranslator{}
	return p.Parse(bud.reader(bytes.NewReader(b)))
}

// rssTranslator is gofeed's RSS translation without its search of each item's HTML for a
// first image, which built a whole HTML tree of every item's content and description (a fifth
// of a first ingestion's allocations, issue 14): the image, used as the thumbnail when the
// feed names none, is found by firstImage with a tokenizer instead, the same one.
type rssTranslator struct{}

func (rssTranslator) Translate(feed any) (*gofeed.Feed, error) {
	t := gofeed.DefaultRSSTranslator{DisableContentImageScan: true}
	out, err := t.Translate(feed)
	if err != nil {
		return out, err
	}
	orig, _ := feed.(*rss.Feed)
	for i, it := range out.Items {
		if orig == nil || i >= len(orig.Items) || orig.Items[i] == nil {
			continue
		}
		// gofeed keeps the first of several dc:creator: all are the item's authors.
		if o := orig.Items[i]; o.Author == "" && o.DublinCoreExt != nil && len(o.DublinCoreExt.Author) == 0 && len(o.DublinCoreExt.Creator) > 1 {
			it.Authors = nil
			for _, c := range o.DublinCoreExt.Creator {
				it.Authors = append(it.Authors, &gofeed.Person{Name: rssPersonName(strings.TrimSpace(c))})
			}
			it.Author = it.Authors[0]
		}
		if it.Image != nil {
			continue
		}
		for _, doc := range []string{orig.Items[i].Content, orig.Items[i].Description} {
			if src, ok := firstImage(doc); ok {
				it.Image = &gofeed.Image{URL: src}
				break
			}
		}
	}
	return out, nil
}

// firstImage is the src of the first img element (with a src) of an HTML fragment, as the
// HTML parser would find it (text inside script, style, noscript and the like holds no
// elements; <image> is read as <img>), without building the tree.
func firstImage(doc string) (string, bool) {
	if !hasImageTag(doc) {
		return "", false // no tag named img or image: nothing to tokenize
	}
	z := html.NewTokenizer(strings.NewReader(doc))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return "", false
		case html.StartTagToken, html.SelfClosingTagToken:
			name, more := z.TagName()
			if (string(name) != "img" && string(name) != "image") || !more {
				continue
			}
			for more {
				var k, v []byte
				k, v, more = z.TagAttr()
				if string(k) == "src" {
					return string(v), true
				}
			}
		}
	}
}

// hasImageTag reports whether doc has "<img" or "<image" in any case: a start tag's name
// follows its "<" at once, so without it the fragment has no img element.
func hasImageTag(doc string) bool {
	for i := strings.IndexByte(doc, '<'); i >= 0; {
		rest := doc[i+1:]
		if len(rest) >= 3 && (rest[0]|0x20) == 'i' && (rest[1]|0x20) == 'm' && ((rest[2]|0x20) == 'g' || (rest[2]|0x20) == 'a') {
			return true
		}
		j := strings.IndexByte(rest, '<')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

func describeParseError(err error) string {
	var se *xml.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("broken XML at line %d (%s)", se.Line, se.Msg)
	}
	return app.Shorten(err.Error(), 200)
}

// looksHTML reports whether a body is an HTML page.
func looksHTML(b []byte) bool {
	head := bytes.ToLower(b[:min(len(b), 1024)])
	return bytes.Contains(head, []byte("<html")) || bytes.Contains(head, []byte("<!doctype html"))
}

// fillFromFeed maps a parsed feed onto res.
func (f *Fetcher) fillFromFeed(res *Result, feed *gofeed.Feed, final *url.URL) {
	res.Title = app.Shorten(titleText(feed.Title, literalTitle(feed, feed.Custom)), maxTitleRunes)
	base := final
	if site := absoluteHTTP(final, feed.Link); site != "" {
		res.SiteURL = site
		base, _ = url.Parse(site)
	} else {
		for _, l := range feed.Links {
			if site := absoluteHTTP(final, l); site != "" && site != final.String() {
				res.SiteURL = site
				base, _ = url.Parse(site)
				break
			}
		}
	}
	if res.SiteURL == "" {
		res.SiteURL = (&url.URL{Scheme: final.Scheme, Host: final.Host, Path: "/"}).String()
	}
	res.Author = app.Shorten(PlainText(personName(feed.Author, feed.Authors)), maxAuthorRunes)
	if res.Author == "" && feed.DublinCoreExt != nil {
		res.Author = app.Shorten(PlainText(joinNames(feed.DublinCoreExt.Creator)), maxAuthorRunes)
	}
	now := f.clock.Now()
	// An RSS guid is the item's permalink unless it says isPermaLink="false".
	var rssItems []*rss.Item
	if o, ok := feed.OriginalFeed().(*rss.Feed); ok && len(o.Items) == len(feed.Items) {
		rssItems = o.Items
	}
	items := make([]app.Item, 0, min(len(feed.Items), MaxItems)) // an Item is large: no regrowing
	for i, it := range feed.Items {
		if len(items) >= MaxItems {
			break
		}
		if it == nil {
			continue
		}
		permalink := ""
		if rssItems != nil && rssItems[i] != nil && rssItems[i].GUID != nil && !strings.EqualFold(strings.TrimSpace(rssItems[i].GUID.IsPermalink), "false") {
			permalink = rssItems[i].GUID.Value
		}
		item, ok := feedItem(it, permalink, base, now, literalTitle(feed, it.Custom))
		if !ok {
			continue
		}
		if item.Author == "" {
			item.Author = res.Author // the feed's author is its items' unless they name another
		}
		items = append(items, item)
	}
	res.Items, res.RepeatedGUIDs = dedupe(items)
}

// personName is the names (or else the e-mail addresses) of the persons given, each once,
// joined by commas: "Alice, Bob".
func personName(p *gofeed.Person, more []*gofeed.Person) string {
	var names []string
	for _, q := range append([]*gofeed.Person{p}, more...) {
		if q != nil {
			names = append(names, app.FirstNonEmpty(q.Name, q.Email))
		}
	}
	return joinNames(names)
}

// joinNames joins the distinct non-empty names, in their order, with commas.
func joinNames(names []string) string {
	var out []string
	for _, n := range names {
		if n = collapseSpace(n); n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return strings.Join(out, ", ")
}

// feedItem maps one entry; ok is false for an entry with nothing in it, not even an id. literal says its
// title is plain text by its format.
func feedItem(it *gofeed.Item, permalink string, base *url.URL, now time.Time, literal bool) (app.Item, bool) {
	var item app.Item
	raw := it.Content
	if strings.TrimSpace(raw) == "" {
		raw = it.Custom[bodyKey] // xhtml:body, body, fullitem
	}
	if strings.TrimSpace(raw) == "" {
		raw = it.Description
	}
	encs, thumb, mediaDesc := mediaOf(it, base)
	if strings.TrimSpace(raw) == "" {
		raw = mediaDesc
	}
	raw = strings.TrimSpace(raw)

	link := absoluteHTTP(base, origLink(it))
	if link == "" {
		link = absoluteHTTP(base, it.Link)
	}
	for _, l := range it.Links {
		if link != "" {
			break
		}
		link = absoluteHTTP(base, l)
	}
	if link == "" {
		link = absoluteHTTP(base, atomLink(it))
	}
	if link == "" && strings.Contains(permalink, "://") {
		link = absoluteHTTP(nil, permalink)
	}
	item.Title = app.Shorten(titleText(it.Title, literal), maxTitleRunes)
	if item.Title == "" {
		item.Title = app.Shorten(PlainText(truncateUTF8(raw, MaxContentBytes)), 100)
	}
	if item.Title == "" {
		item.Title = app.Shorten(collapseSpace(enclosureTitle(encs)), 100)
	}
	if link == "" && len(encs) > 0 {
		link = encs[0].URL // an audio-only or image-only entry: its file is its link
	}
	untitled := item.Title == ""
	if untitled && (raw != "" && Sanitize(raw, "") != "" || strings.TrimSpace(it.Title) != "" && Sanitize(it.Title, "") != "") {
		item.Title = "Untitled" // content without text (a picture): kept, under a plain name
	}
	if item.Title == "" && link == "" && strings.TrimSpace(it.GUID) != "" {
		item.Title = "Untitled" // only an id (JSON Feed allows it): kept, as other readers keep it
	}
	if item.Title == "" && link == "" {
		return item, false
	}
	item.Link = link

	item.GUID = strings.TrimSpace(it.GUID)
	if item.GUID == "" {
		item.GUID = link
	}
	item.GUID = boundGUID(item.GUID)
	if item.GUID == "" {
		date := it.Published
		if date == "" {
			date = it.Updated
		}
		key := item.Title + "|" + date
		if untitled {
			key += "|" + truncateUTF8(raw, 4096) // untitled items differ by their content
		}
		sum := sha256.Sum256([]byte(key))
		item.GUID = hex.EncodeToString(sum[:])
	}

	item.Author = app.Shorten(PlainText(personName(it.Author, it.Authors)), maxAuthorRunes)
	if item.Author == "" && it.DublinCoreExt != nil {
		item.Author = app.Shorten(PlainText(joinNames(it.DublinCoreExt.Creator)), maxAuthorRunes)
	}

	t, written := itemDate(it)
	item.PublishedAt = cleanDate(t, now)
	extra := map[string]any{}
	if item.PublishedAt == nil {
		extra[ExtraDateMissing] = true
		if written != "" {
			extra[ExtraDateUnread] = app.Shorten(collapseSpace(written), 100)
		}
	}
	if len(encs) > 0 {
		extra[ExtraEnclosures] = encs
	}
	if thumb != "" {
		extra[ExtraThumbnail] = thumb
	}
	if len(extra) > 0 {
		item.Extra = extra
	}

	contentBase := ""
	if link != "" {
		contentBase = link
	} else if base != nil {
		contentBase = base.String()
	}
	item.RawContent, item.CleanContent = sanitizeContent(raw, contentBase)
	return item, true
}

// itemDate is an item's date: published, else updated, read by parseDate, which knows more
// forms and zones than gofeed (MET and MEST are not UTC) and never guesses; gofeed's reading
// is not used (on the corpora it read no date parseDate does not). written is the date as the
// feed wrote it, for an item whose date could not be read.
func itemDate(it *gofeed.Item) (t *time.Time, written string) {
	for _, s := range []string{it.Published, it.Updated} {
		if d, ok := parseDate(s); ok {
			return &d, s
		}
	}
	return nil, app.FirstNonEmpty(it.Published, it.Updated)
}

// cleanDate drops garbage dates (before 1970 or unparseable, which gofeed gives as nil) and
// clamps future ones to now, the time of the fetch: items rank by coalesce(published_at,
// created_at), so an item dated ahead would otherwise sit on top of every list until then.
// An item dated in the future thus ranks like an undated one that arrived in this fetch.
func cleanDate(t *time.Time, now time.Time) *time.Time {
	if t == nil || t.IsZero() || t.Year() < 1970 {
		return nil
	}
	d := t.UTC()
	if d.After(now) {
		d = now.UTC()
	}
	return &d
}

// boundGUID stores a GUID longer than maxGUIDBytes as its SHA-256: it is a key, not text.
func boundGUID(g string) string {
	if len(g) <= maxGUIDBytes {
		return g
	}
	sum := sha256.Sum256([]byte(g))
	return "sha256:" + hex.EncodeToString(sum[:])
}
