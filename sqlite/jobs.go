package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// The queues' state (issues 10 and 26): goqite's messages table, the dead letters
// (queue_dead), the finished-job counters (queue_done) and the pause switch (queue_state).
// Package queue sends, receives, extends and deletes messages through goqite's own API, in
// transactions begun here (JobTx) on the write connection (JobDB); the methods below are what
// goqite has no API for. The ones taking a *sql.Tx run inside the caller's transaction, so a
// job's claim, its result and its acknowledgement can share one.

// jobTimeFormat is goqite's format for the timeout and created columns (the same as ours).
const jobTimeFormat = TimeFormat

// jobMinuteFormat keys the finished-job counters by minute.
const jobMinuteFormat = "2006-01-02T15:04"

// qJobDeliveries reads goqite's delivery count of a message. goqite's ReceiveTx counts every
// delivery in its received column but returns only the message's id and body; the queue needs
// the count to dead-letter a job handed out MaxDeliveries times without finishing (a job that
// kills or hangs its process), which goqite's own MaxReceive would strand instead (never
// handed out again, never removed).
var qJobDeliveries = hot(`select received from goqite where id = ?`)

// JobDB is the connection goqite's queues are built on (the write connection: every queue
// operation is a write, and runs in a transaction of JobTx).
func (db *DB) JobDB() *sql.DB { return db.Write }

// JobTx runs fn in a write transaction of its own: a queue's receive (with its claims), a
// retry, a dead letter. Not in the results' group commit (group.go): a receive there waited
// for the whole next batch of results to commit, and the workers for their jobs with it (the
// load test's 16 fetch workers fetched half as fast).
func (db *DB) JobTx(ctx context.Context, fn func(tx *sql.Tx) error) error { return db.tx(ctx, fn) }

// JobDeliveries is goqite's delivery count of each message of ids (0 for one that is gone), in
// the order of ids, read in tx (the transaction that received them).
func (db *DB) JobDeliveries(ctx context.Context, tx *sql.Tx, ids []string) ([]int, error) {
	out := make([]int, len(ids))
	st := db.stmt(ctx, tx, qJobDeliveries)
	for i, id := range ids {
		if err := st.QueryRowContext(ctx, id).Scan(&out[i]); err != nil && !errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("sqlite: delivery count: %w", err)
		}
	}
	return out, nil
}

// DeadLetterJob records a message as a dead letter in tx (replacing an earlier dead letter of
// the same id); the queue deletes the message itself, through goqite, in the same tx.
func (db *DB) DeadLetterJob(ctx context.Context, tx *sql.Tx, d app.DeadJob) error {
	if _, err := tx.ExecContext(ctx, `
		insert into queue_dead (id, queue, kind, body, attempts, error, failed_at) values (?, ?, ?, ?, ?, ?, ?)
		on conflict (id) do update set kind = excluded.kind, body = excluded.body, attempts = excluded.attempts,
			error = excluded.error, failed_at = excluded.failed_at`,
		d.ID, d.Queue, d.Kind, d.Body, d.Attempts, d.Error, d.FailedAt.UTC().Format(jobTimeFormat)); err != nil {
		return err
	}
	return nil
}

// CountJobs adds to a queue's finished counters of the minute of at, in tx.
func (db *DB) CountJobs(ctx context.Context, tx *sql.Tx, queue string, at time.Time, ok, failed int) error {
	_, err := tx.ExecContext(ctx, `
		insert into queue_done (queue, minute, ok, failed) values (?, ?, ?, ?)
		on conflict (queue, minute) do update set ok = ok + excluded.ok, failed = failed + excluded.failed`,
		queue, at.UTC().Format(jobMinuteFormat), ok, failed)
	return err
}

// AddJobsDone adds successes counted in memory (by minute, in jobMinuteFormat) to a queue's
// counters, in one transaction.
func (db *DB) AddJobsDone(ctx context.Context, queue string, byMinute map[string]int) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		for minute, n := range byMinute {
			if _, err := tx.ExecContext(ctx, `
				insert into queue_done (queue, minute, ok, failed) values (?, ?, ?, 0)
				on conflict (queue, minute) do update set ok = ok + excluded.ok`, queue, minute, n); err != nil {
				return err
			}
		}
		return nil
	})
}

// JobsDone is a queue's successes per minute since from (keys in jobMinuteFormat).
func (db *DB) JobsDone(ctx context.Context, queue string, from time.Time) (map[string]int, error) {
	rows, err := db.Read.QueryContext(ctx, `select minute, ok from queue_done where queue = ? and minute >= ?`,
		queue, from.UTC().Format(jobMinuteFormat))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var minute string
		var ok int
		if err := rows.Scan(&minute, &ok); err != nil {
			return nil, err
		}
		out[minute] += ok
	}
	return out, rows.Err()
}

// SetQueuePaused records whether a queue is paused (for every process on this database).
func (db *DB) SetQueuePaused(ctx context.Context, queue string, paused bool) error {
	_, err := db.Write.ExecContext(ctx, `insert into queue_state (queue, paused) values (?, ?)
		on conflict (queue) do update set paused = excluded.paused`, queue, paused)
	return describe(err)
}

// QueuePaused reports whether a queue is paused.
func (db *DB) QueuePaused(ctx context.Context, queue string) (bool, error) {
	var paused bool
	err := db.Read.QueryRowContext(ctx, `select paused from queue_state where queue = ?`, queue).Scan(&paused)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return paused, err
}

// QueueSize is the number of a queue's messages: ready, delayed and in flight. goqite has no
// count or listing of a queue; the fetch queue's capacity and the scheduler need one.
func (db *DB) QueueSize(ctx context.Context, queue string) (int, error) {
	var n int
	err := db.Read.QueryRowContext(ctx, `select count(*) from goqite where `+inQueue("?1"), queue).Scan(&n)
	return n, err
}

// JobCounts counts a queue's messages by state at now (as goqite judges readiness, by the
// system clock), its dead letters, and its jobs finished since hourAgo: the Queues page and the
// metrics. goqite has no stats of a queue, so this reads its table (a read, never a write).
func (db *DB) JobCounts(ctx context.Context, queue string, now, hourAgo time.Time) (app.JobCounts, error) {
	var c app.JobCounts
	var oldest sql.NullString
	err := db.Read.QueryRowContext(ctx, `
		select
			coalesce(sum(timeout <= ?1), 0),
			coalesce(sum(timeout > ?1 and received = 0), 0),
			coalesce(sum(timeout > ?1 and received > 0), 0),
			min(case when timeout <= ?1 then timeout end),
			(select count(*) from queue_dead where queue = ?2),
			(select coalesce(sum(ok), 0) from queue_done where queue = ?2 and minute >= ?3),
			(select coalesce(sum(failed), 0) from queue_done where queue = ?2 and minute >= ?3)
		from goqite where `+inQueue("?2")+``,
		now.UTC().Format(jobTimeFormat), queue, hourAgo.UTC().Format(jobMinuteFormat),
	).Scan(&c.Ready, &c.Delayed, &c.InFlight, &oldest, &c.Dead, &c.DoneLastHour, &c.FailedLastHour)
	if err != nil {
		return app.JobCounts{}, err
	}
	if oldest.Valid {
		if t, err := time.Parse(jobTimeFormat, oldest.String); err == nil {
			c.OldestReady = t
		}
	}
	return c, nil
}

// DeadJobs lists a queue's dead letters, newest first; limit <= 0 lists all.
func (db *DB) DeadJobs(ctx context.Context, queue string, limit int) ([]app.DeadJob, error) {
	if limit <= 0 {
		limit = -1
	}
	rows, err := db.Read.QueryContext(ctx, `
		select id, queue, kind, attempts, error, failed_at, body from queue_dead
		where queue = ? order by failed_at desc, id desc limit ?`, queue, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var jobs []app.DeadJob
	for rows.Next() {
		var j app.DeadJob
		var failedAt string
		if err := rows.Scan(&j.ID, &j.Queue, &j.Kind, &j.Attempts, &j.Error, &failedAt, &j.Body); err != nil {
			return nil, err
		}
		j.FailedAt, _ = time.Parse(jobTimeFormat, failedAt)
		jobs = append(jobs, j)
	}
	return jobs, rows.Err()
}

// DeadJobsTx lists, in tx, a queue's dead letter id (all of them, oldest first, when id is
// ""), with their bodies only. An unknown id gives sql.ErrNoRows.
func (db *DB) DeadJobsTx(ctx context.Context, tx *sql.Tx, queue, id string) ([]app.DeadJob, error) {
	rows, err := tx.QueryContext(ctx, `select id, body from queue_dead where queue = ? and (? = '' or id = ?) order by failed_at`, queue, id, id)
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
	const q = `delete from queue_dead where queue = ? and id = ?`
	var res sql.Result
	var err error
	if tx != nil {
		res, err = tx.ExecContext(ctx, q, queue, id)
	} else {
		res, err = db.Write.ExecContext(ctx, q, queue, id)
	}
	if err != nil {
		return describe(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return sql.ErrNoRows
	}
	return nil
}

// DeadJobCount counts the dead letters of every queue.
func (db *DB) DeadJobCount(ctx context.Context) (int, error) {
	var n int
	err := db.Read.QueryRowContext(ctx, `select count(*) from queue_dead`).Scan(&n)
	return n, err
}

// CleanupJobs deletes a queue's dead letters that failed before deadBefore and its counters of
// minutes before doneBefore.
func (db *DB) CleanupJobs(ctx context.Context, queue string, deadBefore, doneBefore time.Time) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `delete from queue_dead where queue = ? and failed_at < ?`,
			queue, deadBefore.UTC().Format(jobTimeFormat)); err != nil {
			return fmt.Errorf("dead letters: %w", err)
		}
		if _, err := tx.ExecContext(ctx, `delete from queue_done where queue = ? and minute < ?`,
			queue, doneBefore.UTC().Format(jobMinuteFormat)); err != nil {
			return fmt.Errorf("counters: %w", err)
		}
		return nil
	})
}
