// Package queue runs Morning Deck's background work: durable queues in the app's SQLite file
// (goqite's table and semantics), worker pools, retry with backoff, and a dead letter table.
// It is the mechanism only: the tables are read and written by its Store (sqlite.DB).
package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/metrics"
)

// minuteFormat keys the finished-job counters (the store's format); doneKeep is how long they are kept.
const (
	minuteFormat = "2006-01-02T15:04"
	doneKeep     = 7 * 24 * time.Hour
)

// delivery is a received message with what the receiving transaction learned about it.
type delivery struct {
	m        app.JobMessage
	env      envelope
	decodeOK bool
	received int
	claimed  any
	at       time.Time // when it was received
}

// ClaimFunc runs inside the transaction that receives a job, so a handler can mark its entity
// (a source FETCHING, say) without a transaction of its own. What it returns is Job.Claimed.
type ClaimFunc func(ctx context.Context, tx *sql.Tx, job Job) (any, error)

// Job is one received message, decoded.
type Job struct {
	// Claimed is what the kind's ClaimFunc returned, if it has one.
	Claimed any

	ID       string
	Queue    string
	Kind     string
	Version  int
	Attempt  int // 1-based
	Data     json.RawMessage
	Received int // how many times goqite handed out this message, this delivery included
	// Last is true on the job's last attempt (Attempt == MaxAttempts): a handler records a
	// failure for good instead of leaving it to the retry.
	Last bool

	q         *Queue
	completed *atomic.Bool           // set by CompleteTx, which may run on the database's writer (Handoff)
	handoff   func() func(err error) // the queue's side of app.Attempt.Handoff
}

// CompleteTx deletes the job's message within the handler's own transaction, so the job's
// effect and its acknowledgement commit together (and one write transaction is saved).
// The handler must then return nil.
func (j Job) CompleteTx(ctx context.Context, tx *sql.Tx) error {
	if j.q == nil {
		return errors.New("queue: job has no queue")
	}
	if err := j.q.deleteTx(ctx, tx, j.ID); err != nil {
		return err
	}
	// Counted once the transaction is known to have committed (handle, or the handoff's
	// finished): a group commit may roll this one back and run it again.
	j.completed.Store(true)
	return nil
}

// Run is what the services know of the job: whether it is the last attempt, and how to
// acknowledge it inside their final transaction.
func (j Job) Run() app.Attempt {
	return app.Attempt{Last: j.Last, Complete: j.CompleteTx, Handoff: j.handoff}
}

// Handler runs a job. Returning an error retries it (up to MaxAttempts) unless it is Permanent.
// A job may run more than once (a crash, a redelivery), so handlers must be idempotent.
type Handler func(ctx context.Context, job Job) error

type permanentError struct{ err error }

func (e permanentError) Error() string { return e.err.Error() }
func (e permanentError) Unwrap() error { return e.err }

// Permanent marks err as not worth retrying: the job goes to the dead letter table at once.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanentError{err: err}
}

// Options for New. Zero values get the defaults written next to each field.
type Options struct {
	Store   Store  // the queue's tables (sqlite.DB): messages, dead letters, counters, pause
	Name    string // goqite queue name, e.g. "fetch"
	Workers int    // default 4
	// Prefetch is how many jobs are received ahead of the workers, so that a worker that
	// finishes starts the next job at once and the receive of several jobs shares one write
	// transaction. For queues of short jobs (fetches); a job received ahead that no worker
	// started within Timeout/2, or by shutdown, is left to be delivered again. Default 0.
	Prefetch      int
	MaxAttempts   int           // default 3
	Timeout       time.Duration // visibility timeout, default 60s; a running job is extended every Timeout/3
	PollInterval  time.Duration // default 1s; Send in this process wakes the receiver at once
	BaseBackoff   time.Duration // default 10s; delay before attempt n+1 is BaseBackoff*2^(n-1) ±20%
	MaxBackoff    time.Duration // default 1h
	ShutdownGrace time.Duration // default 30s
	DeadRetention time.Duration // default 30 days
	MaxDeliveries int           // default 10: a message handed out this often without finishing is dead-lettered
	Log           *slog.Logger  // nil discards
	Clock         app.Clock     // for backoff, counters and cleanup; message visibility uses the system clock, as goqite does
}

// SendOptions for Send and SendTx.
type SendOptions struct {
	Delay    time.Duration
	Priority int // higher is received first
}

// Stats describe a queue at one moment.
type Stats struct {
	Ready, Delayed, InFlight, Dead int
	DoneLastHour, FailedLastHour   int
	OldestReady                    time.Duration // how long the oldest ready message has waited
}

// envelope is the goqite message body.
type envelope struct {
	Kind     string          `json:"kind"`
	Version  int             `json:"v"`
	Attempt  int             `json:"attempt"`
	Priority int             `json:"p,omitempty"`
	Data     json.RawMessage `json:"data"`
}

// Queue is a durable job queue with a worker pool.
type Queue struct {
	opts     Options
	store    Store
	log      *slog.Logger
	clock    app.Clock
	handlers map[string]Handler
	doneMu   sync.Mutex
	doneOK   map[string]int // minute → successes not yet in queue_done
	claims   map[string]ClaimFunc
	wake     chan struct{}
	pausedMu sync.Mutex
	paused   bool      // as last read or set
	pausedAt time.Time // when
	running  atomic.Bool
	active   sync.Map // job id → activeJob: the jobs this process is running
}

// activeJob is a job being run, for Pinned.
type activeJob struct {
	kind  string
	start time.Time
}

// Pinned lists the jobs this process has been running for longer than the queue's timeout:
// workers held by a job that does not end (the health check reports them).
func (q *Queue) Pinned() []app.PinnedJob {
	var out []app.PinnedJob
	now := time.Now()
	q.active.Range(func(k, v any) bool {
		j := v.(activeJob)
		if d := now.Sub(j.start); d > q.opts.Timeout {
			out = append(out, app.PinnedJob{Queue: q.opts.Name, Kind: j.kind, ID: k.(string), Running: d, Timeout: q.opts.Timeout})
		}
		return true
	})
	return out
}

// goqiteMaxReceive is goqite's MaxReceive as we set it: our own attempts and delivery limit
// replace it, since goqite's would strand messages.
const goqiteMaxReceive = 1_000_000

// New returns a queue. It panics without DB or Name, which is a programming error.
func New(opts Options) *Queue {
	if opts.Store == nil || opts.Name == "" {
		panic("queue: New needs Store and Name")
	}
	opts.Workers = orDefault(opts.Workers, 4)
	opts.MaxAttempts = orDefault(opts.MaxAttempts, 3)
	opts.Timeout = orDefault(opts.Timeout, 60*time.Second)
	opts.PollInterval = orDefault(opts.PollInterval, time.Second)
	opts.BaseBackoff = orDefault(opts.BaseBackoff, 10*time.Second)
	opts.MaxBackoff = orDefault(opts.MaxBackoff, time.Hour)
	opts.ShutdownGrace = orDefault(opts.ShutdownGrace, 30*time.Second)
	opts.DeadRetention = orDefault(opts.DeadRetention, 30*24*time.Hour)
	opts.MaxDeliveries = orDefault(opts.MaxDeliveries, 10)
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	return &Queue{
		opts:     opts,
		store:    opts.Store,
		log:      opts.Log.With("component", "queue", "queue", opts.Name),
		clock:    app.ClockOrSystem(opts.Clock),
		handlers: map[string]Handler{},
		doneOK:   map[string]int{},
		claims:   map[string]ClaimFunc{},
		wake:     make(chan struct{}, 1),
	}
}

func orDefault[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// Name is the goqite queue name.
func (q *Queue) Name() string { return q.opts.Name }

// Register the handler for a kind of job. Call it before Run.
func (q *Queue) Register(kind string, h Handler) { q.handlers[kind] = h }

// Payload is a job's data: it says whether it names what the job is about.
type Payload interface{ Valid() bool }

// Handle registers fn for a kind of job whose data is a T: a job whose data does not decode
// into a valid T goes to the dead letters at once, and fn gets the decoded payload.
func Handle[T Payload](q *Queue, kind string, fn func(ctx context.Context, job Job, p T) error) {
	q.Register(kind, func(ctx context.Context, job Job) error {
		p, err := decode[T](job)
		if err != nil {
			return err
		}
		return fn(ctx, job, p)
	})
}

// decode reads a job's payload; a bad one is a Permanent error.
func decode[T Payload](job Job) (T, error) {
	var p T
	if err := json.Unmarshal(job.Data, &p); err != nil || !p.Valid() {
		return p, Permanent(fmt.Errorf("bad %s job payload %s", job.Kind, job.Data))
	}
	return p, nil
}

// Pause stops every process on this database from receiving the queue's jobs, until Resume,
// across restarts; Send still works and running jobs finish. Another process notices within
// a poll interval.
func (q *Queue) Pause(ctx context.Context) error { return q.setPaused(ctx, true) }

// Resume undoes Pause.
func (q *Queue) Resume(ctx context.Context) error {
	if err := q.setPaused(ctx, false); err != nil {
		return err
	}
	q.notify()
	return nil
}

func (q *Queue) setPaused(ctx context.Context, paused bool) error {
	if err := q.store.SetQueuePaused(ctx, q.opts.Name, paused); err != nil {
		return fmt.Errorf("queue %s: pause: %w", q.opts.Name, err)
	}
	q.pausedMu.Lock()
	q.paused, q.pausedAt = paused, time.Now()
	q.pausedMu.Unlock()
	return nil
}

// Paused reports whether the queue is paused, as the database says.
func (q *Queue) Paused(ctx context.Context) (bool, error) {
	paused, err := q.store.QueuePaused(ctx, q.opts.Name)
	if err != nil {
		return false, fmt.Errorf("queue %s: paused: %w", q.opts.Name, err)
	}
	q.pausedMu.Lock()
	q.paused, q.pausedAt = paused, time.Now()
	q.pausedMu.Unlock()
	return paused, nil
}

// pausedNow is Paused read at most once a poll interval; on a read error the last known state holds.
func (q *Queue) pausedNow(ctx context.Context) bool {
	q.pausedMu.Lock()
	fresh, paused := time.Since(q.pausedAt) < q.opts.PollInterval, q.paused
	q.pausedMu.Unlock()
	if fresh {
		return paused
	}
	p, err := q.Paused(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return paused // shutting down: nothing went wrong, and nothing is received any more
		}
		q.log.Warn("read the pause state", "error", err)
		return paused
	}
	return p
}

func (q *Queue) notify() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// Send enqueues a job in its own transaction.
func (q *Queue) Send(ctx context.Context, kind string, version int, data any, o SendOptions) error {
	return q.inTx(ctx, func(tx *sql.Tx) error { return q.SendTx(ctx, tx, kind, version, data, o) })
}

// SendTx enqueues a job in the caller's transaction, so it commits with the business write.
func (q *Queue) SendTx(ctx context.Context, tx *sql.Tx, kind string, version int, data any, o SendOptions) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("queue %s: encode %s: %w", q.opts.Name, kind, err)
	}
	env := envelope{Kind: kind, Version: version, Attempt: 1, Priority: o.Priority, Data: raw}
	if err := q.sendTx(ctx, tx, env, o.Delay); err != nil {
		return err
	}
	metrics.JobsEnqueued.WithLabelValues(q.opts.Name, kind).Inc()
	q.notify() // the tx may not have committed yet; a receiver finding nothing just waits again
	return nil
}

func (q *Queue) sendTx(ctx context.Context, tx *sql.Tx, env envelope, delay time.Duration) error {
	body, err := json.Marshal(env)
	if err != nil {
		return fmt.Errorf("queue %s: encode %s: %w", q.opts.Name, env.Kind, err)
	}
	if err := q.store.SendJob(ctx, tx, q.opts.Name, body, max(delay, 0), env.Priority); err != nil {
		return fmt.Errorf("queue %s: send %s: %w", q.opts.Name, env.Kind, err)
	}
	return nil
}

// AbandonAfter is how long Run waits, once the shutdown grace is over and running jobs are
// cancelled, for jobs that ignore the cancellation, before it returns without them.
const AbandonAfter = 2 * time.Second

// Run receives and runs jobs until ctx is cancelled. Then it stops receiving, lets running
// jobs finish for up to ShutdownGrace, cancels the rest, waits for them and returns.
// A job cancelled this way stays in the queue and is delivered again.
func (q *Queue) Run(ctx context.Context) error {
	if !q.running.CompareAndSwap(false, true) {
		return fmt.Errorf("queue %s: already running", q.opts.Name)
	}
	defer q.running.Store(false)

	// Jobs get a context of their own, cancelled only when the grace period is over.
	jobCtx, cancelJobs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelJobs()

	// A slot is a job received and not finished: running, or waiting in msgs (Prefetch).
	msgs := make(chan delivery, q.opts.Prefetch)
	slots := make(chan struct{}, q.opts.Workers+q.opts.Prefetch)
	var wg sync.WaitGroup
	for range q.opts.Workers {
		wg.Go(func() {
			for m := range msgs {
				if q.opts.Prefetch > 0 && (ctx.Err() != nil || time.Since(m.at) > q.opts.Timeout/2) {
					// Received ahead and not started in time: its timeout may be near, and another
					// worker may get it again meanwhile. It is delivered again after its timeout.
					q.log.Debug("job received ahead left for redelivery", "kind", m.env.Kind, "job_id", m.m.ID, "waited", time.Since(m.at))
					<-slots
					continue
				}
				q.handle(jobCtx, m)
				<-slots
			}
		})
	}
	q.log.Info("queue started", "workers", q.opts.Workers)
	flushed := make(chan struct{})
	go func() {
		defer close(flushed)
		t := time.NewTicker(2 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := q.flushDone(context.WithoutCancel(ctx)); err != nil {
					q.log.Warn("write done counters", "error", err)
				}
			}
		}
	}()
	q.receive(ctx, msgs, slots)
	close(msgs)
	defer func() {
		<-flushed
		if err := q.flushDone(context.Background()); err != nil {
			q.log.Warn("write done counters", "error", err)
		}
	}()

	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	grace := time.NewTimer(q.opts.ShutdownGrace)
	defer grace.Stop()
	select {
	case <-done:
	case <-grace.C:
		q.log.Warn("shutdown grace over, cancelling running jobs", "grace", q.opts.ShutdownGrace)
		cancelJobs()
		// A handler that ignores cancellation (a job pinned on CPU) must not keep the process
		// alive: after a short wait Run returns without it. Its job was not completed, so it
		// comes back after its timeout, as after a crash.
		abandon := time.NewTimer(AbandonAfter)
		defer abandon.Stop()
		select {
		case <-done:
		case <-abandon.C:
			q.log.Error("a running job ignored cancellation; leaving it: it is retried after its timeout", "waited", AbandonAfter, "timeout", q.opts.Timeout)
		}
	}
	q.log.Info("queue stopped")
	return nil
}

// receive hands messages to the workers while a worker slot is free, until ctx is cancelled.
// It claims as many messages as there are free slots in one write transaction: with the
// single write connection, a transaction per job was a large part of the writer's time.
func (q *Queue) receive(ctx context.Context, msgs chan delivery, slots chan struct{}) {
	for {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		n := 1
		// With jobs received ahead, receive again only when half of them have been taken:
		// several jobs to one receive transaction, instead of one each time a worker finishes.
		for q.opts.Prefetch > 1 && len(msgs) > q.opts.Prefetch/2 {
			select {
			case slots <- struct{}{}:
				n++
			case <-ctx.Done():
				for range n {
					<-slots
				}
				return
			}
		}
		n += q.moreSlots(slots)
		for {
			wait := q.opts.PollInterval
			if !q.pausedNow(ctx) {
				// Not cancelled mid-transaction by shutdown: a received message is always dispatched.
				ds, err := q.receiveMany(context.WithoutCancel(ctx), n)
				if err == nil && len(ds) > 0 {
					for _, d := range ds {
						msgs <- d
					}
					for range n - len(ds) {
						<-slots
					}
					break
				}
				if err != nil {
					q.log.Warn("receive failed, retrying", "error", err, "in", wait)
				}
			}
			if !q.sleep(ctx, wait) {
				for range n {
					<-slots
				}
				return
			}
			n += q.moreSlots(slots) // workers that finished while we waited
		}
	}
}

// moreSlots takes the worker slots that are free right now, without waiting, and says how many.
func (q *Queue) moreSlots(slots chan struct{}) int {
	n := 0
	for {
		select {
		case slots <- struct{}{}:
			n++
		default:
			return n
		}
	}
}

// sleep waits for d or a wake-up; it reports false when ctx is cancelled.
func (q *Queue) sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-q.wake:
	case <-t.C:
	}
	return true
}

// RegisterClaim sets the ClaimFunc of a kind (before Run).
func (q *Queue) RegisterClaim(kind string, c ClaimFunc) { q.claims[kind] = c }

// deleteTx deletes a message in tx.
func (q *Queue) deleteTx(ctx context.Context, tx *sql.Tx, id string) error {
	return q.store.DeleteJob(ctx, tx, q.opts.Name, id)
}

// receiveMany receives up to n messages, with their delivery counts, and runs their kinds'
// ClaimFuncs, all in one write transaction. It returns none when the queue is empty.
func (q *Queue) receiveMany(ctx context.Context, n int) ([]delivery, error) {
	var ds []delivery
	err := q.inTx(ctx, func(tx *sql.Tx) error {
		msgs, err := q.store.ReceiveJobs(ctx, tx, q.opts.Name, q.opts.Timeout, goqiteMaxReceive, n)
		if err != nil {
			return err
		}
		ds = make([]delivery, len(msgs))
		now := time.Now()
		for i, m := range msgs {
			ds[i] = delivery{m: m, received: m.Received, at: now}
		}
		for i := range ds {
			d := &ds[i]
			if json.Unmarshal(d.m.Body, &d.env) != nil || d.env.Kind == "" {
				continue // dead-lettered by handle
			}
			d.decodeOK = true
			d.env.Attempt = max(d.env.Attempt, 1)
			if claim := q.claims[d.env.Kind]; claim != nil && d.received <= q.opts.MaxDeliveries {
				job := Job{ID: string(d.m.ID), Queue: q.opts.Name, Kind: d.env.Kind, Version: d.env.Version, Attempt: d.env.Attempt, Data: d.env.Data, Received: d.received}
				if d.claimed, err = claim(ctx, tx, job); err != nil {
					return fmt.Errorf("claim %s: %w", d.env.Kind, err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ds, nil
}

// handle runs one message and records the outcome.
func (q *Queue) handle(ctx context.Context, d delivery) {
	// Bookkeeping writes must happen even when shutdown has cancelled the job.
	wctx := context.WithoutCancel(ctx)
	m, env, received := d.m, d.env, d.received
	id := m.ID
	log := q.log.With("job_id", id)
	if !d.decodeOK {
		var probe envelope
		err := json.Unmarshal(m.Body, &probe)
		if err == nil {
			err = errors.New("no kind")
		}
		q.deadLetter(log, m, "", 0, fmt.Errorf("undecodable body: %w", err))
		return
	}
	log = log.With("kind", env.Kind, "attempt", env.Attempt)
	if received > q.opts.MaxDeliveries {
		q.deadLetter(log, m, env.Kind, env.Attempt, fmt.Errorf("delivered %d times without finishing (the process stopped while running it)", received-1))
		return
	}
	h, ok := q.handlers[env.Kind]
	if !ok {
		q.deadLetter(log, m, env.Kind, env.Attempt, fmt.Errorf("unknown kind %q", env.Kind))
		return
	}

	var completed atomic.Bool
	var handedOff bool
	start := time.Now()
	// The handler hands its final transaction to the database's writer and returns; finished
	// is told how that transaction ended: committed (the job is done, its message deleted in
	// it) or failed (the job failed: retried with backoff, or dead-lettered).
	handoff := func() func(err error) {
		handedOff = true
		return func(err error) {
			if err == nil {
				q.countOK()
				return
			}
			go q.failed(context.Background(), log, m, env, time.Since(start), err)
		}
	}
	job := Job{ID: id, Queue: q.opts.Name, Kind: env.Kind, Version: env.Version, Attempt: env.Attempt, Data: env.Data, Received: received,
		Last: env.Attempt >= q.opts.MaxAttempts, Claimed: d.claimed, q: q, completed: &completed, handoff: handoff}
	log.Debug("job started")
	q.active.Store(id, activeJob{kind: env.Kind, start: start})
	defer q.active.Delete(id)
	stop := q.heartbeat(log, m.ID)
	err := call(ctx, log, h, job)
	stop()
	took := time.Since(start)

	switch {
	case handedOff:
		// Acknowledged in the transaction handed over to the writer: counted when it commits,
		// failed (retried or dead-lettered) if it does not.
		metrics.Finished(q.opts.Name, env.Kind, "ok", took)
		log.Debug("job handed over", "duration", took)
	case err == nil && completed.Load():
		// Acknowledged in the handler's transaction, committed.
		q.countOK()
		metrics.Finished(q.opts.Name, env.Kind, "ok", took)
		log.Debug("job done", "duration", took)
	case err == nil:
		if err := q.inTx(wctx, func(tx *sql.Tx) error {
			return q.deleteTx(wctx, tx, m.ID)
		}); err != nil {
			log.Error("record success", "error", err)
			return
		}
		q.countOK()
		metrics.Finished(q.opts.Name, env.Kind, "ok", took)
		log.Debug("job done", "duration", took)
	case ctx.Err() != nil:
		// Shutdown cut it short: leave the message, visible again at once, for the next run.
		if err := q.store.ExtendJob(wctx, q.opts.Name, m.ID, 0); err != nil {
			log.Warn("release interrupted job", "error", err)
		}
		metrics.Finished(q.opts.Name, env.Kind, "interrupted", took)
		log.Warn("job interrupted by shutdown", "duration", took, "error", err)
	default:
		q.failed(wctx, log, m, env, took, err)
	}
}

// failed records a job's failure: dead-lettered when it is permanent or the job's last
// attempt, otherwise the job is sent again, one attempt further, after a backoff.
func (q *Queue) failed(wctx context.Context, log *slog.Logger, m app.JobMessage, env envelope, took time.Duration, err error) {
	var perm permanentError
	switch {
	case errors.As(err, &perm), env.Attempt >= q.opts.MaxAttempts:
		metrics.Finished(q.opts.Name, env.Kind, "dead", took)
		q.deadLetter(log, m, env.Kind, env.Attempt, err)
	default:
		delay := q.backoff(env.Attempt)
		var retryer app.Retryer
		if errors.As(err, &retryer) {
			delay = max(delay, retryer.RetryDelay())
		}
		next := env
		next.Attempt++
		if err := q.inTx(wctx, func(tx *sql.Tx) error {
			if err := q.deleteTx(wctx, tx, m.ID); err != nil {
				return err
			}
			if err := q.sendTx(wctx, tx, next, delay); err != nil {
				return err
			}
			return q.countTx(wctx, tx, 0, 1)
		}); err != nil {
			log.Error("schedule retry", "error", err)
			return
		}
		metrics.Finished(q.opts.Name, env.Kind, "retry", took)
		log.Warn("job failed, will retry", "duration", took, "error", err, "retry_in", delay)
	}
}

// call runs h, turning a panic into an error (and logging its stack).
func call(ctx context.Context, log *slog.Logger, h Handler, job Job) (err error) {
	defer func() {
		if r := recover(); r != nil {
			log.Error("job panicked", "panic", r, "stack", string(debug.Stack()))
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return h(ctx, job)
}

// heartbeat extends the message's visibility every Timeout/3 until the returned stop is called.
func (q *Queue) heartbeat(log *slog.Logger, id string) (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(max(q.opts.Timeout/3, time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				if err := q.store.ExtendJob(context.Background(), q.opts.Name, id, q.opts.Timeout); err != nil {
					log.Warn("extend visibility", "error", err)
				}
			}
		}
	})
	return func() { close(quit); wg.Wait() }
}

// backoff is the delay after the given failed attempt: BaseBackoff*2^(attempt-1), ±20%, capped.
func (q *Queue) backoff(attempt int) time.Duration {
	d := q.opts.BaseBackoff
	for i := 1; i < attempt && d < q.opts.MaxBackoff; i++ {
		d *= 2
	}
	d = time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
	return min(d, q.opts.MaxBackoff)
}

// deadLetter moves a message to queue_dead and counts a failure, in one transaction.
func (q *Queue) deadLetter(log *slog.Logger, m app.JobMessage, kind string, attempts int, cause error) {
	ctx := context.Background()
	err := q.inTx(ctx, func(tx *sql.Tx) error {
		d := app.DeadJob{ID: m.ID, Queue: q.opts.Name, Kind: kind, Attempts: attempts, Error: cause.Error(), FailedAt: q.clock.Now(), Body: m.Body}
		if err := q.store.DeadLetterJob(ctx, tx, d); err != nil {
			return err
		}
		return q.countTx(ctx, tx, 0, 1)
	})
	if err != nil {
		log.Error("dead-letter job", "error", err, "cause", cause)
		return
	}
	log.Error("job dead-lettered", "error", cause)
}

// countOK counts a success in memory; flushDone writes the counts. Successes are the common
// case, and a counter row written in every job's transaction would cost more than the job.
func (q *Queue) countOK() {
	minute := q.clock.Now().UTC().Format(minuteFormat)
	q.doneMu.Lock()
	q.doneOK[minute]++
	q.doneMu.Unlock()
}

// flushDone adds the successes counted in memory to queue_done.
func (q *Queue) flushDone(ctx context.Context) error {
	q.doneMu.Lock()
	counts := q.doneOK
	q.doneOK = map[string]int{}
	q.doneMu.Unlock()
	if len(counts) == 0 {
		return nil
	}
	err := q.store.AddJobsDone(ctx, q.opts.Name, counts)
	if err != nil {
		q.doneMu.Lock()
		for m, n := range counts {
			q.doneOK[m] += n
		}
		q.doneMu.Unlock()
	}
	return err
}

// countTx adds to this minute's finished counters.
func (q *Queue) countTx(ctx context.Context, tx *sql.Tx, ok, failed int) error {
	return q.store.CountJobs(ctx, tx, q.opts.Name, q.clock.Now(), ok, failed)
}

func (q *Queue) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return q.store.JobTx(ctx, fn)
}

// Size is the number of messages in the queue: ready, delayed and in flight.
func (q *Queue) Size(ctx context.Context) (int, error) {
	n, err := q.store.QueueSize(ctx, q.opts.Name)
	if err != nil {
		return 0, fmt.Errorf("queue %s: size: %w", q.opts.Name, err)
	}
	return n, nil
}

// Stats counts messages by state, dead jobs, and jobs finished in the last hour.
// Ready and delayed are judged by the system clock, as goqite judges them.
func (q *Queue) Stats(ctx context.Context) (Stats, error) {
	var s Stats
	if err := q.flushDone(ctx); err != nil {
		return s, fmt.Errorf("queue %s: stats: %w", q.opts.Name, err)
	}
	now := time.Now()
	c, err := q.store.JobCounts(ctx, q.opts.Name, now, q.clock.Now().Add(-time.Hour))
	if err != nil {
		return Stats{}, fmt.Errorf("queue %s: stats: %w", q.opts.Name, err)
	}
	s = Stats{Ready: c.Ready, Delayed: c.Delayed, InFlight: c.InFlight, Dead: c.Dead,
		DoneLastHour: c.DoneLastHour, FailedLastHour: c.FailedLastHour}
	if !c.OldestReady.IsZero() {
		s.OldestReady = max(now.Sub(c.OldestReady), 0)
	}
	return s, nil
}

// Dead lists dead jobs, newest first; limit <= 0 lists all.
func (q *Queue) Dead(ctx context.Context, limit int) ([]app.DeadJob, error) {
	jobs, err := q.store.DeadJobs(ctx, q.opts.Name, limit)
	if err != nil {
		return nil, fmt.Errorf("queue %s: list dead: %w", q.opts.Name, err)
	}
	return jobs, nil
}

// Retry moves a dead job back to the queue at attempt 1. An unknown id gives an error wrapping sql.ErrNoRows.
func (q *Queue) Retry(ctx context.Context, id string) error {
	err := q.inTx(ctx, func(tx *sql.Tx) error {
		dead, err := q.store.DeadJobsTx(ctx, tx, q.opts.Name, id)
		if err != nil {
			return err
		}
		return q.requeueTx(ctx, tx, dead[0].ID, dead[0].Body)
	})
	if err != nil {
		return fmt.Errorf("queue %s: retry %s: %w", q.opts.Name, id, err)
	}
	q.notify()
	return nil
}

// RetryAll moves every dead job of this queue back, and returns how many.
func (q *Queue) RetryAll(ctx context.Context) (int, error) {
	var n int
	err := q.inTx(ctx, func(tx *sql.Tx) error {
		all, err := q.store.DeadJobsTx(ctx, tx, q.opts.Name, "")
		if err != nil {
			return err
		}
		for _, d := range all {
			if err := q.requeueTx(ctx, tx, d.ID, d.Body); err != nil {
				return err
			}
		}
		n = len(all)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("queue %s: retry all: %w", q.opts.Name, err)
	}
	q.notify()
	return n, nil
}

// requeueTx sends a dead body again at attempt 1 and deletes the dead row.
// A body that cannot be decoded is sent unchanged (and will come back dead).
func (q *Queue) requeueTx(ctx context.Context, tx *sql.Tx, id string, body []byte) error {
	var env envelope
	priority := 0
	if json.Unmarshal(body, &env) == nil && env.Kind != "" {
		env.Attempt = 1
		b, err := json.Marshal(env)
		if err != nil {
			return err
		}
		body, priority = b, env.Priority
	}
	if err := q.store.SendJob(ctx, tx, q.opts.Name, body, 0, priority); err != nil {
		return err
	}
	return q.store.DeleteDeadJob(ctx, tx, q.opts.Name, id)
}

// Discard deletes a dead job. An unknown id gives an error wrapping sql.ErrNoRows.
func (q *Queue) Discard(ctx context.Context, id string) error {
	if err := q.store.DeleteDeadJob(ctx, nil, q.opts.Name, id); err != nil {
		return fmt.Errorf("queue %s: discard %s: %w", q.opts.Name, id, err)
	}
	return nil
}

// Cleanup deletes dead jobs older than DeadRetention and counters older than seven days.
func (q *Queue) Cleanup(ctx context.Context) error {
	now := q.clock.Now()
	if err := q.store.CleanupJobs(ctx, q.opts.Name, now.Add(-q.opts.DeadRetention), now.Add(-doneKeep)); err != nil {
		return fmt.Errorf("queue %s: cleanup: %w", q.opts.Name, err)
	}
	return nil
}
