package queue_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"maragu.dev/goqite"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/app/feeds/feedtest"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// BenchmarkIngest runs the real scheduler, queue and workers against a local farm of 1,000
// feeds of 20 items: a first full ingestion, then a cycle in which every feed answers 304.
//
//	go test ./queue -run '^$' -bench Ingest -benchtime 3x
func BenchmarkIngest(b *testing.B) {
	const feedCount, itemsPer = 1000, 20
	// The farm runs in a child process, so peak RSS is the pipeline's own.
	feedURL := farmProcess(b, feedCount, itemsPer)
	var first, notMod, enqueued, indexed time.Duration
	for range b.N {
		db := sqlitetest.New(b)
		ctx := context.Background()
		q := queue.NewFetchQueue(queue.FetchQueueOptions{Store: db, Capacity: 2000, Workers: 4, PollInterval: 10 * time.Millisecond})
		sources := &app.Sources{Store: db, Queue: q, Fetches: db, Fetcher: feeds.Adapter{Fetcher: feeds.New(feeds.Options{PerHost: 4})}}
		queue.HandleFetch(q, sources)
		// Sources are created as the OPML import or the API would, but without their own
		// immediate enqueue, so the scheduler does the queueing as in steady state.
		tx, _ := db.Write.Begin()
		for i := range feedCount {
			if _, err := tx.Exec(`insert into sources (user_id, type, url, name) values (1, 'rss', ?, '')`, feedURL(i)); err != nil {
				b.Fatal(err)
			}
		}
		_ = tx.Commit()
		sched := &dueSources{s: sources, BatchSize: 2000}
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { _ = q.Run(runCtx); close(done) }()

		var enqueueTime time.Duration
		cycle := func() time.Duration {
			start := time.Now()
			if _, err := sched.Cycle(ctx); err != nil {
				b.Fatal(err)
			}
			enqueueTime += time.Since(start)
			for {
				var busy int
				if err := db.Read.QueryRow(`select count(*) from sources where fetch_status in ('QUEUED', 'FETCHING')`).Scan(&busy); err != nil {
					b.Fatal(err)
				}
				if busy == 0 {
					return time.Since(start)
				}
				time.Sleep(5 * time.Millisecond)
			}
		}
		b.StartTimer()
		first += cycle()
		var items int
		_ = db.Read.QueryRow(`select count(*) from items`).Scan(&items)
		if items != feedCount*itemsPer {
			b.Fatalf("stored %d items, want %d", items, feedCount*itemsPer)
		}
		_, _ = db.Write.Exec(`update sources set next_fetch_at = null`)
		notMod += cycle()
		start := time.Now()
		if n, err := db.IndexItems(ctx, 100000); err != nil || n != feedCount*itemsPer {
			b.Fatalf("indexed %d items: %v", n, err)
		}
		indexed += time.Since(start)
		b.StopTimer()
		enqueued += enqueueTime
		cancel()
		<-done
	}
	b.ReportMetric(first.Seconds()/float64(b.N), "s/first-ingest")
	b.ReportMetric(notMod.Seconds()/float64(b.N), "s/304-cycle")
	b.ReportMetric(peakRSSMB(), "MB-peak-RSS")
	b.ReportMetric(enqueued.Seconds()/float64(2*b.N), "s/scheduler-cycle")
	b.ReportMetric(indexed.Seconds()/float64(b.N), "s/search-index-20k")
}

// BenchmarkGoqite measures goqite's own send, receive and delete on the same database setup,
// so the pipeline's overhead over the raw queue is visible.
func BenchmarkGoqite(b *testing.B) {
	db := sqlitetest.New(b)
	q := goqite.New(goqite.NewOpts{DB: db.Write, Name: "bench"})
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		if err := q.Send(ctx, goqite.Message{Body: []byte(`{"kind":"fetch_source","v":1,"attempt":1,"data":{"sourceId":` + strconv.Itoa(i) + `}}`)}); err != nil {
			b.Fatal(err)
		}
		m, err := q.Receive(ctx)
		if err != nil || m == nil {
			b.Fatal(err)
		}
		if err := q.Delete(ctx, m.ID); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStoreFetch measures one worker's database step: storing a fetched feed of 20 new items.
func BenchmarkStoreFetch(b *testing.B) {
	db := sqlitetest.New(b)
	ctx := context.Background()
	farm := feedtest.NewFarm(1, 20)
	defer farm.Close()
	f := feeds.New(feeds.Options{})
	res, err := f.Fetch(ctx, feeds.Request{URL: farm.URL(0), Type: app.SourceRSS})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		src := &app.Source{UserID: 1, Type: app.SourceRSS, URL: fmt.Sprint("http://x/", i), RefreshIntervalMinutes: 15}
		if err := db.CreateSource(ctx, src, func(context.Context, *sql.Tx) error { return nil }); err != nil {
			b.Fatal(err)
		}
		if _, err := db.FinishFetch(ctx, src, &app.FetchResult{Items: res.Items}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParse measures fetching and parsing one 20-item feed from a local server.
func BenchmarkParse(b *testing.B) {
	farm := feedtest.NewFarm(1, 20)
	defer farm.Close()
	f := feeds.New(feeds.Options{})
	ctx := context.Background()
	for range b.N {
		if _, err := f.Fetch(ctx, feeds.Request{URL: farm.URL(0), Type: app.SourceRSS}); err != nil {
			b.Fatal(err)
		}
	}
}

func peakRSSMB() float64 {
	if runtime.GOOS != "linux" {
		return 0
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			return float64(kb) / 1024
		}
	}
	return 0
}

// BenchmarkNotModifiedCycle measures one scheduler cycle over 1,000 sources whose feeds all answer 304.
func BenchmarkNotModifiedCycle(b *testing.B) {
	const feedCount = 1000
	farm := feedtest.NewFarm(feedCount, 20)
	defer farm.Close()
	db := sqlitetest.New(b)
	ctx := context.Background()
	q := queue.NewFetchQueue(queue.FetchQueueOptions{Store: db, Capacity: 2000, Workers: 4, PollInterval: 10 * time.Millisecond})
	sources := &app.Sources{Store: db, Queue: q, Fetches: db, Fetcher: feeds.Adapter{Fetcher: feeds.New(feeds.Options{PerHost: 4})}}
	queue.HandleFetch(q, sources)
	for i := range feedCount {
		if _, err := db.Write.Exec(`insert into sources (user_id, type, url, name) values (1, 'rss', ?, '')`, farm.URL(i)); err != nil {
			b.Fatal(err)
		}
	}
	sched := &dueSources{s: sources, BatchSize: 2000}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { _ = q.Run(runCtx) }()
	cycle := func() {
		if _, err := sched.Cycle(ctx); err != nil {
			b.Fatal(err)
		}
		for {
			var busy int
			_ = db.Read.QueryRow(`select count(*) from sources where fetch_status in ('QUEUED', 'FETCHING')`).Scan(&busy)
			if busy == 0 {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	cycle()
	b.ResetTimer()
	for range b.N {
		_, _ = db.Write.Exec(`update sources set next_fetch_at = null`)
		cycle()
	}
}
