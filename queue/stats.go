package queue

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// minuteFormat keys the finished-job counters (the store's format); doneKeep is how long they are kept.
const (
	minuteFormat = "2006-01-02T15:04"
	doneKeep     = 7 * 24 * time.Hour
)

// Stats describe a queue at one moment.
type Stats struct {
	Ready, Delayed, InFlight, Dead int
	DoneLastHour, FailedLastHour   int
	OldestReady                    time.Duration // how long the oldest ready message has waited
}

// countOK counts a success in memory; flushDone writes the counts. Successes are the common
// case, and a counter row written in every job's transaction would cost more than the job.
func (q *Queue) countOK() {
	minute := q.clock.Now().UTC().Format(minuteFormat)
	q.doneMu.Lock()
	q.doneOK[minute]++
	q.doneMu.Unlock()
	q.signalCounted()
}

// signalCounted tells the flusher there are counts to write: a success counted, or a failed
// write's counts kept for the next try.
func (q *Queue) signalCounted() {
	select {
	case q.counted <- struct{}{}:
	default:
	}
}

// flushDone adds the successes counted in memory to queue_done.
func (q *Queue) flushDone(ctx context.Context) error {
	q.doneMu.Lock()
	counts := q.doneOK
	q.doneOK = map[string]int{}
	q.doneMu.Unlock()
	if len(counts) == 0 {
		return nil
	}
	err := q.store.AddJobsDone(ctx, q.opts.Name, counts)
	if err != nil {
		q.doneMu.Lock()
		for m, n := range counts {
			q.doneOK[m] += n
		}
		q.doneMu.Unlock()
	}
	return err
}

// countTx adds to this minute's finished counters.
func (q *Queue) countTx(ctx context.Context, tx *sql.Tx, ok, failed int) error {
	return q.store.CountJobs(ctx, tx, q.opts.Name, q.clock.Now(), ok, failed)
}

// Size is the number of messages in the queue: ready, delayed and in flight.
func (q *Queue) Size(ctx context.Context) (int, error) {
	n, err := q.store.QueueSize(ctx, q.opts.Name)
	if err != nil {
		return 0, fmt.Errorf("queue %s: size: %w", q.opts.Name, err)
	}
	return n, nil
}

// Stats counts messages by state, dead jobs, and jobs finished in the last hour.
// Ready and delayed are judged by the system clock, as goqite judges them.
func (q *Queue) Stats(ctx context.Context) (Stats, error) {
	var s Stats
	if err := q.flushDone(ctx); err != nil {
		return s, fmt.Errorf("queue %s: stats: %w", q.opts.Name, err)
	}
	now := time.Now()
	c, err := q.store.JobCounts(ctx, q.opts.Name, now, q.clock.Now().Add(-time.Hour))
	if err != nil {
		return Stats{}, fmt.Errorf("queue %s: stats: %w", q.opts.Name, err)
	}
	s = Stats{Ready: c.Ready, Delayed: c.Delayed, InFlight: c.InFlight, Dead: c.Dead,
		DoneLastHour: c.DoneLastHour, FailedLastHour: c.FailedLastHour}
	if !c.OldestReady.IsZero() {
		s.OldestReady = max(now.Sub(c.OldestReady), 0)
	}
	return s, nil
}

// Throughput counts the jobs done per minute over the last n minutes, oldest first.
func (q *Queue) Throughput(ctx context.Context, n int) ([]int, error) {
	if err := q.flushDone(ctx); err != nil {
		return nil, fmt.Errorf("queue %s: throughput: %w", q.opts.Name, err)
	}
	now := q.clock.Now().UTC().Truncate(time.Minute)
	from := now.Add(-time.Duration(n-1) * time.Minute)
	done, err := q.store.JobsDone(ctx, q.opts.Name, from)
	if err != nil {
		return nil, fmt.Errorf("queue %s: throughput: %w", q.opts.Name, err)
	}
	out := make([]int, n)
	for minute, ok := range done {
		t, err := time.Parse(minuteFormat, minute)
		if i := int(t.Sub(from) / time.Minute); err == nil && i >= 0 && i < n {
			out[i] += ok
		}
	}
	return out, nil
}
