package sqlite_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/greader"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// droppedIndexes are the item indexes migration 0014 drops, as they were: each is covered by
// another index (see 0014_ingest_indexes.sql). BenchmarkItemIndexes measures every page query
// with them ("before") and without ("after") on the same 100,000 items, and the cost of storing
// a fetch's new items.
var droppedIndexes = []string{
	`create index items_user_published_idx on items (user_id, published_at desc)`,
	`create index items_source_published_idx on items (source_id, published_at desc)`,
	`create index items_status_idx on items (status)`,
	`create index items_user_score_idx on items (user_id, score desc)`,
}

// BenchmarkItemIndexes:
//
//	go test ./sqlite -run '^$' -bench ItemIndexes -benchtime 20x
func BenchmarkItemIndexes(b *testing.B) {
	ctx := context.Background()
	db := sqlitetest.New(b)
	const sources, perSource = 100, 1000
	for s := range sources {
		if _, err := db.Write.Exec(`insert into sources (user_id, type, url, name) values (1, 'rss', ?, ?)`, fmt.Sprint("http://f/", s), fmt.Sprint("Feed ", s)); err != nil {
			b.Fatal(err)
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	tx, _ := db.Write.Begin()
	stmt, _ := tx.Prepare(`insert into items (source_id, user_id, guid, title, text_content, status, published_at, created_at, score, read_at, starred, hidden, topics)
		values (?, 1, ?, ?, 'text', ?, ?, ?, ?, ?, ?, ?, '["news"]')`)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range sources * perSource {
		at := base.Add(time.Duration(i) * time.Minute)
		status, score := "DONE", any(r.IntN(101))
		switch n := r.IntN(100); {
		case n < 1:
			status, score = "ERROR", nil
		case n < 25:
			status, score = "NEW", nil
		}
		var read any
		if r.IntN(10) < 3 {
			read = at.Format("2006-01-02T15:04:05.000Z")
		}
		if _, err := stmt.Exec(i%sources+1, fmt.Sprint(i), fmt.Sprint("Item ", i), status, at.Format("2006-01-02T15:04:05.000Z"),
			at.Add(time.Duration(r.IntN(120))*time.Minute).Format("2006-01-02T15:04:05.000Z"), score, read, r.IntN(20) == 0, r.IntN(50) == 0); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	end := base.Add(sources * perSource * time.Minute)
	queries := []struct {
		name string
		run  func() error
	}{
		{"all", func() error { _, err := db.Items(ctx, app.ItemFilter{UserID: 1, Limit: 30}); return err }},
		{"unread", func() error { _, err := db.Items(ctx, app.ItemFilter{UserID: 1, Unread: true, Limit: 30}); return err }},
		{"starred", func() error { _, err := db.Items(ctx, app.ItemFilter{UserID: 1, Starred: true, Limit: 30}); return err }},
		{"hidden", func() error { _, err := db.Items(ctx, app.ItemFilter{UserID: 1, Hidden: true, Limit: 30}); return err }},
		{"errors", func() error {
			_, err := db.Items(ctx, app.ItemFilter{UserID: 1, Status: app.ItemError, Limit: 30})
			return err
		}},
		{"best", func() error { _, err := db.Items(ctx, app.ItemFilter{UserID: 1, Sort: "score", Limit: 30}); return err }},
		{"minscore", func() error {
			_, err := db.Items(ctx, app.ItemFilter{UserID: 1, MinScore: 90, Limit: 30})
			return err
		}},
		{"done", func() error {
			_, err := db.Items(ctx, app.ItemFilter{UserID: 1, Status: app.ItemDone, Limit: 30})
			return err
		}},
		{"source", func() error { _, err := db.Items(ctx, app.ItemFilter{UserID: 1, SourceID: 7, Limit: 30}); return err }},
		{"source-page5", func() error {
			_, err := db.Items(ctx, app.ItemFilter{UserID: 1, SourceID: 7, Limit: 30, Offset: 120})
			return err
		}},
		{"counts", func() error { _, err := db.Counts(ctx, 1, app.NavUnreadCap); return err }},
		{"count-source", func() error { _, err := db.CountItems(ctx, 1, 7); return err }},
		{"briefing-day", func() error {
			_, err := db.Candidates(ctx, &app.Briefing{UserID: 1}, end.Add(-24*time.Hour), end, 20)
			return err
		}},
		{"briefing-3-sources", func() error {
			_, err := db.Candidates(ctx, &app.Briefing{UserID: 1, SourceIDs: []int64{3, 4, 5}}, end.Add(-7*24*time.Hour), end, 20)
			return err
		}},
		{"greader-refs", func() error {
			_, _, err := db.ReaderRefs(ctx, 1, &greader.Stream{ReadState: 1}, 1000)
			return err
		}},
		{"greader-refs-score", func() error {
			_, _, err := db.ReaderRefs(ctx, 1, &greader.Stream{MinScore: 80}, 1000)
			return err
		}},
	}
	variant := func(before bool) string {
		if before {
			return "before"
		}
		return "after"
	}
	n := 0
	for _, before := range []bool{true, false} {
		for _, ddl := range droppedIndexes {
			name := strings.Fields(ddl)[2]
			if before {
				_, _ = db.Write.Exec(ddl)
			} else if _, err := db.Write.Exec(`drop index if exists ` + name); err != nil {
				b.Fatal(err)
			}
		}
		for _, q := range queries {
			b.Run(q.name+"/"+variant(before), func(b *testing.B) {
				for b.Loop() {
					if err := q.run(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		// Storing fetches: 20 new items each, as the fetch worker does.
		b.Run("store-20-items/"+variant(before), func(b *testing.B) {
			src, err := db.Source(ctx, 1, 1)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				items := make([]app.Item, 20)
				for i := range items {
					n++
					at := base.Add(time.Duration(n) * time.Second)
					items[i] = app.Item{GUID: fmt.Sprint("new-", n), Title: "New item", Text: "text", PublishedAt: &at}
				}
				if _, err := db.FinishFetch(ctx, src, &app.FetchResult{Items: items}, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
