package e2e_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestSourceAddPick: `source add` of a page that offers two feeds lists them and adds none;
// --pick N follows the Nth (issue 28: it silently took the first).
func TestSourceAddPick(t *testing.T) {
	feed := func(title string) string {
		return `<?xml version="1.0"?><rss version="2.0"><channel><title>` + title + `</title><link>https://blog.example/</link>
<item><title>Hello</title><link>https://blog.example/hello</link><guid>hello</guid></item></channel></rss>`
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(`<!doctype html><html><head><title>Example Blog</title>
<link rel="alternate" type="application/rss+xml" title="Posts" href="/feed.xml">
<link rel="alternate" type="application/rss+xml" title="Comments" href="/comments.xml">
</head><body><a href="/hello">Hello</a></body></html>`))
		case "/feed.xml":
			w.Header().Set("Content-Type", "application/rss+xml")
			_, _ = w.Write([]byte(feed("Posts")))
		case "/comments.xml":
			w.Header().Set("Content-Type", "application/rss+xml")
			_, _ = w.Write([]byte(feed("Comments")))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	dir := t.TempDir()

	_, errOut, err := run(t, dir, "source", "add", srv.URL+"/")
	if err == nil {
		t.Fatal("a page offering two feeds was added without a choice")
	}
	for _, want := range []string{"offers 2 feeds", "1.  Posts     " + srv.URL + "/feed.xml", "2.  Comments  " + srv.URL + "/comments.xml", "--pick"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the choice does not say %q:\n%s", want, errOut)
		}
	}
	if s := listSources(t, dir); len(s) != 0 {
		t.Fatalf("sources after no choice: %+v", s)
	}
	if _, errOut, err := run(t, dir, "source", "add", srv.URL+"/", "--pick", "3"); err == nil || !strings.Contains(errOut, "from 1 to 2") {
		t.Fatalf("--pick 3 of 2: %v %s", err, errOut)
	}
	if out := mustRun(t, dir, "source", "add", srv.URL+"/", "--pick", "2"); !strings.Contains(out, "Added source 1") {
		t.Fatalf("--pick 2 said %q", out)
	}
	if s := listSources(t, dir); len(s) != 1 || s[0].URL != srv.URL+"/comments.xml" || s[0].Type != "rss" {
		t.Fatalf("sources after --pick 2: %+v", s)
	}
}
