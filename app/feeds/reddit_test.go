package feeds_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
)

func TestFetchReddit(t *testing.T) {
	listing := readFile(t, "testdata/reddit_golang_new.json")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/r/golang/new.json" || r.URL.Query().Get("limit") != "100" {
			t.Errorf("requested %s", r.URL)
			http.NotFound(w, r)
			return
		}
		if ua := r.Header.Get("User-Agent"); !strings.HasPrefix(ua, "MorningDeck/") {
			t.Errorf("User-Agent %q", ua)
			w.WriteHeader(http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		_, _ = w.Write(listing)
	}))
	defer srv.Close()

	res := fetch(t, feeds.New(feeds.Options{}), srv.URL+"/r/golang/", app.SourceReddit)
	if res.Title != "r/golang" || res.SiteURL != srv.URL+"/r/golang" {
		t.Errorf("title %q site %q", res.Title, res.SiteURL)
	}
	if len(res.Items) != 2 {
		t.Fatalf("%d items, want 2 (the third repeats the second)", len(res.Items))
	}

	self := res.Items[0]
	if self.GUID != "t3_1abc001" || self.Title != "Range-over-func iterators & when to use them?" ||
		self.Link != srv.URL+"/r/golang/comments/1abc001/rangeoverfunc_iterators_when_to_use_them/" || self.Author != "gopher_jane" {
		t.Errorf("self post %+v", self)
	}
	if self.PublishedAt == nil || !self.PublishedAt.Equal(time.Unix(1739615400, 0)) {
		t.Errorf("published %v", self.PublishedAt)
	}
	if !strings.Contains(self.RawContent, "<code>iter.Seq</code>") {
		t.Errorf("raw content not unescaped: %q", self.RawContent)
	}
	if strings.Contains(self.CleanContent, "<script") || !strings.Contains(self.CleanContent, `href="`+srv.URL+`/r/golang/wiki"`) {
		t.Errorf("clean content %q", self.CleanContent)
	}
	wantExtra := map[string]any{
		"permalink":   self.Link,
		"externalUrl": "",
		"score":       42,
		"comments":    17,
		"selftext":    "I keep seeing `iter.Seq` in new code. When is it worth it over a slice?\n\n**Edit:** thanks & have a good day",
	}
	for k, v := range wantExtra {
		if self.Extra[k] != v {
			t.Errorf("Extra[%s] = %#v, want %#v", k, self.Extra[k], v)
		}
	}

	link := res.Items[1]
	if link.GUID != "t3_1abc002" || link.Extra["externalUrl"] != "https://go.dev/blog/go1.24" ||
		link.Link != srv.URL+"/r/golang/comments/1abc002/go_124_is_released/" || link.Extra["score"] != 512 || link.Extra["comments"] != 88 {
		t.Errorf("link post %+v", link)
	}
}

func TestFetchRedditNeedsASubredditURL(t *testing.T) {
	_, err := feeds.New(feeds.Options{}).Fetch(t.Context(), feeds.Request{URL: "https://www.reddit.com/user/x", Type: app.SourceReddit})
	if app.ErrorCode(err) != app.EINVALID {
		t.Fatalf("got %v", err)
	}
}
