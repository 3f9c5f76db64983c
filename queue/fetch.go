package queue

import (
	"context"
	"database/sql"
	"log/slog"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// FetchQueueOptions for NewFetchQueue.
type FetchQueueOptions struct {
	Store    Store         // the queue's tables (sqlite.DB)
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
		// Fetches are short: jobs are received ahead (issue 14: the all-304 cycle of 1,000 feeds
		// took 1.46-1.78 s without, 0.83-0.85 s with, interleaved), eight per worker (issue 26:
		// each receive is a commit that writes its goqite and sources pages to the log: two per
		// worker made ~190 of them in an all-304 cycle of 1,000 sources, eight per worker ~60,
		// and the cycle's log went from 5.3 to 3.8 MB). Its messages are spread over fetchLanes.
		Queue: New(Options{Store: o.Store, Name: o.Name, Workers: o.Workers, Prefetch: 8 * orDefault(o.Workers, 4), Lanes: fetchLanes, Timeout: o.Timeout,
			ShutdownGrace: o.ShutdownGrace, PollInterval: o.PollInterval,
			MaxAttempts: 3, BaseBackoff: 5 * time.Second, Log: o.Log, Clock: o.Clock}),
		capacity: orDefault(o.Capacity, 1000),
	}
}

// fetchLanes: the fetch queue's messages are spread over eight goqite queues (Options.Lanes).
// In an all-304 cycle of 1,000 sources its results wait (groupSoon) and its messages with them,
// and goqite's receives walked ~500,000 rows in all, a third of the cycle's CPU.
const fetchLanes = 8

// Capacity is the most messages the queue takes before the scheduler holds back.
func (q *FetchQueue) Capacity() int { return q.capacity }

// EnqueueTx adds a fetch of the source within the caller's transaction.
func (q *FetchQueue) EnqueueTx(ctx context.Context, tx *sql.Tx, sourceID int64, priority int) error {
	return q.SendTx(ctx, tx, app.KindFetchSource, 1, app.FetchJob{SourceID: sourceID}, SendOptions{Priority: priority})
}

// CanAccept reports whether the queue is below capacity.
func (q *FetchQueue) CanAccept(ctx context.Context) (bool, error) {
	n, err := q.Size(ctx)
	return n < q.capacity, err
}

// claimed is what the fetch claim found: the source to fetch, or nil when there is nothing to do.
type claimed struct{ src *app.Source }

// HandleFetch makes the queue run fetch jobs with s. The source is read in the transaction that
// receives its job (a read: nothing of the source is written until its fetch is stored) and
// marked as being fetched in s's memory when its job runs (app.Sources.BeginFetch); a mark
// younger than the queue's visibility timeout belongs to a running job, and a second job about
// the source then has nothing to do.
func HandleFetch(q *FetchQueue, s *app.Sources) {
	stale := q.opts.Timeout
	q.RegisterClaim(app.KindFetchSource, func(ctx context.Context, tx *sql.Tx, job Job) (any, error) {
		p, err := decode[app.FetchJob](job)
		if err != nil {
			return nil, nil // the handler dead-letters it
		}
		src, err := s.StartFetch(ctx, tx, p.SourceID, stale)
		return claimed{src}, err
	})
	// The unchanged fetches' results wait to share a commit (sqlite's groupSoon); once the
	// fetches of a cycle are all done, none can join them any more: they commit at once.
	if f, ok := s.Fetches.(interface{ FlushSoon() }); ok {
		q.OnIdle(f.FlushSoon)
	}
	Handle(q.Queue, app.KindFetchSource, func(ctx context.Context, job Job, p app.FetchJob) error {
		c, ok := job.Claimed.(claimed)
		if !ok {
			src, err := s.StartFetch(ctx, nil, p.SourceID, stale)
			if err != nil {
				return err
			}
			c.src = src
		}
		if c.src == nil || !s.BeginFetch(c.src, stale) {
			logger(q.opts.Log).Debug("nothing to fetch: source gone, paused or being fetched", "component", "fetch", "source", p.SourceID, "job_id", job.ID)
			return nil
		}
		return s.Fetch(ctx, job.Run(), c.src)
	})
}
