package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"

	"github.com/morningdeck/morningdeck/app"
)

// deadLetter moves a message to queue_dead and counts a failure, in one transaction.
func (q *Queue) deadLetter(log *slog.Logger, m message, kind string, attempts int, cause error) {
	ctx := context.Background()
	err := q.inTx(ctx, func(tx *sql.Tx) error {
		d := app.DeadJob{ID: m.ID, Queue: q.opts.Name, Kind: kind, Attempts: attempts, Error: cause.Error(), FailedAt: q.clock.Now(), Body: m.Body}
		if err := q.store.DeadLetterJob(ctx, tx, d); err != nil {
			return err
		}
		if err := q.deleteTx(ctx, tx, m); err != nil {
			return err
		}
		if fn := q.onDead[kind]; fn != nil {
			var env envelope
			if err := json.Unmarshal(m.Body, &env); err == nil {
				job := Job{ID: m.ID, Queue: q.opts.Name, Kind: env.Kind, Version: env.Version, Attempt: env.Attempt, Data: env.Data, q: q, lane: m.lane}
				if err := fn(ctx, tx, job, cause); err != nil {
					return err
				}
			}
		}
		return q.countTx(ctx, tx, 0, 1)
	})
	if err != nil {
		log.Error("dead-letter job", "error", err, "cause", cause)
		return
	}
	log.Error("job dead-lettered", "error", cause)
}

// Dead lists dead jobs, newest first; limit <= 0 lists all.
func (q *Queue) Dead(ctx context.Context, limit int) ([]app.DeadJob, error) {
	jobs, err := q.store.DeadJobs(ctx, q.opts.Name, limit)
	if err != nil {
		return nil, fmt.Errorf("queue %s: list dead: %w", q.opts.Name, err)
	}
	return jobs, nil
}

// Retry moves a dead job back to the queue at attempt 1. An unknown id gives an error wrapping sql.ErrNoRows.
func (q *Queue) Retry(ctx context.Context, id string) error {
	err := q.inTx(ctx, func(tx *sql.Tx) error {
		dead, err := q.store.DeadJobsTx(ctx, tx, q.opts.Name, id)
		if err != nil {
			return err
		}
		return q.requeueTx(ctx, tx, dead[0].ID, dead[0].Body)
	})
	if err != nil {
		return fmt.Errorf("queue %s: retry %s: %w", q.opts.Name, id, err)
	}
	q.notify()
	return nil
}

// RetryAll moves every dead job of this queue back, and returns how many.
func (q *Queue) RetryAll(ctx context.Context) (int, error) {
	var n int
	err := q.inTx(ctx, func(tx *sql.Tx) error {
		all, err := q.store.DeadJobsTx(ctx, tx, q.opts.Name, "")
		if err != nil {
			return err
		}
		for _, d := range all {
			if err := q.requeueTx(ctx, tx, d.ID, d.Body); err != nil {
				return err
			}
		}
		n = len(all)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("queue %s: retry all: %w", q.opts.Name, err)
	}
	q.notify()
	return n, nil
}

// requeueTx sends a dead body again at attempt 1 and deletes the dead row.
// A body that cannot be decoded is sent unchanged (and will come back dead).
func (q *Queue) requeueTx(ctx context.Context, tx *sql.Tx, id string, body []byte) error {
	var env envelope
	priority := 0
	if json.Unmarshal(body, &env) == nil && env.Kind != "" {
		env.Attempt = 1
		b, err := json.Marshal(env)
		if err != nil {
			return err
		}
		body, priority = b, env.Priority
	}
	if err := q.sendBodyTx(ctx, tx, body, 0, priority); err != nil {
		return err
	}
	return q.store.DeleteDeadJob(ctx, tx, q.opts.Name, id)
}

// Discard deletes a dead job. An unknown id gives an error wrapping sql.ErrNoRows.
func (q *Queue) Discard(ctx context.Context, id string) error {
	if err := q.store.DeleteDeadJob(ctx, nil, q.opts.Name, id); err != nil {
		return fmt.Errorf("queue %s: discard %s: %w", q.opts.Name, id, err)
	}
	return nil
}

// Cleanup deletes dead jobs older than DeadRetention and counters older than seven days.
func (q *Queue) Cleanup(ctx context.Context) error {
	now := q.clock.Now()
	if err := q.store.CleanupJobs(ctx, q.opts.Name, now.Add(-q.opts.DeadRetention), now.Add(-doneKeep)); err != nil {
		return fmt.Errorf("queue %s: cleanup: %w", q.opts.Name, err)
	}
	return nil
}
