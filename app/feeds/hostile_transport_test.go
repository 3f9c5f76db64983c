package feeds_test

// Hostile cases: transport (compression, size, time, redirects), sizes and counts, and the
// same limits on Detect and Article.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
)

// hostileTransportCases are about transport: compression, size, time, redirects.
func hostileTransportCases() []hostileCase {
	var loopHits, chainHits, sent100, sentAnnounced atomic.Int64
	smallGz := gzipBytes([]byte(rssDoc("", rssItem("Zipped", "https://example.com/z", ""))))
	return []hostileCase{
		{name: "a gzip bomb (Content-Encoding: gzip, 4 GiB of zeros) stops at the decoded limit",
			serve: serveBomb(true),
			kind:  feeds.KindTooLarge, message: "The response is larger than 10 MiB."},
		{name: "a gzip bomb sent as a .gz file without Content-Encoding stops at the decoded limit",
			path: "/feed.xml.gz", serve: serveBomb(false),
			kind: feeds.KindTooLarge, message: "The response is larger than 10 MiB."},
		{name: "a gzipped feed sent as application/gzip without Content-Encoding is read",
			path: "/feed.xml.gz", serve: serve("application/gzip", smallGz), check: oneTitled("Zipped")},
		{name: "a feed compressed twice is read",
			serve: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Encoding", "gzip")
				_, _ = w.Write(gzipBytes(smallGz))
			}, check: oneTitled("Zipped")},
		{name: "a gzip body cut in half is a readable error",
			serve: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Encoding", "gzip")
				_, _ = w.Write(smallGz[:len(smallGz)/2])
			}, kind: feeds.KindNetwork, message: "The response was cut short or corrupted."},
		{name: "an encoding we did not ask for (br) is a readable error",
			serve: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Encoding", "br")
				_, _ = w.Write([]byte("\x1b\x00\x00 not really brotli"))
			}, kind: feeds.KindParse, message: `The server compressed the response with "br"`},
		{name: "an endless trickle of bytes ends at the total timeout",
			serve: trickle, timeout: time.Second,
			kind: feeds.KindTimeout, message: "did not answer within 1s"},
		{name: "a 100 MB body is refused at the limit without reading it all",
			serve: serveLazily(100<<20, false, &sent100, "<rss><channel>", strings.Repeat("<item><title>x</title></item>", 1000)),
			kind:  feeds.KindTooLarge, message: "The response is larger than 10 MiB.",
			check: func(t *testing.T, r hostileResult, base string) {
				if n := sent100.Load(); n >= 100<<20 {
					t.Errorf("the whole body was sent (%d bytes)", n)
				}
			}},
		{name: "a 100 MB body announced in Content-Length is refused unread",
			serve: serveLazily(100<<20, true, &sentAnnounced, "<rss><channel>", strings.Repeat("x", 32<<10)),
			kind:  feeds.KindTooLarge, message: "The response is larger than 10 MiB.",
			check: func(t *testing.T, r hostileResult, base string) {
				if n := sentAnnounced.Load(); n >= 100<<20 {
					t.Errorf("the whole body was sent (%d bytes)", n)
				}
			}},
		{name: "a body shorter than its Content-Length is a readable error",
			serve: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", "100000")
				_, _ = w.Write([]byte(rssDoc("", rssItem("Cut", "https://example.com/c", ""))))
			}, kind: feeds.KindNetwork, message: "The response was cut short or corrupted."},
		{name: "a redirect loop ends after 5 redirects",
			serve: func(w http.ResponseWriter, r *http.Request) {
				loopHits.Add(1)
				http.Redirect(w, r, "/", http.StatusFound)
			},
			kind: feeds.KindRedirects, message: "Too many redirects (more than 5).",
			check: func(t *testing.T, r hostileResult, base string) {
				if n := loopHits.Load(); n != 6 {
					t.Errorf("%d requests, want 6", n)
				}
			}},
		{name: "an endless chain of redirects to new addresses ends after 5 redirects",
			serve: func(w http.ResponseWriter, r *http.Request) {
				n := chainHits.Add(1)
				http.Redirect(w, r, fmt.Sprintf("/hop/%d", n), http.StatusMovedPermanently)
			},
			kind: feeds.KindRedirects, message: "Too many redirects (more than 5).",
			check: func(t *testing.T, r hostileResult, base string) {
				if n := chainHits.Load(); n != 6 {
					t.Errorf("%d requests, want 6", n)
				}
			}},
		{name: "a redirect to a file: address is refused",
			serve: func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
			},
			kind: feeds.KindRedirects, message: `The server redirected to a "file:" address; we only follow http and https.`},
		{name: "a redirect without a Location is its status",
			serve: func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusFound) },
			kind:  feeds.KindHTTPStatus, message: "The server answered 302 Found."},
	}
}

// hostileSizeCases are the cases about sizes and counts.
func hostileSizeCases() []hostileCase {
	return []hostileCase{
		{name: "a feed of 10,000 items keeps the newest 1,000",
			serve: serveString(rssType, rssDoc("", many(10000, false)...)), check: wantStories(9000, 10000)},
		{name: "a feed of 10,000 items listed oldest first keeps the newest 1,000",
			serve: serveString(rssType, rssDoc("", many(10000, true)...)), check: wantStories(9000, 10000)},
		{name: "an Atom feed of 10,000 entries listed oldest first keeps the newest 1,000",
			serve: serveString("application/atom+xml", atomDoc("", "", manyAtom(10000)...)), check: wantStories(9000, 10000)},
		{name: "a JSON Feed of 10,000 items keeps the newest 1,000",
			serve: serve("application/feed+json", jsonDoc(manyJSON(10000, false)...)), check: wantStories(9000, 10000)},
		{name: "a JSON Feed of 10,000 items listed oldest first keeps the newest 1,000",
			serve: serve("application/feed+json", jsonDoc(manyJSON(10000, true)...)), check: wantStories(9000, 10000)},
		{name: "10 MB of tiny items (about 330,000) keep the first 1,000",
			serve: func(w http.ResponseWriter, r *http.Request) { serve(rssType, tinyItems())(w, r) },
			check: func(t *testing.T, r hostileResult, base string) {
				if len(r.res.Items) != feeds.MaxItems || r.res.Items[0].Title != "t0" {
					t.Fatalf("%d items, first %q", len(r.res.Items), r.res.Items[0].Title)
				}
			}},
		{name: "10 MB of tiny JSON Feed items keep the first 1,000",
			serve: serve("application/feed+json", upTo(10<<20, `{"version":"https://jsonfeed.org/version/1.1","title":"Tiny","items":[{"id":"first","title":"t"}`, "]}",
				func(i int) string { return fmt.Sprintf(`,{"id":"%d","title":"t"}`, i) })),
			check: func(t *testing.T, r hostileResult, base string) {
				if len(r.res.Items) != feeds.MaxItems || r.res.Items[0].GUID != "first" {
					t.Fatalf("%d items, first %q", len(r.res.Items), r.res.Items[0].GUID)
				}
			}},
		{name: "500 items of 1,000 elements each keep the first that fit in 200,000 elements",
			serve: func(w http.ResponseWriter, r *http.Request) {
				var items []string
				for i := range 500 {
					items = append(items, rssItem(fmt.Sprint("Story ", i), fmt.Sprint("https://example.com/", i), strings.Repeat("<x:e>v</x:e>", 999)))
				}
				serveString(rssType, rssDoc(` xmlns:x="http://x.example/"`, items...))(w, r)
			},
			check: func(t *testing.T, r hostileResult, base string) {
				if n := len(r.res.Items); n < 150 || n >= 200 || r.res.Items[0].Title != "Story 0" {
					t.Fatalf("%d items, first %q", n, r.res.Items[0].Title)
				}
			}},
		{name: "a 5 MB item is cut to 1 MiB, sanitized, with valid UTF-8 and absolute links",
			serve: func(w http.ResponseWriter, r *http.Request) { serveString(rssType, bigItem())(w, r) },
			check: func(t *testing.T, r hostileResult, base string) {
				it := r.res.Items[0]
				if len(it.RawContent) < feeds.MaxContentBytes/2 || len(it.CleanContent) < feeds.MaxContentBytes/2 {
					t.Errorf("content cut too short: raw %d, clean %d bytes", len(it.RawContent), len(it.CleanContent))
				}
				if !strings.Contains(it.CleanContent, `href="https://site.example/rel"`) || !strings.Contains(it.Text, "Crème brûlée — 東京") {
					t.Errorf("clean content or text lost: %.300s", it.CleanContent)
				}
			}},
		{name: "2 MB titles, authors, GUIDs and links are bounded",
			serve: func(w http.ResponseWriter, r *http.Request) {
				huge := strings.Repeat("Long é ", 2<<20/8)
				serveString(rssType, rssDoc("", rssItem(huge, "https://example.com/"+strings.Repeat("a", 2<<20), "<guid>"+huge+"</guid><author>"+huge+"</author>")))(w, r)
			},
			check: func(t *testing.T, r hostileResult, base string) {
				it := r.res.Items[0]
				if it.Link != "" || !strings.HasPrefix(it.GUID, "sha256:") || !strings.HasSuffix(it.Title, "…") {
					t.Errorf("link %.40q guid %.40q title %.40q", it.Link, it.GUID, it.Title)
				}
			}},
		{name: "a web page with 100,000 article links keeps 1,000", typ: app.SourceWeb,
			serve: serve("text/html", upTo(8<<20, "<html><head><title>Links</title></head><body><main>", "</main></body></html>", func(i int) string {
				return fmt.Sprintf(`<h2><a href="/news/%d">Story number %d</a></h2>`, i, i)
			})),
			check: func(t *testing.T, r hostileResult, base string) {
				if len(r.res.Items) != feeds.MaxItems {
					t.Fatalf("%d items", len(r.res.Items))
				}
			}},
		{name: "a subreddit listing of 10,000 posts with 6 MB of text keeps 1,000 bounded posts", typ: app.SourceReddit, path: "/r/golang",
			serve: func(w http.ResponseWriter, r *http.Request) {
				var children []any
				for i := range 10000 {
					children = append(children, map[string]any{"kind": "t3", "data": map[string]any{"name": fmt.Sprint("t3_", i), "title": fmt.Sprint("Post ", i)}})
				}
				children[0] = map[string]any{"kind": "t3", "data": map[string]any{"name": "t3_big", "title": "Big", "selftext": strings.Repeat("é", 3<<20/2),
					"selftext_html": strings.Repeat("&lt;p&gt;x &lt;a href=&quot;/r&quot;&gt;l&lt;/a&gt;&lt;/p&gt;", 3<<20/60)}}
				b, _ := json.Marshal(map[string]any{"kind": "Listing", "data": map[string]any{"children": children}})
				serve("application/json", b)(w, r)
			},
			check: func(t *testing.T, r hostileResult, base string) {
				if len(r.res.Items) != feeds.MaxItems {
					t.Fatalf("%d items", len(r.res.Items))
				}
				if s, _ := r.res.Items[0].Extra["selftext"].(string); len(s) > feeds.MaxContentBytes || !utf8.ValidString(s) {
					t.Errorf("selftext of %d bytes", len(s))
				}
			}},
	}
}

// hostileEntryCases: adding a source (Detect) and reading an item's page (Article) go through
// the same limits.
func hostileEntryCases() []hostileCase {
	var sentPage atomic.Int64
	return []hostileCase{
		{name: "detect: billion laughs are refused", entry: "detect",
			serve: serveString(rssType, xmlDecl+billionLaughs+laughs),
			kind:  feeds.KindParse, message: "The feed declares XML entities"},
		{name: "detect: a gzip bomb stops at the decoded limit", entry: "detect",
			serve: serveBomb(true), kind: feeds.KindTooLarge, message: "larger than 10 MiB"},
		{name: "detect: a redirect loop ends after 5 redirects", entry: "detect",
			serve: func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/", http.StatusFound) },
			kind:  feeds.KindRedirects, message: "Too many redirects"},
		{name: "detect: an HTML page served as a feed is a web page", entry: "detect",
			serve: serveString(rssType, `<html><head><title>Site</title><link rel="alternate" type="application/rss+xml" href="/f.xml"></head><body>x</body></html>`),
			check: func(t *testing.T, r hostileResult, base string) {
				if r.det.Type != app.SourceWeb || len(r.det.Feeds) != 1 || r.det.Feeds[0].URL != base+"/f.xml" {
					t.Fatalf("%+v", r.det)
				}
			}},
		{name: "article: a 100 MB page is refused at the limit", entry: "article",
			serve: func(w http.ResponseWriter, r *http.Request) {
				serveLazily(100<<20, false, &sentPage, "<html><body>", strings.Repeat("<p>words</p>", 3000))(w, r)
			},
			kind: feeds.KindTooLarge, message: "larger than 10 MiB"},
		{name: "article: a gzip bomb stops at the decoded limit", entry: "article",
			serve: serveBomb(true), kind: feeds.KindTooLarge, message: "larger than 10 MiB"},
		{name: "article: an endless trickle ends at the total timeout", entry: "article",
			serve: trickle, timeout: time.Second, kind: feeds.KindTimeout, message: "did not answer within 1s"},
		{name: "article: a page's scripts and handlers never reach the article", entry: "article",
			serve: serveString("text/html", `<html><head><title>T</title></head><body><article><h1>T</h1><p>`+strings.Repeat("Plenty of readable words here. ", 40)+`</p>`+payload+`</article></body></html>`),
			check: func(t *testing.T, r hostileResult, base string) {
				if !strings.Contains(r.art.Text, "Plenty of readable words") {
					t.Fatalf("%+v", r.art)
				}
			}},
		{name: "article: 10 MB of paragraphs is bounded", entry: "article",
			serve: serve("text/html", upTo(10<<20-1024, "<html><head><title>Long</title></head><body><article>", "</article></body></html>", func(i int) string {
				return "<p>Lorem ipsum dolor sit amet, <b>consectetur</b> adipiscing elit, sed do eiusmod tempor.</p>\n"
			}))},
	}
}
