package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"maragu.dev/goqite"

	"github.com/morningdeck/morningdeck/app"
)

// The queues' state on PostgreSQL: goqite's messages table (migration 1), the dead letters,
// counters and pause switch (0005). Package queue sends, extends and deletes messages through
// goqite's API (GoqiteFlavor: PostgreSQL's), and receives them through ReceiveTx (goqite.go):
// goqite's own receive hands one message to several receivers. The methods below are what
// goqite has no API for, as in package sqlite (jobs.go there says why each is needed).

// jobMinuteFormat keys the finished-job counters by minute (package queue's format).
const jobMinuteFormat = "2006-01-02T15:04"

// JobDB is the pool goqite's queues are built on.
func (db *DB) JobDB() *sql.DB { return db.SQL }

// GoqiteFlavor is the SQL goqite must speak here.
func (db *DB) GoqiteFlavor() goqite.SQLFlavor { return goqite.SQLFlavorPostgreSQL }

// ReceiveJobTx receives the next message of a queue in tx: ReceiveTx, for package queue.
func (db *DB) ReceiveJobTx(ctx context.Context, tx *sql.Tx, queue string, timeout time.Duration, maxReceive int) (*goqite.Message, error) {
	return ReceiveTx(ctx, tx, queue, timeout, maxReceive)
}

// JobTx runs fn in a transaction of its own: a queue's receive (with its claims), a retry, a
// dead letter.
func (db *DB) JobTx(ctx context.Context, fn func(tx *sql.Tx) error) error { return db.tx(ctx, fn) }

// JobDeliveries is goqite's delivery count of each message of ids (0 for one that is gone), in
// the order of ids, read in tx (the transaction that received them).
func (db *DB) JobDeliveries(ctx context.Context, tx *sql.Tx, ids []string) ([]int, error) {
	rows, err := tx.QueryContext(ctx, `select id, received from goqite where id = any($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("postgres: delivery counts: %w", err)
	}
	defer rows.Close()
	got := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, fmt.Errorf("postgres: delivery counts: %w", err)
		}
		got[id] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: delivery counts: %w", err)
	}
	out := make([]int, len(ids))
	for i, id := range ids {
		out[i] = got[id]
	}
	return out, nil
}

// DeadLetterJob records a message as a dead letter in tx (replacing an earlier dead letter of
// the same id); the queue deletes the message itself, through goqite, in the same tx.
func (db *DB) DeadLetterJob(ctx context.Context, tx *sql.Tx, d app.DeadJob) error {
	_, err := tx.ExecContext(ctx, `
		insert into queue_dead (id, queue, kind, body, attempts, error, failed_at) values ($1, $2, $3, $4, $5, $6, $7)
		on conflict (id) do update set kind = excluded.kind, body = excluded.body, attempts = excluded.attempts,
			error = excluded.error, failed_at = excluded.failed_at`,
		d.ID, d.Queue, d.Kind, d.Body, d.Attempts, d.Error, dbTime(d.FailedAt))
	return err
}

// CountJobs adds to a queue's finished counters of the minute of at, in tx.
func (db *DB) CountJobs(ctx context.Context, tx *sql.Tx, queue string, at time.Time, ok, failed int) error {
	_, err := tx.ExecContext(ctx, `
		insert into queue_done (queue, minute, ok, failed) values ($1, $2, $3, $4)
		on conflict (queue, minute) do update set ok = queue_done.ok + excluded.ok, failed = queue_done.failed + excluded.failed`,
		queue, at.UTC().Format(jobMinuteFormat), ok, failed)
	return err
}

// AddJobsDone adds successes counted in memory (by minute) to a queue's counters, in one
// transaction.
func (db *DB) AddJobsDone(ctx context.Context, queue string, byMinute map[string]int) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		for minute, n := range byMinute {
			if _, err := tx.ExecContext(ctx, `
				insert into queue_done (queue, minute, ok, failed) values ($1, $2, $3, 0)
				on conflict (queue, minute) do update set ok = queue_done.ok + excluded.ok`, queue, minute, n); err != nil {
				return err
			}
		}
		return nil
	})
}

// JobsDone is a queue's successes per minute since from.
func (db *DB) JobsDone(ctx context.Context, queue string, from time.Time) (map[string]int, error) {
	type done struct {
		minute string
		ok     int
	}
	rows, err := queryAll(ctx, db, "jobs done", func(r scanner) (done, error) {
		var d done
		return d, r.Scan(&d.minute, &d.ok)
	}, `select minute, ok from queue_done where queue = $1 and minute >= $2`, queue, from.UTC().Format(jobMinuteFormat))
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, d := range rows {
		out[d.minute] += d.ok
	}
	return out, nil
}

// SetQueuePaused records whether a queue is paused (for every instance on this database).
func (db *DB) SetQueuePaused(ctx context.Context, queue string, paused bool) error {
	_, err := db.SQL.ExecContext(ctx, `insert into queue_state (queue, paused) values ($1, $2)
		on conflict (queue) do update set paused = excluded.paused`, queue, paused)
	return err
}

// QueuePaused reports whether a queue is paused.
func (db *DB) QueuePaused(ctx context.Context, queue string) (bool, error) {
	var paused bool
	err := db.SQL.QueryRowContext(ctx, `select paused from queue_state where queue = $1`, queue).Scan(&paused)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return paused, err
}

// inQueue is the condition on goqite's queue column for a queue of ours, name (an SQL
// expression): its messages are in the goqite queue of its name and in its lanes, name#1, …
// (queue.Options.Lanes).
func inQueue(name string) string {
	return `(queue = ` + name + ` or queue like ` + name + ` || '#%')`
}

// QueueSize is the number of a queue's messages: ready, delayed and in flight.
func (db *DB) QueueSize(ctx context.Context, queue string) (int, error) {
	var n int
	err := db.SQL.QueryRowContext(ctx, `select count(*) from goqite where `+inQueue("$1"), queue).Scan(&n)
	return n, err
}

// JobCounts counts a queue's messages by state at now, its dead letters, and its jobs finished
// since hourAgo.
func (db *DB) JobCounts(ctx context.Context, queue string, now, hourAgo time.Time) (app.JobCounts, error) {
	var c app.JobCounts
	var oldest sql.NullTime
	err := db.SQL.QueryRowContext(ctx, `
		select
			count(*) filter (where timeout <= $1),
			count(*) filter (where timeout > $1 and received = 0),
			count(*) filter (where timeout > $1 and received > 0),
			min(timeout) filter (where timeout <= $1),
			(select count(*) from queue_dead where queue = $2),
			(select coalesce(sum(ok), 0) from queue_done where queue = $2 and minute >= $3),
			(select coalesce(sum(failed), 0) from queue_done where queue = $2 and minute >= $3)
		from goqite where `+inQueue("$2"),
		now.UTC(), queue, hourAgo.UTC().Format(jobMinuteFormat),
	).Scan(&c.Ready, &c.Delayed, &c.InFlight, &oldest, &c.Dead, &c.DoneLastHour, &c.FailedLastHour)
	if err != nil {
		return app.JobCounts{}, err
	}
	if oldest.Valid {
		c.OldestReady = oldest.Time.UTC().Truncate(time.Millisecond)
	}
	return c, nil
}

// DeadJobs lists a queue's dead letters, newest first; limit <= 0 lists all.
func (db *DB) DeadJobs(ctx context.Context, queue string, limit int) ([]app.DeadJob, error) {
	return queryAll(ctx, db, "dead jobs", func(r scanner) (app.DeadJob, error) {
		var j app.DeadJob
		err := r.Scan(&j.ID, &j.Queue, &j.Kind, &j.Attempts, &j.Error, &j.FailedAt, &j.Body)
		j.FailedAt = j.FailedAt.UTC()
		return j, err
	}, `select id, queue, kind, attempts, error, failed_at, body from queue_dead
		where queue = $1 order by failed_at desc, id desc limit $2`, queue, sqlLimit(limit))
}

// DeadJobsTx lists, in tx, a queue's dead letter id (all of them, oldest first, when id is
// ""), with their bodies only. An unknown id gives sql.ErrNoRows.
func (db *DB) DeadJobsTx(ctx context.Context, tx *sql.Tx, queue, id string) ([]app.DeadJob, error) {
	rows, err := tx.QueryContext(ctx, `select id, body from queue_dead where queue = $1 and ($2 = '' or id = $2) order by failed_at`, queue, id)
	if err != nil {
		return nil, err
	}
	var all []app.DeadJob
	for rows.Next() {
		d := app.DeadJob{Queue: queue}
		if err := rows.Scan(&d.ID, &d.Body); err != nil {
			_ = rows.Close()
			return nil, err
		}
		all = append(all, d)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, err
	}
	if id != "" && len(all) == 0 {
		return nil, sql.ErrNoRows
	}
	return all, nil
}

// DeleteDeadJob deletes a dead letter, in tx when tx is not nil. An unknown id gives
// sql.ErrNoRows.
func (db *DB) DeleteDeadJob(ctx context.Context, tx *sql.Tx, queue, id string) error {
	const q = `delete from queue_dead where queue = $1 and id = $2`
	var res sql.Result
	var err error
	if tx != nil {
		res, err = tx.ExecContext(ctx, q, queue, id)
	} else {
		res, err = db.SQL.ExecContext(ctx, q, queue, id)
	}
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return sql.ErrNoRows
	}
	return nil
}

// DeadJobCount counts the dead letters of every queue.
func (db *DB) DeadJobCount(ctx context.Context) (int, error) {
	var n int
	err := db.SQL.QueryRowContext(ctx, `select count(*) from queue_dead`).Scan(&n)
	return n, err
}

// CleanupJobs deletes a queue's dead letters that failed before deadBefore and its counters of
// minutes before doneBefore.
func (db *DB) CleanupJobs(ctx context.Context, queue string, deadBefore, doneBefore time.Time) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `delete from queue_dead where queue = $1 and failed_at < $2`, queue, dbTime(deadBefore)); err != nil {
			return fmt.Errorf("dead letters: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `delete from queue_done where queue = $1 and minute < $2`, queue, doneBefore.UTC().Format(jobMinuteFormat)); err != nil {
			return fmt.Errorf("counters: %w", err)
		}
		return nil
	})
}
