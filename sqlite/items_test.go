package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

func TestSearch(t *testing.T) {
	db := sqlitetest.New(t)
	ctx := context.Background()
	src := &app.Source{UserID: 1, Type: app.SourceRSS, URL: "http://x/feed", RefreshIntervalMinutes: 15}
	if err := db.CreateSource(ctx, src, nil); err != nil {
		t.Fatal(err)
	}
	items := []app.Item{
		{GUID: "1", Title: "SQLite is a database", Text: "A small fast database engine used everywhere."},
		{GUID: "2", Title: "Cycling in Brussels", Text: "The city builds bike lanes; the database of lanes is public."},
		{GUID: "3", Title: "Café culture", Text: "Ordering a café crème in Paris."},
		{GUID: "4", Title: "Batteries", Text: "Solar batteries get cheaper."},
	}
	if _, err := db.FinishFetch(ctx, src, &app.FetchResult{Items: items}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.IndexItems(ctx, 100); err != nil {
		t.Fatal(err)
	}
	search := func(q string) []*app.Item {
		t.Helper()
		got, err := db.Items(ctx, app.ItemFilter{UserID: 1, Q: q})
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		return got
	}
	t.Run("ranks by relevance, title matches first, with a marked snippet", func(t *testing.T) {
		got := search("database")
		if len(got) != 2 || got[0].GUID != "1" {
			t.Fatalf("results %v", titles(got))
		}
		if !strings.Contains(got[1].Snippet, "\x01database\x02") {
			t.Fatalf("snippet %q", got[1].Snippet)
		}
	})
	t.Run("the last word matches as a prefix, accents are ignored", func(t *testing.T) {
		if got := search("solar batt"); len(got) != 1 || got[0].GUID != "4" {
			t.Fatalf("prefix: %v", titles(got))
		}
		if got := search("cafe"); len(got) != 1 || !strings.Contains(got[0].Snippet, "\x01café\x02") {
			t.Fatalf("accents: %v", titles(got))
		}
	})
	t.Run("FTS syntax typed by a person is taken as words, never an error", func(t *testing.T) {
		for _, q := range []string{`AND`, `OR NOT`, `database)`, `title:sqlite`, `NEAR(a b)`, `'; drop table items; --`, `"unclosed phrase`} {
			search(q)
		}
		if got := search(`"bike lanes"`); len(got) != 1 {
			t.Fatalf("phrase: %v", titles(got))
		}
	})
}

// TestSearchPunctuation: punctuation alone is nothing to search for (not every item), words
// whose punctuation means something are searched as typed, and whole words rank before prefixes.
func TestSearchPunctuation(t *testing.T) {
	db := sqlitetest.New(t)
	ctx := context.Background()
	src := &app.Source{UserID: 1, Type: app.SourceRSS, URL: "http://x/feed", RefreshIntervalMinutes: 15}
	if err := db.CreateSource(ctx, src, nil); err != nil {
		t.Fatal(err)
	}
	items := []app.Item{
		{GUID: "cpp", Title: "Why C++ templates compile slowly", Text: "Header files and instantiation."},
		{GUID: "carrots", Title: "Cooking with carrots", Text: "Crunchy, cheap and colourful."},
		{GUID: "csharp", Title: "C# 13 and .NET 9 released", Text: "Microsoft ships a new runtime."},
		{GUID: "network", Title: "Network cables", Text: "A home network with ethernet."},
		{GUID: "node", Title: "Streams in node.js", Text: "Backpressure explained."},
		{GUID: "nodes", Title: "Graph nodes", Text: "Trees, js libraries and nodes."},
		// Golden matches "go modules" as prefixes and, by word counts alone, better than "go".
		{GUID: "golden", Title: "Golden modules: modules for golden modules", Text: "Golden modules everywhere."},
		{GUID: "go", Title: "Go modules", Text: "Versioning in Go."},
	}
	if _, err := db.FinishFetch(ctx, src, &app.FetchResult{Items: items}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.IndexItems(ctx, 100); err != nil {
		t.Fatal(err)
	}
	guids := func(q string) []string {
		t.Helper()
		got, err := db.Items(ctx, app.ItemFilter{UserID: 1, Q: q})
		if err != nil {
			t.Fatalf("%q: %v", q, err)
		}
		var out []string
		for _, it := range got {
			out = append(out, it.GUID)
		}
		return out
	}
	for _, q := range []string{`*`, `"`, `+++`, `...`, `#`, ` - `, `"  "`, `().`} {
		if _, err := db.Items(ctx, app.ItemFilter{UserID: 1, Q: q}); !errors.Is(err, app.ErrNothingToSearch) {
			t.Errorf("%q: want ErrNothingToSearch, got %v", q, err)
		}
	}
	for q, want := range map[string]string{
		"C++":     "cpp",
		"c++":     "cpp",
		"C#":      "csharp",
		".NET":    "csharp",
		"node.js": "node",
		"(C++)":   "cpp",
	} {
		if got := guids(q); len(got) != 1 || got[0] != want {
			t.Errorf("%q: got %v, want only %s", q, got, want)
		}
	}
	if got := guids("go modules"); len(got) != 2 || got[0] != "go" || got[1] != "golden" {
		t.Errorf("go modules: got %v, want whole words (go) before prefixes (golden)", got)
	}
	if got := guids("net"); len(got) != 2 {
		t.Errorf("net: got %v, want .NET and network", got)
	}
}

func titles(items []*app.Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Title)
	}
	return out
}

// TestSearchWholeWordsPaging: whole-word matches are ranked on their own and the prefix matches
// follow them; page by page (a page the whole words fill, one where they end, one past them)
// the list is the same as in one page, whole words first, each item once, and sorting by date
// lists every match.
func TestSearchWholeWordsPaging(t *testing.T) {
	db := sqlitetest.New(t)
	ctx := context.Background()
	src := &app.Source{UserID: 1, Type: app.SourceRSS, URL: "http://x/feed", RefreshIntervalMinutes: 15}
	if err := db.CreateSource(ctx, src, nil); err != nil {
		t.Fatal(err)
	}
	var items []app.Item
	for i := range 7 {
		// Interleaved, so that neither kind is all newer than the other.
		items = append(items,
			app.Item{GUID: fmt.Sprint("whole", i), Title: fmt.Sprintf("Rust release %d", i), Text: "Notes on rust."},
			app.Item{GUID: fmt.Sprint("prefix", i), Title: fmt.Sprintf("Rusty gates %d", i), Text: "Rustic rusty rusting gates, rusty."})
	}
	if _, err := db.FinishFetch(ctx, src, &app.FetchResult{Items: items}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.IndexItems(ctx, 100); err != nil {
		t.Fatal(err)
	}
	page := func(f app.ItemFilter) []string {
		t.Helper()
		f.UserID, f.Q = 1, "rust"
		got, err := db.Items(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, it := range got {
			out = append(out, it.GUID)
		}
		return out
	}
	all := page(app.ItemFilter{Limit: 50})
	if len(all) != 14 {
		t.Fatalf("one page: %v, want all 14 matches", all)
	}
	for i, g := range all {
		if whole := strings.HasPrefix(g, "whole"); whole != (i < 7) {
			t.Fatalf("one page: %v, want the 7 whole-word matches first", all)
		}
	}
	for _, size := range []int{3, 5, 7, 8} {
		var paged []string
		for off := 0; off < 20; off += size {
			paged = append(paged, page(app.ItemFilter{Limit: size, Offset: off})...)
		}
		if strings.Join(paged, " ") != strings.Join(all, " ") {
			t.Errorf("pages of %d: %v, want %v", size, paged, all)
		}
	}
	if got := page(app.ItemFilter{Limit: 50, Sort: "date"}); len(got) != 14 {
		t.Errorf("by date: %v, want all 14 matches", got)
	}
	if got := page(app.ItemFilter{Limit: 3, Offset: 12, Sort: "date"}); len(got) != 2 {
		t.Errorf("by date, last page: %v, want 2", got)
	}
}

// TestSummaryStoredOnce (issue 26, item 4): a summary that is the item's whole text is stored
// once (as summaryIsText) and read back as the text, whichever path stored it (a first import
// scored in its fetch, the background scoring, the processing queue with or without a new article
// text); the search index holds the text once and stays consistent through updates and deletes.
func TestSummaryStoredOnce(t *testing.T) {
	db := sqlitetest.New(t)
	ctx := context.Background()
	src := &app.Source{UserID: 1, Type: app.SourceRSS, URL: "http://x/feed", RefreshIntervalMinutes: 15}
	if err := db.CreateSource(ctx, src, nil); err != nil {
		t.Fatal(err)
	}
	items := []app.Item{
		{GUID: "a", Title: "Zeppelins", Text: "Airships return to the skies.", Summary: "Airships return to the skies.", Status: app.ItemDone},
		{GUID: "b", Title: "Trams", Text: "A long article about trams and their lines.", Summary: "About trams.", Status: app.ItemDone},
		{GUID: "c", Title: "Bikes", Text: "Bike lanes everywhere."},
		{GUID: "d", Title: "Boats", Text: "Boats on the canal."},
	}
	if _, err := db.FinishFetch(ctx, src, &app.FetchResult{Items: items}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.IndexItems(ctx, 100); err != nil {
		t.Fatal(err)
	}
	id := func(guid string) int64 {
		var id int64
		if err := db.Read.QueryRow(`select id from items where guid = ?`, guid).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	// c by the background scoring, d by the processing queue with a new article text.
	if err := db.SaveScores(ctx, []app.ScoreUpdate{{ItemID: id("c"), Score: 50, Text: "Bike lanes everywhere.", Enrichment: &app.Enrichment{Summary: "Bike lanes everywhere.", EnrichedBy: "embedded"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Write.Exec(`update items set status = 'PROCESSING' where guid = 'd'`); err != nil {
		t.Fatal(err)
	}
	d := &app.Item{ID: id("d"), UserID: 1}
	if err := db.FinishProcessing(ctx, d, app.ProcessResult{Text: "Boats and barges on the canal.", Enrichment: &app.Enrichment{Summary: "Boats and barges on the canal.", EnrichedBy: "embedded"}}, nil); err != nil {
		t.Fatal(err)
	}
	stored := map[string]string{}
	rows, err := db.Read.Query(`select guid, summary from items`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var g, s string
		if err := rows.Scan(&g, &s); err != nil {
			t.Fatal(err)
		}
		stored[g] = s
	}
	rows.Close()
	if stored["a"] != "\x1e" || stored["b"] != "About trams." || stored["c"] != "\x1e" || stored["d"] != "\x1e" {
		t.Errorf("stored summaries %q", stored)
	}
	for _, g := range []string{"a", "b", "c", "d"} {
		it, err := db.Item(ctx, 1, id(g))
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"a": "Airships return to the skies.", "b": "About trams.", "c": "Bike lanes everywhere.", "d": "Boats and barges on the canal."}[g]
		if it.Summary != want {
			t.Errorf("%s: summary %q, want %q", g, it.Summary, want)
		}
	}
	got, err := db.Items(ctx, app.ItemFilter{UserID: 1, Q: "airships"})
	if err != nil || len(got) != 1 || got[0].GUID != "a" {
		t.Errorf("search airships: %v, %v", got, err)
	}
	// Updates and deletes take out of the index exactly what was put in.
	if _, err := db.Write.Exec(`update items set title = 'Zeppelins again' where guid = 'a'`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Write.Exec(`delete from items where guid = 'c'`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Write.Exec(`insert into items_fts (items_fts, rank) values ('integrity-check', 1)`); err != nil {
		t.Fatalf("search index integrity: %v", err)
	}
}

// TestStatusTimeOnlyInFlight (issue 26, item 4): an item keeps the time of its status change
// only while it is in flight (NEW, PENDING, PROCESSING: the processing scheduler and the
// stuck-item recovery read it); a first import stored DONE, an item processed or failed for good
// keeps none.
func TestStatusTimeOnlyInFlight(t *testing.T) {
	db := sqlitetest.New(t)
	ctx := context.Background()
	first := &app.Source{UserID: 1, Type: app.SourceRSS, URL: "http://x/feed", RefreshIntervalMinutes: 15}
	if err := db.CreateSource(ctx, first, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.FinishFetch(ctx, first, &app.FetchResult{Items: []app.Item{{GUID: "imported", Title: "Imported", Text: "x"}}}, nil); err != nil {
		t.Fatal(err)
	}
	src, err := db.SourceByID(ctx, first.ID) // fetched once: its new items are NEW
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.FinishFetch(ctx, src, &app.FetchResult{Items: []app.Item{{GUID: "new", Title: "New", Text: "y"}, {GUID: "done", Title: "Done", Text: "z"}, {GUID: "failed", Title: "Failed", Text: "w"}}}, nil); err != nil {
		t.Fatal(err)
	}
	id := func(guid string) int64 {
		var id int64
		if err := db.Read.QueryRow(`select id from items where guid = ?`, guid).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	if _, err := db.Write.Exec(`update items set status = 'PROCESSING' where guid in ('done', 'failed')`); err != nil {
		t.Fatal(err)
	}
	if err := db.FinishProcessing(ctx, &app.Item{ID: id("done"), UserID: 1}, app.ProcessResult{Enrichment: &app.Enrichment{Summary: "Done.", EnrichedBy: "embedded"}}, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.FailProcessing(ctx, id("failed"), "boom", true, nil); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"imported": "DONE no time", "new": "NEW with time", "done": "DONE no time", "failed": "ERROR no time"}
	for guid, w := range want {
		var status string
		var changed sql.NullString
		if err := db.Read.QueryRow(`select status, status_changed_at from items where guid = ?`, guid).Scan(&status, &changed); err != nil {
			t.Fatal(err)
		}
		got := status + " no time"
		if changed.Valid {
			got = status + " with time"
		}
		if got != w {
			t.Errorf("%s: %s, want %s", guid, got, w)
		}
	}
}
