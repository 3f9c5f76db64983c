package app

import (
	"context"
	"database/sql"
	"time"
)

// Job kinds. The queue routes a job to its handler by kind; the payloads below are the jobs'
// data, defined once here and used by the queue handlers and whoever enqueues. A job carries
// an id, never a copy of the entity.
const (
	KindFetchSource = "fetch_source"
	KindProcessItem = "process_item"
	KindRunBriefing = "run_briefing"
	KindSendEmail   = "send_email"
)

// FetchJob fetches one source.
type FetchJob struct {
	SourceID int64 `json:"sourceId"`
}

// Valid reports whether the job names a source.
func (j FetchJob) Valid() bool { return j.SourceID != 0 }

// ProcessJob enriches one item.
type ProcessJob struct {
	ItemID int64 `json:"itemId"`
}

// Valid reports whether the job names an item.
func (j ProcessJob) Valid() bool { return j.ItemID != 0 }

// BriefingJob runs one briefing for one period.
type BriefingJob struct {
	BriefingID int64 `json:"briefingId"`
	RunAt      int64 `json:"runAtMs"` // unix milliseconds: the scheduled instant, or the time of "run now"
	// Preview: a "Run now" report that leaves the scheduled period where it is.
	Preview bool `json:"preview,omitempty"`
}

// Valid reports whether the job names a briefing.
func (j BriefingJob) Valid() bool { return j.BriefingID != 0 }

// EmailJob sends one delivery.
type EmailJob struct {
	DeliveryID int64 `json:"deliveryId"`
}

// Valid reports whether the job names a delivery.
func (j EmailJob) Valid() bool { return j.DeliveryID != 0 }

// Attempt is what a service knows of the job it runs for.
type Attempt struct {
	// Last is true on the job's last attempt: a service records a failure for good instead of
	// leaving the entity to the retry.
	Last bool
	// Complete acknowledges the job inside the service's final write transaction, so the effect
	// and the acknowledgement commit together. Nil when nothing runs the service as a job.
	Complete TxFunc
	// Handoff, when set, lets the service return before its final transaction (the one that
	// runs Complete) has committed: it calls Handoff, hands the transaction to the database's
	// writer, returns nil, and tells finished how the transaction ended. The job is then
	// acknowledged by that commit; if the transaction failed, the job has failed with that
	// error (retried with backoff, or dead-lettered); if the process stops first, the job is
	// redelivered. finished must not be called from inside a transaction.
	Handoff func() (finished func(err error))
}

// complete is a.Complete, or nothing.
func (a Attempt) complete() TxFunc {
	if a.Complete == nil {
		return func(context.Context, *sql.Tx) error { return nil }
	}
	return a.Complete
}

// Retryer is an error that says how long to wait before trying again (a server's Retry-After).
// The queue honours it for a job's next attempt.
type Retryer interface {
	RetryDelay() time.Duration
}
