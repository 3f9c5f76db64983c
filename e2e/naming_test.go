package e2e_test

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestSourceNamedByItsFeed: a page that advertises its feed under a generic or foreign
// <link title> gives a source named by the feed's own title once fetched; a name the user
// gave stays.
func TestSourceNamedByItsFeed(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/blog", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><html><head><title>Welcome! | Some Hosting Platform</title>
<link rel="alternate" type="application/rss+xml" title="Comments on everything" href="/feed.xml"></head><body><p>Hi</p></body></html>`))
	})
	mux.HandleFunc("/feed.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		_, _ = w.Write([]byte(`<?xml version="1.0"?><rss version="2.0"><channel><title>Ann's Field Notes</title><link>http://example.com/</link>
<item><title>One</title><link>http://example.com/1</link><guid>1</guid><pubDate>Mon, 23 Nov 2026 06:00:00 GMT</pubDate></item></channel></rss>`))
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	dir := t.TempDir()
	mustRun(t, dir, "source", "add", srv.URL+"/blog")
	mustRun(t, dir, "source", "add", srv.URL+"/blog", "--name", "My name for it", "--type", "web")
	mustRun(t, dir, "fetch")
	got := map[string]bool{}
	for _, s := range listSources(t, dir) {
		got[s.Name] = true
	}
	if !got["Ann's Field Notes"] || !got["My name for it"] {
		t.Fatalf("source names %v, want the feed's own title and the user's name", got)
	}
}
