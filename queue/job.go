package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"sync/atomic"
	"time"

	"maragu.dev/goqite"

	"github.com/morningdeck/morningdeck/app"
)

// delivery is a received message with what the receiving transaction learned about it.
type delivery struct {
	m        message
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
	lane      *goqite.Queue          // the goqite queue its message was received from
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
	if err := j.q.deleteTx(ctx, tx, message{JobMessage: app.JobMessage{ID: j.ID}, lane: j.lane}); err != nil {
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
