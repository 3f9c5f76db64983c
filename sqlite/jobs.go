package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// The queues' state (issue 10): goqite's messages table (with goqite's schema and semantics),
// the dead letters (queue_dead), the finished-job counters (queue_done) and the pause switch
// (queue_state). Package queue keeps the mechanism — workers, receiving, heartbeats, retries,
// dead-lettering, scheduling — and reaches these tables only through the methods below (its
// Store). The statements run on every job are prepared at open (goqite builds and parses its
// SQL on every call), and the ones taking a *sql.Tx run inside the caller's transaction, so a
// job's claim, its result and its acknowledgement can share one.

// jobTimeFormat is goqite's format for the timeout and created columns (the same as ours).
const jobTimeFormat = TimeFormat

// jobMinuteFormat keys the finished-job counters by minute.
const jobMinuteFormat = "2006-01-02T15:04"

var (
	qJobSend = hot(`insert into goqite (queue, body, timeout, priority) values (?, ?, ?, ?)`)
	// qJobReceive is goqite's ReceiveTx for up to n messages at once, and it returns each
	// message's delivery count. goqite's semantics: the highest priority first, then the
	// oldest; visible from the timeout on; received counted.
	qJobReceive = hot(`update goqite set timeout = ?, received = received + 1
	where id in (
		select id from goqite
		where queue = ? and ? >= timeout and received < ?
		order by priority desc, created
		limit ?)
	returning id, body, received, priority, created`)
	qJobDelete = hot(`delete from goqite where queue = ? and id = ?`)
	qJobExtend = hot(`update goqite set timeout = ? where queue = ? and id = ?`)
)

// JobTx runs fn in a write transaction of its own: a queue's receive (with its claims), a
// retry, a dead letter. Not in the results' group commit (group.go): a receive there waited
// for the whole next batch of results to commit, and the workers for their jobs with it (the
// load test's 16 fetch workers fetched half as fast).
func (db *DB) JobTx(ctx context.Context, fn func(tx *sql.Tx) error) error { return db.tx(ctx, fn) }

// SendJob adds a message to a queue in tx, visible after delay.
func (db *DB) SendJob(ctx context.Context, tx *sql.Tx, queue string, body []byte, delay time.Duration, priority int) error {
	timeout := time.Now().UTC().Add(max(delay, 0)).Format(jobTimeFormat)
	_, err := db.stmt(ctx, tx, qJobSend).ExecContext(ctx, queue, body, timeout, priority)
	return err
}

// ReceiveJobs hands out up to limit ready messages of a queue in tx, invisible for timeout,
// in goqite's order (priority, then age). maxReceive bounds goqite's own delivery count.
func (db *DB) ReceiveJobs(ctx context.Context, tx *sql.Tx, queue string, timeout time.Duration, maxReceive, limit int) ([]app.JobMessage, error) {
	now := time.Now().UTC()
	rows, err := db.stmt(ctx, tx, qJobReceive).QueryContext(ctx, now.Add(timeout).Format(jobTimeFormat), queue,
		now.Format(jobTimeFormat), maxReceive, max(limit, 1))
	if err != nil {
		return nil, err
	}
	type received struct {
		m        app.JobMessage
		priority int
		created  string
	}
	var all []received
	for rows.Next() {
		var r received
		if err := rows.Scan(&r.m.ID, &r.m.Body, &r.m.Received, &r.priority, &r.created); err != nil {
			_ = rows.Close()
			return nil, err
		}
		all = append(all, r)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return nil, err
	}
	// RETURNING gives no order: hand the messages out as goqite would have.
	sort.SliceStable(all, func(a, b int) bool {
		if all[a].priority != all[b].priority {
			return all[a].priority > all[b].priority
		}
		return all[a].created < all[b].created
	})
	out := make([]app.JobMessage, len(all))
	for i, r := range all {
		out[i] = r.m
	}
	return out, nil
}

// DeleteJob deletes a message in tx (its job is done, or it moves elsewhere).
func (db *DB) DeleteJob(ctx context.Context, tx *sql.Tx, queue, id string) error {
	_, err := db.stmt(ctx, tx, qJobDelete).ExecContext(ctx, queue, id)
	return err
}

// ExtendJob keeps a received message invisible for delay from now (0: visible again at once),
// in a transaction of its own.
func (db *DB) ExtendJob(ctx context.Context, queue, id string, delay time.Duration) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := db.stmt(ctx, tx, qJobExtend).ExecContext(ctx, time.Now().UTC().Add(max(delay, 0)).Format(jobTimeFormat), queue, id)
		return err
	})
}

// DeadLetterJob moves a message to the dead letters in tx (replacing an earlier dead letter of
// the same id).
func (db *DB) DeadLetterJob(ctx context.Context, tx *sql.Tx, d app.DeadJob) error {
	if _, err := tx.ExecContext(ctx, `
		insert into queue_dead (id, queue, kind, body, attempts, error, failed_at) values (?, ?, ?, ?, ?, ?, ?)
		on conflict (id) do update set kind = excluded.kind, body = excluded.body, attempts = excluded.attempts,
			error = excluded.error, failed_at = excluded.failed_at`,
		d.ID, d.Queue, d.Kind, d.Body, d.Attempts, d.Error, d.FailedAt.UTC().Format(jobTimeFormat)); err != nil {
		return err
	}
	return db.DeleteJob(ctx, tx, d.Queue, d.ID)
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

// QueueSize is the number of a queue's messages: ready, delayed and in flight.
func (db *DB) QueueSize(ctx context.Context, queue string) (int, error) {
	var n int
	err := db.Read.QueryRowContext(ctx, `select count(*) from goqite where queue = ?`, queue).Scan(&n)
	return n, err
}

// JobCounts counts a queue's messages by state at now (as goqite judges readiness, by the
// system clock), its dead letters, and its jobs finished since hourAgo.
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
		from goqite where queue = ?2`,
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
