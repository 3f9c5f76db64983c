package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/metrics"
)

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
					q.finished()
					<-slots
					continue
				}
				q.handle(jobCtx, m)
				q.finished()
				<-slots
			}
		})
	}
	q.log.Info("queue started", "workers", q.opts.Workers)
	flushed := make(chan struct{})
	go func() {
		// The successes counted in memory are written 2 s after the first of them, not on a
		// ticker: an idle queue does not wake for them (issue 26, an idle server).
		defer close(flushed)
		for {
			select {
			case <-ctx.Done():
				return
			case <-q.counted:
			}
			select {
			case <-ctx.Done():
				return // Run's deferred flush writes them
			case <-time.After(2 * time.Second):
			}
			if err := q.flushDone(context.WithoutCancel(ctx)); err != nil {
				q.log.Warn("write done counters", "error", err)
				q.signalCounted()
			}
		}
	}()
	stopWatching := func() {}
	if w, ok := q.store.(sentWatcher); ok {
		stopWatching = w.OnSent(q.opts.Name, q.notify)
	}
	q.receive(ctx, msgs, slots)
	stopWatching()
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
	// An idle queue polls less and less often: its wait doubles from PollInterval up to
	// IdlePoll while receives find nothing, and is PollInterval again after a job or a wake-up
	// (a Send in this process). Polling every second, four queues were part of an idle server's
	// 0.6 % of a CPU (340–410 ms a minute; yarr's: none measurable), which a Raspberry Pi pays
	// in heat (BENCHMARKS.md, session 21).
	idleWait := q.opts.PollInterval
	for {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			return
		}
		n := 1
		// With jobs received ahead, receive again only when three quarters of them have been
		// taken: several jobs to one receive transaction, instead of one each time a worker
		// finishes (issue 26: each receive is a commit, ~3 pages of goqite's table written to the
		// log; at half, an all-304 cycle of 1,000 sources made ~31 receives with 8 workers).
		for q.opts.Prefetch > 1 && len(msgs) > q.opts.Prefetch/4 {
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
				if err == nil {
					drained := len(ds) < n
					// The last job may have ended before the queue was found empty.
					if !q.drained.Swap(drained) && drained && len(ds) == 0 && q.busy.Load() == 0 && q.idle != nil {
						q.idle()
					}
				}
				if err == nil && len(ds) == 0 {
					wait, idleWait = idleWait, min(2*idleWait, q.opts.IdlePoll)
				}
				if err == nil && len(ds) > 0 {
					idleWait = q.opts.PollInterval
					q.busy.Add(int64(len(ds)))
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
			ok, woken := q.sleep(ctx, wait)
			if !ok {
				for range n {
					<-slots
				}
				return
			}
			if woken {
				idleWait = q.opts.PollInterval
			}
			n += q.moreSlots(slots) // workers that finished while we waited
		}
	}
}

// finished counts a received job done with, and runs the idle hook when it was the last.
func (q *Queue) finished() {
	if q.busy.Add(-1) == 0 && q.drained.Load() && q.idle != nil {
		q.idle()
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

// sleep waits for d or a wake-up; ok is false when ctx is cancelled, woken true when a wake-up
// ended the wait.
func (q *Queue) sleep(ctx context.Context, d time.Duration) (ok, woken bool) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false, false
	case <-q.wake:
		return true, true
	case <-t.C:
		return true, false
	}
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
		Last: env.Attempt >= q.opts.MaxAttempts, Claimed: d.claimed, q: q, lane: m.lane, completed: &completed, handoff: handoff}
	log.Debug("job started")
	q.active.Store(id, activeJob{kind: env.Kind, start: start})
	defer q.active.Delete(id)
	stop := q.heartbeat(log, m)
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
			return q.deleteTx(wctx, tx, m)
		}); err != nil {
			log.Error("record success", "error", err)
			return
		}
		q.countOK()
		metrics.Finished(q.opts.Name, env.Kind, "ok", took)
		log.Debug("job done", "duration", took)
	case ctx.Err() != nil:
		// Shutdown cut it short: leave the message, visible again at once, for the next run.
		if err := q.extend(wctx, m, 0); err != nil {
			log.Warn("release interrupted job", "error", err)
		}
		metrics.Finished(q.opts.Name, env.Kind, "interrupted", took)
		log.Warn("job interrupted by shutdown", "duration", took, "error", err)
	default:
		q.failed(wctx, log, m, env, took, err)
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
func (q *Queue) heartbeat(log *slog.Logger, m message) (stop func()) {
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
				if err := q.extend(context.Background(), m, q.opts.Timeout); err != nil {
					log.Warn("extend visibility", "error", err)
				}
			}
		}
	})
	return func() { close(quit); wg.Wait() }
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
