package queue_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
)

// TestCorpusThroughPipeline adds every file of the shared corpora as a person would (a URL,
// no type: detection decides), runs the real queue and workers, and checks that each source
// ends IDLE with no error and stored exactly the items its parse found, with no mojibake.
func TestCorpusThroughPipeline(t *testing.T) {
	for _, dir := range []string{"../testdata/corpus/feeds", "../testdata/corpus/encodings"} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
		p := newPipeline(t, nil, 1000)
		p.run(t)
		ctx := context.Background()
		added := map[int64]string{}
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, "LICENSE") || strings.HasSuffix(name, ".md") {
				continue
			}
			s, err := p.sources.Add(ctx, app.AddSource{URL: srv.URL + "/" + name})
			if err != nil {
				t.Errorf("%s: add: %v", name, err)
				continue
			}
			added[s.ID] = name
		}
		p.drain(t)
		f := feeds.New(feeds.Options{})
		for id, name := range added {
			s := p.source(t, id)
			if s.LastError != "" || s.Status != app.SourceActive || s.FetchStatus != app.FetchIdle || s.LastFetchedAt == nil {
				t.Errorf("%s (%s): status %s/%s, error %q", name, s.Type, s.Status, s.FetchStatus, s.LastError)
				continue
			}
			res, err := f.Fetch(ctx, feeds.Request{URL: s.URL, Type: s.Type})
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if s.ItemCount != len(res.Items) {
				t.Errorf("%s: stored %d items, the %s parse found %d", name, s.ItemCount, s.Type, len(res.Items))
			}
			items, err := p.db.Items(ctx, app.ItemFilter{UserID: app.DefaultUserID, SourceID: id, Limit: 500})
			if err != nil {
				t.Fatal(err)
			}
			for _, it := range items {
				for _, bad := range []string{"\uFFFD", "Ã©", "Ã¨", "â€"} {
					if strings.Contains(it.Title, bad) || strings.Contains(s.Name, bad) {
						t.Errorf("%s: mojibake %q in %q / %q", name, bad, s.Name, it.Title)
					}
				}
				if strings.Contains(strings.ToLower(it.CleanContent), "<script") {
					t.Errorf("%s: unsanitized content in item %q", name, it.Title)
				}
			}
		}
		t.Logf("%s: %d sources ingested", filepath.Base(dir), len(added))
		srv.Close()
	}
}
