package queue

import (
	"context"
	"database/sql"

	"github.com/morningdeck/morningdeck/app"
)

// BriefingQueue is where briefing runs wait.
type BriefingQueue struct{ *Queue }

var _ app.BriefingQueue = (*BriefingQueue)(nil)

// NewBriefingQueue returns the briefing queue (2 workers by default).
func NewBriefingQueue(o Options) *BriefingQueue {
	o.Name = "briefing"
	o.Workers = orDefault(o.Workers, 2)
	return &BriefingQueue{New(o)}
}

// EnqueueTx adds a briefing run within the caller's transaction.
func (q *BriefingQueue) EnqueueTx(ctx context.Context, tx *sql.Tx, j app.BriefingJob, priority int) error {
	return q.SendTx(ctx, tx, app.KindRunBriefing, 1, j, SendOptions{Priority: priority})
}

// HandleBriefings makes the queue run briefing jobs with s.
func HandleBriefings(q *BriefingQueue, s *app.Briefings) {
	Handle(q.Queue, app.KindRunBriefing, func(ctx context.Context, job Job, p app.BriefingJob) error {
		return s.Run(ctx, job.Run(), p)
	})
}
