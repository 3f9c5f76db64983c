package feeds_test

// Real-world feed fidelity (issue 15): every shape a reader meets comes out whole.

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

func fetchBody(t *testing.T, ct, body string) *feeds.Result {
	t.Helper()
	srv := serveBytes(t, ct, []byte(body))
	return fetch(t, feeds.New(feeds.Options{Clock: sqlitetest.NewClock(hostileNow)}), srv.URL+"/feed", app.SourceRSS)
}

func TestYouTubeMediaGroup(t *testing.T) {
	srv := serveBytes(t, "application/atom+xml", readFile(t, filepath.Join(corpusDir(t, "feeds"), "youtube_atom.xml")))
	res := fetch(t, feeds.New(feeds.Options{}), srv.URL+"/feed", app.SourceRSS)
	it := res.Items[0]
	if it.Title != "The Google app: Questions Title" || it.Link != "http://www.youtube.com/watch?v=5shykyfmb28" {
		t.Fatalf("%q %q", it.Title, it.Link)
	}
	if it.Thumbnail() != "https://i2.ytimg.com/vi/5shykyfmb28/hqdefault.jpg" {
		t.Errorf("thumbnail %q", it.Thumbnail())
	}
	if it.Text == "" || it.CleanContent == "" {
		t.Errorf("the media:description was not kept as the content: %q", it.CleanContent)
	}
	if encs := it.Enclosures(); len(encs) != 1 || !strings.HasPrefix(encs[0].URL, "https://www.youtube.com/v/5shykyfmb28") {
		t.Errorf("enclosures %+v", encs)
	}
}

func TestPodcastEnclosuresAndMediaOnlyEntries(t *testing.T) {
	res := fetchBody(t, "application/rss+xml", `<?xml version="1.0"?><rss version="2.0" xmlns:itunes="http://www.itunes.com/dtds/podcast-1.0.dtd" xmlns:media="http://search.yahoo.com/mrss/"><channel><title>Pod</title><link>https://pod.example/</link>
<item><title>Episode 1</title><link>https://pod.example/1</link><description>Show notes</description><enclosure url="https://cdn.pod.example/ep1.mp3" length="12345678" type="audio/mpeg"/><itunes:image href="https://pod.example/ep1.jpg"/></item>
<item><enclosure url="https://cdn.pod.example/Episode%202.m4a" length="99" type="audio/x-m4a"/><guid isPermaLink="false">ep2</guid></item>
<item><media:content url="https://img.pod.example/photo.jpg" medium="image"/></item>
</channel></rss>`)
	if len(res.Items) != 3 {
		t.Fatalf("%d items: media-only entries were dropped", len(res.Items))
	}
	ep1 := res.Items[0].Enclosures()
	if len(ep1) != 1 || ep1[0] != (feeds.Enclosure{URL: "https://cdn.pod.example/ep1.mp3", Type: "audio/mpeg", Length: 12345678, Medium: "audio"}) {
		t.Errorf("enclosure %+v", ep1)
	}
	if res.Items[0].Thumbnail() != "https://pod.example/ep1.jpg" {
		t.Errorf("thumbnail %q", res.Items[0].Thumbnail())
	}
	if it := res.Items[1]; it.Title != "Episode 2.m4a" || it.Link != "https://cdn.pod.example/Episode%202.m4a" || it.GUID != "ep2" {
		t.Errorf("audio-only entry: %q %q %q", it.Title, it.Link, it.GUID)
	}
	if it := res.Items[2]; it.Link != "https://img.pod.example/photo.jpg" || it.Thumbnail() != it.Link {
		t.Errorf("image-only entry: %q %q", it.Link, it.Thumbnail())
	}
}

func TestTitlesKeptLiterally(t *testing.T) {
	atom := fetchBody(t, "application/atom+xml", `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title type="text">A &lt;b&gt; feed</title>
<entry><id>1</id><title>How the &lt;video&gt; element works</title><link href="https://e.example/1"/></entry>
<entry><id>2</id><title type="html">&lt;b&gt;Bold&lt;/b&gt; news</title><link href="https://e.example/2"/></entry>
<entry><id>3</id><title type="text">&lt;template&gt;</title><link href="https://e.example/3"/></entry>
</feed>`)
	if got := titlesOf(atom); got != "How the <video> element works|Bold news|<template>" || atom.Title != "A <b> feed" {
		t.Errorf("Atom titles %q, feed %q", got, atom.Title)
	}
	json := fetchBody(t, "application/feed+json", `{"version":"https://jsonfeed.org/version/1.1","title":"J","items":[
{"id":"1","title":"Templates: <template> and <slot>","url":"https://e.example/1"},{"id":"2","title":"<slot>","url":"https://e.example/2"}]}`)
	if got := titlesOf(json); got != "Templates: <template> and <slot>|<slot>" {
		t.Errorf("JSON Feed titles %q", got)
	}
	rss := fetchBody(t, "application/rss+xml", `<?xml version="1.0"?><rss version="2.0"><channel><title>R</title>
<item><title>How the &lt;video&gt; element works</title><link>https://e.example/1</link></item>
<item><title>&lt;b&gt;Bold&lt;/b&gt; &lt;script&gt;alert(1)&lt;/script&gt;news</title><link>https://e.example/2</link></item>
<item><title>Line&lt;br&gt;break and &lt;a href="x"&gt;link&lt;/a&gt;</title><link>https://e.example/3</link></item>
<item><title>if a &lt; b &amp;&amp; c &gt; d</title><link>https://e.example/4</link></item>
</channel></rss>`)
	if got := titlesOf(rss); got != "How the <video> element works|Bold news|Line break and link|if a < b && c > d" {
		t.Errorf("RSS titles %q", got)
	}
}

func titlesOf(res *feeds.Result) string {
	var t []string
	for _, it := range res.Items {
		t = append(t, it.Title)
	}
	return strings.Join(t, "|")
}

func TestFeedAuthorInherited(t *testing.T) {
	for name, c := range map[string]struct{ ct, body string }{
		"Atom": {"application/atom+xml", `<feed xmlns="http://www.w3.org/2005/Atom"><title>A</title><author><name>Ann Feed</name></author>
<entry><id>1</id><title>One</title><link href="https://e.example/1"/></entry><entry><id>2</id><title>Two</title><author><name>Bob</name></author><link href="https://e.example/2"/></entry></feed>`},
		"JSON Feed": {"application/feed+json", `{"version":"https://jsonfeed.org/version/1.1","title":"J","authors":[{"name":"Ann Feed"}],"items":[{"id":"1","title":"One"},{"id":"2","title":"Two","authors":[{"name":"Bob"}]}]}`},
		"RDF": {"application/rdf+xml", `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel rdf:about="https://e.example/"><title>R</title><link>https://e.example/</link><dc:creator>Ann Feed</dc:creator></channel>
<item rdf:about="https://e.example/1"><title>One</title><link>https://e.example/1</link></item><item rdf:about="https://e.example/2"><title>Two</title><link>https://e.example/2</link><dc:creator>Bob</dc:creator></item></rdf:RDF>`},
	} {
		res := fetchBody(t, c.ct, c.body)
		if len(res.Items) != 2 || res.Author != "Ann Feed" || res.Items[0].Author != "Ann Feed" || res.Items[1].Author != "Bob" {
			t.Errorf("%s: feed author %q, items %+v", name, res.Author, res.Items)
		}
	}
}

func TestTolerantJSONFeed(t *testing.T) {
	res := fetchBody(t, "application/feed+json", `{"version":"https://jsonfeed.org/version/1","title":"Loose","author":"Ann","items":[
{"id":1,"title":"Tags as a string","tags":"go","url":"https://e.example/1","date_published":"2024-01-15T10:00:00+01:00"},
{"id":"2","title":"Author as a string","author":"Bob","url":"https://e.example/2"},
{"id":"3","title":"Authors as an object","authors":{"name":"Cy"},"url":"https://e.example/3","attachments":{"url":"https://e.example/3.mp3","mime_type":"audio/mpeg","size_in_bytes":"42"}},
"not an item",
{"id":"4","content_text":"Only text <here>"}]}`)
	if got := titlesOf(res); got != "Tags as a string|Author as a string|Authors as an object|Only text <here>" {
		t.Fatalf("titles %q", got)
	}
	if res.Items[0].GUID != "1" || res.Items[0].Author != "Ann" || res.Items[1].Author != "Bob" || res.Items[2].Author != "Cy" {
		t.Errorf("ids and authors: %+v", res.Items)
	}
	if p := res.Items[0].PublishedAt; p == nil || !p.Equal(time.Date(2024, 1, 15, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("date %v", p)
	}
	if e := res.Items[2].Enclosures(); len(e) != 1 || e[0].Length != 42 || e[0].Medium != "audio" {
		t.Errorf("attachments %+v", e)
	}
	if c := res.Items[3].CleanContent; !strings.Contains(c, "Only text &lt;here&gt;") {
		t.Errorf("content_text not escaped: %q", c)
	}

	rssJSON := fetchBody(t, "application/json", `{"rss":{"channel":{"title":"In JSON","link":"https://e.example/","item":[{"title":"One","link":"https://e.example/1","pubDate":"Mon, 15 Jan 2024 10:00:00 GMT"},{"title":"Two","link":"https://e.example/2"}]}}}`)
	if rssJSON.Title != "In JSON" || titlesOf(rssJSON) != "One|Two" || rssJSON.Items[0].PublishedAt == nil {
		t.Errorf("RSS in JSON: %q %q", rssJSON.Title, titlesOf(rssJSON))
	}

	for _, body := range []string{`{"error":"not found"}`, `{"data":{"html":"<html><body><a href='/x'>a link in JSON</a><div>x</div></body></html>"}}`, `[1,2]`} {
		srv := serveBytes(t, "application/json", []byte(body))
		f := feeds.New(feeds.Options{})
		if _, err := f.Fetch(context.Background(), feeds.Request{URL: srv.URL}); err == nil {
			t.Errorf("%s read as a feed", body)
		}
		if det, err := f.Detect(context.Background(), srv.URL); err == nil {
			t.Errorf("%s detected as %s", body, det.Type)
		}
		if _, err := f.Fetch(context.Background(), feeds.Request{URL: srv.URL, Type: app.SourceWeb}); err == nil {
			t.Errorf("%s read as a web page", body)
		}
	}
}

func TestLinksFromExtensionsAndUndatedItems(t *testing.T) {
	res := fetchBody(t, "application/rss+xml", `<?xml version="1.0"?><rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom" xmlns:feedburner="http://rssnamespace.org/feedburner/ext/1.0"><channel><title>L</title>
<item><title>Burned</title><link>http://feeds.feedburner.com/~r/x/~3/abc/</link><feedburner:origLink>https://e.example/real</feedburner:origLink><pubDate>Mon, 26 January 2004 16:31:00 PT</pubDate></item>
<item><title>Atom link only</title><atom:link href="https://e.example/atom-only" rel="alternate"/><pubDate>yesterday-ish</pubDate></item>
<item><title>No date</title><link>https://e.example/nodate</link></item>
</channel></rss>`)
	if res.Items[0].Link != "https://e.example/real" || res.Items[1].Link != "https://e.example/atom-only" {
		t.Errorf("links %q %q", res.Items[0].Link, res.Items[1].Link)
	}
	if p := res.Items[0].PublishedAt; p == nil || !p.Equal(time.Date(2004, 1, 27, 0, 31, 0, 0, time.UTC)) {
		t.Errorf("PT date %v", p)
	}
	for i, want := range []bool{false, true, true} {
		if got := res.Items[i].DateMissing(); got != want || (res.Items[i].PublishedAt == nil) != want {
			t.Errorf("item %d: date missing %v, published %v", i, got, res.Items[i].PublishedAt)
		}
	}
	if res.Items[1].Extra[feeds.ExtraDateUnread] != "yesterday-ish" {
		t.Errorf("unread date %v", res.Items[1].Extra)
	}
}

// TestInternalEntities: entities declared in the document are expanded; anything that could
// nest, reach outside or blow up is still refused.
func TestInternalEntities(t *testing.T) {
	res := fetchBody(t, "application/rss+xml", `<?xml version="1.0"?>
<!DOCTYPE rss [
  <!-- HTML's names -->
  <!ENTITY nbsp "&#160;">
  <!ENTITY eacute '&#233;'>
  <!ENTITY site "Example News">
]>
<rss version="2.0"><channel><title>&site;</title><item><title>Caf&eacute;&nbsp;time &amp; &unknown; more</title><link>https://e.example/1</link></item></channel></rss>`)
	if res.Title != "Example News" || len(res.Items) != 1 || res.Items[0].Title != "Café time & &unknown; more" {
		t.Errorf("title %q, items %+v", res.Title, res.Items)
	}
	for name, doctype := range map[string]string{
		"nested":    `<!DOCTYPE rss [<!ENTITY a "x"><!ENTITY b "&a;&a;">]>`,
		"external":  `<!DOCTYPE rss [<!ENTITY x SYSTEM "file:///etc/passwd">]>`,
		"parameter": `<!DOCTYPE rss [<!ENTITY % p "x"> %p;]>`,
		"too long":  `<!DOCTYPE rss [<!ENTITY a "` + strings.Repeat("x", 2000) + `">]>`,
	} {
		srv := serveBytes(t, "application/rss+xml", []byte(`<?xml version="1.0"?>`+doctype+`<rss version="2.0"><channel><title>&a;</title></channel></rss>`))
		_, err := feeds.New(feeds.Options{}).Fetch(context.Background(), feeds.Request{URL: srv.URL})
		if fe, ok := err.(*feeds.Error); !ok || !strings.Contains(fe.Message, "declares XML entities") {
			t.Errorf("%s: got %v", name, err)
		}
	}
	// Expansion is bounded: a 4 MB document of references to a 1 KB entity grows by at most 1 MiB, else is refused.
	big := `<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY k "` + strings.Repeat("k", 1000) + `">]><rss version="2.0"><channel><title>B</title><item><title>` +
		strings.Repeat("&k;", 4<<20/3) + `</title></item></channel></rss>`
	srv := serveBytes(t, "application/rss+xml", []byte(big))
	if _, err := feeds.New(feeds.Options{}).Fetch(context.Background(), feeds.Request{URL: srv.URL}); err == nil {
		t.Error("an expansion past the limit was accepted")
	}
}

// TestDiscoveryPrefersThePagesOwnFeed: a Wikipedia article advertises the site's recent
// changes first and its own history second; the article's feed comes first, and a link
// titled "RSS" names no source.
func TestDiscoveryPrefersThePagesOwnFeed(t *testing.T) {
	page := `<!DOCTYPE html><html><head><title>Go (programming language) - Wikipedia</title>
<link rel="alternate" type="application/atom+xml" title="Wikipedia (en)" href="/w/index.php?title=Special:RecentChanges&amp;feed=atom">
<link rel="alternate" type="application/atom+xml" title="Go (programming language) - Revision history" href="/w/index.php?title=Go_(programming_language)&amp;action=history&amp;feed=atom">
</head><body><p>Go is a language.</p></body></html>`
	srv := serveBytes(t, "text/html", []byte(page))
	det, err := feeds.New(feeds.Options{}).Detect(context.Background(), srv.URL+"/wiki/Go_(programming_language)")
	if err != nil || len(det.Feeds) != 2 {
		t.Fatalf("%+v %v", det, err)
	}
	if !strings.Contains(det.Feeds[0].URL, "action=history") {
		t.Errorf("first feed %s, want the article's own", det.Feeds[0].URL)
	}
	blog := `<html><head><title>My Blog</title><link rel="alternate" type="application/rss+xml" title="RSS" href="/feed.xml">
<link rel="alternate" type="application/rss+xml" title="Comments Feed" href="/comments/feed"></head><body>x</body></html>`
	srv = serveBytes(t, "text/html", []byte(blog))
	det, err = feeds.New(feeds.Options{}).Detect(context.Background(), srv.URL+"/")
	if err != nil || len(det.Feeds) != 2 || det.Feeds[0].Title != "" || !strings.HasSuffix(det.Feeds[0].URL, "/feed.xml") || det.Feeds[1].Title != "Comments Feed" {
		t.Errorf("%+v %v", det, err)
	}
}
