package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

var _ app.SourceStore = (*DB)(nil)

const sourceBaseColumns = `s.id, s.user_id, s.type, s.url, s.name, s.status, s.fetch_status, s.refresh_interval_minutes,
	s.auto_interval, s.last_fetched_at, s.queued_at, s.fetch_started_at, s.next_fetch_at, s.last_error, s.error_count,
	s.etag, s.last_modified, s.created_at`

// sourceColumns adds the counts, the folder and whether an icon is stored. The unread count
// reads items_source_unread_idx's entries of the source, not its items.
const sourceColumns = sourceBaseColumns + `,
	(select count(*) from items i where i.source_id = s.id),
	coalesce(s.folder_id, 0), coalesce((select f.name from folders f where f.id = s.folder_id), ''),
	(select count(*) from items i indexed by items_source_unread_idx where i.source_id = s.id and i.read_at is null and i.hidden = 0),
	exists (select 1 from source_icons c where c.source_id = s.id and length(c.data) > 0)`

type scanner interface{ Scan(dest ...any) error }

func scanSource(row scanner) (*app.Source, error) {
	var s app.Source
	var last, queued, started, next sql.NullString
	var created string
	var auto int
	if err := row.Scan(&s.ID, &s.UserID, &s.Type, &s.URL, &s.Name, &s.Status, &s.FetchStatus, &s.RefreshIntervalMinutes,
		&auto, &last, &queued, &started, &next, &s.LastError, &s.ErrorCount, &s.ETag, &s.LastModified, &created, &s.ItemCount,
		&s.FolderID, &s.Folder, &s.Unread, &s.HasIcon); err != nil {
		return nil, err
	}
	s.AutoInterval = auto != 0
	s.LastFetchedAt, s.QueuedAt, s.FetchStartedAt, s.NextFetchAt = parseTimePtr(last), parseTimePtr(queued), parseTimePtr(started), parseTimePtr(next)
	s.CreatedAt = parseTime(created)
	return &s, nil
}

// CreateSource inserts s and calls then (which enqueues its first fetch) in the same transaction.
func (db *DB) CreateSource(ctx context.Context, s *app.Source, then app.TxFunc) error {
	now := db.clock.Now().UTC()
	if s.Status == "" {
		s.Status = app.SourceActive
	}
	if s.FetchStatus == "" {
		s.FetchStatus = app.FetchIdle
	}
	var queuedAt *time.Time
	if s.FetchStatus == app.FetchQueued {
		queuedAt = &now
	}
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var folderID *int64
		if s.Folder != "" {
			id, err := ensureFolderTx(ctx, tx, s.UserID, s.Folder)
			if err != nil {
				return err
			}
			folderID, s.FolderID = &id, id
		}
		err := tx.QueryRowContext(ctx, `insert into sources (user_id, type, url, name, status, fetch_status, refresh_interval_minutes, auto_interval, queued_at, created_at, folder_id)
			values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning id`,
			s.UserID, s.Type, s.URL, s.Name, s.Status, s.FetchStatus, s.RefreshIntervalMinutes, s.AutoInterval, formatTimePtr(queuedAt), FormatTime(now), folderID).Scan(&s.ID)
		if err != nil {
			if strings.Contains(err.Error(), "UNIQUE constraint failed") {
				return app.Errorf(app.ECONFLICT, "You already follow %s.", s.URL)
			}
			return fmt.Errorf("sqlite: insert source: %w", err)
		}
		if then != nil {
			return then(ctx, tx)
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.CreatedAt, s.QueuedAt = now, queuedAt
	return nil
}

// Source returns one of the user's sources.
func (db *DB) Source(ctx context.Context, userID, id int64) (*app.Source, error) {
	s, err := scanSource(db.Read.QueryRowContext(ctx, `select `+sourceColumns+` from sources s where s.id = ? and s.user_id = ?`, id, userID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, app.Errorf(app.ENOTFOUND, "Source %d not found.", id)
	} else if err != nil {
		return nil, fmt.Errorf("sqlite: source: %w", err)
	}
	return s, nil
}

// SourceByID returns a source whoever owns it (for workers).
func (db *DB) SourceByID(ctx context.Context, id int64) (*app.Source, error) {
	s, err := scanSource(db.Read.QueryRowContext(ctx, `select `+sourceColumns+` from sources s where s.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, app.Errorf(app.ENOTFOUND, "Source %d not found.", id)
	} else if err != nil {
		return nil, fmt.Errorf("sqlite: source: %w", err)
	}
	return s, nil
}

// Sources returns the user's sources, by name.
// SourceList returns a page of the user's sources (with their item counts), ordered by name:
// what the Sources page shows, without reading every source of a large subscription list.
func (db *DB) SourceList(ctx context.Context, f app.SourceFilter) ([]*app.Source, error) {
	q := `select ` + sourceColumns + ` from sources s where s.user_id = ?`
	args := []any{f.UserID}
	if t := strings.TrimSpace(f.Q); t != "" {
		like := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(strings.ToLower(t)) + "%"
		q += ` and (lower(s.name) like ? escape '\' or lower(s.url) like ? escape '\')`
		args = append(args, like, like)
	}
	if f.FolderID != 0 {
		q += ` and s.folder_id = ?`
		args = append(args, f.FolderID)
	}
	switch f.Show {
	case "errors":
		q += ` and (s.status = 'ERROR' or s.error_count > 0)`
	case "paused":
		q += ` and s.status = 'PAUSED'`
	}
	q += ` order by lower(s.name), s.id limit ? offset ?`
	args = append(args, max(f.Limit, 1), max(f.Offset, 0))
	return queryAll(ctx, db, "sources", scanSource, q, args...)
}

// qSourceSummary is SourceSummary's query. Unreachable counts the failing sources whose last
// fetch never reached its host, by the kind of failure stored with them (the kinds of
// app.FetchFailure.Unreachable), from sources_unreachable_idx (migration 0025), which holds
// only the failing sources.
const qSourceSummary = `select coalesce(sum(n), 0), coalesce(sum(iif(status = 'ERROR', n, failing)), 0),
	coalesce(sum(iif(status = 'PAUSED', n, 0)), 0),
	(select count(*) from sources where user_id = ?1 and fetch_status != 'IDLE'),
	(select count(*) from sources where user_id = ?1 and status in ('ACTIVE', 'ERROR')
		and error_count > 0 and fetch_failure in ('dns', 'connect', 'timeout', 'network'))
	from (select status, count(*) as n, count(*) filter (where error_count > 0) as failing
		from sources where user_id = ?1 group by status)`

// SourceSummary counts the user's sources: all, failing, paused, being fetched, unreachable.
// Every page asks for it, so it reads sources_user_state_idx grouped by status (a few thousand
// index entries a millisecond) rather than the table, sources_busy_idx (only the sources being
// fetched) and sources_unreachable_idx (only the sources whose fetch did not reach the host).
func (db *DB) SourceSummary(ctx context.Context, userID int64) (app.SourceSummary, error) {
	var s app.SourceSummary
	st, err := db.readStmt(ctx, qSourceSummary)
	if err == nil {
		err = st.QueryRowContext(ctx, userID).Scan(&s.Total, &s.Errors, &s.Paused, &s.Busy, &s.Unreachable)
	}
	if err != nil {
		return s, fmt.Errorf("sqlite: source summary: %w", err)
	}
	return s, nil
}

// SourceNames returns the ids and names (the address when a source has none) of the user's
// sources, ordered by name.
func (db *DB) SourceNames(ctx context.Context, userID int64) ([]app.SourceName, error) {
	rows, err := db.Read.QueryContext(ctx, `select id, case when name = '' then url else name end from sources
		where user_id = ? order by lower(name), id`, userID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: source names: %w", err)
	}
	defer rows.Close()
	var out []app.SourceName
	for rows.Next() {
		var n app.SourceName
		if err := rows.Scan(&n.ID, &n.Name); err != nil {
			return nil, fmt.Errorf("sqlite: source names: %w", err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

func (db *DB) Sources(ctx context.Context, userID int64) ([]*app.Source, error) {
	return queryAll(ctx, db, "sources", scanSource, `select `+sourceColumns+` from sources s where s.user_id = ? order by lower(s.name), s.id`, userID)
}

// UpdateSource applies the user's changes. A changed interval moves the next fetch accordingly;
// resuming a paused source makes it due at once.
func (db *DB) UpdateSource(ctx context.Context, userID, id int64, u app.SourceUpdate) (*app.Source, error) {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `select count(*) from sources where id = ? and user_id = ?`, id, userID).Scan(&n); err != nil {
			return fmt.Errorf("sqlite: update source: %w", err)
		}
		if n == 0 {
			return app.Errorf(app.ENOTFOUND, "Source %d not found.", id)
		}
		if u.Name != nil {
			if _, err := tx.ExecContext(ctx, `update sources set name = ? where id = ?`, *u.Name, id); err != nil {
				return fmt.Errorf("sqlite: update source: %w", err)
			}
		}
		if u.Folder != nil {
			var folderID *int64
			if *u.Folder != "" {
				id, err := ensureFolderTx(ctx, tx, userID, *u.Folder)
				if err != nil {
					return err
				}
				folderID = &id
			}
			if _, err := tx.ExecContext(ctx, `update sources set folder_id = ? where id = ?`, folderID, id); err != nil {
				return fmt.Errorf("sqlite: move source: %w", err)
			}
		}
		if u.AutoInterval != nil {
			if _, err := tx.ExecContext(ctx, `update sources set auto_interval = ? where id = ?`, *u.AutoInterval, id); err != nil {
				return fmt.Errorf("sqlite: update source: %w", err)
			}
		}
		if u.RefreshIntervalMinutes != nil {
			// next_fetch_at = last fetch + new interval (an error backoff is kept as it is).
			_, err := tx.ExecContext(ctx, `update sources set refresh_interval_minutes = ?,
				next_fetch_at = case when last_fetched_at is not null and error_count = 0
					then strftime('%Y-%m-%dT%H:%M:%fZ', last_fetched_at, '+' || ? || ' minutes') else next_fetch_at end
				where id = ?`, *u.RefreshIntervalMinutes, *u.RefreshIntervalMinutes, id)
			if err != nil {
				return fmt.Errorf("sqlite: update source: %w", err)
			}
		}
		if u.Status != nil {
			switch *u.Status {
			case app.SourcePaused:
				_, err := tx.ExecContext(ctx, `update sources set status = 'PAUSED' where id = ?`, id)
				if err != nil {
					return fmt.Errorf("sqlite: pause source: %w", err)
				}
			case app.SourceActive:
				_, err := tx.ExecContext(ctx, `update sources set status = case when error_count >= ? then 'ERROR' else 'ACTIVE' end,
					next_fetch_at = null where id = ? and status = 'PAUSED'`, app.ErrorThreshold, id)
				if err != nil {
					return fmt.Errorf("sqlite: resume source: %w", err)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return db.Source(ctx, userID, id)
}

// DeleteSource deletes a source and its items.
func (db *DB) DeleteSource(ctx context.Context, userID, id int64) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `delete from sources where id = ? and user_id = ?`, id, userID)
		if err != nil {
			return fmt.Errorf("sqlite: delete source: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return app.Errorf(app.ENOTFOUND, "Source %d not found.", id)
		}
		return nil
	})
}

// QueueSources marks the user's IDLE, non-paused sources among ids (all when nil) QUEUED and
// calls enqueue for each in the same transaction.
func (db *DB) QueueSources(ctx context.Context, userID int64, ids []int64, enqueue func(ctx context.Context, tx *sql.Tx, id int64) error) (int, error) {
	var queued int
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if ids == nil {
			rows, err := tx.QueryContext(ctx, `select id from sources where user_id = ? and status != 'PAUSED' and fetch_status = 'IDLE'`, userID)
			if err != nil {
				return fmt.Errorf("sqlite: queue sources: %w", err)
			}
			if ids, err = scanIDs(rows); err != nil {
				return err
			}
		} else if len(ids) == 1 {
			// A single source asked for by id: say why nothing happens when it does not exist.
			var n int
			if err := tx.QueryRowContext(ctx, `select count(*) from sources where id = ? and user_id = ?`, ids[0], userID).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				return app.Errorf(app.ENOTFOUND, "Source %d not found.", ids[0])
			}
		}
		now := db.now()
		for _, id := range ids {
			ok, err := db.markQueued(ctx, tx, id, userID, now)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if err := enqueue(ctx, tx, id); err != nil {
				return err
			}
			queued++
		}
		return nil
	})
	return queued, err
}

var qMarkQueued = hot(`update sources set fetch_status = 'QUEUED', queued_at = ?
	where id = ? and (? = 0 or user_id = ?) and fetch_status = 'IDLE' and status != 'PAUSED'`)

// markQueued moves an IDLE, non-paused source to QUEUED. userID 0 matches any user.
func (db *DB) markQueued(ctx context.Context, tx *sql.Tx, id, userID int64, now string) (bool, error) {
	res, err := db.stmt(ctx, tx, qMarkQueued).ExecContext(ctx, now, id, userID, userID)
	if err != nil {
		return false, fmt.Errorf("sqlite: mark source queued: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// qDueSources reads a range of sources_due_idx (migration 0022): the idle, not paused sources
// by when they are due, the never fetched (no next time) first.
const qDueSources = `select id from sources
	where fetch_status = 'IDLE' and status in ('ACTIVE', 'ERROR') and coalesce(next_fetch_at, '') <= ?
	order by coalesce(next_fetch_at, '') limit ?`

// DueSources returns up to limit sources that are due for a scheduled fetch at now:
// IDLE, not PAUSED, never fetched or past their next fetch time; never-fetched first.
func (db *DB) DueSources(ctx context.Context, now time.Time, limit int) ([]int64, error) {
	rows, err := db.Read.QueryContext(ctx, qDueSources, FormatTime(now), limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: due sources: %w", err)
	}
	return scanIDs(rows)
}

// QueueDue marks each given source QUEUED (if it still is IDLE and due) and calls enqueue for it,
// all in one transaction. It stops early when enqueue returns app.ErrQueueFull.
func (db *DB) QueueDue(ctx context.Context, ids []int64, enqueue func(ctx context.Context, tx *sql.Tx, id int64) error) (int, error) {
	var queued int
	err := db.tx(ctx, func(tx *sql.Tx) error {
		now := db.now()
		for _, id := range ids {
			ok, err := db.markQueued(ctx, tx, id, 0, now)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if err := enqueue(ctx, tx, id); errors.Is(err, app.ErrQueueFull) {
				// Undo this one mark; the rest of the cycle waits for the next tick.
				_, err := tx.ExecContext(ctx, `update sources set fetch_status = 'IDLE', queued_at = null where id = ?`, id)
				return err
			} else if err != nil {
				return err
			}
			queued++
		}
		return nil
	})
	return queued, err
}

// qStartFetch reads a source to fetch (issue 26: nothing is written when its job is received;
// the sources being fetched are marked in the server's memory, app.Sources.BeginFetch).
var qStartFetch = hot(`select ` + strings.ReplaceAll(sourceBaseColumns, "s.", "") + `, 0, coalesce(folder_id, 0), '', 0, 0
	from sources where id = ?`)

// StartFetch returns a source to fetch (without its item count), or nil (nothing to do) when it
// is gone or paused. staleAfter is no longer used: the store marks nothing (BeginFetch does, in
// memory).
func (db *DB) StartFetch(ctx context.Context, id int64, staleAfter time.Duration) (*app.Source, error) {
	var src *app.Source
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var err error
		src, err = db.StartFetchTx(ctx, tx, id, staleAfter)
		return err
	})
	return src, err
}

// StartFetchTx is StartFetch within the caller's transaction (the one receiving the job). It
// writes only when the source was paused with a fetch queued: that source goes back to IDLE.
func (db *DB) StartFetchTx(ctx context.Context, tx *sql.Tx, id int64, _ time.Duration) (*app.Source, error) {
	s, err := scanSource(db.stmt(ctx, tx, qStartFetch).QueryRowContext(ctx, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("sqlite: start fetch: %w", err)
	}
	if s.Status == app.SourcePaused {
		if s.FetchStatus != app.FetchIdle {
			_, err = tx.ExecContext(ctx, `update sources set fetch_status = 'IDLE', queued_at = null, fetch_started_at = null where id = ?`, id)
		}
		return nil, err
	}
	return s, nil
}

var (
	qSourceExists = hot(`select count(*) from sources where id = ?`)
	qFinishFetch  = hot(`update sources set fetch_status = 'IDLE', queued_at = null, fetch_started_at = null,
		last_fetched_at = ?, next_fetch_at = ?, last_error = '', fetch_failure = '', error_count = 0,
		status = case when status = 'PAUSED' then 'PAUSED' else 'ACTIVE' end,
		etag = ?, last_modified = ?, name = ?, refresh_interval_minutes = ?
		where id = ?`)
	// qFinishUnchanged is qFinishFetch for a fetch that changed nothing but the times (issue 26):
	// a 304, or a feed with no new item, of a source that was not failing, whose name, interval
	// and validators stay. It sets only the columns that change, so that SQLite rewrites only the
	// indexes that hold them (the scheduler's and the busy sources'): qFinishFetch's set of
	// status, error_count and name also rewrote the entries of sources_user_state_idx,
	// sources_unreachable_idx and sources_user_name_idx, unchanged, in every fetch's commit.
	qFinishUnchanged = hot(`update sources set fetch_status = 'IDLE', queued_at = null, fetch_started_at = null,
		last_fetched_at = ?, next_fetch_at = ?
		where id = ?`)
)

// unchanged reports whether storing r changes nothing of src but its fetch times (qFinishUnchanged).
func unchanged(src *app.Source, r *app.FetchResult, name string, interval int) bool {
	return src.ErrorCount == 0 && src.LastError == "" && src.Status == app.SourceActive && name == src.Name &&
		interval == src.RefreshIntervalMinutes && (r.NotModified || (r.ETag == src.ETag && r.LastModified == src.LastModified))
}

// FinishFetch stores a successful fetch in one transaction: new items (a re-fetch never
// duplicates one), validators, the next fetch time, and clears the error state. Items of a first
// import are DONE; later new items are NEW. then runs in the same transaction with the new
// items' ids (the processing pipeline's seam) and whether this was the first import.
// It returns the number of new items.
func (db *DB) FinishFetch(ctx context.Context, src *app.Source, r *app.FetchResult, then func(ctx context.Context, tx *sql.Tx, newItems []int64, first bool) error) (int, error) {
	return db.finishFetch(ctx, src, r, then, nil)
}

// FinishFetchLater is FinishFetch handed over to the writer: it returns at once and done is
// told how many items were new, or the error, once the transaction committed (or failed). ctx
// loses its cancellation; Close waits for the transaction.
func (db *DB) FinishFetchLater(ctx context.Context, src *app.Source, r *app.FetchResult, then func(ctx context.Context, tx *sql.Tx, newItems []int64, first bool) error, done func(n int, err error)) {
	_, _ = db.finishFetch(context.WithoutCancel(ctx), src, r, then, done)
}

func (db *DB) finishFetch(ctx context.Context, src *app.Source, r *app.FetchResult, then func(ctx context.Context, tx *sql.Tx, newItems []int64, first bool) error, later func(int, error)) (int, error) {
	now := db.clock.Now().UTC()
	first := src.LastFetchedAt == nil
	status := app.ItemNew
	if first {
		status = app.ItemDone
	}
	interval := src.RefreshIntervalMinutes
	if r.Interval != nil && src.AutoInterval {
		interval = *r.Interval
	}
	next := now.Add(time.Duration(interval) * time.Minute)
	if r.NextFetchAt != nil && r.NextFetchAt.After(next) {
		next = *r.NextFetchAt
	}
	var newIDs []int64
	name := src.Name
	if name == "" {
		name = r.Title
	}
	if name == "" {
		name = src.URL
	}
	// Nothing new and nothing else changed: only the source's times and the job's deletion are
	// written (qFinishUnchanged), in a commit shared with others of the kind (groupSoon).
	small := unchanged(src, r, name, interval) && (r.NotModified || len(r.Items) == 0)
	fn := func(tx *sql.Tx) error {
		newIDs = nil
		var exists int
		if err := db.stmt(ctx, tx, qSourceExists).QueryRowContext(ctx, src.ID).Scan(&exists); err != nil {
			return fmt.Errorf("sqlite: finish fetch: %w", err)
		}
		if exists == 0 {
			// Deleted while it was being fetched: nothing to store.
			if then != nil {
				return then(ctx, tx, nil, false)
			}
			return nil
		}
		if !r.NotModified && len(r.Items) > 0 {
			var err error
			if newIDs, err = db.insertItemsTx(ctx, tx, src, r.Items, status, now); err != nil {
				return err
			}
		}
		etag, lastMod := r.ETag, r.LastModified
		if r.NotModified {
			etag, lastMod = src.ETag, src.LastModified
		}
		var err error
		if unchanged(src, r, name, interval) {
			_, err = db.stmt(ctx, tx, qFinishUnchanged).ExecContext(ctx, FormatTime(now), FormatTime(next), src.ID)
		} else {
			_, err = db.stmt(ctx, tx, qFinishFetch).ExecContext(ctx, FormatTime(now), FormatTime(next), etag, lastMod, name, interval, src.ID)
		}
		if err != nil {
			return fmt.Errorf("sqlite: finish fetch: %w", err)
		}
		if then != nil {
			return then(ctx, tx, newIDs, first)
		}
		return nil
	}
	if later != nil && small {
		db.groupSoon(ctx, func(_ context.Context, tx *sql.Tx) error { return fn(tx) }, func(err error) { later(len(newIDs), err) })
		return 0, nil
	}
	if later != nil {
		db.groupLater(ctx, func(_ context.Context, tx *sql.Tx) error { return fn(tx) }, func(err error) { later(len(newIDs), err) })
		return 0, nil
	}
	err := db.groupTx(ctx, fn)
	return len(newIDs), err
}

// FailFetch records a failed fetch: its kind and message. When blame is false (the machine seems offline) the
// source's error count is left alone. The next attempt waits interval × 2^errors (capped at
// app.MaxBackoff), or retryAfter when the server asked for longer.
// then runs in the same transaction.
func (db *DB) FailFetch(ctx context.Context, src *app.Source, kind app.FetchFailure, msg string, blame bool, retryAfter time.Duration, then app.TxFunc) error {
	now := db.clock.Now().UTC()
	errs := src.ErrorCount
	if blame {
		errs++
	}
	wait := app.Backoff(time.Duration(src.RefreshIntervalMinutes)*time.Minute, errs)
	if !blame {
		wait = time.Duration(src.RefreshIntervalMinutes) * time.Minute
	}
	wait = max(wait, retryAfter)
	return db.groupTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `update sources set fetch_status = 'IDLE', queued_at = null, fetch_started_at = null,
			last_error = ?, fetch_failure = ?, error_count = ?, next_fetch_at = ?,
			status = case when status = 'PAUSED' then 'PAUSED' when ? >= ? then 'ERROR' else status end
			where id = ?`, msg, string(kind), errs, FormatTime(now.Add(wait)), errs, app.ErrorThreshold, src.ID)
		if err != nil {
			return fmt.Errorf("sqlite: fail fetch: %w", err)
		}
		if then != nil {
			return then(ctx, tx)
		}
		return nil
	})
}

// ResetStuckSources sets sources QUEUED or FETCHING since before cutoff, whose job is gone, back to
// IDLE and returns their ids. (FETCHING is no longer written, issue 26: a source stays QUEUED
// while it is fetched; a row marked so by an earlier version is reset all the same.)
func (db *DB) ResetStuckSources(ctx context.Context, cutoff time.Time) ([]int64, error) {
	var ids []int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		c := FormatTime(cutoff)
		rows, err := tx.QueryContext(ctx, `update sources set fetch_status = 'IDLE', queued_at = null, fetch_started_at = null
			where ((fetch_status = 'QUEUED' and queued_at < ?) or (fetch_status = 'FETCHING' and fetch_started_at < ?))
			and `+noLiveJob("fetch", "sourceId", "id")+` returning id`, c, c)
		if err != nil {
			return fmt.Errorf("sqlite: reset stuck sources: %w", err)
		}
		ids, err = scanIDs(rows)
		return err
	})
	return ids, err
}
