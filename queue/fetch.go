package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sort"
	"sync"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
)

// KindFetchSource is the job kind of a source fetch.
const KindFetchSource = "fetch_source"

type fetchJob struct {
	SourceID int64 `json:"sourceId"`
}

// FetchQueueOptions for NewFetchQueue.
type FetchQueueOptions struct {
	DB       *sql.DB       // write pool
	Read     *sql.DB       // read pool (optional)
	Name     string        // default "fetch"
	Capacity int           // default 1000
	Workers  int           // default 4
	Timeout  time.Duration // visibility timeout of a job, default 60s
	// ShutdownGrace is how long running fetches may finish at shutdown, default 30s.
	ShutdownGrace time.Duration
	PollInterval  time.Duration
	Log           *slog.Logger
	Clock         app.Clock
}

// FetchQueue is the goqite-backed app.FetchQueue. Jobs carry a source id, never a copy of it.
type FetchQueue struct {
	*Queue
	capacity int
}

var _ app.FetchQueue = (*FetchQueue)(nil)

// NewFetchQueue returns the fetch queue.
func NewFetchQueue(o FetchQueueOptions) *FetchQueue {
	if o.Name == "" {
		o.Name = "fetch"
	}
	return &FetchQueue{
		Queue: New(Options{DB: o.DB, Read: o.Read, Name: o.Name, Workers: o.Workers, Timeout: o.Timeout,
			ShutdownGrace: o.ShutdownGrace, PollInterval: o.PollInterval,
			MaxAttempts: 3, BaseBackoff: 5 * time.Second, Log: o.Log, Clock: o.Clock}),
		capacity: orDefault(o.Capacity, 1000),
	}
}

// Capacity is the most messages the queue takes before the scheduler holds back.
func (q *FetchQueue) Capacity() int { return q.capacity }

// EnqueueTx adds a fetch of the source within the caller's transaction.
func (q *FetchQueue) EnqueueTx(ctx context.Context, tx *sql.Tx, sourceID int64, priority int) error {
	return q.SendTx(ctx, tx, KindFetchSource, 1, fetchJob{SourceID: sourceID}, SendOptions{Priority: priority})
}

// CanAccept reports whether the queue is below capacity.
func (q *FetchQueue) CanAccept(ctx context.Context) (bool, error) {
	n, err := q.Size(ctx)
	return n < q.capacity, err
}

// FetchStore is what the fetch pipeline needs from the database.
type FetchStore interface {
	DueSources(ctx context.Context, now time.Time, limit int) ([]int64, error)
	QueueDue(ctx context.Context, ids []int64, enqueue func(ctx context.Context, tx *sql.Tx, id int64) error) (int, error)
	StartFetch(ctx context.Context, id int64, staleAfter time.Duration) (*app.Source, error)
	StartFetchTx(ctx context.Context, tx *sql.Tx, id int64, staleAfter time.Duration) (*app.Source, error)
	FinishFetch(ctx context.Context, src *app.Source, r *app.FetchResult, then func(ctx context.Context, tx *sql.Tx, newItems []int64, first bool) error) (int, error)
	FailFetch(ctx context.Context, src *app.Source, msg string, blame bool, retryAfter time.Duration, then app.TxFunc) error
}

// Fetcher fetches and parses a source; *feeds.Fetcher is the real one.
type Fetcher interface {
	Fetch(ctx context.Context, req feeds.Request) (*feeds.Result, error)
}

// FetchWorker runs fetch jobs: it fetches a source and stores what it found.
type FetchWorker struct {
	Store   FetchStore
	Fetcher Fetcher
	Log     *slog.Logger
	Clock   app.Clock
	// StaleAfter is how long a FETCHING mark is honoured; a redelivered job takes over after it.
	// It should equal the queue's visibility timeout.
	StaleAfter time.Duration
	// OnNewItems runs in the transaction that stores new (non-first-import) items.
	OnNewItems func(ctx context.Context, tx *sql.Tx, itemIDs []int64) error

	offline offlineDetector
}

// Register makes w handle the queue's fetch jobs.
func (w *FetchWorker) Register(q *FetchQueue) {
	if w.StaleAfter == 0 {
		w.StaleAfter = q.opts.Timeout
	}
	q.Register(KindFetchSource, w.Handle)
	q.RegisterClaim(KindFetchSource, w.claim)
}

// claimed is what claim found: the source marked FETCHING, or nil when there is nothing to do.
type claimed struct{ src *app.Source }

// claim marks the source FETCHING in the transaction that receives its job.
func (w *FetchWorker) claim(ctx context.Context, tx *sql.Tx, job Job) (any, error) {
	var p fetchJob
	if err := json.Unmarshal(job.Data, &p); err != nil || p.SourceID == 0 {
		return nil, nil // Handle dead-letters it
	}
	src, err := w.Store.StartFetchTx(ctx, tx, p.SourceID, w.StaleAfter)
	return claimed{src}, err
}

// Handle fetches one source. Failures of the source (HTTP, parse, network) are recorded on
// the source and end the job; only failures of our own (the database) make the job retry.
func (w *FetchWorker) Handle(ctx context.Context, job Job) error {
	var p fetchJob
	if err := json.Unmarshal(job.Data, &p); err != nil || p.SourceID == 0 {
		return Permanent(fmt.Errorf("bad fetch job payload %s", job.Data))
	}
	log := logger(w.Log).With("component", "fetch", "source", p.SourceID, "job", job.ID, "attempt", job.Attempt)
	var err error
	var src *app.Source
	if c, ok := job.Claimed.(claimed); ok {
		src = c.src
	} else if src, err = w.Store.StartFetch(ctx, p.SourceID, w.StaleAfter); err != nil {
		return err
	}
	if src == nil {
		log.Debug("nothing to fetch: source gone, paused or being fetched")
		return nil
	}
	start := app.ClockOrSystem(w.Clock).Now()
	res, err := w.Fetcher.Fetch(ctx, feeds.Request{URL: src.URL, Type: src.Type, ETag: src.ETag, LastModified: src.LastModified})
	if err != nil {
		if ctx.Err() != nil {
			// Shutdown: leave the source to the redelivered job.
			return ctx.Err()
		}
		host := hostOf(src.URL)
		blame := !w.offline.failed(host, feeds.IsNetwork(err), start)
		var fe *feeds.Error
		var retryAfter time.Duration
		if errors.As(err, &fe) {
			retryAfter = fe.RetryAfter
			if fe.Kind == feeds.KindHostPaused {
				blame = false
			}
		}
		msg := app.ErrorMessage(err)
		if fe != nil {
			msg = fe.Message
		}
		log.Warn("fetch failed", "url", src.URL, "error", err, "blamed", blame, "duration", time.Since(start))
		return w.Store.FailFetch(ctx, src, msg, blame, retryAfter, job.CompleteTx)
	}
	w.offline.succeeded()
	fr := &app.FetchResult{NotModified: res.NotModified, Title: res.Title, ETag: res.ETag, LastModified: res.LastModified,
		Items: res.Items, NextFetchAt: res.CacheUntil}
	if src.AutoInterval && !res.NotModified {
		if m, ok := AutoInterval(res.Items); ok {
			fr.Interval = &m
		}
	}
	n, err := w.Store.FinishFetch(ctx, src, fr, func(ctx context.Context, tx *sql.Tx, ids []int64, first bool) error {
		if w.OnNewItems != nil && !first && len(ids) > 0 {
			if err := w.OnNewItems(ctx, tx, ids); err != nil {
				return err
			}
		}
		return job.CompleteTx(ctx, tx)
	})
	if err != nil {
		return err
	}
	log.Info("fetched", "url", src.URL, "notModified", res.NotModified, "items", len(res.Items), "new", n, "duration", time.Since(start))
	return nil
}

// AutoInterval adapts a refresh interval to how often a source publishes: the mean gap between
// its latest dated items, between app.MinAutoInterval and app.MaxAutoInterval minutes.
func AutoInterval(items []app.Item) (int, bool) {
	var dates []time.Time
	for _, it := range items {
		if it.PublishedAt != nil {
			dates = append(dates, *it.PublishedAt)
		}
	}
	if len(dates) < 2 {
		return 0, false
	}
	sort.Slice(dates, func(i, j int) bool { return dates[i].After(dates[j]) })
	dates = dates[:min(len(dates), 10)]
	gap := dates[0].Sub(dates[len(dates)-1]) / time.Duration(len(dates)-1)
	m := int(gap / time.Minute)
	return max(app.MinAutoInterval, min(m, app.MaxAutoInterval)), true
}

func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Hostname()
}

// offlineDetector tells a broken source from a machine that lost its network: when network
// failures hit several different hosts in a short window with no success between them,
// the sources are not blamed.
type offlineDetector struct {
	mu    sync.Mutex
	hosts map[string]time.Time
}

const (
	offlineHosts  = 3
	offlineWindow = 2 * time.Minute
)

// failed records a failure and reports whether the machine looks offline.
func (d *offlineDetector) failed(host string, network bool, now time.Time) bool {
	if !network {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.hosts == nil {
		d.hosts = map[string]time.Time{}
	}
	d.hosts[host] = now
	n := 0
	for h, t := range d.hosts {
		if now.Sub(t) > offlineWindow {
			delete(d.hosts, h)
			continue
		}
		n++
	}
	return n >= offlineHosts
}

func (d *offlineDetector) succeeded() {
	d.mu.Lock()
	clear(d.hosts)
	d.mu.Unlock()
}

// Scheduler finds due sources and enqueues them.
type Scheduler struct {
	Store     FetchStore
	Queue     *FetchQueue
	Interval  time.Duration // default 60s
	BatchSize int           // default 100
	Log       *slog.Logger
	Clock     app.Clock
}

// Run runs a cycle at once and then every Interval until ctx is done.
func (s *Scheduler) Run(ctx context.Context) {
	Every(ctx, orDefault(s.Interval, time.Minute), func() {
		if _, err := s.Cycle(ctx); err != nil && ctx.Err() == nil {
			logger(s.Log).Error("fetch scheduler cycle failed", "component", "scheduler", "error", err)
		}
	})
}

// Cycle enqueues the due sources, BatchSize per transaction, until none is due or the queue
// is full: a large subscription list is not held to one batch a minute (10,000 hourly sources
// need 170 fetches a minute), and the queue's capacity still bounds what waits.
func (s *Scheduler) Cycle(ctx context.Context) (int, error) {
	log := logger(s.Log).With("component", "scheduler", "queue", s.Queue.Name())
	size, err := s.Queue.Size(ctx)
	if err != nil {
		return 0, err
	}
	room := s.Queue.Capacity() - size
	if room <= 0 {
		log.Warn("fetch queue at capacity; skipping this cycle", "size", size, "capacity", s.Queue.Capacity())
		return 0, nil
	}
	batch := orDefault(s.BatchSize, 100)
	total := 0
	for room > 0 && ctx.Err() == nil {
		ids, err := s.Store.DueSources(ctx, app.ClockOrSystem(s.Clock).Now(), min(batch, room))
		if err != nil || len(ids) == 0 {
			return total, err
		}
		n, err := s.Store.QueueDue(ctx, ids, func(ctx context.Context, tx *sql.Tx, id int64) error {
			if room <= 0 {
				return app.ErrQueueFull
			}
			room--
			return s.Queue.EnqueueTx(ctx, tx, id, app.PriorityScheduled)
		})
		total += n
		if n > 0 {
			log.Info("sources queued", "count", n, "due", len(ids))
		}
		if err != nil {
			return total, err
		}
		if room <= 0 && n < len(ids) {
			log.Warn("fetch queue full; the remaining due sources wait for the next cycle", "queued", n, "due", len(ids))
		}
		// A short batch means nothing more is due; a batch of which none could be queued
		// (taken by another process meanwhile) must not spin.
		if len(ids) < min(batch, room+n) || n == 0 {
			return total, nil
		}
	}
	return total, nil
}

// Recovery resets entities stuck in a transitional state (a source QUEUED or FETCHING, an item
// PENDING or PROCESSING, a briefing QUEUED or PROCESSING) for longer than Threshold and whose
// job is no longer in its queue: the work was lost, and resetting lets the schedulers pick it up
// again. (An entity whose job still waits, in a paused queue or for redelivery, is left alone.)
type Recovery struct {
	// Reset resets what has been stuck since before cutoff and returns the ids.
	Reset     func(ctx context.Context, cutoff time.Time) ([]int64, error)
	Entity    string        // "source", "item": for the logs
	Interval  time.Duration // default 5 min
	Threshold time.Duration // default 10 min
	Log       *slog.Logger
	Clock     app.Clock
}

// Run checks at once and then every Interval until ctx is done.
func (r *Recovery) Run(ctx context.Context) {
	Every(ctx, orDefault(r.Interval, 5*time.Minute), func() { _, _ = r.Cycle(ctx) })
}

// Cycle resets the stuck entities and returns how many there were.
func (r *Recovery) Cycle(ctx context.Context) (int, error) {
	log := logger(r.Log).With("component", "recovery")
	cutoff := app.ClockOrSystem(r.Clock).Now().Add(-orDefault(r.Threshold, 10*time.Minute))
	ids, err := r.Reset(ctx, cutoff)
	if err != nil {
		if ctx.Err() == nil {
			log.Error("stuck "+r.Entity+" recovery failed", "error", err)
		}
		return 0, err
	}
	for _, id := range ids {
		log.Warn(r.Entity+" was stuck in a transitional state; reset", r.Entity, id, "threshold", orDefault(r.Threshold, 10*time.Minute))
	}
	return len(ids), nil
}

// Every calls fn at once and then every d until ctx is done.
func Every(ctx context.Context, d time.Duration, fn func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		fn()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func logger(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
