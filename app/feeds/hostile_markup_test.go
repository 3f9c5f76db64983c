package feeds_test

// Hostile cases: parser attacks, wrong content types, encodings.

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
)

// hostileEntityCases are XML entities and other parser attacks.
func hostileEntityCases() []hostileCase {
	var dtdHits atomic.Int64
	return []hostileCase{
		{name: "billion laughs: nested entities in the DOCTYPE are refused",
			serve: serveString(rssType, xmlDecl+billionLaughs+laughs),
			kind:  feeds.KindParse, message: "The feed declares XML entities, which we refuse for safety."},
		{name: "billion laughs behind a thousand comments are refused too",
			serve: serveString(rssType, xmlDecl+strings.Repeat("<!-- x -->", 2000)+billionLaughs+laughs),
			kind:  feeds.KindParse, message: "The feed declares XML entities"},
		{name: "an external entity reading a local file (XXE) is refused",
			serve: serveString(rssType, xmlDecl+`<!DOCTYPE rss [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><rss version="2.0"><channel><title>&xxe;</title></channel></rss>`),
			kind:  feeds.KindParse, message: "declares XML entities"},
		{name: "a parameter entity pulling a remote DTD is refused",
			serve: serveString(rssType, xmlDecl+`<!DOCTYPE rss [<!ENTITY % remote SYSTEM "http://127.0.0.1:1/x.dtd"> %remote;]><rss version="2.0"><channel><title>x</title></channel></rss>`),
			kind:  feeds.KindParse, message: "declares XML entities"},
		{name: "an external DTD is never fetched",
			serve: muxOf(map[string]http.HandlerFunc{
				"/": func(w http.ResponseWriter, r *http.Request) {
					serveString(rssType, xmlDecl+`<!DOCTYPE rss SYSTEM "http://`+r.Host+`/evil.dtd">`+rssDoc("", rssItem("Safe", "https://example.com/s", ""))[len(xmlDecl):])(w, r)
				},
				"/evil.dtd": func(w http.ResponseWriter, r *http.Request) { dtdHits.Add(1) },
			}),
			check: func(t *testing.T, r hostileResult, base string) {
				oneTitled("Safe")(t, r, base)
				if n := dtdHits.Load(); n != 0 {
					t.Errorf("the DTD was fetched %d times", n)
				}
			}},
		{name: "undeclared entities stay text and expand to nothing",
			serve: serveString(rssType, rssDoc("", rssItem("&lol9; &amp; caf&#233;", "https://example.com/e", ""))),
			check: oneTitled("&lol9; & café")},
		{name: "elements nested 100,000 deep are refused",
			serve: serveString(rssType, rssDoc(` xmlns:x="http://x.example/"`, rssItem("Deep", "https://example.com/d", strings.Repeat("<x:a>", 100000)+strings.Repeat("</x:a>", 100000)))),
			kind:  feeds.KindParse, message: "nested more than 256 deep"},
		{name: "an item whose HTML is nested 100,000 deep is read, its content bounded",
			serve: serveString(rssType, rssDoc("", rssItem("Deep HTML", "https://example.com/d",
				"<description><![CDATA["+strings.Repeat("<div><b>", 50000)+"deep"+strings.Repeat("</b></div>", 50000)+"]]></description>"))),
			check: oneTitled("Deep HTML")},
		{name: "a web page nested 100,000 deep is a readable error", typ: app.SourceWeb,
			serve: serveString("text/html", "<html><head><title>Deep</title></head><body>"+strings.Repeat("<div>", 100000)+
				`<h2><a href="/news/deep">A deep story</a></h2>`+strings.Repeat("</div>", 100000)+"</body></html>"),
			kind: feeds.KindParse, message: "The content is not a web page we can read: its elements are nested too deeply."},
		{name: "an element with 800,000 attributes is refused",
			serve: serve(rssType, upTo(10<<20, xmlDecl+`<rss version="2.0"><channel><title>A</title><item><title>a</title><e`, `/></item></channel></rss>`,
				func(i int) string { return fmt.Sprintf(` a%d=""`, i) })),
			kind: feeds.KindTooLarge, message: "more than 200,000 XML elements and attributes"},
		{name: "400,000 extension elements in the channel are refused",
			serve: serve(rssType, upTo(10<<20, xmlDecl+`<rss version="2.0" xmlns:x="http://x.example/"><channel><title>X</title>`, `<item><title>a</title></item></channel></rss>`,
				func(i int) string { return fmt.Sprintf(`<x:e%d>v</x:e%d>`, i, i) })),
			kind: feeds.KindTooLarge, message: "more than 200,000 XML elements"},
		{name: "300,000 tiny items hidden in an unknown element are refused, not parsed",
			serve: serve(rssType, upTo(10<<20, xmlDecl+`<rss version="2.0"><channel><title>T</title><wrap>`, `</wrap></channel></rss>`,
				func(i int) string { return fmt.Sprintf("<item><title>t%d</title></item>", i) })),
			kind: feeds.KindTooLarge, message: "more than 200,000 XML elements"},

		{name: "a namespace bomb (357 KB, a thousand prefixes every element sees) is cut to what parses in linear time",
			serve: serve(rssType, namespaceBomb(357<<10)),
			check: func(t *testing.T, r hostileResult, base string) {
				if n := len(r.res.Items); n == 0 || n > 1000 || r.res.Items[0].Title != "t0" {
					t.Fatalf("%d items", n)
				}
			}},
		{name: "a JSON Feed of 10 MB of items with thousands of empty attachments each is read in bounded memory",
			serve: serve("application/feed+json", attachmentBomb()),
			check: func(t *testing.T, r hostileResult, base string) {
				if n := len(r.res.Items); n == 0 || r.res.Items[0].Title != "t0" {
					t.Fatalf("%d items", n)
				}
			}},
	}
}

// hostileContentTypeCases are wrong or missing content types.
func hostileContentTypeCases() []hostileCase {
	return []hostileCase{
		{name: "a feed served as text/html is read",
			serve: serveString("text/html; charset=utf-8", rssDoc("", rssItem("One", "https://example.com/1", ""))), check: oneTitled("One")},
		{name: "a feed served as application/octet-stream is read",
			serve: serveString("application/octet-stream", rssDoc("", rssItem("One", "https://example.com/1", ""))), check: oneTitled("One")},
		{name: "a feed with no Content-Type at all is read",
			serve: serveString("", rssDoc("", rssItem("One", "https://example.com/1", ""))), check: oneTitled("One")},
		{name: "a feed with a malformed Content-Type is read",
			serve: serveString("text/xml;; charset", rssDoc("", rssItem("One", "https://example.com/1", ""))), check: oneTitled("One")},
		{name: "a feed whose Content-Type names an unknown charset is read",
			serve: serveString("text/xml; charset=x-klingon", rssDoc("", rssItem("Café", "https://example.com/1", ""))), check: oneTitled("Café")},
		{name: "an HTML page served as application/rss+xml is a readable error",
			serve: serveString(rssType, `<!DOCTYPE html><html><head><title>Home</title></head><body><p>Hello</p></body></html>`),
			kind:  feeds.KindParse, message: "The content is not a feed we can read: this is a web page, not a feed."},
		{name: "an HTML page served as application/rss+xml names the feed it advertises",
			serve: serveString(rssType, `<!DOCTYPE html><html><head><link rel="alternate" type="application/atom+xml" href="/atom.xml"></head><body>Hi</body></html>`),
			kind:  feeds.KindParse, message: "this is a web page; it advertises a feed at http://"},
		{name: "a JSON document that is not a feed is a readable error",
			serve: serveString("application/json", `{"error":"not found","items":"nope"}`),
			kind:  feeds.KindParse, message: "The content is not a feed we can read"},
		{name: "a PNG image is a readable error",
			serve: serveString("image/png", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"),
			kind:  feeds.KindParse, message: "The content is not a feed we can read"},
		{name: "a web page served as application/rss+xml is read as a page", typ: app.SourceWeb,
			serve: serveString(rssType, `<html><head><title>News</title></head><body><h2><a href="/news/one">The first story</a></h2></body></html>`),
			check: func(t *testing.T, r hostileResult, base string) {
				if r.res.Title != "News" || len(r.res.Items) != 1 || r.res.Items[0].Link != base+"/news/one" {
					t.Fatalf("%+v", r.res)
				}
			}},
		{name: "a web page with no Content-Type is read", typ: app.SourceWeb,
			serve: serveString("", `<html><head><title>News</title></head><body><h2><a href="/news/one">The first story</a></h2></body></html>`),
			check: func(t *testing.T, r hostileResult, base string) {
				if len(r.res.Items) != 1 {
					t.Fatalf("%+v", r.res)
				}
			}},
		{name: "a feed given as a web page source is a readable error", typ: app.SourceWeb,
			serve: serveString(rssType, rssDoc("", rssItem("One", "https://example.com/1", ""))),
			kind:  feeds.KindParse, message: "The content is not a web page we can read."},
		{name: "a subreddit listing served as text/html is read", typ: app.SourceReddit, path: "/r/golang",
			serve: serveString("text/html", `{"kind":"Listing","data":{"children":[{"kind":"t3","data":{"name":"t3_a","title":"A post","permalink":"/r/golang/comments/a/"}}]}}`),
			check: oneTitled("A post")},
		{name: "an HTML error page instead of a subreddit listing is a readable error", typ: app.SourceReddit, path: "/r/golang",
			serve: serveString("application/json", `<html><body>blocked</body></html>`),
			kind:  feeds.KindParse, message: "The content is not a subreddit listing we can read"},
	}
}

// hostileEncodingCases are the cases about encodings.
func hostileEncodingCases() []hostileCase {
	return []hostileCase{
		{name: "invalid UTF-8 in a feed declared UTF-8 comes out valid",
			serve: serveString(rssType, rssDoc("",
				rssItem("Stray \xff\xfe bytes", "https://example.com/1", ""),
				rssItem("Cut \xe6\x9d sequence", "https://example.com/2", "<description>Overlong \xc0\xaf and surrogate \xed\xa0\x80 here</description>"))),
			check: func(t *testing.T, r hostileResult, base string) {
				if len(r.res.Items) != 2 {
					t.Fatalf("%d items", len(r.res.Items))
				}
			}},
		{name: "mixed encodings: Windows-1252 bytes in a UTF-8 feed are read as such",
			serve: serveString(rssType, rssDoc("",
				rssItem("Café déjà vu", "https://example.com/1", ""),
				rssItem("Cr\xe8me br\xfbl\xe9e", "https://example.com/2", ""),
				rssItem("\x93Quoted\x94 \x80 5", "https://example.com/3", ""),
				rssItem("東京 and Zürich", "https://example.com/4", ""))),
			check: wantTitles("Café déjà vu", "Crème brûlée", "“Quoted” € 5", "東京 and Zürich")},
		{name: "mixed encodings with no declaration at all are read the same",
			serve: serveString("application/xml", `<rss version="2.0"><channel><title>Mixed</title>`+
				rssItem("Café déjà vu", "https://example.com/1", "")+rssItem("Cr\xe8me br\xfbl\xe9e", "https://example.com/2", "")+`</channel></rss>`),
			check: wantTitles("Café déjà vu", "Crème brûlée")},
		{name: "control characters XML forbids do not lose the items after them",
			serve: serveString(rssType, rssDoc("",
				rssItem("First", "https://example.com/1", ""),
				rssItem("Bell\x07 null\x00 escape\x1b form\x0cfeed", "https://example.com/2", "<description>tab\there\x01</description>"),
				rssItem("Third", "https://example.com/3", ""))),
			check: wantTitles("First", "Bell null escape form feed", "Third")},
		{name: "character references to forbidden characters come out valid",
			serve: serveString(rssType, rssDoc("", rssItem("Refs &#0; &#xD800; &#xFFFF; &#x1F600; end", "https://example.com/1", ""))),
			check: func(t *testing.T, r hostileResult, base string) {
				if len(r.res.Items) != 1 || !strings.HasPrefix(r.res.Items[0].Title, "Refs") || !strings.HasSuffix(r.res.Items[0].Title, "end") {
					t.Fatalf("%+v", r.res.Items)
				}
			}},
		{name: "a UTF-16 feed without a byte order mark is read",
			serve: serveString("application/xml", utf16le(`<?xml version="1.0" encoding="UTF-16"?><rss version="2.0"><channel><title>W</title><item><title>Grüße</title><link>https://example.com/g</link></item></channel></rss>`)),
			check: oneTitled("Grüße")},
		{name: "invalid UTF-8 in a web page comes out valid", typ: app.SourceWeb,
			serve: serveString("text/html; charset=utf-8", "<html><head><title>Caf\xe9 \xff</title></head><body><h2><a href=\"/news/a\">Cr\xe8me \xed\xa0\x80 story</a></h2></body></html>"),
			check: func(t *testing.T, r hostileResult, base string) {
				if len(r.res.Items) != 1 {
					t.Fatalf("%+v", r.res)
				}
			}},
		{name: "invalid UTF-8 in a JSON Feed comes out valid",
			serve: serveString("application/feed+json", "{\"version\":\"https://jsonfeed.org/version/1.1\",\"title\":\"J\xff\",\"items\":[{\"id\":\"1\",\"title\":\"Caf\xc3\xa9 \xe9t\xe9 \\ud800\",\"url\":\"https://example.com/1\"}]}"),
			check: func(t *testing.T, r hostileResult, base string) {
				if len(r.res.Items) != 1 || !strings.HasPrefix(r.res.Items[0].Title, "Café") {
					t.Fatalf("%+v", r.res.Items)
				}
			}},
		{name: "control characters in a subreddit listing do not break it", typ: app.SourceReddit, path: "/r/golang",
			serve: serveString("application/json", "{\"kind\":\"Listing\",\"data\":{\"children\":[{\"kind\":\"t3\",\"data\":{\"name\":\"t3_a\",\"title\":\"Bell\x07 and null\x00\"}}]}}"),
			check: oneTitled("Bell and null")},
		{name: "invalid UTF-8 in a subreddit listing comes out valid", typ: app.SourceReddit, path: "/r/golang",
			serve: serveString("application/json", "{\"kind\":\"Listing\",\"data\":{\"children\":[{\"kind\":\"t3\",\"data\":{\"name\":\"t3_a\",\"title\":\"Caf\xe9 \xff\",\"selftext_html\":\"&lt;p&gt;\xfe&lt;script&gt;alert(1)&lt;/script&gt;&lt;/p&gt;\"}}]}}"),
			check: func(t *testing.T, r hostileResult, base string) {
				if len(r.res.Items) != 1 {
					t.Fatalf("%+v", r.res.Items)
				}
			}},
	}
}
