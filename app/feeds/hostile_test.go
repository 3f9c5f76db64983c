package feeds_test

// Hostile and broken input. Every case is served by a real server to the real Fetcher through
// the entry points the workers use — Fetch (the fetch worker), Detect (adding a source) and
// Article (the process worker) — and must end as a readable *feeds.Error or as a bounded, clean
// result (see checkClean). TestHostilePeakMemory runs the whole set again in a child process
// and reports the peak RSS of each case.

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// hostileNow is the Fetcher's clock in these tests.
var hostileNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

type hostileCase struct {
	name  string
	entry string         // "" (Fetch), "detect" or "article"
	typ   app.SourceType // for Fetch; "" is rss
	path  string         // requested path; "" is "/"
	serve http.HandlerFunc
	// timeout is Options.Timeout; 0 is the default.
	timeout time.Duration
	// kind and message describe the error wanted; an empty kind wants a result.
	kind, message string
	// check, if set, looks further at what came back (res for Fetch, det for Detect, art for
	// Article; nil on error). base is the server's URL.
	check func(t *testing.T, r hostileResult, base string)
}

type hostileResult struct {
	res *feeds.Result
	det *feeds.Detection
	art *feeds.Article
}

// run does the case against a server at base.
func (c hostileCase) run(ctx context.Context, base string) (hostileResult, error) {
	f := feeds.New(feeds.Options{Clock: sqlitetest.NewClock(hostileNow), Timeout: c.timeout})
	u := base + c.path
	if c.path == "" {
		u = base + "/"
	}
	var r hostileResult
	var err error
	switch c.entry {
	case "detect":
		r.det, err = f.Detect(ctx, u)
	case "article":
		r.art, err = f.Article(ctx, u)
	default:
		r.res, err = f.Fetch(ctx, feeds.Request{URL: u, Type: c.typ})
	}
	return r, err
}

func TestHostileInput(t *testing.T) {
	for _, c := range hostileCases() {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(c.serve)
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang fails, late
			defer cancel()
			r, err := c.run(ctx, srv.URL)
			if c.kind != "" {
				fe := assertKind(t, err, c.kind)
				if !strings.Contains(fe.Message, c.message) {
					t.Errorf("message %q lacks %q", fe.Message, c.message)
				}
			} else if err != nil {
				t.Fatalf("got error %v, want a result", err)
			} else {
				checkClean(t, r)
			}
			if c.check != nil {
				c.check(t, r, srv.URL)
			}
		})
	}
}

// checkClean checks what every result must be, whatever was served: at most MaxItems items,
// valid UTF-8 everywhere, bounded titles and contents, sanitized HTML and plain text free of
// the payloads below, absolute http(s) links, unique bounded GUIDs, and no date before 1970 or
// after the fetch.
func checkClean(t *testing.T, r hostileResult) {
	t.Helper()
	text := func(what, s string, maxRunes int) {
		t.Helper()
		if !utf8.ValidString(s) {
			t.Errorf("%s is not valid UTF-8: %.80q", what, s)
		}
		if n := utf8.RuneCountInString(s); n > maxRunes {
			t.Errorf("%s has %d characters, more than %d", what, n, maxRunes)
		}
	}
	html := func(what, s string) {
		t.Helper()
		text(what, s, feeds.MaxContentBytes)
		if len(s) > feeds.MaxContentBytes {
			t.Errorf("%s has %d bytes, more than %d", what, len(s), feeds.MaxContentBytes)
		}
		low := strings.ToLower(s)
		for _, bad := range []string{"<script", "<iframe", "<style", "<object", "<embed", "<form", "javascript:", "alert(", " onerror", " onclick", " onload"} {
			if strings.Contains(low, bad) {
				t.Errorf("%s holds %q: %.200s", what, bad, s[max(0, strings.Index(low, bad)-80):])
			}
		}
	}
	link := func(what, s string) {
		t.Helper()
		if s == "" {
			return
		}
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			t.Errorf("%s %q is not an absolute http(s) URL", what, s)
		}
	}
	switch {
	case r.art != nil:
		text("article title", r.art.Title, 301)
		html("article HTML", r.art.HTML)
		html("article text", r.art.Text)
		return
	case r.det != nil:
		text("detected title", r.det.Title, 301)
		link("detected URL", r.det.URL)
		for _, f := range r.det.Feeds {
			link("advertised feed", f.URL)
		}
		return
	}
	res := r.res
	text("source title", res.Title, 301)
	link("site URL", res.SiteURL)
	if len(res.Items) > feeds.MaxItems {
		t.Errorf("%d items, more than %d", len(res.Items), feeds.MaxItems)
	}
	guids := map[string]bool{}
	for i, it := range res.Items {
		what := fmt.Sprintf("item %d", i)
		text(what+" title", it.Title, 301)
		text(what+" author", it.Author, 201)
		text(what+" GUID", it.GUID, 1024)
		text(what+" raw content", it.RawContent, feeds.MaxContentBytes) // kept as it came, bounded
		if len(it.RawContent) > feeds.MaxContentBytes {
			t.Errorf("%s raw content has %d bytes", what, len(it.RawContent))
		}
		html(what+" clean content", it.CleanContent)
		html(what+" text", it.Text)
		link(what+" link", it.Link)
		// A GUID repeats only for posts with different links (the app keys them apart).
		if k := it.GUID + "\n" + it.Link; it.GUID == "" || len(it.GUID) > 1024 || guids[k] {
			t.Errorf("%s GUID %.80q empty, too long or repeated", what, it.GUID)
		} else {
			guids[k] = true
		}
		if p := it.PublishedAt; p != nil && (p.Year() < 1970 || p.After(hostileNow) || p.Location() != time.UTC) {
			t.Errorf("%s published %v", what, p)
		}
	}
}

// Handlers.

// serve answers with body and Content-Type ct; an empty ct sends no Content-Type at all
// (net/http would otherwise sniff one).
func serve(ct string, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if ct == "" {
			w.Header()["Content-Type"] = nil
		} else {
			w.Header().Set("Content-Type", ct)
		}
		_, _ = w.Write(body)
	}
}

func serveString(ct, body string) http.HandlerFunc { return serve(ct, []byte(body)) }

// serveLazily writes size bytes of chunk after chunk, without holding them, until the client
// goes away; sent counts the bytes written. With announce it sends Content-Length first.
func serveLazily(size int64, announce bool, sent *atomic.Int64, header, chunk string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		if announce {
			w.Header().Set("Content-Length", strconv.FormatInt(size, 10))
		}
		n, err := w.Write([]byte(header))
		sent.Add(int64(n))
		for left := size - int64(n); left > 0 && err == nil; left -= int64(n) {
			n, err = w.Write([]byte(chunk[:min(int64(len(chunk)), left)]))
			sent.Add(int64(n))
		}
	}
}

// trickle sends the start of a feed and then one byte every 20ms, forever.
func trickle(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/rss+xml")
	_, _ = w.Write([]byte(`<?xml version="1.0"?><rss version="2.0"><channel><title>Slow</title>`))
	for {
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
		if _, err := w.Write([]byte(" ")); err != nil {
			return
		}
	}
}

// bombMember is one gzip member of 8 MiB of zeros (about 8 KiB); members concatenate into
// one stream, so n of them are a small response that expands to n × 8 MiB.
var bombMember = sync.OnceValue(func() []byte { return gzipBytes(make([]byte, 8<<20)) })

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = zw.Write(b)
	_ = zw.Close()
	return buf.Bytes()
}

// serveBomb sends 512 members (4 GiB of zeros once decoded), with or without saying it is gzip.
func serveBomb(contentEncoding bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if contentEncoding {
			w.Header().Set("Content-Type", "application/rss+xml")
			w.Header().Set("Content-Encoding", "gzip")
		} else {
			w.Header().Set("Content-Type", "application/gzip")
		}
		for range 512 {
			if _, err := w.Write(bombMember()); err != nil {
				return
			}
		}
	}
}

// Documents.

const (
	xmlDecl = `<?xml version="1.0" encoding="UTF-8"?>` + "\n"
	// payload is what must never survive sanitizing.
	payload = `<script>alert(1)</script><img src="/i.png" onerror="alert(1)"><a href="javascript:alert(1)">js</a>` +
		`<iframe src="https://evil.example/"></iframe><style>body{}</style><form action="/x"><input></form>`
)

func rssDoc(channel string, items ...string) string {
	return xmlDecl + `<rss version="2.0"><channel><title>Hostile</title>` + channel + "\n" + strings.Join(items, "\n") + "\n</channel></rss>"
}

func rssItem(title, link, more string) string {
	return "<item><title>" + title + "</title><link>" + link + "</link>" + more + "</item>"
}

func atomDoc(feedAttrs, feed string, entries ...string) string {
	return xmlDecl + `<feed xmlns="http://www.w3.org/2005/Atom"` + feedAttrs + `><title>Hostile</title><id>urn:hostile</id>` + feed + "\n" +
		strings.Join(entries, "\n") + "\n</feed>"
}

func jsonDoc(items ...map[string]any) []byte {
	b, _ := json.Marshal(map[string]any{"version": "https://jsonfeed.org/version/1.1", "title": "Hostile", "items": items})
	return b
}

// many returns n RSS items, item i dated i hours after a start 20,000 hours ago, newest
// first or oldest first.
func many(n int, oldestFirst bool) []string {
	items := make([]string, n)
	start := hostileNow.Add(-20000 * time.Hour)
	for i := range n {
		pos := n - 1 - i
		if oldestFirst {
			pos = i
		}
		items[pos] = rssItem(fmt.Sprintf("Story %d", i), fmt.Sprintf("https://example.com/%d", i),
			fmt.Sprintf("<guid>g-%d</guid><pubDate>%s</pubDate><description>About %d.</description>", i, start.Add(time.Duration(i)*time.Hour).Format(time.RFC1123Z), i))
	}
	return items
}

func manyJSON(n int, oldestFirst bool) []map[string]any {
	items := make([]map[string]any, n)
	start := hostileNow.Add(-20000 * time.Hour)
	for i := range n {
		pos := n - 1 - i
		if oldestFirst {
			pos = i
		}
		items[pos] = map[string]any{"id": fmt.Sprint("g-", i), "title": fmt.Sprint("Story ", i), "url": fmt.Sprint("https://example.com/", i),
			"content_html": "<p>About it.</p>", "date_published": start.Add(time.Duration(i) * time.Hour).Format(time.RFC3339)}
	}
	return items
}

// manyAtom returns n Atom entries, oldest first.
func manyAtom(n int) []string {
	entries := make([]string, n)
	start := hostileNow.Add(-20000 * time.Hour)
	for i := range n {
		entries[i] = fmt.Sprintf(`<entry><title>Story %d</title><id>urn:e:%d</id><link href="/e/%d"/><updated>%s</updated></entry>`,
			i, i, i, start.Add(time.Duration(i)*time.Hour).Format(time.RFC3339))
	}
	return entries
}

// wantStories checks that the items are Story lo … Story hi-1, in any order.
func wantStories(lo, hi int) func(t *testing.T, r hostileResult, base string) {
	return func(t *testing.T, r hostileResult, base string) {
		t.Helper()
		var got []int
		for _, it := range r.res.Items {
			n, err := strconv.Atoi(strings.TrimPrefix(it.Title, "Story "))
			if err != nil {
				t.Fatalf("title %q", it.Title)
			}
			got = append(got, n)
		}
		sort.Ints(got)
		if len(got) != hi-lo || got[0] != lo || got[len(got)-1] != hi-1 {
			t.Fatalf("%d items from %v to %v, want stories %d to %d", len(got), got[:min(3, len(got))], got[max(0, len(got)-3):], lo, hi-1)
		}
	}
}

// upTo fills a document to about size bytes with unit(i) between head and tail.
func upTo(size int, head, tail string, unit func(i int) string) []byte {
	var b bytes.Buffer
	b.Grow(size)
	b.WriteString(head)
	for i := 0; b.Len() < size-len(tail)-200; i++ {
		b.WriteString(unit(i))
	}
	b.WriteString(tail)
	return b.Bytes()
}

// namespaceBomb is a feed of about size bytes whose channel declares 1,000 namespaces and
// whose items fill the rest (the parser under gofeed copies them for every element).
func namespaceBomb(size int) []byte {
	var head strings.Builder
	head.WriteString(xmlDecl + `<rss version="2.0"><channel`)
	for i := range 1000 {
		fmt.Fprintf(&head, ` xmlns:n%d="http://n%d.example/"`, i, i)
	}
	head.WriteString(`><title>NS</title>`)
	return upTo(size, head.String(), `</channel></rss>`, func(i int) string {
		return fmt.Sprintf(`<item><title>t%d</title><link>https://example.com/%d</link></item>`, i, i)
	})
}

// attachmentBomb is 10 MB of JSON Feed items with 3,000 empty attachments each (gofeed
// built a struct for every one: 1.06 GB for one such feed).
func attachmentBomb() []byte {
	empties := strings.Repeat("{},", 2999) + "{}"
	return upTo(10<<20-16<<10, `{"version":"https://jsonfeed.org/version/1.1","title":"Attachments","items":[{"id":"0","title":"t0","attachments":[`+empties+`]}`, "]}",
		func(i int) string {
			return fmt.Sprintf(`,{"id":"%d","title":"t%d","attachments":[%s]}`, i+1, i+1, empties)
		})
}

var (
	billionLaughs = func() string {
		var b strings.Builder
		b.WriteString(`<!DOCTYPE rss [<!ENTITY lol "lol">`)
		prev := "lol"
		for i := 1; i <= 9; i++ {
			name := fmt.Sprint("lol", i)
			b.WriteString(`<!ENTITY ` + name + ` "` + strings.Repeat("&"+prev+";", 10) + `">`)
			prev = name
		}
		b.WriteString("]>")
		return b.String()
	}()
	laughs = `<rss version="2.0"><channel><title>&lol9;</title><item><title>&lol9;</title><link>https://example.com/</link></item></channel></rss>`

	// tinyItems is 10 MB of the smallest items there are: about 330,000 of them.
	tinyItems = sync.OnceValue(func() []byte {
		return upTo(10<<20, xmlDecl+`<rss version="2.0"><channel><title>Tiny</title>`, `</channel></rss>`,
			func(i int) string { return fmt.Sprintf("<item><title>t%d</title></item>", i) })
	})
	// bigItem is one item of 5 MB of HTML with every payload, multi-byte text and relative links.
	bigItem = sync.OnceValue(func() string {
		var b strings.Builder
		for b.Len() < 5<<20 {
			b.WriteString(`<p>Crème brûlée — 東京 ` + payload + ` <a href="/rel">relative</a> <b>bold</b></p>`)
		}
		return rssDoc(`<link>https://site.example/</link>`, rssItem("Big", "https://site.example/big", "<description><![CDATA["+b.String()+"]]></description>"))
	})
)

func hostileCases() []hostileCase {
	var (
		dtdHits, loopHits, chainHits atomic.Int64
		sent100, sentAnnounced       atomic.Int64
		sentPage                     atomic.Int64
	)
	smallGz := gzipBytes([]byte(rssDoc("", rssItem("Zipped", "https://example.com/z", ""))))
	mux := func(routes map[string]http.HandlerFunc) http.HandlerFunc {
		m := http.NewServeMux()
		for p, h := range routes {
			m.HandleFunc(p, h)
		}
		return m.ServeHTTP
	}
	one := func(title string) func(t *testing.T, r hostileResult, base string) {
		return func(t *testing.T, r hostileResult, base string) {
			t.Helper()
			if len(r.res.Items) != 1 || r.res.Items[0].Title != title {
				t.Fatalf("items %+v, want one titled %q", r.res.Items, title)
			}
		}
	}
	titles := func(want ...string) func(t *testing.T, r hostileResult, base string) {
		return func(t *testing.T, r hostileResult, base string) {
			t.Helper()
			var got []string
			for _, it := range r.res.Items {
				got = append(got, it.Title)
			}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("titles %q, want %q", got, want)
			}
		}
	}
	links := func(want ...string) func(t *testing.T, r hostileResult, base string) {
		return func(t *testing.T, r hostileResult, base string) {
			t.Helper()
			for i, w := range want {
				w = strings.ReplaceAll(w, "BASE", base)
				if i >= len(r.res.Items) || r.res.Items[i].Link != w {
					t.Errorf("item %d link, want %q; items %+v", i, w, r.res.Items)
				}
			}
		}
	}
	dates := func(want ...string) func(t *testing.T, r hostileResult, base string) {
		return func(t *testing.T, r hostileResult, base string) {
			t.Helper()
			if len(r.res.Items) != len(want) {
				t.Fatalf("%d items, want %d", len(r.res.Items), len(want))
			}
			for i, it := range r.res.Items {
				got := "nil"
				if it.PublishedAt != nil {
					got = it.PublishedAt.Format(time.RFC3339)
				}
				if got != want[i] {
					t.Errorf("%s: published %s, want %s", it.Title, got, want[i])
				}
			}
		}
	}
	now := hostileNow.Format(time.RFC3339)
	const rssType = "application/rss+xml"

	return []hostileCase{
		// XML entities and other parser attacks.
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
			serve: mux(map[string]http.HandlerFunc{
				"/": func(w http.ResponseWriter, r *http.Request) {
					serveString(rssType, xmlDecl+`<!DOCTYPE rss SYSTEM "http://`+r.Host+`/evil.dtd">`+rssDoc("", rssItem("Safe", "https://example.com/s", ""))[len(xmlDecl):])(w, r)
				},
				"/evil.dtd": func(w http.ResponseWriter, r *http.Request) { dtdHits.Add(1) },
			}),
			check: func(t *testing.T, r hostileResult, base string) {
				one("Safe")(t, r, base)
				if n := dtdHits.Load(); n != 0 {
					t.Errorf("the DTD was fetched %d times", n)
				}
			}},
		{name: "undeclared entities stay text and expand to nothing",
			serve: serveString(rssType, rssDoc("", rssItem("&lol9; &amp; caf&#233;", "https://example.com/e", ""))),
			check: one("&lol9; & café")},
		{name: "elements nested 100,000 deep are refused",
			serve: serveString(rssType, rssDoc(` xmlns:x="http://x.example/"`, rssItem("Deep", "https://example.com/d", strings.Repeat("<x:a>", 100000)+strings.Repeat("</x:a>", 100000)))),
			kind:  feeds.KindParse, message: "nested more than 256 deep"},
		{name: "an item whose HTML is nested 100,000 deep is read, its content bounded",
			serve: serveString(rssType, rssDoc("", rssItem("Deep HTML", "https://example.com/d",
				"<description><![CDATA["+strings.Repeat("<div><b>", 50000)+"deep"+strings.Repeat("</b></div>", 50000)+"]]></description>"))),
			check: one("Deep HTML")},
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

		// Transport: compression, size, time, redirects.
		{name: "a gzip bomb (Content-Encoding: gzip, 4 GiB of zeros) stops at the decoded limit",
			serve: serveBomb(true),
			kind:  feeds.KindTooLarge, message: "The response is larger than 10 MiB."},
		{name: "a gzip bomb sent as a .gz file without Content-Encoding stops at the decoded limit",
			path: "/feed.xml.gz", serve: serveBomb(false),
			kind: feeds.KindTooLarge, message: "The response is larger than 10 MiB."},
		{name: "a gzipped feed sent as application/gzip without Content-Encoding is read",
			path: "/feed.xml.gz", serve: serve("application/gzip", smallGz), check: one("Zipped")},
		{name: "a feed compressed twice is read",
			serve: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Encoding", "gzip")
				_, _ = w.Write(gzipBytes(smallGz))
			}, check: one("Zipped")},
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

		// Wrong or missing content types.
		{name: "a feed served as text/html is read",
			serve: serveString("text/html; charset=utf-8", rssDoc("", rssItem("One", "https://example.com/1", ""))), check: one("One")},
		{name: "a feed served as application/octet-stream is read",
			serve: serveString("application/octet-stream", rssDoc("", rssItem("One", "https://example.com/1", ""))), check: one("One")},
		{name: "a feed with no Content-Type at all is read",
			serve: serveString("", rssDoc("", rssItem("One", "https://example.com/1", ""))), check: one("One")},
		{name: "a feed with a malformed Content-Type is read",
			serve: serveString("text/xml;; charset", rssDoc("", rssItem("One", "https://example.com/1", ""))), check: one("One")},
		{name: "a feed whose Content-Type names an unknown charset is read",
			serve: serveString("text/xml; charset=x-klingon", rssDoc("", rssItem("Café", "https://example.com/1", ""))), check: one("Café")},
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
			check: one("A post")},
		{name: "an HTML error page instead of a subreddit listing is a readable error", typ: app.SourceReddit, path: "/r/golang",
			serve: serveString("application/json", `<html><body>blocked</body></html>`),
			kind:  feeds.KindParse, message: "The content is not a subreddit listing we can read"},

		// Encodings.
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
			check: titles("Café déjà vu", "Crème brûlée", "“Quoted” € 5", "東京 and Zürich")},
		{name: "mixed encodings with no declaration at all are read the same",
			serve: serveString("application/xml", `<rss version="2.0"><channel><title>Mixed</title>`+
				rssItem("Café déjà vu", "https://example.com/1", "")+rssItem("Cr\xe8me br\xfbl\xe9e", "https://example.com/2", "")+`</channel></rss>`),
			check: titles("Café déjà vu", "Crème brûlée")},
		{name: "control characters XML forbids do not lose the items after them",
			serve: serveString(rssType, rssDoc("",
				rssItem("First", "https://example.com/1", ""),
				rssItem("Bell\x07 null\x00 escape\x1b form\x0cfeed", "https://example.com/2", "<description>tab\there\x01</description>"),
				rssItem("Third", "https://example.com/3", ""))),
			check: titles("First", "Bell null escape form feed", "Third")},
		{name: "character references to forbidden characters come out valid",
			serve: serveString(rssType, rssDoc("", rssItem("Refs &#0; &#xD800; &#xFFFF; &#x1F600; end", "https://example.com/1", ""))),
			check: func(t *testing.T, r hostileResult, base string) {
				if len(r.res.Items) != 1 || !strings.HasPrefix(r.res.Items[0].Title, "Refs") || !strings.HasSuffix(r.res.Items[0].Title, "end") {
					t.Fatalf("%+v", r.res.Items)
				}
			}},
		{name: "a UTF-16 feed without a byte order mark is read",
			serve: serveString("application/xml", utf16le(`<?xml version="1.0" encoding="UTF-16"?><rss version="2.0"><channel><title>W</title><item><title>Grüße</title><link>https://example.com/g</link></item></channel></rss>`)),
			check: one("Grüße")},
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
			check: one("Bell and null")},
		{name: "invalid UTF-8 in a subreddit listing comes out valid", typ: app.SourceReddit, path: "/r/golang",
			serve: serveString("application/json", "{\"kind\":\"Listing\",\"data\":{\"children\":[{\"kind\":\"t3\",\"data\":{\"name\":\"t3_a\",\"title\":\"Caf\xe9 \xff\",\"selftext_html\":\"&lt;p&gt;\xfe&lt;script&gt;alert(1)&lt;/script&gt;&lt;/p&gt;\"}}]}}"),
			check: func(t *testing.T, r hostileResult, base string) {
				if len(r.res.Items) != 1 {
					t.Fatalf("%+v", r.res.Items)
				}
			}},

		// Sizes and counts.
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

		// Dates.
		{name: "garbage dates are unknown, never year 1",
			serve: serveString(rssType, rssDoc("",
				rssItem("words", "https://example.com/1", "<pubDate>not a date</pubDate>"),
				rssItem("zeros", "https://example.com/2", "<pubDate>0000-00-00T00:00:00Z</pubDate>"),
				rssItem("year one", "https://example.com/3", "<pubDate>0001-01-01T00:00:00Z</pubDate>"),
				rssItem("before 1970", "https://example.com/4", "<pubDate>1969-12-31T23:59:59Z</pubDate>"),
				rssItem("impossible", "https://example.com/5", "<pubDate>Mon, 32 Foo 99999 25:61:61 GMT</pubDate>"),
				rssItem("empty", "https://example.com/6", "<pubDate></pubDate>"),
				rssItem("atom-ish", "https://example.com/7", "<pubDate>2026-13-45T99:99:99+25:00</pubDate>"))),
			check: dates("nil", "nil", "nil", "nil", "nil", "nil", "nil")},
		{name: "future dates are clamped to the time of the fetch",
			serve: serveString(rssType, rssDoc("",
				rssItem("far", "https://example.com/1", "<pubDate>Tue, 01 Jan 2999 00:00:00 GMT</pubDate>"),
				rssItem("an hour ahead", "https://example.com/2", "<pubDate>"+hostileNow.Add(time.Hour).Format(time.RFC1123Z)+"</pubDate>"),
				rssItem("year 9999", "https://example.com/3", "<pubDate>9999-12-31T23:59:59Z</pubDate>"),
				rssItem("a minute ago", "https://example.com/4", "<pubDate>"+hostileNow.Add(-time.Minute).Format(time.RFC1123Z)+"</pubDate>"))),
			check: dates(now, now, now, hostileNow.Add(-time.Minute).Format(time.RFC3339))},
		{name: "dates in other zones come out in UTC",
			serve: serveString(rssType, rssDoc("",
				rssItem("paris", "https://example.com/1", "<pubDate>Sun, 01 Mar 2026 12:30:00 +0100</pubDate>"),
				rssItem("tokyo", "https://example.com/2", "<pubDate>Sun, 01 Mar 2026 20:00:00 +0900</pubDate>"))),
			check: dates("2026-03-01T11:30:00Z", "2026-03-01T11:00:00Z")},
		{name: "Atom dates, published or else updated, follow the same rules",
			serve: serveString("application/atom+xml", atomDoc("", "",
				`<entry><title>pub</title><id>1</id><published>2026-02-01T10:00:00+02:00</published><updated>2026-02-02T00:00:00Z</updated></entry>`,
				`<entry><title>upd</title><id>2</id><updated>2999-01-01T00:00:00Z</updated></entry>`,
				`<entry><title>bad</title><id>3</id><updated>yesterday</updated></entry>`)),
			check: dates("2026-02-01T08:00:00Z", now, "nil")},

		// Duplicates.
		{name: "duplicate guids with the same link in one feed are one item, the first",
			serve: serveString(rssType, rssDoc("",
				rssItem("First", "https://example.com/1", "<guid>same</guid>"),
				rssItem("Second", "https://example.com/1", "<guid>same</guid>"),
				rssItem("Third", "https://example.com/1", "<guid>  same  </guid>"),
				rssItem("Other", "https://example.com/4", "<guid>other</guid>"))),
			check: func(t *testing.T, r hostileResult, base string) {
				titles("First", "Other")(t, r, base)
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
				titles("First", "Second", "Other")(t, r, base)
				if !r.res.RepeatedGUIDs || r.res.Items[0].GUID != "same" || r.res.Items[1].GUID != "same" || r.res.Items[2].GUID != "other" {
					t.Errorf("repeated %v, GUIDs %q %q %q", r.res.RepeatedGUIDs, r.res.Items[0].GUID, r.res.Items[1].GUID, r.res.Items[2].GUID)
				}
				keyed := app.IdentifyItems(r.res.Items, nil)
				if len(keyed) != 3 || keyed[0].GUID != feeds.IdentityKey("same", "https://example.com/1") ||
					keyed[1].GUID != feeds.IdentityKey("same", "https://example.com/2") || keyed[2].GUID != "other" {
					t.Errorf("keyed by the app: %+v", keyed)
				}
			}},
		{name: "items without guids sharing a link are one item",
			serve: serveString(rssType, rssDoc("",
				rssItem("A", "https://example.com/same", ""), rssItem("B", "https://example.com/same", ""), rssItem("C", "https://example.com/c", ""))),
			check: titles("A", "C")},
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
			check: titles("First")},
		{name: "duplicate ids in a JSON Feed are one item",
			serve: serve("application/feed+json", jsonDoc(map[string]any{"id": "1", "title": "First"}, map[string]any{"id": "1", "title": "Again"})),
			check: titles("First")},
		{name: "the same link twice on a web page is one item", typ: app.SourceWeb,
			serve: serveString("text/html", `<html><body><h2><a href="/news/a">Story A</a></h2><h2><a href="/news/a#x">Story A again</a></h2></body></html>`),
			check: func(t *testing.T, r hostileResult, base string) {
				if len(r.res.Items) != 1 {
					t.Fatalf("%+v", r.res.Items)
				}
			}},

		// Relative links.
		{name: "relative links in RSS resolve against the channel link, content against the item link",
			serve: serveString(rssType, rssDoc(`<link>https://site.example/blog/</link>`,
				rssItem("Rel", "post/1", `<description>&lt;a href="../other"&gt;o&lt;/a&gt; &lt;img src="/i.png"&gt;</description>`),
				rssItem("Root", "/post/2", ""),
				rssItem("Scheme-relative", "//cdn.example/post/3", ""))),
			check: func(t *testing.T, r hostileResult, base string) {
				links("https://site.example/blog/post/1", "https://site.example/post/2", "https://cdn.example/post/3")(t, r, base)
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
			check: links("BASE/feeds/post/1", "BASE/post/2")},
		{name: "Atom xml:base on the feed and on an entry is honoured",
			serve: serveString("application/atom+xml", atomDoc(` xml:base="https://base.example/a/"`, `<link href="/"/>`,
				`<entry><title>Feed base</title><id>1</id><link href="one"/></entry>`,
				`<entry xml:base="https://other.example/b/"><title>Entry base</title><id>2</id><link href="two"/></entry>`,
				`<entry xml:base="sub/"><title>Relative base</title><id>3</id><link href="three"/></entry>`)),
			check: links("https://base.example/a/one", "https://other.example/b/two", "https://base.example/a/sub/three")},
		{name: "a relative xml:base resolves against the feed's address", path: "/x/atom.xml",
			serve: serveString("application/atom+xml", atomDoc(` xml:base="/blog/"`, "", `<entry><title>T</title><id>1</id><link href="post"/></entry>`)),
			check: links("BASE/blog/post")},
		{name: "javascript:, data: and mailto: links are dropped, the items kept",
			serve: serveString(rssType, rssDoc(`<link>https://site.example/</link>`,
				rssItem("JS", "javascript:alert(1)", ""), rssItem("Data", "data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;", ""), rssItem("Mail", "mailto:a@b.example", ""))),
			check: func(t *testing.T, r hostileResult, base string) {
				titles("JS", "Data", "Mail")(t, r, base)
				links("", "", "")(t, r, base)
			}},
		{name: "relative links in a JSON Feed resolve against its home page",
			serve: serveString("application/feed+json", `{"version":"https://jsonfeed.org/version/1.1","title":"J","home_page_url":"https://site.example/blog/","items":[{"id":"1","title":"T","url":"posts/1"}]}`),
			check: links("https://site.example/blog/posts/1")},
		{name: "relative links on a web page resolve against its <base href>", typ: app.SourceWeb, path: "/section/index.html",
			serve: serveString("text/html", `<html><head><base href="/archive/"></head><body><h2><a href="2026/story">A story</a></h2><h2><a href="/news/b">Another story</a></h2></body></html>`),
			check: links("BASE/archive/2026/story", "BASE/news/b")},

		// Sanitizing.
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
			check: one("Bold news")},
		{name: "a subreddit post's HTML is sanitized", typ: app.SourceReddit, path: "/r/golang",
			serve: serveString("application/json", `{"kind":"Listing","data":{"children":[{"kind":"t3","data":{"name":"t3_a","title":"&lt;b&gt;x&lt;/b&gt;","permalink":"/r/golang/comments/a/","is_self":true,"selftext_html":"&lt;p&gt;ok&lt;/p&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"}}]}}`),
			check: func(t *testing.T, r hostileResult, base string) {
				if len(r.res.Items) != 1 || !strings.Contains(r.res.Items[0].CleanContent, "<p>ok</p>") {
					t.Fatalf("%+v", r.res.Items)
				}
			}},

		// Adding a source (Detect) and reading an item's page (Article) go through the same limits.
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

// Peak memory. The parent serves every case; a child process (this test binary again) fetches
// them one by one and reads its peak RSS (VmHWM) after each, having reset it before
// (writing 5 to /proc/self/clear_refs). Servers and documents live in the parent, so the
// figures are the fetcher's alone, Go runtime included.

const hostileChildEnv = "MORNINGDECK_HOSTILE_MEMORY_JOBS"

type hostileJob struct {
	Name, Entry, Base, Path string
	Type                    app.SourceType
	Timeout                 time.Duration
	// Copies is how many fetches of the case run at once (0 is 1).
	Copies int
}

type hostilePeak struct {
	Name         string
	Before, Peak int64 // RSS before the fetch and peak RSS during it, bytes
	HeapPeak     int64 // the largest live heap the GC saw (bytes), sampled
	Outcome      string
	Seconds      float64
}

func TestHostilePeakMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches the hostile set in a child process")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	var jobs []hostileJob
	for _, c := range hostileCases() {
		srv := httptest.NewServer(c.serve)
		defer srv.Close()
		jobs = append(jobs, hostileJob{Name: c.name, Entry: c.entry, Base: srv.URL, Path: c.path, Type: c.typ, Timeout: c.timeout})
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "jobs.json"), filepath.Join(dir, "jobs.json.out")
	b, _ := json.Marshal(jobs)
	if err := os.WriteFile(in, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHostilePeakMemoryChild$", "-test.count=1", "-test.timeout=10m")
	cmd.Env = append(os.Environ(), hostileChildEnv+"="+in)
	if output, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, output)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var peaks []hostilePeak
	if err := json.Unmarshal(b, &peaks); err != nil || len(peaks) != len(jobs) {
		t.Fatalf("%d results of %d jobs: %v", len(peaks), len(jobs), err)
	}
	var worst hostilePeak
	var report strings.Builder
	fmt.Fprintf(&report, "%-8s %-8s %-8s %6s  %s\n", "peakRSS", "before", "heap", "secs", "case → outcome")
	for _, p := range peaks {
		fmt.Fprintf(&report, "%5d MB %5d MB %5d MB %6.2f  %s → %s\n", p.Peak>>20, p.Before>>20, p.HeapPeak>>20, p.Seconds, p.Name, p.Outcome)
		if p.Peak > worst.Peak {
			worst = p
		}
		if p.Peak > hostilePeakLimit {
			t.Errorf("%s: peak RSS %d MB, more than %d MB", p.Name, p.Peak>>20, hostilePeakLimit>>20)
		}
	}
	t.Logf("peak RSS per case (the fetcher's process, 10 MiB body limit):\n%s\nworst: %d MB (%s)", report.String(), worst.Peak>>20, worst.Name)
}

// TestHostileConcurrentPeak fetches four hostile feeds at once, as the four fetch workers may,
// in a child process, and bounds its peak RSS: each of the JSON attachment bomb (1.06 GB for
// one, 2.59 GB for four before) and the namespace bomb, four copies in flight.
func TestHostileConcurrentPeak(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches in a child process")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	cases := map[string]http.HandlerFunc{
		"four JSON attachment bombs": serve("application/feed+json", attachmentBomb()),
		"four namespace bombs":       serve("application/rss+xml", namespaceBomb(357<<10)),
		"four 10 MB tiny-item feeds": func(w http.ResponseWriter, r *http.Request) { serve("application/rss+xml", tinyItems())(w, r) },
	}
	var jobs []hostileJob
	for name, h := range cases {
		srv := httptest.NewServer(h)
		defer srv.Close()
		jobs = append(jobs, hostileJob{Name: name, Base: srv.URL, Copies: 4})
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "jobs.json")
	b, _ := json.Marshal(jobs)
	if err := os.WriteFile(in, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHostilePeakMemoryChild$", "-test.count=1", "-test.timeout=10m")
	cmd.Env = append(os.Environ(), hostileChildEnv+"="+in)
	if output, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, output)
	}
	b, err := os.ReadFile(in + ".out")
	if err != nil {
		t.Fatal(err)
	}
	var peaks []hostilePeak
	if err := json.Unmarshal(b, &peaks); err != nil || len(peaks) != len(jobs) {
		t.Fatalf("%d results of %d jobs: %v", len(peaks), len(jobs), err)
	}
	for _, p := range peaks {
		t.Logf("%s: peak RSS %d MB (heap %d MB), %.2f s → %s", p.Name, p.Peak>>20, p.HeapPeak>>20, p.Seconds, p.Outcome)
		if p.Peak > hostileConcurrentLimit {
			t.Errorf("%s: peak RSS %d MB, more than %d MB", p.Name, p.Peak>>20, hostileConcurrentLimit>>20)
		}
	}
}

// hostileConcurrentLimit bounds the peak RSS of four hostile fetches in flight at once: for
// RELIABILITY.md, 4 × 10 MiB bodies within 512 MB, about 12 times the body limit per fetch.
const hostileConcurrentLimit = 512 << 20

// hostilePeakLimit bounds the peak RSS of the fetching process in any one case: generous,
// for a 10 MiB body limit, against the 400–600 MB that unbounded parsing took.
const hostilePeakLimit = 256 << 20

func TestHostilePeakMemoryChild(t *testing.T) {
	path := os.Getenv(hostileChildEnv)
	if path == "" {
		t.Skip("run by TestHostilePeakMemory")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var jobs []hostileJob
	if err := json.Unmarshal(b, &jobs); err != nil {
		t.Fatal(err)
	}
	var peaks []hostilePeak
	for _, j := range jobs {
		runtime.GC()
		debug.FreeOSMemory()
		if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
			t.Fatalf("resetting the peak RSS: %v", err)
		}
		p := hostilePeak{Name: j.Name, Before: procStatus(t, "VmRSS")}
		stop := sampleHeap(&p.HeapPeak)
		start := time.Now()
		c := hostileCase{entry: j.Entry, typ: j.Type, path: j.Path, timeout: j.Timeout}
		var (
			wg  sync.WaitGroup
			r   hostileResult
			err error
		)
		for i := range max(j.Copies, 1) {
			wg.Go(func() {
				ri, erri := c.run(context.Background(), j.Base)
				if i == 0 {
					r, err = ri, erri
				}
			})
		}
		wg.Wait()
		p.Seconds = time.Since(start).Seconds()
		stop()
		p.Peak = procStatus(t, "VmHWM")
		switch {
		case err != nil:
			p.Outcome = err.Error()
		case r.res != nil:
			p.Outcome = fmt.Sprintf("%d items", len(r.res.Items))
		case r.det != nil:
			p.Outcome = "detected " + string(r.det.Type)
		case r.art != nil:
			p.Outcome = fmt.Sprintf("article of %d bytes of text", len(r.art.Text))
		}
		runtime.KeepAlive(r)
		peaks = append(peaks, p)
	}
	b, _ = json.Marshal(peaks)
	if err := os.WriteFile(path+".out", b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// procStatus reads a size field of /proc/self/status, in bytes.
func procStatus(t *testing.T, field string) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	re := regexp.MustCompile(`^` + field + `:\s+(\d+) kB`)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			return n << 10
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// sampleHeap records the largest heap (live and not yet collected objects) seen every
// few milliseconds until stop is called.
func sampleHeap(peak *int64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			metrics.Read(s)
			*peak = max(*peak, int64(s[0].Value.Uint64()))
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	})
	return func() { close(done); wg.Wait() }
}
