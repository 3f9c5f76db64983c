package views_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app/feeds"
)

// corpusFeed serves one file of testdata/corpus/feeds and fetches it with the real fetcher.
func corpusFeed(t *testing.T, name string) *feeds.Result {
	t.Helper()
	body, err := os.ReadFile("../testdata/corpus/feeds/" + name)
	if err != nil {
		t.Fatalf("the test corpus is missing (testdata/corpus/feeds/%s): %v", name, err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		_, _ = w.Write(body)
	}))
	defer srv.Close()
	res, err := feeds.New(feeds.Options{}).Fetch(context.Background(), feeds.Request{URL: srv.URL, Type: "rss"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestItemMedia(t *testing.T) {
	t.Run("a podcast episode plays on its item page, with a download link that says what it is", func(t *testing.T) {
		e := newEnv(t)
		src := e.createSource("https://example.com/podcast.xml", "Podcast")
		res := corpusFeed(t, "itunes.xml")
		e.fetch(src.ID, res.Items...)
		res2, body := e.get("/items/1")
		mustContain(t, res2, body, 200, `data-testid="media"`, `data-testid="audio"`, `preload="none"`, `Download the audio (`, `audio/`)
		if !strings.Contains(body, "http://example.com/podcasts/everything/AllAboutEverything") {
			t.Fatalf("the episode's address is not on the page")
		}
		if csp := res2.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "media-src 'self' https: http:") {
			t.Fatalf("the CSP would block the player: %s", csp)
		}
	})
	t.Run("an item whose date could not be read is marked undated, dated by when it was first seen", func(t *testing.T) {
		e := newEnv(t)
		src := e.createSource("https://example.com/undated.xml", "Undated")
		feed := `<?xml version="1.0"?><rss version="2.0"><channel><title>U</title>
<item><title>No date</title><link>https://example.com/a</link><guid>a</guid></item>
<item><title>Bad date</title><link>https://example.com/b</link><guid>b</guid><pubDate>sometime last week</pubDate></item>
</channel></rss>`
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte(feed)) }))
		defer srv.Close()
		r, err := feeds.New(feeds.Options{}).Fetch(context.Background(), feeds.Request{URL: srv.URL, Type: "rss"})
		if err != nil {
			t.Fatal(err)
		}
		e.fetch(src.ID, r.Items...)
		for id, want := range map[int]string{1: "no date", 2: `dated this item &#34;sometime last week&#34;`} {
			res, body := e.get("/items/" + strconv.Itoa(id))
			mustContain(t, res, body, 200, `data-testid="date-missing"`, want)
		}
	})
}
