package queue_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/app/feeds/feedtest"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

type pipeline struct {
	db      *sqlite.DB
	q       *queue.FetchQueue
	sources *app.Sources
	sched   *dueSources
	clock   app.Clock
}

func newPipeline(t *testing.T, clock app.Clock, capacity int) *pipeline {
	t.Helper()
	db := sqlitetest.NewWithClock(t, clock)
	q := queue.NewFetchQueue(queue.FetchQueueOptions{Store: db, Capacity: capacity, PollInterval: 20 * time.Millisecond})
	f := feeds.New(feeds.Options{Timeout: 5 * time.Second})
	sources := &app.Sources{Store: db, Queue: q, Detector: feeds.Detector{Fetcher: f}, Fetches: db, Fetcher: feeds.Adapter{Fetcher: f}, Clock: clock}
	queue.HandleFetch(q, sources)
	return &pipeline{db: db, q: q, clock: clock, sources: sources, sched: &dueSources{s: sources}}
}

// dueSources is the fetch scheduler's cycle with a batch size.
type dueSources struct {
	s         *app.Sources
	BatchSize int
}

func (d *dueSources) Cycle(ctx context.Context) (int, error) { return d.s.QueueDue(ctx, d.BatchSize) }

// run runs the workers until the test ends.
func (p *pipeline) run(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = p.q.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

func (p *pipeline) add(t *testing.T, url string, interval int) *app.Source {
	t.Helper()
	s, err := p.sources.Add(context.Background(), app.AddSource{URL: url, Type: app.SourceRSS, RefreshIntervalMinutes: &interval})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func (p *pipeline) source(t *testing.T, id int64) *app.Source {
	t.Helper()
	s, err := p.db.Source(context.Background(), app.DefaultUserID, id)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// drain waits until the queue is empty and no source is QUEUED or FETCHING.
func (p *pipeline) drain(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		n, err := p.q.Size(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		var busy int
		if err := p.db.Read.QueryRow(`select count(*) from sources where fetch_status != 'IDLE'`).Scan(&busy); err != nil {
			t.Fatal(err)
		}
		if n == 0 && busy == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("queue did not drain")
}

func countItems(t *testing.T, db *sqlite.DB, sourceID int64) int {
	t.Helper()
	n, err := db.CountItems(context.Background(), app.DefaultUserID, sourceID)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestFetchPipeline(t *testing.T) {
	t.Run("a new source's items are stored within two seconds, marked DONE on first import", func(t *testing.T) {
		farm := feedtest.NewFarm(1, 20)
		defer farm.Close()
		p := newPipeline(t, nil, 100)
		p.run(t)
		start := time.Now()
		s := p.add(t, farm.URL(0), 15)
		for countItems(t, p.db, s.ID) < 20 {
			if time.Since(start) > 2*time.Second {
				t.Fatalf("items not stored within 2 s (have %d)", countItems(t, p.db, s.ID))
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Logf("20 items stored %s after creation", time.Since(start))
		p.drain(t)
		s = p.source(t, s.ID)
		if s.Name != "Farm feed 0" || s.Status != app.SourceActive || s.FetchStatus != app.FetchIdle || s.LastFetchedAt == nil || s.ETag == "" {
			t.Fatalf("source after first fetch: %+v", s)
		}
		var notDone int
		_ = p.db.Read.QueryRow(`select count(*) from items where status != 'DONE'`).Scan(&notDone)
		if notDone != 0 {
			t.Fatalf("%d first-import items are not DONE", notDone)
		}
	})

	t.Run("a re-fetch stores only new items, as NEW, and never duplicates one", func(t *testing.T) {
		farm := feedtest.NewFarm(1, 20)
		defer farm.Close()
		p := newPipeline(t, nil, 100)
		var seam []int64
		p.sources.NewItems = func(ctx context.Context, tx *sql.Tx, ids []int64) error { seam = append(seam, ids...); return nil }
		p.run(t)
		s := p.add(t, farm.URL(0), 15)
		p.drain(t)
		farm.Bump(0)
		farm.Bump(0)
		for range 3 {
			if _, err := p.sources.Refresh(context.Background(), app.DefaultUserID, s.ID); err != nil {
				t.Fatal(err)
			}
			p.drain(t)
		}
		if n := countItems(t, p.db, s.ID); n != 22 {
			t.Fatalf("items = %d, want 22", n)
		}
		var newItems int
		_ = p.db.Read.QueryRow(`select count(*) from items where status = 'NEW'`).Scan(&newItems)
		if newItems != 2 || len(seam) != 2 {
			t.Fatalf("NEW items = %d, seam saw %d; want 2", newItems, len(seam))
		}
	})

	t.Run("conditional GET: an unchanged feed answers 304 and nothing is parsed or stored", func(t *testing.T) {
		farm := feedtest.NewFarm(1, 20)
		defer farm.Close()
		p := newPipeline(t, nil, 100)
		p.run(t)
		s := p.add(t, farm.URL(0), 15)
		p.drain(t)
		if _, err := p.sources.Refresh(context.Background(), app.DefaultUserID, s.ID); err != nil {
			t.Fatal(err)
		}
		p.drain(t)
		if farm.NotMod.Load() != 1 || farm.Full.Load() != 1 {
			t.Fatalf("304s = %d, full = %d; want 1 and 1", farm.NotMod.Load(), farm.Full.Load())
		}
		if s2 := p.source(t, s.ID); s2.LastError != "" || s2.ItemCount != 20 {
			t.Fatalf("after 304: %+v", s2)
		}
	})

	t.Run("each source is fetched on its own interval", func(t *testing.T) {
		farm := feedtest.NewFarm(2, 5)
		defer farm.Close()
		clock := sqlitetest.NewClock(time.Now())
		p := newPipeline(t, clock, 100)
		ctx := context.Background()
		fast := p.add(t, farm.URL(0), 15)
		slow := p.add(t, farm.URL(1), 60)
		p.run(t)
		p.drain(t)
		if n, _ := p.sched.Cycle(ctx); n != 0 {
			t.Fatalf("queued %d sources right after their fetch", n)
		}
		clock.Add(16 * time.Minute)
		if n, _ := p.sched.Cycle(ctx); n != 1 {
			t.Fatalf("after 16 min queued %d, want only the 15-minute source", n)
		}
		p.drain(t)
		if got := p.source(t, fast.ID).LastFetchedAt; !got.Equal(clock.Now().UTC().Truncate(time.Millisecond)) && got.Before(clock.Now().Add(-time.Second)) {
			t.Fatalf("fast source last fetched %v", got)
		}
		clock.Add(45 * time.Minute) // t = 61 min
		if n, _ := p.sched.Cycle(ctx); n != 2 {
			t.Fatalf("after 61 min queued %d, want both", n)
		}
		p.drain(t)
		_ = slow
	})

	t.Run("a cycle queues every due source, a batch per transaction, up to the queue's room", func(t *testing.T) {
		p := newPipeline(t, nil, 300)
		p.sched.BatchSize = 40
		ctx := context.Background()
		for i := range 250 {
			src := &app.Source{UserID: app.DefaultUserID, Type: app.SourceRSS, URL: fmt.Sprintf("http://127.0.0.1:1/%d.xml", i), RefreshIntervalMinutes: 60}
			if err := p.db.CreateSource(ctx, src, nil); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := p.sched.Cycle(ctx); err != nil || n != 250 {
			t.Fatalf("cycle queued %d of 250 due sources (batches of 40), %v", n, err)
		}
		if size, _ := p.q.Size(ctx); size != 250 {
			t.Fatalf("queue holds %d jobs", size)
		}
		if n, err := p.sched.Cycle(ctx); err != nil || n != 0 {
			t.Fatalf("second cycle queued %d, %v", n, err)
		}
		for i := range 100 {
			src := &app.Source{UserID: app.DefaultUserID, Type: app.SourceRSS, URL: fmt.Sprintf("http://127.0.0.1:1/more-%d.xml", i), RefreshIntervalMinutes: 60}
			if err := p.db.CreateSource(ctx, src, nil); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := p.sched.Cycle(ctx); err != nil || n != 50 {
			t.Fatalf("cycle with room for 50 queued %d, %v", n, err)
		}
	})

	t.Run("backpressure: a full queue skips the cycle and nothing is lost", func(t *testing.T) {
		farm := feedtest.NewFarm(5, 3)
		defer farm.Close()
		p := newPipeline(t, nil, 2)
		ctx := context.Background()
		// Sources created with their own immediate enqueue fill the queue past capacity;
		// reset them to never-queued so the scheduler is the one that queues.
		for i := range 5 {
			p.add(t, farm.URL(i), 15)
		}
		if _, err := p.db.Write.Exec(`delete from goqite; update sources set fetch_status = 'IDLE', queued_at = null`); err != nil {
			t.Fatal(err)
		}
		if n, _ := p.sched.Cycle(ctx); n != 2 {
			t.Fatalf("first cycle queued %d, want 2 (capacity)", n)
		}
		if n, _ := p.sched.Cycle(ctx); n != 0 {
			t.Fatalf("cycle with a full queue queued %d, want 0", n)
		}
		p.run(t)
		for total := 2; total < 5; {
			p.drain(t)
			n, err := p.sched.Cycle(ctx)
			if err != nil {
				t.Fatal(err)
			}
			total += n
		}
		p.drain(t)
		var fetched int
		_ = p.db.Read.QueryRow(`select count(*) from sources where last_fetched_at is not null`).Scan(&fetched)
		if fetched != 5 {
			t.Fatalf("%d of 5 sources fetched", fetched)
		}
	})

	t.Run("sources stuck in QUEUED or FETCHING are reset to IDLE once their job is gone", func(t *testing.T) {
		clock := sqlitetest.NewClock(time.Now())
		p := newPipeline(t, clock, 100)
		s := p.add(t, "http://127.0.0.1:1/feed.xml", 15)
		rec := queue.Recovery("source", p.db.ResetStuckSources, 0, clock, nil)
		if n, _ := rec(context.Background()); n != 0 {
			t.Fatalf("reset %d fresh sources", n)
		}
		clock.Add(11 * time.Minute)
		// Its job still waits (the workers are not running: as with a paused queue): not stuck.
		if n, _ := rec(context.Background()); n != 0 {
			t.Fatalf("reset %d sources whose job still waits", n)
		}
		if got := p.source(t, s.ID).FetchStatus; got != app.FetchQueued {
			t.Fatalf("fetch status %s", got)
		}
		// The job lost (here: removed by hand): the source is reset, and the scheduler takes it up again.
		if _, err := p.db.Write.Exec(`delete from goqite where queue = 'fetch' or queue glob 'fetch#*'`); err != nil {
			t.Fatal(err)
		}
		if n, _ := rec(context.Background()); n != 1 {
			t.Fatalf("reset %d, want 1", n)
		}
		if got := p.source(t, s.ID).FetchStatus; got != app.FetchIdle {
			t.Fatalf("fetch status %s", got)
		}
	})

	t.Run("a failing source records the error, backs off, shows ERROR after 5 failures and recovers on success", func(t *testing.T) {
		farm := feedtest.NewFarm(1, 3)
		defer farm.Close()
		farm.SetStatus(0, http.StatusInternalServerError)
		clock := sqlitetest.NewClock(time.Now())
		p := newPipeline(t, clock, 100)
		p.run(t)
		s := p.add(t, farm.URL(0), 10)
		for i := 1; i <= 5; i++ {
			p.drain(t)
			s = p.source(t, s.ID)
			if s.ErrorCount != i || !strings.Contains(s.LastError, "500") {
				t.Fatalf("after failure %d: count %d, error %q", i, s.ErrorCount, s.LastError)
			}
			wantWait := app.Backoff(10*time.Minute, i)
			if got := s.NextFetchAt.Sub(clock.Now()); got < wantWait-time.Second || got > wantWait+time.Second {
				t.Fatalf("after failure %d next fetch in %s, want %s", i, got, wantWait)
			}
			wantStatus := app.SourceActive
			if i >= app.ErrorThreshold {
				wantStatus = app.SourceError
			}
			if s.Status != wantStatus {
				t.Fatalf("after failure %d status %s, want %s", i, s.Status, wantStatus)
			}
			clock.Add(wantWait + time.Second)
			if n, _ := p.sched.Cycle(context.Background()); n != 1 {
				t.Fatalf("failing source not retried at its backed-off pace (queued %d)", n)
			}
		}
		p.drain(t)
		farm.SetStatus(0, 0)
		clock.Add(24 * time.Hour)
		if _, err := p.sched.Cycle(context.Background()); err != nil {
			t.Fatal(err)
		}
		p.drain(t)
		s = p.source(t, s.ID)
		if s.Status != app.SourceActive || s.ErrorCount != 0 || s.LastError != "" || s.ItemCount != 3 {
			t.Fatalf("after a success: %+v", s)
		}
	})

	t.Run("a paused source is never scheduled", func(t *testing.T) {
		farm := feedtest.NewFarm(1, 3)
		defer farm.Close()
		p := newPipeline(t, nil, 100)
		p.run(t)
		s := p.add(t, farm.URL(0), 1)
		p.drain(t)
		paused := app.SourcePaused
		if _, err := p.sources.Update(context.Background(), app.DefaultUserID, s.ID, app.SourceUpdate{Status: &paused}); err != nil {
			t.Fatal(err)
		}
		_, _ = p.db.Write.Exec(`update sources set next_fetch_at = null`)
		if n, _ := p.sched.Cycle(context.Background()); n != 0 {
			t.Fatalf("queued %d paused sources", n)
		}
		if n, _ := p.sources.Refresh(context.Background(), app.DefaultUserID, s.ID); n != 0 {
			t.Fatalf("refresh queued a paused source")
		}
	})

	t.Run("a 429 with Retry-After pauses the source for the time it asks", func(t *testing.T) {
		var hits atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			w.Header().Set("Retry-After", "7200")
			w.WriteHeader(http.StatusTooManyRequests)
		}))
		defer srv.Close()
		clock := sqlitetest.NewClock(time.Now())
		p := newPipeline(t, clock, 100)
		p.run(t)
		s := p.add(t, srv.URL+"/feed", 15)
		p.drain(t)
		s = p.source(t, s.ID)
		if got := s.NextFetchAt.Sub(clock.Now()); got < 2*time.Hour-time.Second {
			t.Fatalf("next fetch in %s, want at least the 2 h asked", got)
		}
		if !strings.Contains(s.LastError, "429") {
			t.Fatalf("last error %q", s.LastError)
		}
	})
}

func TestRedditAndWebSources(t *testing.T) {
	t.Run("a subreddit on a local server is fetched from its JSON listing", func(t *testing.T) {
		listing, err := os.ReadFile("../app/feeds/testdata/reddit_golang_new.json")
		if err != nil {
			t.Fatal(err)
		}
		var ua, path string
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ua, path = r.UserAgent(), r.URL.RequestURI()
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(listing)
		}))
		defer srv.Close()
		p := newPipeline(t, nil, 100)
		p.run(t)
		s, err := p.sources.Add(context.Background(), app.AddSource{URL: srv.URL + "/r/golang", Type: app.SourceReddit})
		if err != nil {
			t.Fatal(err)
		}
		p.drain(t)
		s = p.source(t, s.ID)
		if s.LastError != "" || s.ItemCount == 0 || s.Name != "r/golang" {
			t.Fatalf("reddit source: %+v", s)
		}
		if path != "/r/golang/new.json?limit=100" || !strings.Contains(ua, "MorningDeck") {
			t.Fatalf("requested %q with User-Agent %q", path, ua)
		}
		items, _ := p.db.Items(context.Background(), app.ItemFilter{UserID: app.DefaultUserID, SourceID: s.ID})
		it := items[0]
		if it.Extra["score"] == nil || it.Extra["comments"] == nil || !strings.HasPrefix(it.Link, srv.URL+"/r/golang/comments/") || it.Author == "" || it.PublishedAt == nil {
			t.Fatalf("reddit item: %+v", it)
		}
	})

	t.Run("a web page without a feed: its article links become items, new links new items", func(t *testing.T) {
		var links atomic.Int64
		links.Store(2)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			var b strings.Builder
			b.WriteString(`<!doctype html><html><head><title>Local news</title></head><body>
<header><nav><a href="/">Home</a> <a href="/about">About us and our long history</a></nav></header><main>`)
			for i := range int(links.Load()) {
				fmt.Fprintf(&b, `<article><h2><a href="/news/story-%d">The council approved the new river bridge plan number %d</a></h2></article>`, i, i)
			}
			b.WriteString(`<a href="https://elsewhere.example/ad">An advertisement on another site entirely</a></main>
<footer><a href="/privacy">Privacy policy and terms of this site</a></footer></body></html>`)
			_, _ = w.Write([]byte(b.String()))
		}))
		defer srv.Close()
		p := newPipeline(t, nil, 100)
		p.run(t)
		s, err := p.sources.Add(context.Background(), app.AddSource{URL: srv.URL + "/news"})
		if err != nil {
			t.Fatal(err)
		}
		if s.Type != app.SourceWeb || s.Name != "Local news" {
			t.Fatalf("detected %s %q", s.Type, s.Name)
		}
		p.drain(t)
		if n := countItems(t, p.db, s.ID); n != 2 {
			t.Fatalf("items = %d, want the 2 article links", n)
		}
		links.Store(3)
		if _, err := p.sources.Refresh(context.Background(), app.DefaultUserID, s.ID); err != nil {
			t.Fatal(err)
		}
		p.drain(t)
		items, _ := p.db.Items(context.Background(), app.ItemFilter{UserID: app.DefaultUserID, SourceID: s.ID})
		if len(items) != 3 {
			t.Fatalf("items after a new link = %d, want 3", len(items))
		}
		for _, it := range items {
			if !strings.HasPrefix(it.Link, srv.URL+"/news/story-") || !strings.HasPrefix(it.Title, "The council approved") {
				t.Errorf("item %q → %q", it.Title, it.Link)
			}
		}
	})

	t.Run("a page that advertises a feed is followed through its feed", func(t *testing.T) {
		farm := feedtest.NewFarm(1, 4)
		defer farm.Close()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			fmt.Fprintf(w, `<html><head><title>Blog</title><link rel="alternate" type="application/rss+xml" title="Blog feed" href="%s"></head><body><p>hi</p></body></html>`, farm.URL(0))
		}))
		defer srv.Close()
		p := newPipeline(t, nil, 100)
		s, err := p.sources.Add(context.Background(), app.AddSource{URL: srv.URL})
		if err != nil {
			t.Fatal(err)
		}
		if s.Type != app.SourceRSS || s.URL != farm.URL(0) {
			t.Fatalf("added %s %s", s.Type, s.URL)
		}
		_, err = p.sources.Add(context.Background(), app.AddSource{URL: srv.URL, OfferChoice: true})
		if app.ErrorCode(err) != app.ECONFLICT {
			t.Fatalf("adding the same page again: %v", err)
		}
	})
}

func TestOffline(t *testing.T) {
	t.Run("when every host fails at once the sources are not blamed", func(t *testing.T) {
		p := newPipeline(t, nil, 100)
		p.run(t)
		// Five different loopback hosts, nothing listening: connection refused everywhere.
		for i := 1; i <= 5; i++ {
			p.add(t, fmt.Sprintf("http://127.0.0.%d:9/feed.xml", i), 15)
		}
		p.drain(t)
		srcs, err := p.db.Sources(context.Background(), app.DefaultUserID)
		if err != nil {
			t.Fatal(err)
		}
		blamed := 0
		for _, s := range srcs {
			if s.LastError == "" {
				t.Fatalf("source %s has no error message", s.URL)
			}
			if s.ErrorCount > 0 {
				blamed++
			}
		}
		if blamed > 2 {
			t.Fatalf("%d of 5 sources blamed for a network-wide failure; at most the first 2 may be", blamed)
		}
	})
}

func TestPoliteness(t *testing.T) {
	t.Run("Cache-Control max-age is a floor on the next scheduled fetch; refresh now ignores it", func(t *testing.T) {
		farm := feedtest.NewFarm(1, 3)
		defer farm.Close()
		var hits atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			w.Header().Set("Cache-Control", "public, max-age=7200")
			w.Header().Set("Content-Type", "application/rss+xml")
			_, _ = w.Write(farm.Feed(0, 3))
		}))
		defer srv.Close()
		clock := sqlitetest.NewClock(time.Now())
		p := newPipeline(t, clock, 100)
		p.run(t)
		s := p.add(t, srv.URL+"/feed", 15)
		p.drain(t)
		s = p.source(t, s.ID)
		if got := s.NextFetchAt.Sub(clock.Now()); got < 2*time.Hour-time.Second {
			t.Fatalf("next fetch in %s, want the 2 h max-age", got)
		}
		clock.Add(30 * time.Minute)
		if n, _ := p.sched.Cycle(context.Background()); n != 0 {
			t.Fatal("scheduled before max-age passed")
		}
		if n, _ := p.sources.Refresh(context.Background(), app.DefaultUserID, s.ID); n != 1 {
			t.Fatal("refresh now did not queue the source")
		}
		p.drain(t)
		if hits.Load() != 2 {
			t.Fatalf("server hit %d times, want 2", hits.Load())
		}
	})
}

func TestAutoInterval(t *testing.T) {
	at := func(h float64) app.Item {
		tm := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(h * float64(time.Hour)))
		return app.Item{PublishedAt: &tm}
	}
	for _, tc := range []struct {
		name  string
		items []app.Item
		want  int
		ok    bool
	}{
		{"an hourly source gets a one-hour interval", []app.Item{at(0), at(1), at(2), at(3)}, 60, true},
		{"a source publishing every minute is held at five minutes", []app.Item{at(0), at(0.01), at(0.02)}, app.MinAutoInterval, true},
		{"a weekly source is held at a day", []app.Item{at(0), at(168), at(336)}, app.MaxAutoInterval, true},
		{"undated items leave the interval alone", []app.Item{{}, {}}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := app.AutoInterval(tc.items)
			if got != tc.want || ok != tc.ok {
				t.Fatalf("AutoInterval = %d, %v; want %d, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestDeletedWhileFetching(t *testing.T) {
	t.Run("a source deleted during its fetch ends the job quietly, with nothing stored", func(t *testing.T) {
		farm := feedtest.NewFarm(1, 3)
		defer farm.Close()
		started, release := make(chan struct{}), make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			close(started)
			<-release
			farm.Config.Handler.ServeHTTP(w, r)
		}))
		defer srv.Close()
		p := newPipeline(t, nil, 100)
		p.run(t)
		s := p.add(t, srv.URL+"/feed/0.xml", 15)
		<-started
		if err := p.db.DeleteSource(context.Background(), app.DefaultUserID, s.ID); err != nil {
			t.Fatal(err)
		}
		close(release)
		deadline := time.Now().Add(10 * time.Second)
		for {
			n, _ := p.q.Size(context.Background())
			if n == 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the job never finished")
			}
			time.Sleep(10 * time.Millisecond)
		}
		dead, _ := p.q.Dead(context.Background(), 10)
		var items int
		_ = p.db.Read.QueryRow(`select count(*) from items`).Scan(&items)
		if len(dead) != 0 || items != 0 {
			t.Fatalf("%d dead jobs, %d items", len(dead), items)
		}
	})
}

// TestHandedOffFetch: a fetch worker hands the storing of its result over to the database's
// writer and goes on to the next job; the job is acknowledged only by the transaction that
// stores the result. When that transaction fails, the job has failed: it is retried after its
// backoff (5 s), the source released for the retry, fetched and stored again, once. (The
// visibility timeout is a minute: a job merely left to its redelivery would not be retried
// within the test's 20 s.)
func TestHandedOffFetch(t *testing.T) {
	farm := feedtest.NewFarm(2, 3)
	defer farm.Close()
	db := sqlitetest.New(t)
	q := queue.NewFetchQueue(queue.FetchQueueOptions{Store: db, Timeout: time.Minute, PollInterval: 20 * time.Millisecond})
	f := feeds.New(feeds.Options{Timeout: 5 * time.Second})
	// The first source's store fails on its first try and on any try within a second of it
	// (a group commit that fails runs each of its transactions again at once, alone): only
	// the job's retry, after its backoff, can store it.
	var mu sync.Mutex
	var failedAt time.Time
	var retriedAfter time.Duration
	first := int64(1)
	sources := &app.Sources{Store: db, Queue: q, Fetches: db, Fetcher: feeds.Adapter{Fetcher: f},
		FirstImport: func(ctx context.Context, tx *sql.Tx, sourceID int64) error {
			if sourceID != first {
				return nil
			}
			mu.Lock()
			defer mu.Unlock()
			if failedAt.IsZero() || time.Since(failedAt) < time.Second {
				if failedAt.IsZero() {
					failedAt = time.Now()
				}
				return errors.New("the disk is full") // its transaction rolls back
			}
			retriedAfter = time.Since(failedAt)
			return nil
		}}
	queue.HandleFetch(q, sources)
	p := &pipeline{db: db, q: q, sources: sources, sched: &dueSources{s: sources}}
	p.run(t)
	a := p.add(t, farm.URL(0), 15)
	b := p.add(t, farm.URL(1), 15)
	if a.ID != first {
		t.Fatalf("the first source has id %d, want %d", a.ID, first)
	}
	p.drain(t)
	mu.Lock()
	if failedAt.IsZero() || retriedAfter < 3*time.Second {
		t.Errorf("the failed store was stored again %v after it failed, want after the job's backoff (~5 s)", retriedAfter)
	}
	mu.Unlock()
	for _, s := range []*app.Source{a, b} {
		if n := countItems(t, db, s.ID); n != 3 {
			t.Errorf("source %d: %d items, want 3", s.ID, n)
		}
		if got := p.source(t, s.ID); got.LastFetchedAt == nil || got.LastError != "" {
			t.Errorf("source %d: fetched at %v, error %q", s.ID, got.LastFetchedAt, got.LastError)
		}
	}
	if dead, err := q.Dead(context.Background(), 10); err != nil || len(dead) != 0 {
		t.Errorf("dead jobs %v (%v)", dead, err)
	}
}

// TestBeingFetched: a source being fetched is shown FETCHING by the Sources service (List, Page,
// Get) while its row stays QUEUED (issue 26: the mark is in the server's memory, not written per
// fetch), a second job about it meanwhile has nothing to do, and once stored it is IDLE again.
func TestBeingFetched(t *testing.T) {
	farm := feedtest.NewFarm(1, 3)
	defer farm.Close()
	started, release := make(chan struct{}), make(chan struct{})
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if requests.Add(1) == 1 {
			close(started)
			<-release
		}
		farm.Config.Handler.ServeHTTP(w, r)
	}))
	defer srv.Close()
	p := newPipeline(t, nil, 100)
	p.run(t)
	ctx := context.Background()
	s := p.add(t, srv.URL+"/feed/0.xml", 15)
	<-started
	if got := p.source(t, s.ID).FetchStatus; got != app.FetchQueued {
		t.Errorf("the row of a source being fetched says %s, want QUEUED", got)
	}
	got, err := p.sources.Get(ctx, app.DefaultUserID, s.ID)
	if err != nil || got.FetchStatus != app.FetchFetching || got.FetchStartedAt == nil {
		t.Errorf("Get of a source being fetched: %v, %v", got, err)
	}
	list, err := p.sources.Page(ctx, app.SourceFilter{UserID: app.DefaultUserID, Limit: 10})
	if err != nil || len(list) != 1 || list[0].FetchStatus != app.FetchFetching {
		t.Errorf("Page while fetching: %v, %v", list, err)
	}
	// A second job about the source (as a redelivery would be) has nothing to do.
	if _, err := p.db.Write.Exec(`update sources set fetch_status = 'IDLE' where id = ?`, s.ID); err != nil {
		t.Fatal(err)
	}
	if n, err := p.sources.Refresh(ctx, app.DefaultUserID, s.ID); err != nil || n != 1 {
		t.Fatalf("refresh queued %d: %v", n, err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; {
		if n, _ := p.q.Size(ctx); n == 1 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("the second job is still in the queue (%d jobs)", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(release)
	p.drain(t)
	if n := requests.Load(); n != 1 {
		t.Errorf("%d requests, want 1", n)
	}
	got, err = p.sources.Get(ctx, app.DefaultUserID, s.ID)
	if err != nil || got.FetchStatus != app.FetchIdle || countItems(t, p.db, s.ID) != 3 {
		t.Errorf("after the fetch: %v, %v, %d items", got, err, countItems(t, p.db, s.ID))
	}
}
