package sqlite_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// A first import of long full-text articles is read for scoring in batches bounded by their
// texts' size, not a thousand at a time; every item still comes, each once.
func TestImportItemsBoundsABatchByItsTexts(t *testing.T) {
	db := sqlitetest.New(t)
	ctx := context.Background()
	src := &app.Source{UserID: 1, Type: app.SourceRSS, URL: "http://x/feed", RefreshIntervalMinutes: 15}
	if err := db.CreateSource(ctx, src, nil); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("A long paragraph of a full-text feed. ", 40_000) // ~1.5 MB
	var items []app.Item
	for i := range 6 {
		items = append(items, app.Item{GUID: fmt.Sprint(i), Title: fmt.Sprint("Long article ", i), Text: long})
	}
	for i := range 4 {
		items = append(items, app.Item{GUID: fmt.Sprint("short-", i), Title: "Short note", Text: "A few words."})
	}
	if _, err := db.FinishFetch(ctx, src, &app.FetchResult{Items: items}, nil); err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	var batches []int
	for range 20 {
		got, err := db.ImportItems(ctx, src.ID, 1000)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 {
			break
		}
		batches = append(batches, len(got))
		var ups []app.ScoreUpdate
		for _, it := range got {
			if seen[it.ID] {
				t.Fatalf("item %d read twice", it.ID)
			}
			seen[it.ID] = true
			ups = append(ups, app.ScoreUpdate{ItemID: it.ID, Enrichment: &app.Enrichment{EnrichedBy: app.EnricherEmbedded, Score: 50}, Score: 50})
		}
		if err := db.SaveScores(ctx, ups); err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != len(items) {
		t.Fatalf("%d of %d items read for scoring (batches %v)", len(seen), len(items), batches)
	}
	if len(batches) < 3 || batches[0] > 3 {
		t.Errorf("batches %v: six texts of 1.5 MB should not all come in one or two batches", batches)
	}
}
