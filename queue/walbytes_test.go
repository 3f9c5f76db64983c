package queue_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/app/feeds/feedtest"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// TestNotModifiedCycleWrites: what an all-304 cycle of 1,000 sources writes to the write-ahead
// log (its frames, with no checkpoint during the cycle), after a first ingestion, through the
// real queue, workers and database. Issue 26: 16-17 MB before, ~3 MB after.
//
//	MORNINGDECK_WALBYTES=1 go test ./queue -run NotModifiedCycleWrites -v
func TestNotModifiedCycleWrites(t *testing.T) {
	if os.Getenv("MORNINGDECK_WALBYTES") == "" {
		t.Skip("set MORNINGDECK_WALBYTES=1")
	}
	const feedCount = 1000
	farm := feedtest.NewFarm(feedCount, 20)
	defer farm.Close()
	db := sqlitetest.New(t)
	ctx := context.Background()
	q := queue.NewFetchQueue(queue.FetchQueueOptions{Store: db, Capacity: 2000, Workers: 4, PollInterval: 10 * time.Millisecond})
	sources := &app.Sources{Store: db, Queue: q, Fetches: db, Fetcher: feeds.Adapter{Fetcher: feeds.New(feeds.Options{PerHost: 4})}}
	queue.HandleFetch(q, sources)
	for i := range feedCount {
		if _, err := db.Write.Exec(`insert into sources (user_id, type, url, name) values (1, 'rss', ?, '')`, farm.URL(i)); err != nil {
			t.Fatal(err)
		}
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { _ = q.Run(runCtx) }()
	wait := func() {
		for {
			var busy int
			_ = db.Read.QueryRow(`select count(*) from sources where fetch_status in ('QUEUED', 'FETCHING')`).Scan(&busy)
			if busy == 0 {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	if _, err := sources.Refresh(ctx, 1); err != nil {
		t.Fatal(err)
	}
	wait()
	if _, err := db.Write.Exec(`pragma wal_autocheckpoint = 0`); err != nil {
		t.Fatal(err)
	}
	for c := range 3 {
		var b, f, d int
		if err := db.Write.QueryRow(`pragma wal_checkpoint(TRUNCATE)`).Scan(&b, &f, &d); err != nil || b != 0 {
			t.Fatal(b, err)
		}
		before := farm.NotMod.Load()
		start := time.Now()
		if _, err := sources.Refresh(ctx, 1); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(db.Path + "-wal"); err == nil {
			t.Logf("after queueing: %.2f MB", float64(fi.Size())/1e6)
		}
		wait()
		took := time.Since(start)
		fi, err := os.Stat(db.Path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("cycle %d: %d 304s in %v, WAL %.2f MB (%d frames)", c, farm.NotMod.Load()-before, took, float64(fi.Size())/1e6, (fi.Size()-32)/4120)
	}
}
