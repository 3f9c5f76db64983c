package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/metrics"
)

// StuckStore finds entities left in a transitional state (sqlite.DB).
type StuckStore interface {
	StuckEntities(ctx context.Context, cutoff time.Time, limit int) ([]app.StuckEntity, error)
	Check(ctx context.Context) error
}

// Admin sees and steers a set of queues: the Queues page, the stats API, health, metrics and
// the queue CLI.
type Admin struct {
	List           []*Queue       // in display order
	Capacities     map[string]int // queue name → capacity; absent: unbounded
	Store          StuckStore
	StuckThreshold time.Duration // default 10 minutes
	Clock          app.Clock
}

var _ app.QueueAdmin = (*Admin)(nil)

// Queues describes every queue.
func (a *Admin) Queues(ctx context.Context) ([]app.QueueInfo, error) {
	out := make([]app.QueueInfo, 0, len(a.List))
	for _, q := range a.List {
		s, err := q.Stats(ctx)
		if err != nil {
			return nil, err
		}
		paused, err := q.Paused(ctx)
		if err != nil {
			return nil, err
		}
		tp, err := q.Throughput(ctx, 60)
		if err != nil {
			return nil, err
		}
		out = append(out, app.QueueInfo{Name: q.Name(), Ready: s.Ready, Delayed: s.Delayed, InFlight: s.InFlight, Dead: s.Dead,
			DoneLastHour: s.DoneLastHour, FailedLastHour: s.FailedLastHour, Capacity: a.Capacities[q.Name()], Paused: paused,
			OldestReady: s.OldestReady, Throughput: tp})
	}
	return out, nil
}

// Sizes is Queues in the shape the metrics gauges read.
func (a *Admin) Sizes(ctx context.Context) ([]metrics.QueueSize, error) {
	qs, err := a.Queues(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]metrics.QueueSize, len(qs))
	for i, q := range qs {
		out[i] = metrics.QueueSize{Queue: q.Name, Ready: q.Ready, Delayed: q.Delayed, InFlight: q.InFlight, Dead: q.Dead,
			Capacity: q.Capacity, Paused: q.Paused, OldestReady: q.OldestReady}
	}
	return out, nil
}

func (a *Admin) queue(name string) (*Queue, error) {
	for _, q := range a.List {
		if q.Name() == name {
			return q, nil
		}
	}
	var names []string
	for _, q := range a.List {
		names = append(names, q.Name())
	}
	return nil, app.Errorf(app.ENOTFOUND, "There is no queue %q: the queues are %s.", name, strings.Join(names, ", "))
}

// Failed lists a queue's failed jobs, newest first; queue "" lists every queue's.
func (a *Admin) Failed(ctx context.Context, queue string, limit int) ([]app.FailedJob, error) {
	qs := a.List
	if queue != "" {
		q, err := a.queue(queue)
		if err != nil {
			return nil, err
		}
		qs = []*Queue{q}
	}
	var out []app.FailedJob
	for _, q := range qs {
		dead, err := q.Dead(ctx, limit)
		if err != nil {
			return nil, err
		}
		for _, d := range dead {
			out = append(out, app.FailedJob{ID: d.ID, Queue: d.Queue, Kind: d.Kind, Attempts: d.Attempts, Error: d.Error,
				FailedAt: d.FailedAt, Subject: subject(d.Body)})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].FailedAt.After(out[j].FailedAt) })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// subject names what a job was about from the ids in its payload: "source 12".
func subject(body []byte) string {
	var env envelope
	if json.Unmarshal(body, &env) != nil {
		return "undecodable job"
	}
	var data map[string]any
	if json.Unmarshal(env.Data, &data) != nil {
		return ""
	}
	var parts []string
	for k, v := range data {
		if name, ok := strings.CutSuffix(k, "Id"); ok {
			if f, ok := v.(float64); ok {
				parts = append(parts, fmt.Sprintf("%s %d", name, int64(f)))
			}
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// Retry sends a failed job back to its queue.
func (a *Admin) Retry(ctx context.Context, queue, id string) error {
	q, err := a.queue(queue)
	if err != nil {
		return err
	}
	if err := q.Retry(ctx, id); err != nil {
		return notFound(err, "Failed job %s is not in the %s queue (already retried or discarded?).", id, queue)
	}
	return nil
}

// RetryAll sends every failed job of a queue back.
func (a *Admin) RetryAll(ctx context.Context, queue string) (int, error) {
	q, err := a.queue(queue)
	if err != nil {
		return 0, err
	}
	return q.RetryAll(ctx)
}

// Discard deletes a failed job.
func (a *Admin) Discard(ctx context.Context, queue, id string) error {
	q, err := a.queue(queue)
	if err != nil {
		return err
	}
	if err := q.Discard(ctx, id); err != nil {
		return notFound(err, "Failed job %s is not in the %s queue (already retried or discarded?).", id, queue)
	}
	return nil
}

// SetPaused pauses or resumes a queue, for every process on the database.
func (a *Admin) SetPaused(ctx context.Context, queue string, paused bool) error {
	q, err := a.queue(queue)
	if err != nil {
		return err
	}
	if paused {
		return q.Pause(ctx)
	}
	return q.Resume(ctx)
}

// Stuck lists entities in a transitional state for longer than the stuck threshold.
func (a *Admin) Stuck(ctx context.Context) ([]app.StuckEntity, error) {
	th := a.StuckThreshold
	if th <= 0 {
		th = 10 * time.Minute
	}
	return a.Store.StuckEntities(ctx, app.ClockOrSystem(a.Clock).Now().Add(-th), 100)
}

// Check reports whether the database answers.
func (a *Admin) Check(ctx context.Context) error { return a.Store.Check(ctx) }

// Pinned lists the jobs this process's workers have run for longer than their queue's timeout.
func (a *Admin) Pinned() []app.PinnedJob {
	var out []app.PinnedJob
	for _, q := range a.List {
		out = append(out, q.Pinned()...)
	}
	return out
}

// notFound turns a missing row into a not-found error for a person.
func notFound(err error, format string, args ...any) error {
	if errors.Is(err, sql.ErrNoRows) {
		return app.Errorf(app.ENOTFOUND, format, args...)
	}
	return err
}

// FailedCount counts the failed jobs of every queue.
func (a *Admin) FailedCount(ctx context.Context) (int, error) {
	if len(a.List) == 0 {
		return 0, nil
	}
	n, err := a.List[0].store.DeadJobCount(ctx)
	if err != nil {
		return 0, fmt.Errorf("queue: count failed jobs: %w", err)
	}
	return n, nil
}
