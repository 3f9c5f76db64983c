package sqlite_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// KnownItems finds a fetch's GUIDs among a source's items and tombstones — by key and by the
// prefix of their IdentityKeys — and nothing of another source, through the (source_id, guid)
// keys only.
func TestKnownItems(t *testing.T) {
	clock := sqlitetest.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	db := sqlitetest.NewWithClock(t, clock)
	ctx := context.Background()
	src := &app.Source{UserID: 1, Type: app.SourceRSS, URL: "http://x/feed", RefreshIntervalMinutes: 15}
	other := &app.Source{UserID: 1, Type: app.SourceRSS, URL: "http://y/feed", RefreshIntervalMinutes: 15}
	for _, s := range []*app.Source{src, other} {
		if err := db.CreateSource(ctx, s, nil); err != nil {
			t.Fatal(err)
		}
	}
	items := []app.Item{
		{GUID: "same", Title: "First", Link: "http://x/1"},
		{GUID: app.IdentityKey("same", "http://x/2"), Title: "Second", Link: "http://x/2"},
		{GUID: "unrelated", Title: "Unrelated", Link: "http://x/u"},
		{GUID: app.IdentityKey("samey", "http://x/3"), Title: "Another GUID", Link: "http://x/3"},
		{GUID: "gone", Title: "Old", Link: "http://x/old"},
	}
	if _, err := db.FinishFetch(ctx, src, &app.FetchResult{Items: items}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.FinishFetch(ctx, other, &app.FetchResult{Items: []app.Item{{GUID: "same", Title: "Elsewhere", Link: "http://y/1"}}}, nil); err != nil {
		t.Fatal(err)
	}
	clock.Add(100 * 24 * time.Hour)
	if _, err := db.Write.ExecContext(ctx, `insert into item_tombstones (source_id, guid, pruned_at) values (?, 'gone', '2026-03-02T00:00:00Z')`, src.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Write.ExecContext(ctx, `delete from items where guid = 'gone'`); err != nil {
		t.Fatal(err)
	}

	fetched := []app.Item{{GUID: "same", Link: "http://x/9"}, {GUID: "gone", Link: "http://x/new"}, {GUID: "new", Link: "http://x/n"}}
	known, err := db.KnownItems(ctx, app.NewIdentityQuery(src.ID, fetched))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, k := range known {
		s := k.GUID + " " + k.Key + " " + k.Link + " " + k.Title
		if k.PrunedAt != nil {
			s += " pruned " + k.PrunedAt.Format(time.RFC3339)
		}
		got = append(got, s)
	}
	sort.Strings(got)
	want := []string{
		"gone gone   pruned 2026-03-02T00:00:00Z",
		"same " + app.IdentityKey("same", "http://x/2") + " http://x/2 Second",
		"same same http://x/1 First",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("known items:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// The plan: every branch searches an index by source and guid; none scans a table.
	keys, _ := json.Marshal([][2]string{{"same", "same"}})
	prefixes, _ := json.Marshal([][2]string{{app.IdentityPrefix("same"), "same"}})
	plan := queryPlan(t, db, sqlite.KnownItemsQueryForTest, src.ID, string(keys), string(prefixes))
	joined := strings.Join(plan, "\n")
	if strings.Count(joined, "(source_id=? AND guid=?)") != 2 || strings.Count(joined, "(source_id=? AND guid>? AND guid<?)") != 2 {
		t.Errorf("the lookup does not search the (source_id, guid) keys:\n%s", joined)
	}
	for _, p := range plan {
		if strings.HasPrefix(p, "SCAN i") || strings.HasPrefix(p, "SCAN t") {
			t.Errorf("the lookup scans a table:\n%s", joined)
		}
	}
}

// BenchmarkKnownItems: the identity read of one fetch of 50 entries, from a source that
// holds 10,000 items (one query per fetch with a body; see BENCHMARKS.md).
func BenchmarkKnownItems(b *testing.B) {
	db := sqlitetest.New(b)
	ctx := context.Background()
	src := &app.Source{UserID: 1, Type: app.SourceRSS, URL: "http://x/feed", RefreshIntervalMinutes: 15}
	if err := db.CreateSource(ctx, src, nil); err != nil {
		b.Fatal(err)
	}
	var items []app.Item
	for i := range 10000 {
		items = append(items, app.Item{GUID: fmt.Sprintf("https://x.example/post/%d", i), Link: fmt.Sprintf("https://x.example/%d", i), Title: fmt.Sprintf("Post %d", i)})
	}
	if _, err := db.FinishFetch(ctx, src, &app.FetchResult{Items: items}, nil); err != nil {
		b.Fatal(err)
	}
	q := app.NewIdentityQuery(src.ID, items[9950:])
	b.ResetTimer()
	for b.Loop() {
		known, err := db.KnownItems(ctx, q)
		if err != nil || len(known) != 50 {
			b.Fatalf("%d known, %v", len(known), err)
		}
	}
}
