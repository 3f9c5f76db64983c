package views_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app/feeds"
)

// slowHostileFeeds serves n large feeds (about 1 MB each, past the first 256 KiB a request
// reads without a slot), each from a server of its own (a host of its own: the per-host
// limit does not hold them back): the first 600 KB at once, the rest once gate is closed.
func slowHostileFeeds(t *testing.T, n int, gate chan struct{}) []string {
	t.Helper()
	var head strings.Builder
	head.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>Hostile</title><link>https://example.com/</link>`)
	for i := 0; head.Len() < 1<<20; i++ {
		fmt.Fprintf(&head, "<item><title>Item %d</title><link>https://example.com/%d</link><description>%s</description></item>", i, i, strings.Repeat("x", 400))
	}
	head.WriteString("</channel></rss>")
	body := head.String()
	var urls []string
	for range n {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/rss+xml")
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			_, _ = w.Write([]byte(body[:600_000]))
			w.(http.Flusher).Flush()
			select {
			case <-gate:
			case <-r.Context().Done():
				return
			}
			_, _ = w.Write([]byte(body[600_000:]))
		}))
		t.Cleanup(srv.Close)
		urls = append(urls, srv.URL+"/feed.xml")
	}
	return urls
}

// TestAddsShareTheBodyBound (issue 27, N1): adding a source reads and parses an untrusted body
// in the same bounded slots as the fetches. With one large-body slot and slow ~1 MB feeds, concurrent
// adds do not all read their bodies at once: one proceeds, the others are refused after a
// short wait, 429 with Retry-After and a message in the API, the message on the add form.
// On the old code adding detected the feed outside any bound, and every add answered 201.
func TestAddsShareTheBodyBound(t *testing.T) {
	const n = 4
	f := feeds.New(feeds.Options{Parsers: 1, LargeBodies: 1, SlotWait: 200 * time.Millisecond})
	e := newEnvWithFetcher(t, f)

	type answer struct {
		status     int
		retryAfter string
		body       string
	}
	// adds sends n adds at once through send; once n-1 have answered the slot's holder is let
	// go (the gate), so whichever add took the slot can finish.
	adds := func(send func(u string) answer) []answer {
		gate := make(chan struct{})
		urls := slowHostileFeeds(t, n, gate)
		answers := make(chan answer, n)
		var wg sync.WaitGroup
		for _, u := range urls {
			wg.Go(func() { answers <- send(u) })
		}
		var got []answer
		// Not a timing assertion: should the adds all wait on their bodies (no bound, the old
		// code), the gate opens after a while anyway, and the counts below fail.
		stuck := time.After(20 * time.Second)
	collect:
		for len(got) < n-1 {
			select {
			case a := <-answers:
				got = append(got, a)
			case <-stuck:
				break collect
			}
		}
		close(gate)
		wg.Wait()
		close(answers)
		for a := range answers {
			got = append(got, a)
		}
		return got
	}

	api := adds(func(u string) answer {
		res, body := e.do(http.MethodPost, "/api/sources", "application/json", strings.NewReader(`{"url":"`+u+`"}`))
		return answer{res.StatusCode, res.Header.Get("Retry-After"), body}
	})
	created, busy := 0, 0
	for _, a := range api {
		switch a.status {
		case http.StatusCreated:
			created++
		case http.StatusTooManyRequests:
			busy++
			if a.retryAfter == "" || !strings.Contains(a.body, "busy reading other feeds") {
				t.Errorf("a refused add says Retry-After %q and %s; want a wait and the reason", a.retryAfter, a.body)
			}
		default:
			t.Errorf("an add answered %d: %s", a.status, a.body)
		}
	}
	if created != 1 || busy != n-1 {
		t.Fatalf("%d concurrent adds with one body slot: %d created, %d refused as busy; want 1 and %d", n, created, busy, n-1)
	}

	form := adds(func(u string) answer {
		res, body := e.form("/sources", url.Values{"url": {u}})
		return answer{res.StatusCode, res.Header.Get("Retry-After"), body}
	})
	added, busy := 0, 0
	for _, a := range form {
		switch a.status {
		case http.StatusSeeOther:
			added++
		case http.StatusTooManyRequests:
			busy++
			if !strings.Contains(a.body, "The server is busy reading other feeds right now. Try again in 1 second.") {
				t.Errorf("the add form refused as busy does not show why:\n%s", a.body)
			}
		default:
			t.Errorf("an add by the form answered %d", a.status)
		}
	}
	if added != 1 || busy != n-1 {
		t.Fatalf("%d concurrent adds by the form: %d added, %d refused as busy; want 1 and %d", n, added, busy, n-1)
	}
	// Nothing crashed: the server answers, and the sources added are there.
	if status, body := e.json(http.MethodGet, "/api/sources", ""); status != http.StatusOK || strings.Count(body, `"id"`) != 2 {
		t.Fatalf("after the adds: %d %s; want the 2 sources added", status, body)
	}
}
