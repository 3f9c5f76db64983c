package app_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

func TestValidateInterval(t *testing.T) {
	for _, tc := range []struct {
		minutes int
		ok      bool
	}{{0, false}, {1, true}, {15, true}, {10080, true}, {10081, false}, {-5, false}} {
		err := app.ValidateInterval(tc.minutes)
		if (err == nil) != tc.ok {
			t.Errorf("ValidateInterval(%d) = %v", tc.minutes, err)
		}
		if err != nil && (app.ErrorCode(err) != app.EINVALID || !strings.Contains(err.Error(), "between 1 and 10080")) {
			t.Errorf("ValidateInterval(%d) message %q", tc.minutes, err)
		}
	}
}

func TestBackoff(t *testing.T) {
	t.Run("doubles the interval per consecutive error and caps at a day", func(t *testing.T) {
		if got := app.Backoff(15*time.Minute, 0); got != 15*time.Minute {
			t.Errorf("0 errors: %s", got)
		}
		if got := app.Backoff(15*time.Minute, 3); got != 120*time.Minute {
			t.Errorf("3 errors: %s", got)
		}
		if got := app.Backoff(15*time.Minute, 40); got != 24*time.Hour {
			t.Errorf("40 errors: %s", got)
		}
	})
}

func TestSubredditAddresses(t *testing.T) {
	for in, want := range map[string]string{
		"r/golang":                                 "https://www.reddit.com/r/golang",
		"/r/golang/":                               "https://www.reddit.com/r/golang",
		"https://www.reddit.com/r/golang/new/":     "https://www.reddit.com/r/golang",
		"old.reddit.com/r/rust":                    "https://www.reddit.com/r/rust", // one canonical address for every reddit.com host
		"http://127.0.0.1:8080/r/golang":           "http://127.0.0.1:8080/r/golang",
		"https://www.reddit.com/user/someone":      "",
		"r/a":                                      "",
		"r/<script>":                               "",
		"https://www.reddit.com/r/golang/comments": "https://www.reddit.com/r/golang",
	} {
		got, err := app.Subreddit(in)
		if got != want || (err == nil) != (want != "") {
			t.Errorf("Subreddit(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestSubreddit(t *testing.T) {
	for _, tc := range []struct{ name, in, want, err string }{
		{"the short form", "r/golang", "https://www.reddit.com/r/golang", ""},
		{"an address on any host keeps its host", "http://127.0.0.1:8080/r/golang/new", "http://127.0.0.1:8080/r/golang", ""},
		{"a multireddit is refused with what to do instead", "r/golang+rust", "", "add each subreddit (r/golang, r/rust) as a source of its own"},
		{"a multireddit address is refused too", "https://www.reddit.com/r/golang+rust/", "", "multireddit"},
		{"a name longer than Reddit allows is refused", "r/" + strings.Repeat("a", 22), "", "2 to 21 letters"},
		{"a user page is not a subreddit", "https://www.reddit.com/user/someone", "", "is not a subreddit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := app.Subreddit(tc.in)
			if got != tc.want || (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("Subreddit(%q) = %q, %v; want %q, error with %q", tc.in, got, err, tc.want, tc.err)
			}
			if err != nil && app.ErrorCode(err) != app.EINVALID {
				t.Fatalf("error code %q, want invalid", app.ErrorCode(err))
			}
		})
	}
	t.Run("adding a multireddit is refused before anything is stored, with or without a type", func(t *testing.T) {
		s := &app.Sources{} // no store: a refusal must come before it is needed
		for _, typ := range []app.SourceType{"", app.SourceReddit} {
			if _, err := s.Add(context.Background(), app.AddSource{URL: "r/golang+rust", Type: typ}); err == nil || !strings.Contains(err.Error(), "multireddit") {
				t.Errorf("type %q: err %v, want the multireddit refusal", typ, err)
			}
		}
	})
}

func TestNormalizeURL(t *testing.T) {
	for in, want := range map[string]string{
		"example.com/feed":           "https://example.com/feed",
		" http://example.com/a#frag": "http://example.com/a",
		"ftp://example.com/x":        "",
		"javascript:alert(1)":        "",
		"":                           "",
	} {
		got, err := app.NormalizeURL(in)
		if got != want || (err == nil) != (want != "") {
			t.Errorf("NormalizeURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	// The message quotes what was typed, not the https:// added to it, and shows the form.
	_, err := app.NormalizeURL(" not a url ")
	if msg := app.ErrorMessage(err); msg != `"not a url" is not a web address: give one like https://example.com/feed.xml (http or https).` {
		t.Errorf("the message for a sentence: %q", msg)
	}
}

func TestParseOPML(t *testing.T) {
	t.Run("reads nested folders, titles and types", func(t *testing.T) {
		doc := `<?xml version="1.0" encoding="ISO-8859-1"?>
<opml version="1.0"><head><title>x</title></head><body>
<outline text="Tech"><outline text="Go blog" type="rss" xmlUrl="https://go.dev/blog/feed.atom" htmlUrl="https://go.dev/blog"/>
  <outline title="Sub &amp; more" text="ignored" xmlUrl="https://example.com/rss"/></outline>
<outline text="golang" type="reddit" xmlUrl="https://www.reddit.com/r/golang"/>
<outline text="folder without feeds"/>
</body></opml>`
		got, err := app.ParseOPML(strings.NewReader(doc))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || got[0].Name != "Go blog" || got[1].Name != "Sub & more" || got[2].Type != app.SourceReddit || got[0].Type != app.SourceRSS {
			t.Fatalf("entries: %+v", got)
		}
	})
	t.Run("reads an XML 1.1 file as 1.0", func(t *testing.T) {
		doc := `<?xml version="1.1" encoding="UTF-8"?><opml version="2.0"><body><outline text="A" xmlUrl="https://example.com/feed"/></body></opml>`
		got, err := app.ParseOPML(strings.NewReader(doc))
		if err != nil || len(got) != 1 || got[0].URL != "https://example.com/feed" {
			t.Fatalf("entries %+v, err %v", got, err)
		}
	})
	t.Run("an unsupported XML version is refused in words, without the parser's prefix", func(t *testing.T) {
		_, err := app.ParseOPML(strings.NewReader(`<?xml version="0"?>0`))
		if err == nil || strings.Contains(err.Error(), "xml:") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("rejects what is not OPML with a readable error", func(t *testing.T) {
		for _, doc := range []string{"", "not xml at all", "<html><body>hi</body></html>"} {
			got, err := app.ParseOPML(strings.NewReader(doc))
			if doc == "<html><body>hi</body></html>" {
				if err == nil && len(got) != 0 {
					t.Errorf("%q: entries %v", doc, got)
				}
				continue
			}
			if err == nil || app.ErrorCode(err) != app.EINVALID {
				t.Errorf("%q: err %v", doc, err)
			}
		}
	})
}

func TestNaturalCompare(t *testing.T) {
	names := []string{"Feed 10", "feed 2", "Feed 1", "ars technica", "Ars Technica 2", "Alpha", "Feed 02b", "Feed 2a", "", "Zeta", "Économie", "feed 007"}
	slices.SortStableFunc(names, app.NaturalCompare)
	want := []string{"", "Alpha", "ars technica", "Ars Technica 2", "Feed 1", "feed 2", "Feed 2a", "Feed 02b", "feed 007", "Feed 10", "Zeta", "Économie"}
	if !slices.Equal(names, want) {
		t.Fatalf("sorted %q\nwant   %q", names, want)
	}
	for _, c := range []struct {
		a, b string
		want int
	}{{"a", "A", 0}, {"x9", "x10", -1}, {"x10", "x9", 1}, {"x01", "x1", 0}, {"a", "ab", -1}} {
		if got := app.NaturalCompare(c.a, c.b); got != c.want {
			t.Errorf("NaturalCompare(%q, %q) = %d; want %d", c.a, c.b, got, c.want)
		}
	}
}
