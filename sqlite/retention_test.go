package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

var day0 = time.Date(2026, 10, 1, 8, 0, 0, 0, time.UTC)

func days(n int) time.Time { return day0.Add(time.Duration(n) * 24 * time.Hour) }

// fetch stores a fetch of src offering the given guids, as the fetch worker does (FinishFetch),
// and returns the ids of the items it stored.
func fetch(t testing.TB, db *sqlite.DB, src *app.Source, guids ...string) []int64 {
	t.Helper()
	var items []app.Item
	for _, g := range guids {
		items = append(items, app.Item{GUID: g, Title: "Title " + g, Link: "http://x/" + g, Text: "Text of " + g + " about zeppelins"})
	}
	var ids []int64
	_, err := db.FinishFetch(context.Background(), src, &app.FetchResult{Items: items}, func(ctx context.Context, tx *sql.Tx, newItems []int64, first bool) error {
		ids = newItems
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func guids(t testing.TB, db *sqlite.DB, where string, args ...any) []string {
	t.Helper()
	rows, err := db.Read.Query(`select guid from items where `+where+` order by guid`, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	return out
}

func idOf(t testing.TB, db *sqlite.DB, guid string) int64 {
	t.Helper()
	var id int64
	if err := db.Read.QueryRow(`select id from items where guid = ?`, guid).Scan(&id); err != nil {
		t.Fatalf("item %s: %v", guid, err)
	}
	return id
}

// ftsCheck fails unless the search index matches the items exactly (all of them must have been indexed).
func ftsCheck(t testing.TB, db *sqlite.DB) {
	t.Helper()
	if _, err := db.Write.Exec(`insert into items_fts (items_fts, rank) values ('integrity-check', 1)`); err != nil {
		t.Fatalf("search index integrity: %v", err)
	}
}

func count(t testing.TB, db *sqlite.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.Read.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func noEnqueue(context.Context, *sql.Tx, app.PendingItem) error { return nil }

func TestPrune(t *testing.T) {
	ctx := context.Background()

	t.Run("removes old items but keeps starred, reported, transitional and recent ones, and search stays exact", func(t *testing.T) {
		clock := sqlitetest.NewClock(day0)
		db := sqlitetest.NewWithClock(t, clock)
		src := newSource(t, db, "http://x/feed")
		fetch(t, db, src, "old-starred", "old-reported", "old-pending", "old-processing", "old-read", "old-hidden", "old-error", "old-enriched")
		if _, err := db.IndexItems(ctx, 100); err != nil {
			t.Fatal(err)
		}
		yes := true
		if _, err := db.UpdateItem(ctx, 1, idOf(t, db, "old-starred"), app.ItemUpdate{Starred: &yes}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.UpdateItem(ctx, 1, idOf(t, db, "old-read"), app.ItemUpdate{Read: &yes}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.UpdateItem(ctx, 1, idOf(t, db, "old-hidden"), app.ItemUpdate{Hidden: &yes}); err != nil {
			t.Fatal(err)
		}
		b := &app.Briefing{UserID: 1, Name: "Morning", Frequency: "DAILY"}
		if err := (&app.Briefings{Store: db}).Save(ctx, b); err != nil {
			t.Fatal(err)
		}
		reported := idOf(t, db, "old-reported")
		if err := db.FinishBriefing(ctx, b, &app.Report{GeneratedAt: day0, PeriodStart: day0, PeriodEnd: day0,
			Items: []app.ReportItem{{Rank: 1, ItemID: &reported, Title: "Title old-reported"}}}, nil); err != nil {
			t.Fatal(err)
		}
		for _, g := range []string{"old-pending", "old-processing", "old-error", "old-enriched"} {
			if err := db.RetryItem(ctx, 1, idOf(t, db, g), noEnqueue); err != nil {
				t.Fatal(err)
			}
		}
		for _, g := range []string{"old-processing", "old-error", "old-enriched"} {
			if in, err := db.StartProcessing(ctx, idOf(t, db, g), time.Hour); err != nil || in == nil {
				t.Fatalf("start processing %s: %v", g, err)
			}
		}
		if err := db.FailProcessing(ctx, idOf(t, db, "old-error"), "boom", true, nil); err != nil {
			t.Fatal(err)
		}
		// Enrichment changes indexed text (the update trigger re-indexes it): the delete must
		// remove what is in the index now, not what the fetch stored.
		enriched, _ := db.Item(ctx, 1, idOf(t, db, "old-enriched"))
		if err := db.FinishProcessing(ctx, enriched, app.ProcessResult{Enrichment: &app.Enrichment{Summary: "A quokka summary", Tags: []string{"marsupial"}}}, nil); err != nil {
			t.Fatal(err)
		}
		// Stored but not yet indexed when it is pruned: the indexer must never see it.
		clock.Set(days(0).Add(time.Hour))
		fetch(t, db, src, "old-unindexed")

		clock.Set(days(10))
		fetch(t, db, src, "recent-1", "recent-2")
		if _, err := db.IndexItems(ctx, 100); err != nil {
			t.Fatal(err)
		}

		res, err := db.Prune(ctx, days(3))
		if err != nil {
			t.Fatal(err)
		}
		if res.Items != 5 || res.Kept != 4 || res.Batches != 1 {
			t.Fatalf("result %+v, want 5 items deleted and 4 kept", res)
		}
		want := []string{"old-pending", "old-processing", "old-reported", "old-starred", "recent-1", "recent-2"}
		if got := guids(t, db, "1"); !slices.Equal(got, want) {
			t.Fatalf("items left %v, want %v", got, want)
		}
		ftsCheck(t, db)
		if _, err := db.IndexItems(ctx, 100); err != nil {
			t.Fatal(err)
		}
		ftsCheck(t, db)

		search := func(q string) []string {
			t.Helper()
			got, err := db.Items(ctx, app.ItemFilter{UserID: 1, Q: q})
			if err != nil {
				t.Fatalf("search %q: %v", q, err)
			}
			var out []string
			for _, it := range got {
				out = append(out, it.GUID)
			}
			slices.Sort(out)
			return out
		}
		if got := search("zeppelins"); !slices.Equal(got, want) {
			t.Fatalf("search finds %v, want %v", got, want)
		}
		for _, q := range []string{"quokka", "marsupial", "unindexed", "enriched", "hidden"} {
			if got := search(q); len(got) != 0 {
				t.Fatalf("search %q finds pruned items %v", q, got)
			}
		}
		if got, _ := db.Items(ctx, app.ItemFilter{UserID: 1, Hidden: true, Q: "zeppelins"}); len(got) != 0 {
			t.Fatalf("pruned hidden items found: %d", len(got))
		}
		// The report still shows its item, which is still there.
		r, err := db.Reports(ctx, 1, b.ID, 10)
		if err != nil || len(r) != 1 {
			t.Fatalf("reports %v, %v", r, err)
		}
		if count(t, db, `select count(*) from report_items where item_id = ?`, reported) != 1 {
			t.Fatal("the report lost its item")
		}
	})

	t.Run("pruned items do not come back while their feed still lists them", func(t *testing.T) {
		clock := sqlitetest.NewClock(day0)
		db := sqlitetest.NewWithClock(t, clock)
		src := newSource(t, db, "http://x/feed")
		fetch(t, db, src, "a", "b", "c")
		src, _ = db.SourceByID(ctx, src.ID) // fetched once: later items are NEW, as for the fetch worker
		clock.Set(days(10))
		if res, err := db.Prune(ctx, days(3)); err != nil || res.Items != 3 {
			t.Fatalf("prune %+v, %v", res, err)
		}
		// The feed still lists a, b and c: only d is new, and only d goes to the pipeline.
		ids := fetch(t, db, src, "a", "b", "c", "d")
		if len(ids) != 1 || ids[0] != idOf(t, db, "d") {
			t.Fatalf("new items %v", ids)
		}
		if got := guids(t, db, "1"); !slices.Equal(got, []string{"d"}) {
			t.Fatalf("items %v", got)
		}
		if got := guids(t, db, "status = 'NEW'"); !slices.Equal(got, []string{"d"}) {
			t.Fatalf("NEW items %v", got)
		}
		// Every later fetch too, and the sighting is recorded.
		clock.Set(days(20))
		if ids := fetch(t, db, src, "a", "b", "c", "d"); len(ids) != 0 {
			t.Fatalf("stored again: %v", ids)
		}
		if n := count(t, db, `select count(*) from item_tombstones where seen_at = ?`, sqlite.FormatTime(days(20))); n != 3 {
			t.Fatalf("%d tombstones seen on day 20, want 3", n)
		}
	})

	t.Run("a tombstone goes once its entry has been absent from the feed for the grace period", func(t *testing.T) {
		clock := sqlitetest.NewClock(day0)
		db := sqlitetest.NewWithClock(t, clock)
		src := newSource(t, db, "http://x/feed")
		quiet := newSource(t, db, "http://x/quiet") // paused, failing or answering 304 from now on
		fetch(t, db, src, "a", "b")
		fetch(t, db, quiet, "x")
		clock.Set(days(10))
		fetch(t, db, src, "c")
		if res, err := db.Prune(ctx, days(3)); err != nil || res.Items != 3 || res.Tombstones != 0 {
			t.Fatalf("prune %+v, %v", res, err)
		}
		// b stays in the feed; a has left it.
		clock.Set(days(11))
		fetch(t, db, src, "b", "c", "d")
		clock.Set(days(45))
		fetch(t, db, src, "b", "e")
		res, err := db.Prune(ctx, days(3))
		if err != nil {
			t.Fatal(err)
		}
		if res.Tombstones != 1 {
			t.Fatalf("%d tombstones deleted, want 1 (a)", res.Tombstones)
		}
		left := func() []string {
			rows, _ := db.Read.Query(`select guid from item_tombstones order by guid`)
			defer rows.Close()
			var out []string
			for rows.Next() {
				var g string
				_ = rows.Scan(&g)
				out = append(out, g)
			}
			return out
		}
		// b is still listed; x's source has not brought anything since: no evidence x left its feed.
		if got := left(); !slices.Equal(got, []string{"b", "x"}) {
			t.Fatalf("tombstones %v", got)
		}
		clock.Set(days(400))
		if _, err := db.Prune(ctx, days(3)); err != nil {
			t.Fatal(err)
		}
		if got := left(); !slices.Contains(got, "x") {
			t.Fatalf("the quiet source's tombstone went without evidence: %v", got)
		}
		// A deleted source takes its tombstones along.
		if err := db.DeleteSource(ctx, 1, quiet.ID); err != nil {
			t.Fatal(err)
		}
		if got := left(); slices.Contains(got, "x") {
			t.Fatalf("tombstones of a deleted source: %v", got)
		}
	})

	t.Run("works in batches while a worker keeps writing", func(t *testing.T) {
		clock := sqlitetest.NewClock(day0)
		db := sqlitetest.NewWithClock(t, clock)
		src := newSource(t, db, "http://x/feed")
		var old []string
		for i := range 1300 {
			old = append(old, fmt.Sprintf("old-%04d", i))
		}
		fetch(t, db, src, old...)
		if _, err := db.Write.Exec(`update items set starred = 1 where cast(substr(guid, 5) as integer) % 100 = 7`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.IndexItems(ctx, 10000); err != nil {
			t.Fatal(err)
		}
		clock.Set(days(10))
		stop := make(chan struct{})
		done := make(chan int)
		var writeErr error
		go func() {
			n := 0
			for ; ; n++ {
				select {
				case <-stop:
					done <- n
					return
				default:
				}
				if _, err := db.FinishFetch(ctx, src, &app.FetchResult{Items: []app.Item{{GUID: fmt.Sprint("live-", n)}}}, nil); err != nil {
					writeErr = err
					done <- n
					return
				}
			}
		}()
		res, err := db.Prune(ctx, days(3))
		close(stop)
		written := <-done
		if err != nil || writeErr != nil {
			t.Fatal(err, writeErr)
		}
		if res.Items != 1287 || res.Kept != 13 || res.Batches < 2 || !res.SearchCompacted {
			t.Fatalf("result %+v", res)
		}
		t.Logf("%d fetches stored during the prune", written)
		if n := count(t, db, `select count(*) from items where guid like 'live-%'`); n != written {
			t.Fatalf("%d live items, %d written", n, written)
		}
		if _, err := db.IndexItems(ctx, 10000); err != nil {
			t.Fatal(err)
		}
		ftsCheck(t, db)
		if got, err := db.Items(ctx, app.ItemFilter{UserID: 1, Q: "old", Limit: 500}); err != nil || len(got) != 13 {
			t.Fatalf("search finds %d, %v", len(got), err)
		}
		// Nothing more to delete: the index was compacted already and is not rewritten again.
		if res, err := db.Prune(ctx, days(3)); err != nil || res.Items != 0 || res.SearchCompacted {
			t.Fatalf("second prune %+v, %v", res, err)
		}
	})

	t.Run("compacts the search index: deleted rows' entries leave it", func(t *testing.T) {
		clock := sqlitetest.NewClock(day0)
		db := sqlitetest.NewWithClock(t, clock)
		src := newSource(t, db, "http://x/feed")
		blocks := func() int { return count(t, db, `select count(*) from items_fts_data`) }
		var items []app.Item
		for i := range 3000 {
			items = append(items, app.Item{GUID: fmt.Sprint(i), Title: fmt.Sprint("Item ", i), Text: strings.Repeat(fmt.Sprint("w", i, " common "), 100)})
		}
		// Indexed in small batches, as the indexer does every few seconds: many segments.
		if _, err := db.FinishFetch(ctx, src, &app.FetchResult{Items: items[:1500]}, nil); err != nil {
			t.Fatal(err)
		}
		for {
			if n, err := db.IndexItems(ctx, 50); err != nil {
				t.Fatal(err)
			} else if n == 0 {
				break
			}
		}
		clock.Set(days(10))
		if _, err := db.FinishFetch(ctx, src, &app.FetchResult{Items: items[1500:]}, nil); err != nil {
			t.Fatal(err)
		}
		for {
			if n, err := db.IndexItems(ctx, 50); err != nil {
				t.Fatal(err)
			} else if n == 0 {
				break
			}
		}
		full := blocks()
		res, err := db.Prune(ctx, days(3))
		if err != nil || res.Items != 1500 || !res.SearchCompacted {
			t.Fatalf("prune %+v, %v", res, err)
		}
		if got := blocks(); got > full*6/10 {
			t.Fatalf("the index has %d blocks after deleting half the items, %d before", got, full)
		}
		ftsCheck(t, db)
		if got, err := db.Items(ctx, app.ItemFilter{UserID: 1, Q: "w10", Limit: 10}); err != nil || len(got) != 0 {
			t.Fatalf("pruned item found: %d, %v", len(got), err)
		}
		if got, err := db.Items(ctx, app.ItemFilter{UserID: 1, Q: "w2999", Limit: 10}); err != nil || len(got) != 1 {
			t.Fatalf("kept item: %d, %v", len(got), err)
		}
	})

	t.Run("Vacuum gives the space of a large prune back to the file system", func(t *testing.T) {
		clock := sqlitetest.NewClock(day0)
		db := sqlitetest.NewWithClock(t, clock)
		src := newSource(t, db, "http://x/feed")
		var items []app.Item
		for i := range 2000 {
			items = append(items, app.Item{GUID: fmt.Sprint(i), Title: "Old news", Text: strings.Repeat(fmt.Sprint("word", i%50, " "), 800)})
		}
		if _, err := db.FinishFetch(ctx, src, &app.FetchResult{Items: items}, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := db.IndexItems(ctx, 10000); err != nil {
			t.Fatal(err)
		}
		clock.Set(days(10))
		fetch(t, db, src, "fresh")
		res, err := db.Prune(ctx, days(3))
		if err != nil || res.Items != 2000 {
			t.Fatalf("prune %+v, %v", res, err)
		}
		if res.FreeBytes < 5<<20 {
			t.Fatalf("free bytes %d after deleting 2000 items of 8 KB", res.FreeBytes)
		}
		if _, err := db.Write.Exec(`pragma wal_checkpoint(truncate)`); err != nil {
			t.Fatal(err)
		}
		before := fileSize(t, db.Path)
		if err := db.Vacuum(ctx); err != nil {
			t.Fatal(err)
		}
		after := fileSize(t, db.Path)
		if after > before-res.FreeBytes/2 {
			t.Fatalf("file %d bytes before Vacuum, %d after (%d free)", before, after, res.FreeBytes)
		}
		if wal := fileSize(t, db.Path+"-wal"); wal != 0 {
			t.Fatalf("the WAL holds %d bytes after Vacuum", wal)
		}
		if n := count(t, db, `select freelist_count from pragma_freelist_count()`); n != 0 {
			t.Fatalf("%d free pages after Vacuum", n)
		}
		var temp int
		if err := db.Write.QueryRow(`pragma temp_store`).Scan(&temp); err != nil || temp != 2 {
			t.Fatalf("temp_store %d after Vacuum, want 2 (memory): %v", temp, err)
		}
		// (The integrity check compares the index with every item: index the fresh one first.)
		if _, err := db.IndexItems(ctx, 100); err != nil {
			t.Fatal(err)
		}
		ftsCheck(t, db)
		if got, err := db.Items(ctx, app.ItemFilter{UserID: 1, Q: "zeppelins"}); err != nil || len(got) != 1 {
			t.Fatalf("search after Vacuum: %d, %v", len(got), err)
		}
		// New items still go in after the rebuild, and pruned ones still stay out.
		if ids := fetch(t, db, src, "0", "1", "newer"); len(ids) != 1 {
			t.Fatalf("stored %v", ids)
		}
		t.Logf("file %d → %d bytes", before, after)
	})
}

func fileSize(t testing.TB, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}
