// Package queue runs Morning Deck's background work: durable goqite queues in the
// app's SQLite file, worker pools, retry with backoff, and a dead letter table.
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
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"maragu.dev/goqite"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/metrics"
)

// timeFormat is how times are stored, the same as goqite's timeout column.
const (
	timeFormat   = "2006-01-02T15:04:05.000Z"
	minuteFormat = "2006-01-02T15:04"
	doneKeep     = 7 * 24 * time.Hour
)

// delivery is a received message with what the receiving transaction learned about it.
type delivery struct {
	m        *goqite.Message
	env      envelope
	decodeOK bool
	received int
	claimed  any
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
	completed *bool
}

// CompleteTx deletes the job's message within the handler's own transaction, so the job's
// effect and its acknowledgement commit together (and one write transaction is saved).
// The handler must then return nil.
func (j Job) CompleteTx(ctx context.Context, tx *sql.Tx) error {
	if j.q == nil {
		return errors.New("queue: job has no queue")
	}
	if err := j.q.deleteTx(ctx, tx, goqite.ID(j.ID)); err != nil {
		return err
	}
	j.q.countOK()
	*j.completed = true
	return nil
}

// Run is what the services know of the job: whether it is the last attempt, and how to
// acknowledge it inside their final transaction.
func (j Job) Run() app.Attempt { return app.Attempt{Last: j.Last, Complete: j.CompleteTx} }

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

type laterError struct {
	err   error
	delay time.Duration
}

func (e laterError) Error() string { return e.err.Error() }
func (e laterError) Unwrap() error { return e.err }

// Later marks err as retryable no sooner than delay (a server's Retry-After, say).
func Later(err error, delay time.Duration) error {
	if err == nil {
		return nil
	}
	return laterError{err: err, delay: delay}
}

// Options for New. Zero values get the defaults written next to each field.
type Options struct {
	DB            *sql.DB       // the write pool; goqite and all our writes go through it
	Read          *sql.DB       // read pool for Stats, Dead and delivery counts; defaults to DB
	Name          string        // goqite queue name, e.g. "fetch"
	Workers       int           // default 4
	MaxAttempts   int           // default 3
	Timeout       time.Duration // visibility timeout, default 60s; a running job is extended every Timeout/3
	PollInterval  time.Duration // default 1s; Send in this process wakes the receiver at once
	BaseBackoff   time.Duration // default 10s; delay before attempt n+1 is BaseBackoff*2^(n-1) ±20%
	MaxBackoff    time.Duration // default 1h
	ShutdownGrace time.Duration // default 30s
	DeadRetention time.Duration // default 30 days
	MaxDeliveries int           // default 10: a message handed out this often without finishing is dead-lettered
	Log           *slog.Logger  // nil discards
	Clock         app.Clock     // for backoff, counters and cleanup; goqite itself uses the system clock
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

// DeadJob is a job that failed its last attempt or could not be run at all.
type DeadJob struct {
	ID, Queue, Kind string
	Attempts        int
	Error           string
	FailedAt        time.Time
	Body            []byte
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
	gq       *goqite.Queue
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
	stmtMu   sync.Mutex
	stmts    map[string]*sql.Stmt // prepared on the write pool, by query
	active   sync.Map             // job id → activeJob: the jobs this process is running
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
	if opts.DB == nil || opts.Name == "" {
		panic("queue: New needs DB and Name")
	}
	if opts.Read == nil {
		opts.Read = opts.DB
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
		gq:       goqite.New(goqite.NewOpts{DB: opts.DB, Name: opts.Name, MaxReceive: goqiteMaxReceive, Timeout: opts.Timeout}),
		stmts:    map[string]*sql.Stmt{},
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
	if _, err := q.opts.DB.ExecContext(ctx, `insert into queue_state (queue, paused) values (?, ?)
		on conflict (queue) do update set paused = excluded.paused`, q.opts.Name, paused); err != nil {
		return fmt.Errorf("queue %s: pause: %w", q.opts.Name, err)
	}
	q.pausedMu.Lock()
	q.paused, q.pausedAt = paused, time.Now()
	q.pausedMu.Unlock()
	return nil
}

// Paused reports whether the queue is paused, as the database says.
func (q *Queue) Paused(ctx context.Context) (bool, error) {
	var paused bool
	err := q.opts.Read.QueryRowContext(ctx, `select paused from queue_state where queue = ?`, q.opts.Name).Scan(&paused)
	if errors.Is(err, sql.ErrNoRows) {
		err = nil
	}
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
	if err := q.gq.SendTx(ctx, tx, goqite.Message{Body: body, Delay: max(delay, 0), Priority: env.Priority}); err != nil {
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
	if err := q.prepare(ctx); err != nil {
		q.log.Warn("hot statements stay unprepared", "error", err)
	}

	// Jobs get a context of their own, cancelled only when the grace period is over.
	jobCtx, cancelJobs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelJobs()

	msgs := make(chan delivery)
	slots := make(chan struct{}, q.opts.Workers)
	var wg sync.WaitGroup
	for range q.opts.Workers {
		wg.Go(func() {
			for m := range msgs {
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
func (q *Queue) receive(ctx context.Context, msgs chan<- delivery, slots chan struct{}) {
	for {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		n := 1 + q.moreSlots(slots)
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

// receiveSQL is goqite's ReceiveTx for up to n messages at once, prepared once per queue
// (goqite builds and parses its query on every call), and it returns each message's delivery
// count, which goqite does not. It keeps goqite's semantics: the highest priority first, then
// the oldest; visible from the timeout on; received counted; the same time format.
const receiveSQL = `update goqite set timeout = ?, received = received + 1
	where id in (
		select id from goqite
		where queue = ? and ? >= timeout and received < ?
		order by priority desc, created
		limit ?)
	returning id, body, received, priority, created`

// deleteSQL is goqite's DeleteTx, prepared.
const deleteSQL = `delete from goqite where queue = ? and id = ?`

// prepare prepares the queue's hot statements on the write pool (outside any transaction: the
// pool has one connection). Run calls it; until then the statements run unprepared.
func (q *Queue) prepare(ctx context.Context) error {
	for _, query := range []string{receiveSQL, deleteSQL} {
		q.stmtMu.Lock()
		_, ok := q.stmts[query]
		q.stmtMu.Unlock()
		if ok {
			continue
		}
		st, err := q.opts.DB.PrepareContext(ctx, query)
		if err != nil {
			return fmt.Errorf("queue %s: prepare: %w", q.opts.Name, err)
		}
		q.stmtMu.Lock()
		q.stmts[query] = st
		q.stmtMu.Unlock()
	}
	return nil
}

// stmt returns one of the queue's statements bound to tx: prepared once Run has prepared them.
func (q *Queue) stmt(ctx context.Context, tx *sql.Tx, query string) *txStmt {
	q.stmtMu.Lock()
	st := q.stmts[query]
	q.stmtMu.Unlock()
	if st == nil {
		return &txStmt{tx: tx, query: query}
	}
	return &txStmt{st: tx.StmtContext(ctx, st)}
}

// txStmt is a prepared statement or, before Run, the query text, within a transaction.
type txStmt struct {
	st    *sql.Stmt
	tx    *sql.Tx
	query string
}

func (s *txStmt) ExecContext(ctx context.Context, args ...any) (sql.Result, error) {
	if s.st != nil {
		return s.st.ExecContext(ctx, args...)
	}
	return s.tx.ExecContext(ctx, s.query, args...)
}

func (s *txStmt) QueryContext(ctx context.Context, args ...any) (*sql.Rows, error) {
	if s.st != nil {
		return s.st.QueryContext(ctx, args...)
	}
	return s.tx.QueryContext(ctx, s.query, args...)
}

// deleteTx deletes a message in tx (goqite's DeleteTx with a prepared statement).
func (q *Queue) deleteTx(ctx context.Context, tx *sql.Tx, id goqite.ID) error {
	_, err := q.stmt(ctx, tx, deleteSQL).ExecContext(ctx, q.opts.Name, string(id))
	return err
}

// receiveMany receives up to n messages, with their delivery counts, and runs their kinds'
// ClaimFuncs, all in one write transaction. It returns none when the queue is empty.
func (q *Queue) receiveMany(ctx context.Context, n int) ([]delivery, error) {
	var ds []delivery
	err := q.inTx(ctx, func(tx *sql.Tx) error {
		ds = ds[:0]
		now := time.Now().UTC()
		rows, err := q.stmt(ctx, tx, receiveSQL).QueryContext(ctx, now.Add(q.opts.Timeout).Format(timeFormat), q.opts.Name, now.Format(timeFormat), goqiteMaxReceive, max(n, 1))
		if err != nil {
			return err
		}
		type row struct {
			priority int
			created  string
		}
		var order []row
		for rows.Next() {
			var d delivery
			var r row
			d.m = &goqite.Message{}
			if err := rows.Scan(&d.m.ID, &d.m.Body, &d.received, &r.priority, &r.created); err != nil {
				_ = rows.Close()
				return err
			}
			ds = append(ds, d)
			order = append(order, r)
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return err
		}
		// RETURNING gives no order: hand the jobs out as goqite would have, priority then age.
		idx := make([]int, len(ds))
		for i := range idx {
			idx[i] = i
		}
		sort.SliceStable(idx, func(a, b int) bool {
			ra, rb := order[idx[a]], order[idx[b]]
			if ra.priority != rb.priority {
				return ra.priority > rb.priority
			}
			return ra.created < rb.created
		})
		sorted := make([]delivery, len(ds))
		for i, j := range idx {
			sorted[i] = ds[j]
		}
		ds = sorted
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
	id := string(m.ID)
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

	var completed bool
	job := Job{ID: id, Queue: q.opts.Name, Kind: env.Kind, Version: env.Version, Attempt: env.Attempt, Data: env.Data, Received: received,
		Last: env.Attempt >= q.opts.MaxAttempts, Claimed: d.claimed, q: q, completed: &completed}
	log.Debug("job started")
	start := time.Now()
	q.active.Store(id, activeJob{kind: env.Kind, start: start})
	defer q.active.Delete(id)
	stop := q.heartbeat(log, m.ID)
	err := call(ctx, log, h, job)
	stop()
	took := time.Since(start)

	var perm permanentError
	switch {
	case err == nil && completed:
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
		if err := q.gq.Extend(wctx, m.ID, 0); err != nil {
			log.Warn("release interrupted job", "error", err)
		}
		metrics.Finished(q.opts.Name, env.Kind, "interrupted", took)
		log.Warn("job interrupted by shutdown", "duration", took, "error", err)
	case errors.As(err, &perm), env.Attempt >= q.opts.MaxAttempts:
		metrics.Finished(q.opts.Name, env.Kind, "dead", took)
		q.deadLetter(log, m, env.Kind, env.Attempt, err)
	default:
		delay := q.backoff(env.Attempt)
		var later laterError
		var retryer app.Retryer
		if errors.As(err, &later) {
			delay = max(delay, later.delay)
		} else if errors.As(err, &retryer) {
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
func (q *Queue) heartbeat(log *slog.Logger, id goqite.ID) (stop func()) {
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
				if err := q.gq.Extend(context.Background(), id, q.opts.Timeout); err != nil {
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
func (q *Queue) deadLetter(log *slog.Logger, m *goqite.Message, kind string, attempts int, cause error) {
	ctx := context.Background()
	err := q.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `
			insert into queue_dead (id, queue, kind, body, attempts, error, failed_at) values (?, ?, ?, ?, ?, ?, ?)
			on conflict (id) do update set kind = excluded.kind, body = excluded.body, attempts = excluded.attempts,
				error = excluded.error, failed_at = excluded.failed_at`,
			string(m.ID), q.opts.Name, kind, m.Body, attempts, cause.Error(), q.clock.Now().UTC().Format(timeFormat)); err != nil {
			return err
		}
		if err := q.deleteTx(ctx, tx, m.ID); err != nil {
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
	err := q.inTx(ctx, func(tx *sql.Tx) error {
		for minute, n := range counts {
			if _, err := tx.ExecContext(ctx, `
				insert into queue_done (queue, minute, ok, failed) values (?, ?, ?, 0)
				on conflict (queue, minute) do update set ok = ok + excluded.ok`, q.opts.Name, minute, n); err != nil {
				return err
			}
		}
		return nil
	})
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
	_, err := tx.ExecContext(ctx, `
		insert into queue_done (queue, minute, ok, failed) values (?, ?, ?, ?)
		on conflict (queue, minute) do update set ok = ok + excluded.ok, failed = failed + excluded.failed`,
		q.opts.Name, q.clock.Now().UTC().Format(minuteFormat), ok, failed)
	return err
}

func (q *Queue) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := q.opts.DB.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// Size is the number of messages in the queue: ready, delayed and in flight.
func (q *Queue) Size(ctx context.Context) (int, error) {
	var n int
	if err := q.opts.Read.QueryRowContext(ctx, `select count(*) from goqite where queue = ?`, q.opts.Name).Scan(&n); err != nil {
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
	now := time.Now().UTC()
	nowText := now.Format(timeFormat)
	var oldest sql.NullString
	err := q.opts.Read.QueryRowContext(ctx, `
		select
			coalesce(sum(timeout <= ?1), 0),
			coalesce(sum(timeout > ?1 and received = 0), 0),
			coalesce(sum(timeout > ?1 and received > 0), 0),
			min(case when timeout <= ?1 then timeout end),
			(select count(*) from queue_dead where queue = ?2),
			(select coalesce(sum(ok), 0) from queue_done where queue = ?2 and minute >= ?3),
			(select coalesce(sum(failed), 0) from queue_done where queue = ?2 and minute >= ?3)
		from goqite where queue = ?2`,
		nowText, q.opts.Name, q.clock.Now().Add(-time.Hour).UTC().Format(minuteFormat),
	).Scan(&s.Ready, &s.Delayed, &s.InFlight, &oldest, &s.Dead, &s.DoneLastHour, &s.FailedLastHour)
	if err != nil {
		return Stats{}, fmt.Errorf("queue %s: stats: %w", q.opts.Name, err)
	}
	if oldest.Valid {
		if t, err := time.Parse(timeFormat, oldest.String); err == nil {
			s.OldestReady = max(now.Sub(t), 0)
		}
	}
	return s, nil
}

// Dead lists dead jobs, newest first; limit <= 0 lists all.
func (q *Queue) Dead(ctx context.Context, limit int) ([]DeadJob, error) {
	if limit <= 0 {
		limit = -1
	}
	rows, err := q.opts.Read.QueryContext(ctx, `
		select id, queue, kind, attempts, error, failed_at, body from queue_dead
		where queue = ? order by failed_at desc, id desc limit ?`, q.opts.Name, limit)
	if err != nil {
		return nil, fmt.Errorf("queue %s: list dead: %w", q.opts.Name, err)
	}
	defer func() { _ = rows.Close() }()
	var jobs []DeadJob
	for rows.Next() {
		var j DeadJob
		var failedAt string
		if err := rows.Scan(&j.ID, &j.Queue, &j.Kind, &j.Attempts, &j.Error, &failedAt, &j.Body); err != nil {
			return nil, fmt.Errorf("queue %s: list dead: %w", q.opts.Name, err)
		}
		j.FailedAt, _ = time.Parse(timeFormat, failedAt)
		jobs = append(jobs, j)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("queue %s: list dead: %w", q.opts.Name, err)
	}
	return jobs, nil
}

// Retry moves a dead job back to the queue at attempt 1. An unknown id gives an error wrapping sql.ErrNoRows.
func (q *Queue) Retry(ctx context.Context, id string) error {
	err := q.inTx(ctx, func(tx *sql.Tx) error {
		var body []byte
		if err := tx.QueryRowContext(ctx, `select body from queue_dead where queue = ? and id = ?`, q.opts.Name, id).Scan(&body); err != nil {
			return err
		}
		return q.requeueTx(ctx, tx, id, body)
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
		rows, err := tx.QueryContext(ctx, `select id, body from queue_dead where queue = ? order by failed_at`, q.opts.Name)
		if err != nil {
			return err
		}
		type dead struct {
			id   string
			body []byte
		}
		var all []dead
		for rows.Next() {
			var d dead
			if err := rows.Scan(&d.id, &d.body); err != nil {
				_ = rows.Close()
				return err
			}
			all = append(all, d)
		}
		if err := errors.Join(rows.Err(), rows.Close()); err != nil {
			return err
		}
		for _, d := range all {
			if err := q.requeueTx(ctx, tx, d.id, d.body); err != nil {
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
	msg := goqite.Message{Body: body}
	if json.Unmarshal(body, &env) == nil && env.Kind != "" {
		env.Attempt = 1
		b, err := json.Marshal(env)
		if err != nil {
			return err
		}
		msg = goqite.Message{Body: b, Priority: env.Priority}
	}
	if err := q.gq.SendTx(ctx, tx, msg); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `delete from queue_dead where queue = ? and id = ?`, q.opts.Name, id)
	return err
}

// Discard deletes a dead job. An unknown id gives an error wrapping sql.ErrNoRows.
func (q *Queue) Discard(ctx context.Context, id string) error {
	res, err := q.opts.DB.ExecContext(ctx, `delete from queue_dead where queue = ? and id = ?`, q.opts.Name, id)
	if err == nil {
		if n, _ := res.RowsAffected(); n == 0 {
			err = sql.ErrNoRows
		}
	}
	if err != nil {
		return fmt.Errorf("queue %s: discard %s: %w", q.opts.Name, id, err)
	}
	return nil
}

// Cleanup deletes dead jobs older than DeadRetention and counters older than seven days.
func (q *Queue) Cleanup(ctx context.Context) error {
	now := q.clock.Now().UTC()
	err := q.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `delete from queue_dead where queue = ? and failed_at < ?`,
			q.opts.Name, now.Add(-q.opts.DeadRetention).Format(timeFormat)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `delete from queue_done where queue = ? and minute < ?`,
			q.opts.Name, now.Add(-doneKeep).Format(minuteFormat))
		return err
	})
	if err != nil {
		return fmt.Errorf("queue %s: cleanup: %w", q.opts.Name, err)
	}
	return nil
}
