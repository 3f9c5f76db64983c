package feeds_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

const smallFeed = `<?xml version="1.0" encoding="utf-8"?>
<rss version="2.0"><channel><title>Small</title><link>https://example.com/</link>
<item><title>One</title><link>https://example.com/1</link></item>
</channel></rss>`

func assertKind(t *testing.T, err error, kind string) *feeds.Error {
	t.Helper()
	var fe *feeds.Error
	if !errors.As(err, &fe) {
		t.Fatalf("got error %v (%T), want a *feeds.Error of kind %s", err, err, kind)
	}
	if fe.Kind != kind {
		t.Fatalf("got kind %s (%q), want %s", fe.Kind, fe.Message, kind)
	}
	if fe.Message == "" || fe.Error() != fe.Message {
		t.Fatalf("no readable message: %+v", fe)
	}
	return fe
}

func TestFetchConditionalGET(t *testing.T) {
	var sawINM, sawIMS, sawUA, sawGzip atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sawINM.Store(r.Header.Get("If-None-Match"))
		sawIMS.Store(r.Header.Get("If-Modified-Since"))
		sawUA.Store(r.Header.Get("User-Agent"))
		sawGzip.Store(r.Header.Get("Accept-Encoding"))
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Last-Modified", "Sat, 14 Feb 2026 10:00:00 GMT")
		_, _ = w.Write([]byte(smallFeed))
	}))
	defer srv.Close()
	f := feeds.New(feeds.Options{})

	res := fetch(t, f, srv.URL, app.SourceRSS)
	if res.NotModified || res.ETag != `"v1"` || res.LastModified != "Sat, 14 Feb 2026 10:00:00 GMT" || len(res.Items) != 1 {
		t.Fatalf("first fetch: %+v", res)
	}
	if ua := sawUA.Load().(string); !strings.HasPrefix(ua, "MorningDeck/") || !strings.Contains(ua, "github.com/morningdeck/morningdeck") {
		t.Errorf("User-Agent %q", ua)
	}
	if ae := sawGzip.Load().(string); !strings.Contains(ae, "gzip") {
		t.Errorf("Accept-Encoding %q", ae)
	}

	res, err := f.Fetch(context.Background(), feeds.Request{URL: srv.URL, ETag: res.ETag, LastModified: res.LastModified})
	if err != nil {
		t.Fatal(err)
	}
	if !res.NotModified || len(res.Items) != 0 || res.ETag != `"v1"` {
		t.Fatalf("second fetch: %+v", res)
	}
	if sawINM.Load().(string) != `"v1"` || sawIMS.Load().(string) != "Sat, 14 Feb 2026 10:00:00 GMT" {
		t.Errorf("server saw If-None-Match %q, If-Modified-Since %q", sawINM.Load(), sawIMS.Load())
	}
}

func TestFetchGzip(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write([]byte(smallFeed))
	_ = zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(buf.Bytes())
	}))
	defer srv.Close()
	res := fetch(t, feeds.New(feeds.Options{}), srv.URL, app.SourceRSS)
	if res.Title != "Small" || len(res.Items) != 1 {
		t.Fatalf("%+v", res)
	}
}

func TestFetchFailures(t *testing.T) {
	// Port 9 (discard), where nothing listens: a port freed by closing a listener was taken by
	// another package's test server running beside this one ("404 Not Found", not refused).
	closedURL := "http://127.0.0.1:9/feed"

	// 1 MiB of zeros compresses to about 1 KiB: a small gzip bomb against a 64 KiB limit.
	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	_, _ = zw.Write(make([]byte, 1<<20))
	_ = zw.Close()

	mux := http.NewServeMux()
	mux.HandleFunc("/404", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	mux.HandleFunc("/500", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "oops", 500) })
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/slowbody", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("<rss>"))
		w.(http.Flusher).Flush()
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write(bytes.Repeat([]byte("x"), 100<<10))
	})
	mux.HandleFunc("/bomb", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		_, _ = w.Write(bomb.Bytes())
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop2", http.StatusFound) })
	mux.HandleFunc("/loop2", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/garbage", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte("\x00\x01\x02 this is { not a feed ] at all"))
	})
	mux.HandleFunc("/empty", func(w http.ResponseWriter, r *http.Request) {})
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`<!doctype html><html><head><link rel="alternate" type="application/rss+xml" href="/feed.xml"></head><body>Hi</body></html>`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	f := feeds.New(feeds.Options{Timeout: 300 * time.Millisecond, MaxBodyBytes: 64 << 10})
	cases := []struct {
		name, url, kind, message string
		network                  bool
	}{
		{"404", srv.URL + "/404", feeds.KindHTTPStatus, "The server answered 404 Not Found.", false},
		{"500", srv.URL + "/500", feeds.KindHTTPStatus, "The server answered 500 Internal Server Error.", false},
		{"a host that does not exist", "http://nonexistent.invalid/feed", feeds.KindDNS, "The host name nonexistent.invalid could not be found.", true},
		{"a refused connection", closedURL, feeds.KindConnect, "refused the connection", true},
		{"a server too slow to answer", srv.URL + "/slow", feeds.KindTimeout, "did not answer within 300ms", true},
		{"a server too slow to send the body", srv.URL + "/slowbody", feeds.KindTimeout, "did not answer within 300ms", true},
		{"a body over the limit", srv.URL + "/big", feeds.KindTooLarge, "The response is larger than 64 KiB.", false},
		{"a gzip bomb", srv.URL + "/bomb", feeds.KindTooLarge, "The response is larger than 64 KiB.", false},
		{"a redirect loop", srv.URL + "/loop", feeds.KindRedirects, "Too many redirects (more than 5).", false},
		{"garbage", srv.URL + "/garbage", feeds.KindParse, "The content is not a feed we can read", false},
		{"an empty body", srv.URL + "/empty", feeds.KindParse, "The content is not a feed we can read: the response is empty.", false},
		{"a web page", srv.URL + "/page", feeds.KindParse, "it advertises a feed at " + srv.URL + "/feed.xml", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			_, err := f.Fetch(context.Background(), feeds.Request{URL: c.url, Type: app.SourceRSS})
			fe := assertKind(t, err, c.kind)
			if !strings.Contains(fe.Message, c.message) {
				t.Errorf("message %q lacks %q", fe.Message, c.message)
			}
			if feeds.IsNetwork(err) != c.network {
				t.Errorf("IsNetwork = %v", !c.network)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %s", d)
			}
		})
	}

	t.Run("an invalid URL is an app.EINVALID error", func(t *testing.T) {
		_, err := f.Fetch(context.Background(), feeds.Request{URL: "ftp://example.com/x"})
		if app.ErrorCode(err) != app.EINVALID {
			t.Fatalf("got %v", err)
		}
	})

	t.Run("a cancelled context is not blamed on the source", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := f.Fetch(ctx, feeds.Request{URL: srv.URL + "/slow"})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("got %v", err)
		}
	})
}

func TestFetchRedirectsWithinLimit(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/feed", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(smallFeed)) })
	mux.HandleFunc("/r/", func(w http.ResponseWriter, r *http.Request) {
		n := strings.TrimPrefix(r.URL.Path, "/r/")
		if n == "0" {
			http.Redirect(w, r, "/feed", http.StatusMovedPermanently)
			return
		}
		http.Redirect(w, r, "/r/"+string(rune(n[0]-1)), http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	res := fetch(t, feeds.New(feeds.Options{}), srv.URL+"/r/4", app.SourceRSS) // five redirects
	if res.FinalURL != srv.URL+"/feed" || len(res.Items) != 1 {
		t.Fatalf("%+v", res)
	}
}

func TestFetchRetryAfterPausesTheHost(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		w.Header().Set("Retry-After", "120")
		w.WriteHeader(http.StatusTooManyRequests)
	}))
	defer srv.Close()
	clock := sqlitetest.NewClock(time.Date(2026, 2, 15, 12, 0, 0, 0, time.UTC))
	f := feeds.New(feeds.Options{Clock: clock})

	_, err := f.Fetch(context.Background(), feeds.Request{URL: srv.URL + "/a"})
	fe := assertKind(t, err, feeds.KindHTTPStatus)
	if fe.RetryAfter != 2*time.Minute || fe.StatusCode != 429 || !strings.Contains(fe.Message, "429 Too Many Requests") {
		t.Fatalf("%+v", fe)
	}

	_, err = f.Fetch(context.Background(), feeds.Request{URL: srv.URL + "/b"})
	fe = assertKind(t, err, feeds.KindHostPaused)
	if fe.RetryAfter != 2*time.Minute || calls.Load() != 1 {
		t.Fatalf("%+v, %d calls", fe, calls.Load())
	}
	if feeds.IsNetwork(err) {
		t.Error("host_paused is not a network failure")
	}

	clock.Add(2*time.Minute + time.Second)
	_, err = f.Fetch(context.Background(), feeds.Request{URL: srv.URL + "/c"})
	assertKind(t, err, feeds.KindHTTPStatus)
	if calls.Load() != 2 {
		t.Fatalf("%d calls after the pause", calls.Load())
	}
}

func TestFetchRetryAfterHTTPDate(t *testing.T) {
	now := time.Date(2026, 2, 15, 12, 0, 0, 0, time.UTC)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", now.Add(10*time.Minute).Format(http.TimeFormat))
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	f := feeds.New(feeds.Options{Clock: sqlitetest.NewClock(now)})
	_, err := f.Fetch(context.Background(), feeds.Request{URL: srv.URL})
	if fe := assertKind(t, err, feeds.KindHTTPStatus); fe.RetryAfter != 10*time.Minute {
		t.Fatalf("%+v", fe)
	}
}

func TestFetchAtMostPerHostConcurrentRequests(t *testing.T) {
	var cur, peak atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := cur.Add(1)
		defer cur.Add(-1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		time.Sleep(50 * time.Millisecond)
		_, _ = w.Write([]byte(smallFeed))
	}))
	defer srv.Close()
	f := feeds.New(feeds.Options{PerHost: 2})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := f.Fetch(context.Background(), feeds.Request{URL: srv.URL}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if p := peak.Load(); p != 2 {
		t.Fatalf("peak concurrency %d, want 2", p)
	}
}

func TestFetchBillionLaughs(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY lol "lol">`)
	prev := "lol"
	for i := 1; i <= 9; i++ {
		name := "lol" + string(rune('0'+i))
		b.WriteString(`<!ENTITY ` + name + ` "` + strings.Repeat("&"+prev+";", 10) + `">`)
		prev = name
	}
	b.WriteString(`]><rss version="2.0"><channel><title>&lol9;</title><item><title>&lol9;</title><link>https://example.com/</link></item></channel></rss>`)
	srv := serveBytes(t, "application/rss+xml", []byte(b.String()))
	start := time.Now()
	_, err := feeds.New(feeds.Options{}).Fetch(context.Background(), feeds.Request{URL: srv.URL})
	fe := assertKind(t, err, feeds.KindParse)
	if fe.Message != "The feed declares XML entities, which we refuse for safety." {
		t.Errorf("message %q", fe.Message)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %s", d)
	}
}

func TestFetchNeverPanics(t *testing.T) {
	inputs := []string{
		"", "<", "<?xml", "<rss", "<rss><channel><item>", "{", `{"version":"https://jsonfeed.org/version/1","items":[null,{}]}`,
		"<feed xmlns='http://www.w3.org/2005/Atom'><entry><link href='%zz'/><title>x</title></entry></feed>",
		"\xff\xfe<\x00r\x00s\x00s\x00", "<rss><channel><item><title><![CDATA[", "<html><body><a href='http://[::1'>x</a>",
	}
	srvBody := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(<-srvBody))
	}))
	defer srv.Close()
	f := feeds.New(feeds.Options{})
	for _, typ := range []app.SourceType{app.SourceRSS, app.SourceWeb, app.SourceReddit} {
		for _, in := range inputs {
			srvBody <- in
			url := srv.URL
			if typ == app.SourceReddit {
				url += "/r/golang"
			}
			_, _ = f.Fetch(context.Background(), feeds.Request{URL: url, Type: typ})
		}
	}
}
