package e2e_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestRepeatedGUIDs (issue 15): feeds that give one GUID to different posts, served version
// after version by a real server, fetched by the real binary into its SQLite file. Every post
// arrives once and stays one item; a post that is retitled or moved to another link stays one.
func TestRepeatedGUIDs(t *testing.T) {
	type entry struct{ guid, link, title string }
	var mu sync.Mutex
	versions := map[string][]entry{} // feed path → the entries it serves now
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		entries, ok := versions[r.URL.Path]
		mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		var b strings.Builder
		fmt.Fprintf(&b, `<?xml version="1.0"?><rss version="2.0"><channel><title>Feed %s</title><link>http://example.com/</link>`, r.URL.Path)
		for _, e := range entries {
			b.WriteString("<item><title>" + e.title + "</title><link>http://example.com" + e.link + "</link>")
			if e.guid != "" {
				b.WriteString(`<guid isPermaLink="false">` + e.guid + "</guid>")
			}
			b.WriteString("</item>")
		}
		b.WriteString("</channel></rss>")
		w.Header().Set("Content-Type", "application/rss+xml")
		_, _ = w.Write([]byte(b.String()))
	}))
	defer srv.Close()

	// run serves each version in turn, fetches it, and returns the titles of the source's
	// items after each fetch.
	run := func(t *testing.T, path string, steps ...[]entry) []string {
		t.Helper()
		dir := t.TempDir()
		var got []string
		for i, entries := range steps {
			mu.Lock()
			versions[path] = entries
			mu.Unlock()
			if i == 0 {
				mustRun(t, dir, "source", "add", srv.URL+path, "--type", "rss")
			} else {
				mustRun(t, dir, "source", "refresh", "--all")
			}
			mustRun(t, dir, "fetch")
			rows, err := openRead(t, dir).Query(`select title from items order by id`)
			if err != nil {
				t.Fatal(err)
			}
			var titles []string
			for rows.Next() {
				var s string
				if err := rows.Scan(&s); err != nil {
					t.Fatal(err)
				}
				titles = append(titles, s)
			}
			if err := rows.Close(); err != nil {
				t.Fatal(err)
			}
			got = append(got, strings.Join(titles, ", "))
		}
		var errOut string
		if err := openRead(t, dir).QueryRow(`select last_error from sources`).Scan(&errOut); err != nil || errOut != "" {
			t.Fatalf("source error %q (%v)", errOut, err)
		}
		return got
	}
	check := func(t *testing.T, got []string, want ...string) {
		t.Helper()
		if strings.Join(got, " | ") != strings.Join(want, " | ") {
			t.Errorf("items after each fetch:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}

	t.Run("posts sharing a guid within one fetch are each an item, and stay one each", func(t *testing.T) {
		one := entry{"same", "/1", "One"}
		two := entry{"same", "/2", "Two"}
		three := entry{"same", "/3", "Three"}
		other := entry{"other", "/o", "Other"}
		got := run(t, "/within.xml",
			[]entry{one, other},
			[]entry{two, one, other},
			[]entry{three, two, one, other},
			[]entry{three, two, one, other},
			[]entry{three, other}) // the feed moves on: nothing comes back
		check(t, got,
			"One, Other",
			"One, Other, Two",
			"One, Other, Two, Three",
			"One, Other, Two, Three",
			"One, Other, Two, Three")
	})

	t.Run("a feed of one post at a time that reuses its guid brings every new post", func(t *testing.T) {
		got := run(t, "/one-at-a-time.xml",
			[]entry{{"post", "/a", "Alpha"}},
			[]entry{{"post", "/b", "Beta"}},
			[]entry{{"post", "/b", "Beta"}},
			[]entry{{"post", "/c", "Gamma"}},
			[]entry{{"post", "/c", "Gamma, corrected"}},
			[]entry{{"post", "/a", "Alpha"}})
		check(t, got,
			"Alpha",
			"Alpha, Beta",
			"Alpha, Beta",
			"Alpha, Beta, Gamma",
			"Alpha, Beta, Gamma",
			"Alpha, Beta, Gamma")
	})

	t.Run("a post whose title changes stays one item", func(t *testing.T) {
		got := run(t, "/retitled.xml",
			[]entry{{"g1", "/x", "Draft title"}, {"g0", "/0", "Older"}},
			[]entry{{"g1", "/x", "Final title"}, {"g0", "/0", "Older"}})
		check(t, got, "Draft title, Older", "Draft title, Older")
	})

	t.Run("a post whose link changes stays one item", func(t *testing.T) {
		got := run(t, "/moved.xml",
			[]entry{{"g2", "/old-path", "Same title"}, {"g0", "/0", "Older"}},
			[]entry{{"g2", "/new-path", "Same title"}, {"g0", "/0", "Older"}})
		check(t, got, "Same title, Older", "Same title, Older")
	})

	t.Run("items without a guid keep their rule: one item per link", func(t *testing.T) {
		got := run(t, "/no-guid.xml",
			[]entry{{"", "/n1", "First"}, {"", "/n2", "Second"}},
			[]entry{{"", "/n1", "First, retitled"}, {"", "/n2", "Second"}, {"", "/n3", "Third"}})
		check(t, got, "First, Second", "First, Second, Third")
	})
}
