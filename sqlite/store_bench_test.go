package sqlite_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// BenchmarkStoreFetch stores first fetches of 20 items (a first ingestion's writes: the items
// with their enrichment, the source's state) as the fetch workers do, one fetch an iteration,
// each to a new source:
//
//	go test ./sqlite -run '^$' -bench StoreFetch -benchmem
func BenchmarkStoreFetch(b *testing.B) {
	ctx := context.Background()
	db := sqlitetest.New(b)
	const sources = 2000
	for s := range sources {
		if _, err := db.Write.Exec(`insert into sources (user_id, type, url, name) values (1, 'rss', ?, ?)`, fmt.Sprint("http://f.test/", s), fmt.Sprint("Feed ", s)); err != nil {
			b.Fatal(err)
		}
	}
	text := strings.Repeat("It talks about databases, queues and the morning news, at a calm pace. ", 6)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n := 0
	for b.Loop() {
		src, err := db.Source(ctx, 1, int64(n%sources+1))
		if err != nil {
			b.Fatal(err)
		}
		src.LastFetchedAt = nil // every fetch a first one, stored enriched
		items := make([]app.Item, 20)
		for i := range items {
			at := base.Add(time.Duration(n*20+i) * time.Minute)
			score := 40 + i
			items[i] = app.Item{GUID: fmt.Sprint("feed-", n, "-story-", i), Title: fmt.Sprint("Story ", i, " of feed ", n), Link: fmt.Sprint("http://f.test/", n, "/", i),
				Author: "Writer", PublishedAt: &at, CleanContent: "<p>" + text + "</p>", Text: text, Summary: text[:140],
				Tags: []string{"databases", "queues"}, Topics: []string{"technology"}, Score: &score, ScoreReasoning: "Matches your interests: databases", EnrichedBy: "embedded"}
		}
		got, err := db.FinishFetch(ctx, src, &app.FetchResult{Items: items}, nil)
		if err != nil || got != 20 {
			b.Fatalf("stored %d of 20: %v", got, err)
		}
		n++
	}
}
