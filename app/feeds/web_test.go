package feeds_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
)

const newsPage = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>  The Daily   Example </title>
<link rel="alternate" type="application/rss+xml" title="Daily RSS" href="/feed.xml">
<link rel="alternate" type="application/atom+xml" title="Daily Atom" href="https://www.example.test/atom.xml">
<link rel="alternate" type="application/feed+json" href="feed.json">
<link rel="alternate" hreflang="fr" href="/fr/">
<link rel="stylesheet" href="/style.css">
</head>
<body>
<header><a href="/">The Daily Example</a> <a href="/news/header-link-to-an-article-here">A header link with many words</a></header>
<nav><a href="/news/nav-story">A navigation link with many words</a></nav>
<div role="navigation"><a href="/news/role-nav">Role navigation link with many words</a></div>
<main>
  <article>
    <h2><a href="/news/2026/02/15/city-council-votes">City council votes</a></h2>
    <p>Summary. <a href="/news/2026/02/15/city-council-votes#comments">12 comments</a>
    <a href="/tag/politics">politics</a> <a href="/author/jane">Jane Doe</a></p>
  </article>
  <article>
    <h2><a href="news/2026/02/14/storm">Storm</a></h2>
  </article>
  <section>
    <a href="/news/2026/02/13/long-read-about-the-harbour-renovation">A long read about the harbour renovation</a>
    <a href="/news/short">Short</a>
    <a href="/news/2026/02/13/long-read-about-the-harbour-renovation">Same link again with other text</a>
    <a href="https://other.test/news/elsewhere-story-with-words">An article on another site entirely</a>
    <a href="https://blog.example.test/posts/subdomain-story">A story on a subdomain of the same site</a>
    <a href="javascript:alert(1)">A javascript link with many words</a>
    <a href="mailto:desk@example.test">Write to the news desk today</a>
    <a href="#top">Back to the top of the page</a>
    <a href="/page/2">Older articles on the next page</a>
    <a href="/about">About this newspaper and its staff</a>
    <a href="/privacy-policy">Read our privacy policy please</a>
    <a href="/login">Log in to your account here</a>
    <a href="/news/photo-story" title="A photo story told in pictures"><img src="/p.jpg"></a>
    <a href="/news/img-alt-story"><img src="/q.jpg" alt="Pictures from the winter market"></a>
  </section>
  <form><a href="/news/form-link">A link inside a form element</a></form>
  <aside><a href="/news/aside-link">A link inside an aside element</a></aside>
</main>
<footer><a href="/news/footer-link">A footer link with many words</a></footer>
<script>document.write('<a href="/news/script-link">A link written by a script</a>')</script>
</body></html>`

func newsServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(newsPage))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestFetchWebPage(t *testing.T) {
	srv := newsServer(t)
	res := fetch(t, feeds.New(feeds.Options{}), srv.URL+"/news/", app.SourceWeb)
	if res.Title != "The Daily Example" {
		t.Errorf("title %q", res.Title)
	}
	want := []struct{ title, link string }{
		{"City council votes", srv.URL + "/news/2026/02/15/city-council-votes"},
		{"Storm", srv.URL + "/news/news/2026/02/14/storm"},
		{"A long read about the harbour renovation", srv.URL + "/news/2026/02/13/long-read-about-the-harbour-renovation"},
		{"A photo story told in pictures", srv.URL + "/news/photo-story"},
		{"Pictures from the winter market", srv.URL + "/news/img-alt-story"},
	}
	var got []string
	for _, it := range res.Items {
		got = append(got, it.Title+" → "+it.Link)
	}
	if len(res.Items) != len(want) {
		t.Fatalf("got items:\n%s", strings.Join(got, "\n"))
	}
	for i, w := range want {
		it := res.Items[i]
		if it.Title != w.title || it.Link != w.link || it.GUID != w.link {
			t.Errorf("item %d: %q %q %q, want %q %q", i, it.Title, it.Link, it.GUID, w.title, w.link)
		}
	}
}

func TestFetchWebSameSiteIgnoresWWWAndSubdomains(t *testing.T) {
	// Served through a transport that answers every host, so the page can live on www.example.test.
	srv := newsServer(t)
	f := feeds.New(feeds.Options{Transport: rewriteTransport{target: srv.URL}})
	res := fetch(t, f, "http://www.example.test/news/", app.SourceWeb)
	var links []string
	for _, it := range res.Items {
		links = append(links, it.Link)
	}
	all := strings.Join(links, "\n")
	if !strings.Contains(all, "https://blog.example.test/posts/subdomain-story") {
		t.Errorf("subdomain link missing:\n%s", all)
	}
	if strings.Contains(all, "other.test") {
		t.Errorf("other site kept:\n%s", all)
	}
}

func TestDetect(t *testing.T) {
	srv := newsServer(t)
	feedSrv := serveBytes(t, "application/rss+xml", []byte(smallFeed))
	f := feeds.New(feeds.Options{})

	t.Run("a page reports the feeds it advertises", func(t *testing.T) {
		d, err := f.Detect(context.Background(), srv.URL+"/news/")
		if err != nil {
			t.Fatal(err)
		}
		if d.Type != app.SourceWeb || d.URL != srv.URL+"/news/" || d.Title != "The Daily Example" {
			t.Errorf("%+v", d)
		}
		// The section's own feed (under /news/) first, then the site's in page order.
		want := []feeds.FeedLink{
			{URL: srv.URL + "/news/feed.json", Type: "application/feed+json"},
			{URL: srv.URL + "/feed.xml", Title: "Daily RSS", Type: "application/rss+xml"},
			{URL: "https://www.example.test/atom.xml", Title: "Daily Atom", Type: "application/atom+xml"},
		}
		if len(d.Feeds) != len(want) {
			t.Fatalf("feeds %+v", d.Feeds)
		}
		for i := range want {
			if d.Feeds[i] != want[i] {
				t.Errorf("feed %d: %+v, want %+v", i, d.Feeds[i], want[i])
			}
		}
	})

	t.Run("a feed is rss", func(t *testing.T) {
		d, err := f.Detect(context.Background(), feedSrv.URL+"/feed")
		if err != nil {
			t.Fatal(err)
		}
		if d.Type != app.SourceRSS || d.URL != feedSrv.URL+"/feed" || d.Title != "Small" || len(d.Feeds) != 0 {
			t.Errorf("%+v", d)
		}
	})

	t.Run("an address without a scheme gets https", func(t *testing.T) {
		// The test server speaks plain HTTP, so https fails; what matters is that it was tried.
		_, err := f.Detect(context.Background(), strings.TrimPrefix(feedSrv.URL, "http://")+"/feed")
		var fe *feeds.Error
		if err == nil || !errors.As(err, &fe) {
			t.Fatalf("got %v", err)
		}
	})

	reddit := []struct{ in, want string }{
		{"r/golang", "https://www.reddit.com/r/golang"},
		{"/r/golang/", "https://www.reddit.com/r/golang"},
		{"reddit.com/r/golang", "https://www.reddit.com/r/golang"},
		{"https://old.reddit.com/r/golang/new/", "https://www.reddit.com/r/golang"},
		{"https://www.reddit.com/r/golang/comments/abc/x/", "https://www.reddit.com/r/golang"},
	}
	for _, c := range reddit {
		t.Run("subreddit "+c.in, func(t *testing.T) {
			d, err := f.Detect(context.Background(), c.in)
			if err != nil {
				t.Fatal(err)
			}
			if d.Type != app.SourceReddit || d.URL != c.want || d.Title != "r/golang" {
				t.Errorf("%+v", d)
			}
		})
	}

	t.Run("nonsense is invalid", func(t *testing.T) {
		for _, in := range []string{"", "   ", "http://", "ftp://example.com/"} {
			if _, err := f.Detect(context.Background(), in); app.ErrorCode(err) != app.EINVALID {
				t.Errorf("%q: got %v", in, err)
			}
		}
	})
}

// rewriteTransport sends every request to target, keeping the Host header.
type rewriteTransport struct{ target string }

func (rt rewriteTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r2 := r.Clone(r.Context())
	u := *r.URL
	t, _ := http.NewRequest(http.MethodGet, rt.target, nil)
	u.Scheme, u.Host = t.URL.Scheme, t.URL.Host
	r2.URL = &u
	r2.Host = r.URL.Host
	resp, err := http.DefaultTransport.RoundTrip(r2)
	if err == nil {
		resp.Request = r
	}
	return resp, err
}
