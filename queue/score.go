package queue

import (
	"context"
	"database/sql"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// Background scoring on the process queue (issue 12): the back catalogue of a source's first
// import and a user's unread items after their reading model changed, both with the embedded
// enricher and behind every new item (lower priority). Both are idempotent: an item already
// enriched is left alone, a re-score for an older model version does nothing.

var _ app.RescoreQueue = (*ProcessQueue)(nil)

// EnqueueImportTx queues the scoring of a source's first import within the caller's
// transaction (the one that stores the items).
func (q *ProcessQueue) EnqueueImportTx(ctx context.Context, tx *sql.Tx, sourceID int64) error {
	return q.SendTx(ctx, tx, app.KindScoreImport, 1, app.ScoreImportJob{SourceID: sourceID}, SendOptions{Priority: app.PriorityScoreImport})
}

// EnqueueImport queues the scoring of a source's back catalogue.
func (q *ProcessQueue) EnqueueImport(ctx context.Context, sourceID int64) error {
	return q.Send(ctx, app.KindScoreImport, 1, app.ScoreImportJob{SourceID: sourceID}, SendOptions{Priority: app.PriorityScoreImport})
}

// EnqueueRescore queues the re-scoring of a user's unread items after delay (several clicks
// in a row are one re-score: the jobs of older versions do nothing).
func (q *ProcessQueue) EnqueueRescore(ctx context.Context, userID, version int64, delay time.Duration) error {
	return q.Send(ctx, app.KindRescoreUser, 1, app.RescoreJob{UserID: userID, Version: version}, SendOptions{Delay: delay, Priority: app.PriorityRescore})
}

// HandleScoring makes the queue run the background scoring jobs with e.
func HandleScoring(q *ProcessQueue, e *app.Enriching) {
	Handle(q.Queue, app.KindScoreImport, func(ctx context.Context, job Job, p app.ScoreImportJob) error {
		_, err := e.ScoreImport(ctx, p.SourceID)
		return err
	})
	Handle(q.Queue, app.KindRescoreUser, func(ctx context.Context, job Job, p app.RescoreJob) error {
		_, err := e.Rescore(ctx, p.UserID, p.Version)
		return err
	})
}
