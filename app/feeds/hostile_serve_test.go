package feeds_test

// Servers and documents for the hostile cases (hostile_test.go).

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

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
