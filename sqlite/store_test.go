package sqlite_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// TestStoreFetchInChunks: a fetch's items go in as statements of 16, 8, 4, 2 and 1 rows; a
// GUID already stored or pruned (its tombstone) is skipped wherever it falls in a statement,
// the rows after it in the same statement are stored, and every new item's id is returned once.
func TestStoreFetchInChunks(t *testing.T) {
	ctx := context.Background()
	db := sqlitetest.New(t)
	src := newSource(t, db, "http://x/feed")
	var first []string
	for i := range 20 {
		first = append(first, fmt.Sprint("g", i))
	}
	if ids := fetch(t, db, src, first...); len(ids) != 20 {
		t.Fatalf("first fetch: %d new ids, want 20", len(ids))
	}
	if _, err := db.Write.ExecContext(ctx, `insert into item_tombstones (source_id, guid, pruned_at) values (?, 'pruned', '2026-01-01T00:00:00.000Z')`, src.ID); err != nil {
		t.Fatal(err)
	}
	// 31 items (16 + 8 + 4 + 2 + 1): every other one is known, one was pruned, one repeats in the same fetch.
	var second, want []string
	for i := range 31 {
		switch {
		case i == 5:
			second = append(second, "pruned")
		case i == 9:
			second = append(second, "new-3") // offered twice in one fetch: stored once
		case i%2 == 0 && i/2 < 20:
			second = append(second, fmt.Sprint("g", i/2))
		default:
			g := fmt.Sprint("new-", i)
			second, want = append(second, g), append(want, g)
		}
	}
	ids := fetch(t, db, src, second...)
	if len(ids) != len(want) {
		t.Fatalf("second fetch: %d new ids, want %d (%v)", len(ids), len(want), want)
	}
	var got []string
	for _, id := range ids {
		var g string
		if err := db.Write.QueryRowContext(ctx, `select guid from items where id = ?`, id).Scan(&g); err != nil {
			t.Fatalf("id %d: %v", id, err)
		}
		got = append(got, g)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("new items %v, want %v", got, want)
	}
	var n int
	if err := db.Write.QueryRowContext(ctx, `select count(*) from items where source_id = ?`, src.ID).Scan(&n); err != nil || n != 20+len(want) {
		t.Fatalf("%d items stored (%v), want %d", n, err, 20+len(want))
	}
}

// TestInFlightIndex: the pipeline's status index holds only items in flight (migration 0023),
// and the scheduler's query for NEW items reads it, not the whole table.
func TestInFlightIndex(t *testing.T) {
	ctx := context.Background()
	db := sqlitetest.New(t)
	src := newSource(t, db, "http://x/feed")
	fetch(t, db, src, "a", "b", "c") // a first fetch: stored DONE (scored by its fetch)
	src, err := db.Source(ctx, 1, src.ID)
	if err != nil {
		t.Fatal(err)
	}
	fetch(t, db, src, "d", "e") // later posts: NEW, for processing
	ids, err := db.NewItems(ctx, 10)
	if err != nil || len(ids) != 2 {
		t.Fatalf("NewItems = %v, %v; want the 2 NEW items", ids, err)
	}
	var def string
	if err := db.Write.QueryRowContext(ctx, `select sql from sqlite_master where name = 'items_status_changed_idx'`).Scan(&def); err != nil ||
		!strings.Contains(def, "where status in ('NEW', 'PENDING', 'PROCESSING')") {
		t.Fatalf("the status index is %q (%v), want one of the items in flight", def, err)
	}
	var inIndex int
	if err := db.Write.QueryRowContext(ctx, `select count(*) from items indexed by items_status_changed_idx
		where status in ('NEW', 'PENDING', 'PROCESSING')`).Scan(&inIndex); err != nil || inIndex != 2 {
		t.Fatalf("%d items in the status index (%v), want the 2 in flight", inIndex, err)
	}
	plan := strings.Join(queryPlan(t, db, sqlite.NewItemsQueryForTest, 10), "\n")
	if !strings.Contains(plan, "USING INDEX items_status_changed_idx") {
		t.Errorf("NewItems does not read the status index:\n%s", plan)
	}
}
