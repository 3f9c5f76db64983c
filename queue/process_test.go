package queue_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/app/feeds/feedtest"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// llmServer speaks the chat-completions wire format. fail(n) decides, per request number
// (1-based), whether to answer 500.
type llmServer struct {
	*httptest.Server
	requests atomic.Int64
	fail     atomic.Int64 // answer 500 to this many requests first
	hang     chan struct{}
}

func newLLMServer(t *testing.T) *llmServer {
	s := &llmServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := s.requests.Add(1)
		if n <= s.fail.Load() {
			http.Error(w, `{"error":{"message":"model crashed"}}`, http.StatusInternalServerError)
			return
		}
		if s.hang != nil {
			<-s.hang
		}
		content, _ := json.Marshal(map[string]any{"summary": "A short summary of the story.", "tags": []string{"bridges", "council"},
			"topics": []string{}, "score": 77, "reasoning": "Matches your interest in bridges."})
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{
			"id": "x", "object": "chat.completion", "model": "test",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": string(content)}}},
			"usage":   map[string]any{"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150},
		})
	}))
	t.Cleanup(s.Close)
	return s
}

type processPipeline struct {
	*pipeline
	pq     *queue.ProcessQueue
	pw     *app.Enriching
	psched cycle
}

// newProcessPipeline wires fetch and process queues; enricher "embedded" or an LLM base URL.
func newProcessPipeline(t *testing.T, clock app.Clock, llmURL string) *processPipeline {
	t.Helper()
	p := newPipeline(t, clock, 1000)
	pq := queue.NewProcessQueue(queue.ProcessQueueOptions{Store: p.db, PollInterval: 20 * time.Millisecond,
		BaseBackoff: 20 * time.Millisecond, Clock: clock})
	embedded := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	var chosen app.Enricher = embedded
	if llmURL != "" {
		chosen = enrich.NewLLM(enrich.LLMOptions{BaseURL: llmURL, Model: "test", Timeout: 2 * time.Second})
	}
	pw := &app.Enriching{Store: p.db, Queue: pq, Enrichers: chooseAlways{chosen}, Clock: clock}
	queue.HandleProcess(pq, pw)
	p.sources.NewItems = pw.Pend
	return &processPipeline{pipeline: p, pq: pq, pw: pw, psched: func(ctx context.Context) (int, error) { return pw.QueueNew(ctx, 0) }}
}

// chooseAlways chooses the same enricher for everyone.
type chooseAlways struct{ e app.Enricher }

func (c chooseAlways) EnricherFor(*app.Settings) app.Enricher { return c.e }

// cycle is a scheduler's cycle.
type cycle func(ctx context.Context) (int, error)

func (c cycle) Cycle(ctx context.Context) (int, error) { return c(ctx) }

func (p *processPipeline) run(t *testing.T) {
	p.pipeline.run(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = p.pq.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

func (p *processPipeline) itemsByStatus(t *testing.T) map[string]int {
	t.Helper()
	rows, err := p.db.Read.Query(`select status, count(*) from items group by status`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var s string
		var n int
		_ = rows.Scan(&s, &n)
		out[s] = n
	}
	return out
}

func (p *processPipeline) waitItems(t *testing.T, want map[string]int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := p.itemsByStatus(t)
		ok := true
		for k, v := range want {
			if got[k] != v {
				ok = false
			}
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("items by status %v, want %v", got, want)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// newItems imports a feed once (its back catalogue DONE), then publishes n new items and refetches.
func (p *processPipeline) newItems(t *testing.T, farm *feedtest.Farm, n int) *app.Source {
	t.Helper()
	s := p.add(t, farm.URL(0), 15)
	p.drain(t)
	for range n {
		farm.Bump(0)
	}
	if _, err := p.sources.Refresh(context.Background(), app.DefaultUserID, s.ID); err != nil {
		t.Fatal(err)
	}
	p.drain(t)
	return s
}

func TestProcessing(t *testing.T) {
	ctx := context.Background()

	t.Run("new items after the first import are enriched, scored and searchable; the back catalogue is not", func(t *testing.T) {
		farm := feedtest.NewFarm(1, 10)
		defer farm.Close()
		p := newProcessPipeline(t, nil, "")
		if _, err := p.db.UpdateSettings(ctx, app.DefaultUserID, app.SettingsUpdate{Interests: ptr("databases queues")}); err != nil {
			t.Fatal(err)
		}
		p.run(t)
		p.newItems(t, farm, 2)
		p.waitItems(t, map[string]int{"DONE": 12})
		items, err := p.db.Items(ctx, app.ItemFilter{UserID: app.DefaultUserID, Sort: "score", Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		enriched := 0
		for _, it := range items {
			if it.EnrichedBy == "" {
				continue
			}
			enriched++
			if it.Summary == "" || it.Score == nil || it.ScoreReasoning == "" || len(it.Tags) == 0 {
				t.Errorf("enriched item lacks results: %+v", it)
			}
		}
		if enriched != 2 {
			t.Fatalf("%d items enriched, want only the 2 new ones", enriched)
		}
		s, _ := p.db.Settings(ctx, app.DefaultUserID)
		if s.Credits != 1000-2 {
			t.Fatalf("credits %d, want 998", s.Credits)
		}
		if n, err := p.db.IndexItems(ctx, 1000); err != nil || n != 12 {
			t.Fatalf("indexed %d items (%v), want 12", n, err)
		}
		found, err := p.db.Items(ctx, app.ItemFilter{UserID: app.DefaultUserID, Q: "databa"})
		if err != nil || len(found) == 0 || !strings.Contains(found[0].Snippet, "\x01") {
			t.Fatalf("search: %d results, err %v", len(found), err)
		}
	})

	t.Run("a linked page that cannot be read is kept on the item, and a later success clears it", func(t *testing.T) {
		farm := feedtest.NewFarm(1, 3) // the farm's item links (/site/…) answer 404
		defer farm.Close()
		p := newProcessPipeline(t, nil, "")
		p.pw.Articles = feeds.Adapter{Fetcher: feeds.New(feeds.Options{Timeout: 5 * time.Second})}
		p.run(t)
		p.newItems(t, farm, 1)
		p.waitItems(t, map[string]int{"DONE": 4})
		items, err := p.db.Items(ctx, app.ItemFilter{UserID: app.DefaultUserID, Limit: 20})
		if err != nil {
			t.Fatal(err)
		}
		var enriched *app.Item
		for _, it := range items {
			if it.EnrichedBy != "" {
				enriched = it
			} else if it.ArticleError() != "" {
				t.Errorf("back-catalogue item %q has an article error %q", it.Title, it.ArticleError())
			}
		}
		if enriched == nil {
			t.Fatal("no item was enriched")
		}
		if msg := enriched.ArticleError(); !strings.Contains(msg, "404") {
			t.Fatalf("article error %q, want the page's 404 named", msg)
		}
		if enriched.Summary == "" || enriched.Score == nil {
			t.Fatalf("the item was not enriched from the feed's text: %+v", enriched)
		}
		// Processed again without the page (no article fetcher), the note goes away.
		p.pw.Articles = nil
		if _, err := p.db.Write.Exec(`update items set status = 'PENDING' where id = ?`, enriched.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := p.pw.Process(ctx, app.Attempt{}, enriched.ID, 0); err != nil {
			t.Fatal(err)
		}
		again, err := p.db.Item(ctx, app.DefaultUserID, enriched.ID)
		if err != nil {
			t.Fatal(err)
		}
		if again.ArticleError() != "" || again.Thumbnail() != enriched.Thumbnail() {
			t.Fatalf("after a clean run: article error %q, thumbnail %q (was %q)", again.ArticleError(), again.Thumbnail(), enriched.Thumbnail())
		}
	})

	t.Run("jobs are prioritized by publication: last 24 h, then 72 h, then the rest", func(t *testing.T) {
		p := newProcessPipeline(t, nil, "")
		src := p.add(t, "http://127.0.0.1:1/feed", 15)
		now := time.Now()
		var ids []int64
		for i, age := range []time.Duration{10 * 24 * time.Hour, 48 * time.Hour, time.Hour} {
			var id int64
			pub := now.Add(-age).UTC().Format("2006-01-02T15:04:05.000Z")
			if err := p.db.Write.QueryRow(`insert into items (source_id, user_id, guid, title, published_at, status) values (?, 1, ?, 't', ?, 'NEW') returning id`, src.ID, fmt.Sprint(i), pub).Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		tx, _ := p.db.Write.Begin()
		if err := p.pw.Pend(ctx, tx, ids); err != nil {
			t.Fatal(err)
		}
		_ = tx.Commit()
		rows, _ := p.db.Read.Query(`select priority from goqite where queue = 'process' order by priority desc, created`)
		var prios []int
		for rows.Next() {
			var v int
			_ = rows.Scan(&v)
			prios = append(prios, v)
		}
		rows.Close()
		if fmt.Sprint(prios) != "[10 5 0]" {
			t.Fatalf("priorities %v, want [10 5 0]", prios)
		}
	})

	t.Run("a failing enricher is retried with backoff, then the item is ERROR; a manual retry finishes it", func(t *testing.T) {
		farm := feedtest.NewFarm(1, 3)
		defer farm.Close()
		llm := newLLMServer(t)
		llm.fail.Store(3)
		p := newProcessPipeline(t, nil, llm.URL)
		p.run(t)
		p.newItems(t, farm, 1)
		p.waitItems(t, map[string]int{"ERROR": 1})
		var id int64
		var attempts int
		var lastErr string
		if err := p.db.Read.QueryRow(`select id, attempts, last_error from items where status = 'ERROR'`).Scan(&id, &attempts, &lastErr); err != nil {
			t.Fatal(err)
		}
		if attempts != 3 || lastErr == "" || llm.requests.Load() < 3 {
			t.Fatalf("attempts %d, error %q, requests %d", attempts, lastErr, llm.requests.Load())
		}
		if err := p.db.RetryItem(ctx, app.DefaultUserID, id, func(ctx context.Context, tx *sql.Tx, it app.PendingItem) error {
			return p.pq.EnqueueTx(ctx, tx, it)
		}); err != nil {
			t.Fatal(err)
		}
		p.waitItems(t, map[string]int{"DONE": 4})
		it, _ := p.db.Item(ctx, app.DefaultUserID, id)
		if it.EnrichedBy != "llm:test" || it.Summary != "A short summary of the story." || *it.Score != 77 {
			t.Fatalf("after retry: %+v", it)
		}
	})

	t.Run("a dead letter after a retry by hand leaves the retried item alone", func(t *testing.T) {
		// The handler marks the item ERROR on its last attempt, then the queue dead-letters the
		// job in a later transaction. A retry by hand in between queues a new job; the dead
		// letter must not mark the item ERROR again, or the new job finds nothing to do.
		farm := feedtest.NewFarm(1, 3)
		defer farm.Close()
		p := newProcessPipeline(t, nil, "")
		p.run(t)
		p.newItems(t, farm, 0)
		var id int64
		if err := p.db.Read.QueryRow(`select id from items order by id limit 1`).Scan(&id); err != nil {
			t.Fatal(err)
		}
		abandon := func() string {
			t.Helper()
			tx, err := p.db.Write.Begin()
			if err != nil {
				t.Fatal(err)
			}
			if err := p.pw.AbandonTx(ctx, tx, id, "killed"); err != nil {
				t.Fatal(err)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			var status string
			_ = p.db.Read.QueryRow(`select status from items where id = ?`, id).Scan(&status)
			return status
		}
		if err := p.pq.Pause(ctx); err != nil { // the retried job stays queued
			t.Fatal(err)
		}
		if err := p.db.RetryItem(ctx, app.DefaultUserID, id, func(ctx context.Context, tx *sql.Tx, it app.PendingItem) error {
			return p.pq.EnqueueTx(ctx, tx, it)
		}); err != nil {
			t.Fatal(err)
		}
		if got := abandon(); got != "PENDING" {
			t.Fatalf("with its retry queued, the item is %s, want PENDING", got)
		}
		// Without a live job, a PENDING item is abandoned.
		if _, err := p.db.Write.Exec(`delete from goqite`); err != nil {
			t.Fatal(err)
		}
		if got := abandon(); got != "ERROR" {
			t.Fatalf("with no job left, the item is %s, want ERROR", got)
		}
	})

	t.Run("enqueueing an item twice processes it once", func(t *testing.T) {
		farm := feedtest.NewFarm(1, 3)
		defer farm.Close()
		llm := newLLMServer(t)
		p := newProcessPipeline(t, nil, llm.URL)
		s := p.add(t, farm.URL(0), 15)
		p.pipeline.run(t)
		p.drain(t)
		farm.Bump(0)
		_, _ = p.sources.Refresh(ctx, app.DefaultUserID, s.ID)
		p.drain(t)
		var id int64
		_ = p.db.Read.QueryRow(`select id from items where status = 'PENDING'`).Scan(&id)
		tx, _ := p.db.Write.Begin()
		_ = p.pq.EnqueueTx(ctx, tx, app.PendingItem{ID: id})
		_ = tx.Commit()
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { _ = p.pq.Run(runCtx); close(done) }()
		p.waitItems(t, map[string]int{"DONE": 4})
		for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
			if n, _ := p.pq.Size(ctx); n == 0 {
				break
			}
		}
		cancel()
		<-done
		if llm.requests.Load() != 1 {
			t.Fatalf("the LLM was asked %d times for one item", llm.requests.Load())
		}
	})

	t.Run("without credits items stay NEW; after the daily refill they are processed", func(t *testing.T) {
		farm := feedtest.NewFarm(1, 3)
		defer farm.Close()
		clock := sqlitetest.NewClock(time.Now())
		p := newProcessPipeline(t, clock, "")
		if _, err := p.psched.Cycle(ctx); err != nil { // first refill of the day
			t.Fatal(err)
		}
		if err := p.db.SetCredits(ctx, app.DefaultUserID, 0); err != nil {
			t.Fatal(err)
		}
		p.run(t)
		p.newItems(t, farm, 2)
		p.waitItems(t, map[string]int{"NEW": 2})
		if n, _ := p.psched.Cycle(ctx); n != 0 {
			t.Fatalf("queued %d items without credits", n)
		}
		clock.Add(24 * time.Hour)
		if n, err := p.psched.Cycle(ctx); n != 2 || err != nil {
			t.Fatalf("after the refill queued %d (%v), want 2", n, err)
		}
		p.waitItems(t, map[string]int{"DONE": 5})
	})

	t.Run("items stuck in PENDING or PROCESSING are reset to NEW", func(t *testing.T) {
		clock := sqlitetest.NewClock(time.Now())
		p := newProcessPipeline(t, clock, "")
		src := p.add(t, "http://127.0.0.1:1/feed", 15)
		_, err := p.db.Write.Exec(`insert into items (source_id, user_id, guid, status, status_changed_at) values (?, 1, 'a', 'PROCESSING', ?), (?, 1, 'b', 'PENDING', ?)`,
			src.ID, clock.Now().UTC().Format("2006-01-02T15:04:05.000Z"), src.ID, clock.Now().UTC().Format("2006-01-02T15:04:05.000Z"))
		if err != nil {
			t.Fatal(err)
		}
		rec := queue.Recovery("item", p.db.ResetStuckItems, 0, clock, nil)
		if n, _ := rec(ctx); n != 0 {
			t.Fatalf("reset %d fresh items", n)
		}
		clock.Add(11 * time.Minute)
		if n, _ := rec(ctx); n != 2 {
			t.Fatalf("reset %d, want 2", n)
		}
	})

	// Issue 27, N10: after repeated kills the job of an item PROCESSING is delivered too many
	// times and dead-lettered without its handler running; the item leaves PROCESSING in that
	// same transaction (ERROR, with the reason, for the person to retry) instead of waiting
	// without a job for the 10-minute recovery. On the old code it stayed PROCESSING.
	t.Run("a job dead-lettered after repeated kills takes its item out of PROCESSING", func(t *testing.T) {
		p := newProcessPipeline(t, nil, "")
		src := p.add(t, "http://127.0.0.1:1/feed", 15)
		var id int64
		if err := p.db.Write.QueryRow(`insert into items (source_id, user_id, guid, status, status_changed_at) values (?, 1, 'killed', 'PROCESSING', ?) returning id`,
			src.ID, time.Now().UTC().Format("2006-01-02T15:04:05.000Z")).Scan(&id); err != nil {
			t.Fatal(err)
		}
		tx, err := p.db.Write.Begin()
		if err != nil {
			t.Fatal(err)
		}
		if err := p.pq.EnqueueTx(ctx, tx, app.PendingItem{ID: id}); err != nil {
			t.Fatal(err)
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		// Delivered many times to processes killed while running it (each receive counts).
		if _, err := p.db.Write.Exec(`update goqite set received = 1000 where queue = 'process'`); err != nil {
			t.Fatal(err)
		}
		runCtx, cancel := context.WithCancel(ctx)
		done := make(chan struct{})
		go func() { _ = p.pq.Run(runCtx); close(done) }()
		defer func() { cancel(); <-done }()
		var dead int
		for deadline := time.Now().Add(30 * time.Second); dead == 0; time.Sleep(10 * time.Millisecond) {
			_ = p.db.Read.QueryRow(`select count(*) from queue_dead where queue = 'process'`).Scan(&dead)
			if time.Now().After(deadline) {
				t.Fatal("the job was never dead-lettered")
			}
		}
		var status, lastErr string
		if err := p.db.Read.QueryRow(`select status, last_error from items where id = ?`, id).Scan(&status, &lastErr); err != nil {
			t.Fatal(err)
		}
		if status != "ERROR" || !strings.Contains(lastErr, "delivered") {
			t.Fatalf("the item of a dead-lettered job is %s (%q); want ERROR with the reason", status, lastErr)
		}
		if n, _ := p.pq.Size(ctx); n != 0 {
			t.Fatalf("%d jobs left", n)
		}
	})

	t.Run("a hide filter stores the item hidden, unenriched, and spends no credit", func(t *testing.T) {
		farm := feedtest.NewFarm(1, 3)
		defer farm.Close()
		p := newProcessPipeline(t, nil, "")
		if err := p.db.CreateFilter(ctx, &app.Filter{UserID: app.DefaultUserID, Field: "title", Match: "regex", Pattern: `^Story 3 `, Action: app.FilterHide, Enabled: true}); err != nil {
			t.Fatal(err)
		}
		p.run(t)
		p.newItems(t, farm, 2) // stories 3 and 4
		p.waitItems(t, map[string]int{"DONE": 5})
		var hidden, enrichedHidden int
		_ = p.db.Read.QueryRow(`select count(*), coalesce(sum(enriched_by != ''), 0) from items where hidden = 1`).Scan(&hidden, &enrichedHidden)
		s, _ := p.db.Settings(ctx, app.DefaultUserID)
		if hidden != 1 || enrichedHidden != 0 || s.Credits != 999 {
			t.Fatalf("hidden %d (enriched %d), credits %d", hidden, enrichedHidden, s.Credits)
		}
		flagged, _ := p.db.Items(ctx, app.ItemFilter{UserID: app.DefaultUserID, Hidden: true})
		if len(flagged) != 1 || !strings.HasPrefix(flagged[0].Title, "Story 3 ") {
			t.Fatalf("flagged view: %v", flagged)
		}
	})
}

func ptr[T any](v T) *T { return &v }

// BenchmarkNewItemLatency measures, on an idle app with the embedded enricher, the time from
// "refresh now" on a source with one new item to that item DONE (target p50 < 1 s).
//
//	go test ./queue -run '^$' -bench NewItemLatency -benchtime 50x
func BenchmarkNewItemLatency(b *testing.B) {
	farm := feedtest.NewFarm(1, 20)
	defer farm.Close()
	db := sqlitetest.New(b)
	ctx := context.Background()
	fq := queue.NewFetchQueue(queue.FetchQueueOptions{Store: db})
	pq := queue.NewProcessQueue(queue.ProcessQueueOptions{Store: db})
	embedded := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	pw := &app.Enriching{Store: db, Queue: pq, Enrichers: chooseAlways{embedded}}
	queue.HandleProcess(pq, pw)
	sources := &app.Sources{Store: db, Queue: fq, Fetches: db, Fetcher: feeds.Adapter{Fetcher: feeds.New(feeds.Options{})}, NewItems: pw.Pend}
	queue.HandleFetch(fq, sources)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { _ = fq.Run(runCtx) }()
	go func() { _ = pq.Run(runCtx) }()
	src, err := sources.Add(ctx, app.AddSource{URL: farm.URL(0), Type: app.SourceRSS})
	if err != nil {
		b.Fatal(err)
	}
	waitDone := func(n int) {
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
			var done int
			_ = db.Read.QueryRow(`select count(*) from items where status = 'DONE'`).Scan(&done)
			if done >= n {
				return
			}
			if time.Now().After(deadline) {
				b.Fatalf("only %d of %d items DONE", done, n)
			}
		}
	}
	waitDone(20)
	var lat []time.Duration
	b.ResetTimer()
	for i := range b.N {
		farm.Bump(0)
		start := time.Now()
		if _, err := sources.Refresh(ctx, app.DefaultUserID, src.ID); err != nil {
			b.Fatal(err)
		}
		waitDone(21 + i)
		lat = append(lat, time.Since(start))
		for { // the source is IDLE again before the next round
			s, _ := db.Source(ctx, app.DefaultUserID, src.ID)
			if s.FetchStatus == app.FetchIdle {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-p50")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "ms-p95")
}
