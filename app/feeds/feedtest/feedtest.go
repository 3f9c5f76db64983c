// Package feedtest serves feeds for tests and benchmarks: a farm of generated RSS feeds with
// ETag/Last-Modified support, and counters of what was asked.
package feedtest

import (
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Farm serves /feed/N.xml for N in [0, Feeds): RSS 2.0 feeds of Items items each.
// Bump(n) adds a new item to feed n. Requests, 304s and full responses are counted.
type Farm struct {
	*httptest.Server
	Feeds, Items int

	mu      sync.Mutex
	extra   map[int]int // feed → items added by Bump
	status  map[int]int // feed → forced HTTP status
	Hits    atomic.Int64
	NotMod  atomic.Int64
	Full    atomic.Int64
	started time.Time
}

// NewFarm starts a farm. Close it when done.
func NewFarm(feeds, items int) *Farm {
	f := &Farm{Feeds: feeds, Items: items, extra: map[int]int{}, status: map[int]int{}, started: time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC)}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	return f
}

// URL of feed n.
func (f *Farm) URL(n int) string { return f.Server.URL + "/feed/" + strconv.Itoa(n) + ".xml" }

// Bump adds one item to feed n.
func (f *Farm) Bump(n int) {
	f.mu.Lock()
	f.extra[n]++
	f.mu.Unlock()
}

// SetStatus makes feed n answer with an HTTP status (0 restores it).
func (f *Farm) SetStatus(n, status int) {
	f.mu.Lock()
	f.status[n] = status
	f.mu.Unlock()
}

func (f *Farm) serve(w http.ResponseWriter, r *http.Request) {
	f.Hits.Add(1)
	name, ok := strings.CutPrefix(r.URL.Path, "/feed/")
	n, err := strconv.Atoi(strings.TrimSuffix(name, ".xml"))
	if !ok || err != nil || n < 0 || n >= f.Feeds {
		http.NotFound(w, r)
		return
	}
	f.mu.Lock()
	extra, status := f.extra[n], f.status[n]
	f.mu.Unlock()
	if status != 0 {
		http.Error(w, http.StatusText(status), status)
		return
	}
	etag := fmt.Sprintf(`"%d-%d"`, n, extra)
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		f.NotMod.Add(1)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	f.Full.Add(1)
	w.Header().Set("Content-Type", "application/rss+xml; charset=utf-8")
	_, _ = w.Write(f.Feed(n, f.Items+extra))
}

// Feed returns the RSS of feed n with items items (~550 bytes an item), newest first.
func (f *Farm) Feed(n, items int) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Farm feed %d</title><link>%s/site/%d</link><description>Generated feed %d</description>
`, n, f.Server.URL, n, n)
	for i := items - 1; i >= 0; i-- {
		h := sha256.Sum256([]byte(fmt.Sprint(n, i)))
		pub := f.started.Add(time.Duration(i) * time.Hour).Add(time.Duration(n) * time.Second)
		fmt.Fprintf(&b, `<item><title>Story %d of feed %d: notes on %x</title><link>%s/site/%d/story/%d</link>
<guid isPermaLink="false">feed-%d-story-%d</guid><pubDate>%s</pubDate><author>writer%d@example.com (Writer %d)</author>
<description><![CDATA[<p>This is story <b>%d</b> of feed %d. It talks about databases, queues and the morning news, at a calm pace, with a link to <a href="/site/%d/story/%d">itself</a> and some more words to make it a realistic size for a summary paragraph of a typical blog post.</p>]]></description></item>
`, i, n, h[:6], f.Server.URL, n, i, n, i, pub.Format(time.RFC1123Z), i%7, i%7, i, n, n, i)
	}
	b.WriteString("</channel></rss>\n")
	return []byte(b.String())
}
