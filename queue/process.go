package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/app/metrics"
)

// KindProcessItem is the job kind of an item's enrichment.
const KindProcessItem = "process_item"

type processJob struct {
	ItemID int64 `json:"itemId"`
}

// ProcessQueue is where items wait to be enriched.
type ProcessQueue struct {
	*Queue
	capacity int
	clock    app.Clock
}

// ProcessQueueOptions for NewProcessQueue.
type ProcessQueueOptions struct {
	DB, Read      *sql.DB
	Capacity      int // default 5000
	Workers       int // default 4
	MaxAttempts   int // default 3
	Timeout       time.Duration
	BaseBackoff   time.Duration // default 10s
	ShutdownGrace time.Duration
	PollInterval  time.Duration
	Log           *slog.Logger
	Clock         app.Clock
}

// NewProcessQueue returns the process queue.
func NewProcessQueue(o ProcessQueueOptions) *ProcessQueue {
	return &ProcessQueue{
		Queue: New(Options{DB: o.DB, Read: o.Read, Name: "process", Workers: o.Workers, MaxAttempts: orDefault(o.MaxAttempts, 3),
			Timeout: o.Timeout, BaseBackoff: o.BaseBackoff, ShutdownGrace: o.ShutdownGrace, PollInterval: o.PollInterval, Log: o.Log, Clock: o.Clock}),
		capacity: orDefault(o.Capacity, 5000),
		clock:    app.ClockOrSystem(o.Clock),
	}
}

// Capacity is the most messages the queue takes before the scheduler holds back.
func (q *ProcessQueue) Capacity() int { return q.capacity }

// Priority of an item's job: published in the last 24 h first, then the last 72 h, then the rest.
func (q *ProcessQueue) Priority(published *time.Time) int {
	if published == nil {
		return 0
	}
	age := q.clock.Now().Sub(*published)
	switch {
	case age <= 24*time.Hour:
		return 10
	case age <= 72*time.Hour:
		return 5
	}
	return 0
}

// EnqueueTx adds an item's processing within the caller's transaction.
func (q *ProcessQueue) EnqueueTx(ctx context.Context, tx *sql.Tx, it app.PendingItem) error {
	return q.SendTx(ctx, tx, KindProcessItem, 1, processJob{ItemID: it.ID}, SendOptions{Priority: q.Priority(it.PublishedAt)})
}

// ProcessStore is what the processing pipeline needs from the database.
type ProcessStore interface {
	PendTx(ctx context.Context, tx *sql.Tx, ids []int64) ([]app.PendingItem, error)
	NewItems(ctx context.Context, limit int) ([]int64, error)
	PendAndEnqueue(ctx context.Context, ids []int64, enqueue func(ctx context.Context, tx *sql.Tx, it app.PendingItem) error) (int, error)
	StartProcessing(ctx context.Context, id int64, staleAfter time.Duration) (*app.ProcessInput, error)
	FinishProcessing(ctx context.Context, it *app.Item, r app.ProcessResult, then app.TxFunc) error
	FailProcessing(ctx context.Context, id int64, msg string, final bool, then app.TxFunc) error
	RefillCredits(ctx context.Context) (int, error)
}

// OnNewItems returns the fetch worker's hook: new items become PENDING and are enqueued in the
// transaction that stores them.
func (q *ProcessQueue) OnNewItems(store ProcessStore) func(ctx context.Context, tx *sql.Tx, ids []int64) error {
	return func(ctx context.Context, tx *sql.Tx, ids []int64) error {
		pend, err := store.PendTx(ctx, tx, ids)
		if err != nil {
			return err
		}
		for _, it := range pend {
			if err := q.EnqueueTx(ctx, tx, it); err != nil {
				return err
			}
		}
		if len(pend) > 0 {
			q.notify()
		}
		return nil
	}
}

// EnricherFor picks the enricher for a user's settings.
type EnricherFor func(s *app.Settings) app.Enricher

// ArticleFetcher gets a page's readable text.
type ArticleFetcher interface {
	Article(ctx context.Context, url string) (*feeds.Article, error)
}

// Observer learns from every enriched text (the embedded enricher's collection statistics).
type Observer interface{ Observe(doc string) }

// ProcessWorker enriches items.
type ProcessWorker struct {
	Store    ProcessStore
	Enricher EnricherFor
	// Fallback, when set, enriches an item after the last failed attempt of its enricher.
	Fallback app.Enricher
	Articles ArticleFetcher // nil: never fetch the page
	Observer Observer
	// MinTextChars: shorter texts with a link get the linked page's article text (default 2000).
	MinTextChars int
	StaleAfter   time.Duration
	MaxAttempts  int
	Log          *slog.Logger
	Clock        app.Clock
}

// Register makes w handle the queue's process jobs.
func (w *ProcessWorker) Register(q *ProcessQueue) {
	if w.StaleAfter == 0 {
		w.StaleAfter = q.opts.Timeout
	}
	w.MaxAttempts = q.opts.MaxAttempts
	q.Register(KindProcessItem, w.Handle)
}

// Handle enriches one item; all of its result is stored in one transaction.
func (w *ProcessWorker) Handle(ctx context.Context, job Job) error {
	var p processJob
	if err := json.Unmarshal(job.Data, &p); err != nil || p.ItemID == 0 {
		return Permanent(fmt.Errorf("bad process job payload %s", job.Data))
	}
	log := logger(w.Log).With("component", "process", "item", p.ItemID, "job", job.ID, "attempt", job.Attempt)
	start := time.Now()
	in, err := w.Store.StartProcessing(ctx, p.ItemID, w.StaleAfter)
	if err != nil {
		return err
	}
	if in == nil {
		log.Debug("nothing to process: item gone, done, or waiting for credits")
		return nil
	}
	it := in.Item
	effect := app.ApplyFilters(in.Filters, it)
	if effect.Hide {
		log.Info("hidden by a filter", "filters", effect.Matched)
		return w.Store.FinishProcessing(ctx, it, app.ProcessResult{Effect: effect}, job.CompleteTx)
	}
	var extracted string
	text := it.Text
	if w.Articles != nil && len(text) < orDefault(w.MinTextChars, 2000) && it.Link != "" {
		if a, err := w.Articles.Article(ctx, it.Link); err != nil {
			log.Debug("article text not extracted; using the feed's text", "link", it.Link, "error", err)
		} else if len(a.Text) > len(text) {
			text, extracted = a.Text, a.Text
		}
	}
	enrichIn := app.EnrichInput{
		Title: it.Title, Text: text, Link: it.Link, Author: it.Author, SourceName: it.SourceName, PublishedAt: it.PublishedAt,
		Now: app.ClockOrSystem(w.Clock).Now(), Interests: in.Settings.Interests, Topics: in.Settings.Topics,
		SourceTopics: in.SourceTopics, SourceAffinity: in.SourceAffinity,
	}
	enricher := w.Enricher(in.Settings)
	e, err := enricher.Enrich(ctx, enrichIn)
	last := job.Attempt >= max(w.MaxAttempts, 1)
	if err != nil && last && w.Fallback != nil && w.Fallback.Name() != enricher.Name() {
		log.Warn("enricher failed on the last attempt; using the fallback", "enricher", enricher.Name(), "error", err)
		e, err = w.Fallback.Enrich(ctx, enrichIn)
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		metrics.Enrichments.WithLabelValues(enricher.Name(), "error").Inc()
		msg := err.Error()
		if ferr := w.Store.FailProcessing(ctx, it.ID, msg, last, nil); ferr != nil {
			return errors.Join(err, ferr)
		}
		log.Warn("enrichment failed", "enricher", enricher.Name(), "error", err, "final", last)
		var rerr interface{ RetryDelay() time.Duration }
		if errors.As(err, &rerr) && rerr.RetryDelay() > 0 && !last {
			return Later(err, rerr.RetryDelay())
		}
		return err
	}
	// Tags and topics are known now: filters on them apply after enrichment.
	it.Tags, it.Topics = e.Tags, e.Topics
	effect = app.ApplyFilters(in.Filters, it)
	if w.Observer != nil {
		w.Observer.Observe(it.Title + " " + text)
	}
	if err := w.Store.FinishProcessing(ctx, it, app.ProcessResult{Enrichment: e, Text: extracted, Effect: effect}, job.CompleteTx); err != nil {
		return err
	}
	metrics.Enrichments.WithLabelValues(e.EnrichedBy, "ok").Inc()
	log.Info("enriched", "enricher", e.EnrichedBy, "score", e.Score, "tags", e.Tags, "duration", time.Since(start))
	return nil
}

// ProcessScheduler sweeps items still NEW (after credits ran out and were refilled, after a
// recovery) into the queue, and refills credits daily.
type ProcessScheduler struct {
	Store     ProcessStore
	Queue     *ProcessQueue
	Interval  time.Duration // default 60s
	BatchSize int           // default 50
	Log       *slog.Logger
}

// Run runs a cycle at once and then every Interval until ctx is done.
func (s *ProcessScheduler) Run(ctx context.Context) {
	Every(ctx, orDefault(s.Interval, time.Minute), func() {
		if _, err := s.Cycle(ctx); err != nil && ctx.Err() == nil {
			logger(s.Log).Error("process scheduler cycle failed", "component", "scheduler", "error", err)
		}
	})
}

// Cycle refills credits when due and enqueues up to BatchSize NEW items, within capacity.
func (s *ProcessScheduler) Cycle(ctx context.Context) (int, error) {
	log := logger(s.Log).With("component", "scheduler", "queue", s.Queue.Name())
	if n, err := s.Store.RefillCredits(ctx); err != nil {
		return 0, err
	} else if n > 0 {
		log.Info("daily credits refilled", "users", n)
	}
	size, err := s.Queue.Size(ctx)
	if err != nil {
		return 0, err
	}
	room := s.Queue.Capacity() - size
	if room <= 0 {
		log.Warn("process queue at capacity; skipping this cycle", "size", size)
		return 0, nil
	}
	ids, err := s.Store.NewItems(ctx, min(orDefault(s.BatchSize, 50), room))
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	n, err := s.Store.PendAndEnqueue(ctx, ids, func(ctx context.Context, tx *sql.Tx, it app.PendingItem) error {
		return s.Queue.EnqueueTx(ctx, tx, it)
	})
	if n > 0 {
		log.Info("items queued for processing", "count", n)
	}
	return n, err
}
