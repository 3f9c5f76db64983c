package feeds_test

// Hostile cases about the items themselves: dates, duplicates, relative links, sanitizing.

import (
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// hostileDateCases are the cases about dates.
func hostileDateCases() []hostileCase {
	now := hostileNow.Format(time.RFC3339)
	return []hostileCase{
		{name: "garbage dates are unknown, never year 1",
			serve: serveString(rssType, rssDoc("",
				rssItem("words", "https://example.com/1", "<pubDate>not a date</pubDate>"),
				rssItem("zeros", "https://example.com/2", "<pubDate>0000-00-00T00:00:00Z</pubDate>"),
				rssItem("year one", "https://example.com/3", "<pubDate>0001-01-01T00:00:00Z</pubDate>"),
				rssItem("before 1970", "https://example.com/4", "<pubDate>1969-12-31T23:59:59Z</pubDate>"),
				rssItem("impossible", "https://example.com/5", "<pubDate>Mon, 32 Foo 99999 25:61:61 GMT</pubDate>"),
				rssItem("empty", "https://example.com/6", "<pubDate></pubDate>"),
				rssItem("atom-ish", "https://example.com/7", "<pubDate>2026-13-45T99:99:99+25:00</pubDate>"))),
			check: wantDates("nil", "nil", "nil", "nil", "nil", "nil", "nil")},
		{name: "future dates are clamped to the time of the fetch",
			serve: serveString(rssType, rssDoc("",
				rssItem("far", "https://example.com/1", "<pubDate>Tue, 01 Jan 2999 00:00:00 GMT</pubDate>"),
				rssItem("an hour ahead", "https://example.com/2", "<pubDate>"+hostileNow.Add(time.Hour).Format(time.RFC1123Z)+"</pubDate>"),
				rssItem("year 9999", "https://example.com/3", "<pubDate>9999-12-31T23:59:59Z</pubDate>"),
				rssItem("a minute ago", "https://example.com/4", "<pubDate>"+hostileNow.Add(-time.Minute).Format(time.RFC1123Z)+"</pubDate>"))),
			check: wantDates(now, now, now, hostileNow.Add(-time.Minute).Format(time.RFC3339))},
		{name: "dates in other zones come out in UTC",
			serve: serveString(rssType, rssDoc("",
				rssItem("paris", "https://example.com/1", "<pubDate>Sun, 01 Mar 2026 12:30:00 +0100</pubDate>"),
				rssItem("tokyo", "https://example.com/2", "<pubDate>Sun, 01 Mar 2026 20:00:00 +0900</pubDate>"))),
			check: wantDates("2026-03-01T11:30:00Z", "2026-03-01T11:00:00Z")},
		{name: "Atom dates, published or else updated, follow the same rules",
			serve: serveString("application/atom+xml", atomDoc("", "",
				`<entry><title>pub</title><id>1</id><published>2026-02-01T10:00:00+02:00</published><updated>2026-02-02T00:00:00Z</updated></entry>`,
				`<entry><title>upd</title><id>2</id><updated>2999-01-01T00:00:00Z</updated></entry>`,
				`<entry><title>bad</title><id>3</id><updated>yesterday</updated></entry>`)),
			check: wantDates("2026-02-01T08:00:00Z", now, "nil")},
	}
}

// hostileDuplicateCases are the cases about duplicates.
func hostileDuplicateCases() []hostileCase {
	return []hostileCase{
		{name: "duplicate guids with the same link in one feed are one item, the first",
			serve: serveString(rssType, rssDoc("",
				rssItem("First", "https://example.com/1", "<guid>same</guid>"),
				rssItem("Second", "https://example.com/1", "<guid>same</guid>"),
				rssItem("Third", "https://example.com/1", "<guid>  same  </guid>"),
				rssItem("Other", "https://example.com/4", "<guid>other</guid>"))),
			check: func(t *testing.T, r hostileResult, base string) {
				wantTitles("First", "Other")(t, r, base)
				if r.res.RepeatedGUIDs || r.res.Items[0].GUID != "same" {
					t.Errorf("GUID %q, repeated %v", r.res.Items[0].GUID, r.res.RepeatedGUIDs)
				}
			}},
		{name: "one guid given to posts with different links keeps each post, with the guid for the app to key (issue 15)",
			serve: serveString(rssType, rssDoc("",
				rssItem("First", "https://example.com/1", "<guid>same</guid>"),
				rssItem("Second", "https://example.com/2", "<guid>same</guid>"),
				rssItem("Second again", "https://example.com/2", "<guid>same</guid>"),
				rssItem("Other", "https://example.com/4", "<guid>other</guid>"))),
			check: func(t *testing.T, r hostileResult, base string) {
				wantTitles("First", "Second", "Other")(t, r, base)
				if !r.res.RepeatedGUIDs || r.res.Items[0].GUID != "same" || r.res.Items[1].GUID != "same" || r.res.Items[2].GUID != "other" {
					t.Errorf("repeated %v, GUIDs %q %q %q", r.res.RepeatedGUIDs, r.res.Items[0].GUID, r.res.Items[1].GUID, r.res.Items[2].GUID)
				}
				keyed := app.IdentifyItems(r.res.Items, nil)
				if len(keyed) != 3 || keyed[0].GUID != app.IdentityKey("same", "https://example.com/1") ||
					keyed[1].GUID != app.IdentityKey("same", "https://example.com/2") || keyed[2].GUID != "other" {
					t.Errorf("keyed by the app: %+v", keyed)
				}
			}},
		{name: "items without guids sharing a link are one item",
			serve: serveString(rssType, rssDoc("",
				rssItem("A", "https://example.com/same", ""), rssItem("B", "https://example.com/same", ""), rssItem("C", "https://example.com/c", ""))),
			check: wantTitles("A", "C")},
		{name: "items with neither guid nor link are one per title and date",
			serve: serveString(rssType, rssDoc("",
				"<item><title>Same</title><pubDate>Sun, 01 Mar 2026 10:00:00 GMT</pubDate></item>",
				"<item><title>Same</title><pubDate>Sun, 01 Mar 2026 10:00:00 GMT</pubDate></item>",
				"<item><title>Same</title><pubDate>Sun, 01 Mar 2026 11:00:00 GMT</pubDate></item>")),
			check: func(t *testing.T, r hostileResult, base string) {
				if len(r.res.Items) != 2 {
					t.Fatalf("%d items, want 2", len(r.res.Items))
				}
			}},
		{name: "duplicate ids in an Atom feed are one entry",
			serve: serveString("application/atom+xml", atomDoc("", "",
				`<entry><title>First</title><id>urn:x</id></entry>`, `<entry><title>Again</title><id>urn:x</id></entry>`)),
			check: wantTitles("First")},
		{name: "duplicate ids in a JSON Feed are one item",
			serve: serve("application/feed+json", jsonDoc(map[string]any{"id": "1", "title": "First"}, map[string]any{"id": "1", "title": "Again"})),
			check: wantTitles("First")},
		{name: "the same link twice on a web page is one item", typ: app.SourceWeb,
			serve: serveString("text/html", `<html><body><h2><a href="/news/a">Story A</a></h2><h2><a href="/news/a#x">Story A again</a></h2></body></html>`),
			check: func(t *testing.T, r hostileResult, base string) {
				if len(r.res.Items) != 1 {
					t.Fatalf("%+v", r.res.Items)
				}
			}},
	}
}

// hostileLinkCases are the cases about relative links.
func hostileLinkCases() []hostileCase {
	return []hostileCase{
		{name: "relative links in RSS resolve against the channel link, content against the item link",
			serve: serveString(rssType, rssDoc(`<link>https://site.example/blog/</link>`,
				rssItem("Rel", "post/1", `<description>&lt;a href="../other"&gt;o&lt;/a&gt; &lt;img src="/i.png"&gt;</description>`),
				rssItem("Root", "/post/2", ""),
				rssItem("Scheme-relative", "//cdn.example/post/3", ""))),
			check: func(t *testing.T, r hostileResult, base string) {
				wantLinks("https://site.example/blog/post/1", "https://site.example/post/2", "https://cdn.example/post/3")(t, r, base)
				c := r.res.Items[0].CleanContent
				for _, want := range []string{`href="https://site.example/blog/other"`, `src="https://site.example/i.png"`} {
					if !strings.Contains(c, want) {
						t.Errorf("content lacks %s: %s", want, c)
					}
				}
			}},
		{name: "relative links in a feed without a site link resolve against the feed's address",
			path:  "/feeds/main.xml",
			serve: serveString(rssType, rssDoc("", rssItem("Rel", "post/1", ""), rssItem("Root", "/post/2", ""))),
			check: wantLinks("BASE/feeds/post/1", "BASE/post/2")},
		{name: "Atom xml:base on the feed and on an entry is honoured",
			serve: serveString("application/atom+xml", atomDoc(` xml:base="https://base.example/a/"`, `<link href="/"/>`,
				`<entry><title>Feed base</title><id>1</id><link href="one"/></entry>`,
				`<entry xml:base="https://other.example/b/"><title>Entry base</title><id>2</id><link href="two"/></entry>`,
				`<entry xml:base="sub/"><title>Relative base</title><id>3</id><link href="three"/></entry>`)),
			check: wantLinks("https://base.example/a/one", "https://other.example/b/two", "https://base.example/a/sub/three")},
		{name: "a relative xml:base resolves against the feed's address", path: "/x/atom.xml",
			serve: serveString("application/atom+xml", atomDoc(` xml:base="/blog/"`, "", `<entry><title>T</title><id>1</id><link href="post"/></entry>`)),
			check: wantLinks("BASE/blog/post")},
		{name: "javascript:, data: and mailto: links are dropped, the items kept",
			serve: serveString(rssType, rssDoc(`<link>https://site.example/</link>`,
				rssItem("JS", "javascript:alert(1)", ""), rssItem("Data", "data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;", ""), rssItem("Mail", "mailto:a@b.example", ""))),
			check: func(t *testing.T, r hostileResult, base string) {
				wantTitles("JS", "Data", "Mail")(t, r, base)
				wantLinks("", "", "")(t, r, base)
			}},
		{name: "relative links in a JSON Feed resolve against its home page",
			serve: serveString("application/feed+json", `{"version":"https://jsonfeed.org/version/1.1","title":"J","home_page_url":"https://site.example/blog/","items":[{"id":"1","title":"T","url":"posts/1"}]}`),
			check: wantLinks("https://site.example/blog/posts/1")},
		{name: "relative links on a web page resolve against its <base href>", typ: app.SourceWeb, path: "/section/index.html",
			serve: serveString("text/html", `<html><head><base href="/archive/"></head><body><h2><a href="2026/story">A story</a></h2><h2><a href="/news/b">Another story</a></h2></body></html>`),
			check: wantLinks("BASE/archive/2026/story", "BASE/news/b")},
	}
}

// hostileSanitizeCases are the cases about sanitizing.
func hostileSanitizeCases() []hostileCase {
	return []hostileCase{
		{name: "scripts, handlers, frames, styles and forms never reach the content",
			serve: serveString(rssType, rssDoc("",
				rssItem("Escaped", "https://example.com/1", "<description>"+strings.NewReplacer("<", "&lt;", ">", "&gt;", `"`, "&quot;").Replace(payload)+"</description>"),
				rssItem("CDATA", "https://example.com/2", "<description><![CDATA["+payload+"]]></description>"),
				rssItem("Encoded", "https://example.com/3", `<content:encoded xmlns:content="http://purl.org/rss/1.0/modules/content/"><![CDATA[<p>Fine</p>`+payload+`]]></content:encoded>`))),
			check: func(t *testing.T, r hostileResult, base string) {
				if len(r.res.Items) != 3 || !strings.Contains(r.res.Items[2].CleanContent, "<p>Fine</p>") {
					t.Fatalf("%+v", r.res.Items)
				}
			}},
		{name: "HTML in titles comes out as plain text",
			serve: serveString(rssType, rssDoc("", rssItem("&lt;b&gt;Bold&lt;/b&gt; &lt;script&gt;alert(1)&lt;/script&gt;news", "https://example.com/1", ""))),
			check: oneTitled("Bold news")},
		{name: "a subreddit post's HTML is sanitized", typ: app.SourceReddit, path: "/r/golang",
			serve: serveString("application/json", `{"kind":"Listing","data":{"children":[{"kind":"t3","data":{"name":"t3_a","title":"&lt;b&gt;x&lt;/b&gt;","permalink":"/r/golang/comments/a/","is_self":true,"selftext_html":"&lt;p&gt;ok&lt;/p&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"}}]}}`),
			check: func(t *testing.T, r hostileResult, base string) {
				if len(r.res.Items) != 1 || !strings.Contains(r.res.Items[0].CleanContent, "<p>ok</p>") {
					t.Fatalf("%+v", r.res.Items)
				}
			}},
	}
}
