// Package queue runs Morning Deck's background work: durable goqite queues in the app's SQLite
// file, worker pools, retry with backoff, and a dead letter table. Messages are sent, received,
// extended and deleted through goqite's API in our transactions (messages.go); the rest of the
// queue's state is read and written by its Store (sqlite.DB).
package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"maragu.dev/goqite"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/metrics"
)

// Options for New. Zero values get the defaults written next to each field.
type Options struct {
	Store   Store  // the queue's tables (sqlite.DB): messages, dead letters, counters, pause
	Name    string // goqite queue name, e.g. "fetch"
	Workers int    // default 4
	// Prefetch is how many jobs are received ahead of the workers, so that a worker that
	// finishes starts the next job at once and the receive of several jobs shares one write
	// transaction. For queues of short jobs (fetches); a job received ahead that no worker
	// started within Timeout/2, or by shutdown, is left to be delivered again. Default 0.
	Prefetch int
	// Lanes is how many goqite queues the messages are spread over (Name, then Name#1, Name#2,
	// …; default 1), each message in the lane its body hashes to. goqite's receive walks its
	// queue from the oldest message and reads the row of each one received and not yet deleted
	// before it finds one to hand out; a queue that keeps hundreds in flight or awaiting their
	// result's commit (the fetch queue in an all-304 cycle) makes each receive walk them all.
	// A receive takes from each lane in turn, so a walk is over one lane's (issue 26, item 6).
	Lanes        int
	MaxAttempts  int           // default 3
	Timeout      time.Duration // visibility timeout, default 60s; a running job is extended every Timeout/3
	PollInterval time.Duration // default 1s; Send in this process wakes the receiver at once
	// IdlePoll is the longest wait between two receives of an idle queue (default 8 ×
	// PollInterval): each receive that finds nothing doubles the wait, up to it. A Send in this
	// process still wakes the receiver at once; a message that becomes visible later (a retry
	// after its backoff, a Send from another process or instance) waits up to IdlePoll.
	IdlePoll      time.Duration
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

// Queue is a durable job queue with a worker pool.
type Queue struct {
	opts     Options
	store    Store
	gq       []*goqite.Queue // the messages: sent, received, extended and deleted through goqite (messages.go), one a lane
	turn     atomic.Uint32   // the lane the next receive starts with
	log      *slog.Logger
	clock    app.Clock
	handlers map[string]Handler
	doneMu   sync.Mutex
	doneOK   map[string]int // minute → successes not yet in queue_done
	claims   map[string]ClaimFunc
	onDead   map[string]DeadFunc
	wake     chan struct{}
	counted  chan struct{} // a success counted since the last flush (countOK)
	pausedMu sync.Mutex
	paused   bool      // as last read or set
	pausedAt time.Time // when
	running  atomic.Bool
	active   sync.Map // job id → activeJob: the jobs this process is running
	// busy counts the jobs received and not finished (running or received ahead); idle runs
	// when it falls to zero after a receive found fewer jobs than it asked for (drained).
	busy    atomic.Int64
	drained atomic.Bool
	idle    func()
}

// New returns a queue. It panics without DB or Name, which is a programming error.
func New(opts Options) *Queue {
	if opts.Store == nil || opts.Name == "" {
		panic("queue: New needs Store and Name")
	}
	opts.Workers = orDefault(opts.Workers, 4)
	opts.MaxAttempts = orDefault(opts.MaxAttempts, 3)
	opts.Timeout = orDefault(opts.Timeout, 60*time.Second)
	opts.PollInterval = orDefault(opts.PollInterval, time.Second)
	opts.IdlePoll = max(opts.PollInterval, orDefault(opts.IdlePoll, 8*opts.PollInterval))
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
		gq:       newLanes(opts.Store, opts.Name, opts.Timeout, orDefault(opts.Lanes, 1)),
		log:      opts.Log.With("component", "queue", "queue", opts.Name),
		clock:    app.ClockOrSystem(opts.Clock),
		handlers: map[string]Handler{},
		doneOK:   map[string]int{},
		claims:   map[string]ClaimFunc{},
		onDead:   map[string]DeadFunc{},
		wake:     make(chan struct{}, 1),
		counted:  make(chan struct{}, 1),
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

// OnIdle sets f to run (on a worker's goroutine) each time the last job received finishes after
// the queue had no more to give: no job is running, none was received ahead, and the last
// receive found fewer ready jobs than it asked for. Set it before Run.
func (q *Queue) OnIdle(f func()) { q.idle = f }

// RegisterClaim sets the ClaimFunc of a kind (before Run).
func (q *Queue) RegisterClaim(kind string, c ClaimFunc) { q.claims[kind] = c }

// DeadFunc runs in the transaction that moves a job of its kind to the dead letters, whatever
// the reason (its last attempt failed, it was delivered too many times without finishing, ...):
// the entity the job was about leaves its transitional state with its job, never after it.
type DeadFunc func(ctx context.Context, tx *sql.Tx, job Job, cause error) error

// OnDead sets the DeadFunc of a kind (before Run).
func (q *Queue) OnDead(kind string, fn DeadFunc) { q.onDead[kind] = fn }

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
