package app_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
	"github.com/morningdeck/morningdeck/app/feeds"
)

// The first import of a source, its back catalogue: scored by the embedded enricher, by its
// fetch or in the background, and stored even when scoring fails.

// panicky is the embedded enricher with a bug: it panics on one title.
type panicky struct{ *enrich.Embedded }

func (p panicky) Enrich(ctx context.Context, in app.EnrichInput) (*app.Enrichment, error) {
	if strings.Contains(in.Title, "Trailer") {
		panic("a bug in the enricher")
	}
	return p.Embedded.Enrich(ctx, in)
}

func (p panicky) EnrichImport(ctx context.Context, ins []app.EnrichInput, observe bool) ([]*app.Enrichment, error) {
	for _, in := range ins {
		if strings.Contains(in.Title, "Trailer") {
			panic("a bug in the enricher")
		}
	}
	return p.Embedded.EnrichImport(ctx, ins, observe)
}

// TestFirstImportStoredWhenScoringFails: ranking never keeps a source's items from being
// stored — when the enricher panics in the fetch, the first import is stored all the same and
// its scoring is left to the background job.
func TestFirstImportStoredWhenScoringFails(t *testing.T) {
	l := newLearning(t)
	ctx := context.Background()
	l.en.Offline = panicky{l.emb}
	src, err := l.fetchFirstImport(t, "TechCrunch.xml")
	if err != nil {
		t.Fatalf("the fetch failed with the enricher: %v", err)
	}
	if n := l.count(t, "source_id = ?", src.ID); n != 20 {
		t.Fatalf("%d items stored, want TechCrunch's 20", n)
	}
	if n := l.count(t, "source_id = ? and enriched_by != ''", src.ID); n != 0 {
		t.Errorf("%d items stored as enriched by a scoring that failed", n)
	}
	if size, _ := l.pq.Size(ctx); size != 1 {
		t.Errorf("%d jobs queued, want the first import's scoring job", size)
	}
}

// fetchFirstImport adds the corpus feed file as a new source and fetches it once with the real
// fetcher and the Sources service, wired as serve wires it: its first import.
func (l *learning) fetchFirstImport(t *testing.T, file string) (*app.Source, error) {
	t.Helper()
	srv := httptest.NewServer(http.FileServer(http.Dir("../testdata/corpus/feeds")))
	defer srv.Close()
	sources := &app.Sources{Store: l.db, Fetches: l.db, Fetcher: feeds.Adapter{Fetcher: feeds.New(feeds.Options{})},
		FirstImport: l.pq.EnqueueImportTx, ScoreFirst: l.en.ScoreFirstImport}
	src := &app.Source{UserID: app.DefaultUserID, Type: app.SourceRSS, URL: srv.URL + "/" + file, RefreshIntervalMinutes: 60}
	if err := l.db.CreateSource(context.Background(), src, nil); err != nil {
		t.Fatal(err)
	}
	return src, sources.Fetch(context.Background(), app.Attempt{}, src)
}

// TestFirstImportIsScoredByItsFetch: a first import found by a real fetch is enriched before
// it is stored (issue 14) — every item stored scored by the embedded enricher, with the
// filters' effect, nothing queued.
func TestFirstImportIsScoredByItsFetch(t *testing.T) {
	l := newLearning(t)
	ctx := context.Background()
	l.setInterests(t, "Gmail and Google apps on the iPhone", nil)
	hide := &app.Filter{UserID: app.DefaultUserID, Name: "no trailers", Field: "title", Match: "keywords", Pattern: "trailer", Action: "hide", Enabled: true}
	if err := hide.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := l.db.CreateFilter(ctx, hide); err != nil {
		t.Fatal(err)
	}
	src, err := l.fetchFirstImport(t, "TechCrunch.xml")
	if err != nil {
		t.Fatal(err)
	}
	if n := l.count(t, "source_id = ?", src.ID); n != 20 {
		t.Fatalf("%d items stored, want TechCrunch's 20", n)
	}
	if n := l.count(t, "source_id = ? and (score is null or enriched_by != 'embedded' or summary = '' or status != 'DONE')", src.ID); n != 0 {
		t.Errorf("%d items of the first import stored without their enrichment", n)
	}
	if size, _ := l.pq.Size(ctx); size != 0 {
		t.Errorf("the first import scored by its fetch still queued %d jobs", size)
	}
	var gmailLink string
	if err := l.db.Read.QueryRow(`select link from items where title like 'Google Launches Native Gmail App%'`).Scan(&gmailLink); err != nil {
		t.Fatal(err)
	}
	gmail := l.item(t, gmailLink)
	if !strings.HasPrefix(gmail.ScoreReasoning, "Matches your interests") || *gmail.Score < 60 {
		t.Errorf("the Gmail item scored %d %q", *gmail.Score, gmail.ScoreReasoning)
	}
	if n := l.count(t, "source_id = ? and hidden = 1 and title like '%Trailer%' and score_reasoning like '%filter: no trailers%'", src.ID); n != 1 {
		t.Errorf("%d trailer items hidden by the filter at import, want 1", n)
	}
	// Nothing is left for the background job.
	if n, err := l.en.ScoreImport(ctx, src.ID); err != nil || n != 0 {
		t.Errorf("ScoreImport after the fetch scored = %d, %v; want nothing left", n, err)
	}
}

func TestFirstImportIsScoredByTheEmbeddedEnricher(t *testing.T) {
	l := newLearning(t)
	ctx := context.Background()
	l.setInterests(t, "the Go programming language\nApple Mac hardware", nil)
	src := l.source(t, "https://first.example/feed")
	if !l.importItems(t, src, corpusItems(t, 1000)) {
		t.Fatal("the first fetch was not a first import")
	}
	if n := l.count(t, "source_id = ? and score is null", src.ID); n != 1000 {
		t.Fatalf("before scoring, %d of 1000 items unscored", n)
	}
	if size, _ := l.pq.Size(ctx); size != 1 {
		t.Fatalf("the first import queued %d jobs, want one scoring job", size)
	}
	n, err := l.en.ScoreImport(ctx, src.ID)
	if err != nil || n != 1000 {
		t.Fatalf("ScoreImport = %d, %v", n, err)
	}
	if n := l.count(t, "source_id = ? and (score is null or enriched_by != 'embedded' or summary = '')", src.ID); n != 0 {
		t.Errorf("%d items of the first import not enriched by the embedded enricher", n)
	}
	if n := l.count(t, "status != 'DONE'"); n != 0 {
		t.Errorf("%d items went to the processing pipeline (the LLM): only new items may", n)
	}
	if n := l.count(t, "score_reasoning like 'Matches your interests%'"); n == 0 {
		t.Error("no item of the first import matches the interests: the first screen is not ranked")
	}
	var lo, hi int
	l.db.Read.QueryRow(`select min(score), max(score) from items`).Scan(&lo, &hi)
	if hi-lo < 30 {
		t.Errorf("scores span %d–%d: not a ranking", lo, hi)
	}
	// Idempotent: a redelivered job finds nothing left to do.
	if n, err := l.en.ScoreImport(ctx, src.ID); err != nil || n != 0 {
		t.Errorf("second ScoreImport = %d, %v", n, err)
	}
	// Later fetches are new items: NEW, for the pipeline, not the back catalogue's job.
	if l.importItems(t, src, corpusItems(t, 1010)[1000:]) {
		t.Error("the second fetch counted as a first import")
	}
	if n := l.count(t, "status = 'NEW'"); n != 10 {
		t.Errorf("%d NEW items after the second fetch, want 10", n)
	}
}

// BenchmarkFirstImport1000 stores a first import of 1,000 corpus items in a real database and
// scores every one with the embedded enricher: the time from the fetch's result to the last
// item scored.
func BenchmarkFirstImport1000(b *testing.B) {
	items := corpusItems(b, 1000)
	l := newLearning(b)
	l.setInterests(b, "the Go programming language\nApple Mac hardware\nIndian economy and markets", nil)
	b.ResetTimer()
	for i := range b.N {
		src := l.source(b, fmt.Sprintf("https://bench.example/%d", i))
		for j := range items {
			items[j].GUID = fmt.Sprintf("b%d-%d", i, j)
		}
		l.importItems(b, src, items)
		if n, err := l.en.ScoreImport(context.Background(), src.ID); err != nil || n != 1000 {
			b.Fatalf("ScoreImport = %d, %v", n, err)
		}
	}
}
