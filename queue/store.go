package queue

import (
	"context"
	"database/sql"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// Store keeps what a queue needs beside goqite: the database goqite's queues live in (JobDB),
// the write transactions its operations run in (JobTx), what goqite's API does not give (a
// received message's delivery count, counts by state), the dead letters, finished-job counters
// and pause switch. sqlite.DB implements it; the queue runs no SQL of its own: its messages are
// sent, received, extended and deleted through goqite (messages.go). The methods taking a
// *sql.Tx work in the caller's write transaction, so that a job's claim, its result and its
// acknowledgement commit together; JobTx begins one.
type Store interface {
	JobDB() *sql.DB
	JobTx(ctx context.Context, fn func(tx *sql.Tx) error) error
	// JobDeliveries is how many times goqite handed out each message of ids (this delivery
	// included), in the order of ids, in tx.
	JobDeliveries(ctx context.Context, tx *sql.Tx, ids []string) ([]int, error)

	DeadLetterJob(ctx context.Context, tx *sql.Tx, d app.DeadJob) error
	DeadJobs(ctx context.Context, queue string, limit int) ([]app.DeadJob, error)
	DeadJobsTx(ctx context.Context, tx *sql.Tx, queue, id string) ([]app.DeadJob, error)
	DeleteDeadJob(ctx context.Context, tx *sql.Tx, queue, id string) error
	DeadJobCount(ctx context.Context) (int, error)

	CountJobs(ctx context.Context, tx *sql.Tx, queue string, at time.Time, ok, failed int) error
	AddJobsDone(ctx context.Context, queue string, byMinute map[string]int) error
	JobsDone(ctx context.Context, queue string, from time.Time) (map[string]int, error)
	CleanupJobs(ctx context.Context, queue string, deadBefore, doneBefore time.Time) error

	SetQueuePaused(ctx context.Context, queue string, paused bool) error
	QueuePaused(ctx context.Context, queue string) (bool, error)
	QueueSize(ctx context.Context, queue string) (int, error)
	JobCounts(ctx context.Context, queue string, now, hourAgo time.Time) (app.JobCounts, error)
}

// sentWatcher is a Store that other processes send to (postgres.DB: several instances on one
// database, by LISTEN/NOTIFY; sqlite.DB: a command run beside the server, by the data version):
// OnSent calls wake whenever a message may have become visible in the queue, whoever sent it,
// until stop is called. A queue's receiver then wakes for another process's job at once, not
// at its next idle poll (Options.IdlePoll).
type sentWatcher interface {
	OnSent(queue string, wake func()) (stop func())
}
