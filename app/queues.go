package app

import (
	"context"
	"time"
)

// QueueInfo describes one background queue at one moment, for the Queues page, the stats
// API, health and metrics.
type QueueInfo struct {
	Name                           string
	Ready, Delayed, InFlight, Dead int
	DoneLastHour, FailedLastHour   int
	Capacity                       int // most jobs the queue's scheduler lets wait; 0: unbounded
	Paused                         bool
	OldestReady                    time.Duration // how long the oldest ready job has waited
	Throughput                     []int         // jobs done per minute over the last hour, oldest first
}

// Size is every job in the queue: ready, delayed and in flight.
func (q QueueInfo) Size() int { return q.Ready + q.Delayed + q.InFlight }

// FailedJob is a job that failed its last attempt.
type FailedJob struct {
	ID, Queue, Kind string
	Attempts        int
	Error           string
	FailedAt        time.Time
	Subject         string // what it was about, e.g. "source 12"
}

// StuckEntity is a source, item, briefing or delivery left in a transitional state too long.
type StuckEntity struct {
	Kind  string // source, item, briefing, delivery
	ID    int64
	Name  string
	State string
	Since time.Time
}

// QueueAdmin sees and steers the background queues.
type QueueAdmin interface {
	Queues(ctx context.Context) ([]QueueInfo, error)
	Failed(ctx context.Context, queue string, limit int) ([]FailedJob, error)
	// FailedCount counts the failed jobs of every queue.
	FailedCount(ctx context.Context) (int, error)
	Retry(ctx context.Context, queue, id string) error
	RetryAll(ctx context.Context, queue string) (int, error)
	Discard(ctx context.Context, queue, id string) error
	SetPaused(ctx context.Context, queue string, paused bool) error
	// Stuck lists entities in a transitional state for longer than the stuck threshold.
	Stuck(ctx context.Context) ([]StuckEntity, error)
	// Check reports whether the database answers.
	Check(ctx context.Context) error
	// Pinned lists the jobs this process's workers have run for longer than their timeout.
	Pinned() []PinnedJob
}

// PinnedJob is a job a worker has been running for longer than its queue's timeout.
type PinnedJob struct {
	Queue, Kind, ID  string
	Running, Timeout time.Duration
}
