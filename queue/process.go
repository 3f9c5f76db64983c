package queue

import (
	"context"
	"database/sql"
	"log/slog"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/metrics"
)

// ProcessQueue is where items wait to be enriched.
type ProcessQueue struct {
	*Queue
	capacity int
	clock    app.Clock
}

var _ app.ProcessQueue = (*ProcessQueue)(nil)

// ProcessQueueOptions for NewProcessQueue.
type ProcessQueueOptions struct {
	Store         Store
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
		Queue: New(Options{Store: o.Store, Name: "process", Workers: o.Workers, MaxAttempts: orDefault(o.MaxAttempts, 3),
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
	return q.SendTx(ctx, tx, app.KindProcessItem, 1, app.ProcessJob{ItemID: it.ID}, SendOptions{Priority: q.Priority(it.PublishedAt)})
}

// HandleProcess makes the queue run enrichment jobs with e. A PROCESSING mark younger than the
// queue's visibility timeout belongs to a running job and is left alone.
func HandleProcess(q *ProcessQueue, e *app.Enriching) {
	Handle(q.Queue, app.KindProcessItem, func(ctx context.Context, job Job, p app.ProcessJob) error {
		out, err := e.Process(ctx, job.Run(), p.ItemID, q.opts.Timeout)
		if out.Result != "" {
			metrics.Enrichments.WithLabelValues(out.By, out.Result).Inc()
		}
		return err
	})
	// A job that goes to the dead letters without its handler recording the end (delivered too
	// many times by a process that was killed while running it, or failing with the item still
	// PROCESSING) takes its item out of PROCESSING in the same transaction (issue 27, N10).
	q.OnDead(app.KindProcessItem, func(ctx context.Context, tx *sql.Tx, job Job, cause error) error {
		p, err := decode[app.ProcessJob](job)
		if err != nil {
			return nil
		}
		return e.AbandonTx(ctx, tx, p.ItemID, cause.Error())
	})
}
