package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

var (
	_ app.SourceStore = (*DB)(nil)
	_ app.FetchStore  = (*DB)(nil)
)

const sourceBaseColumns = `s.id, s.user_id, s.type, s.url, s.name, s.status, s.fetch_status, s.refresh_interval_minutes,
	s.auto_interval, s.last_fetched_at, s.queued_at, s.fetch_started_at, s.next_fetch_at, s.last_error, s.error_count,
	s.etag, s.last_modified, s.created_at`

// sourceColumns adds the counts, the folder and whether an icon is stored. The unread count
// reads items_source_unread_idx.
const sourceColumns = sourceBaseColumns + `,
	(select count(*) from items i where i.source_id = s.id),
	coalesce(s.folder_id, 0), coalesce((select f.name from folders f where f.id = s.folder_id), ''),
	(select count(*) from items i where i.source_id = s.id and i.read_at is null and not i.hidden),
	exists (select 1 from source_icons c where c.source_id = s.id and length(c.data) > 0)`

func scanSource(row scanner) (*app.Source, error) {
	var s app.Source
	var last, queued, started, next sql.NullTime
	if err := row.Scan(&s.ID, &s.UserID, &s.Type, &s.URL, &s.Name, &s.Status, &s.FetchStatus, &s.RefreshIntervalMinutes,
		&s.AutoInterval, &last, &queued, &started, &next, &s.LastError, &s.ErrorCount, &s.ETag, &s.LastModified, &s.CreatedAt, &s.ItemCount,
		&s.FolderID, &s.Folder, &s.Unread, &s.HasIcon); err != nil {
		return nil, err
	}
	s.LastFetchedAt, s.QueuedAt, s.FetchStartedAt, s.NextFetchAt = timePtr(last), timePtr(queued), timePtr(started), timePtr(next)
	s.CreatedAt = s.CreatedAt.UTC()
	return &s, nil
}

// CreateSource inserts s and calls then (which enqueues its first fetch) in the same transaction.
func (db *DB) CreateSource(ctx context.Context, s *app.Source, then app.TxFunc) error {
	now := db.now()
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
			values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) returning id`,
			s.UserID, s.Type, s.URL, s.Name, s.Status, s.FetchStatus, s.RefreshIntervalMinutes, s.AutoInterval, timeArg(queuedAt), now, folderID).Scan(&s.ID)
		if err != nil {
			if isCode(err, uniqueViolation) {
				return app.Errorf(app.ECONFLICT, "You already follow %s.", s.URL)
			}
			return fmt.Errorf("postgres: insert source: %w", err)
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
	s, err := scanSource(db.SQL.QueryRowContext(ctx, `select `+sourceColumns+` from sources s where s.id = $1 and s.user_id = $2`, id, userID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, app.Errorf(app.ENOTFOUND, "Source %d not found.", id)
	} else if err != nil {
		return nil, fmt.Errorf("postgres: source: %w", err)
	}
	return s, nil
}

// SourceByID returns a source whoever owns it (for workers).
func (db *DB) SourceByID(ctx context.Context, id int64) (*app.Source, error) {
	s, err := scanSource(db.SQL.QueryRowContext(ctx, `select `+sourceColumns+` from sources s where s.id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, app.Errorf(app.ENOTFOUND, "Source %d not found.", id)
	} else if err != nil {
		return nil, fmt.Errorf("postgres: source: %w", err)
	}
	return s, nil
}

// likePattern is a like pattern finding t anywhere, its wildcards escaped.
func likePattern(t string) string {
	return "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(t) + "%"
}

// SourceList returns a page of the user's sources (with their item counts), ordered by name.
func (db *DB) SourceList(ctx context.Context, f app.SourceFilter) ([]*app.Source, error) {
	q := `select ` + sourceColumns + ` from sources s where s.user_id = $1`
	args := []any{f.UserID}
	arg := func(v any) string { args = append(args, v); return fmt.Sprintf("$%d", len(args)) }
	if t := strings.TrimSpace(f.Q); t != "" {
		like := arg(likePattern(strings.ToLower(t)))
		q += ` and (lower(s.name) like ` + like + ` or lower(s.url) like ` + like + `)`
	}
	if f.FolderID != 0 {
		q += ` and s.folder_id = ` + arg(f.FolderID)
	}
	switch f.Show {
	case "errors":
		q += ` and (s.status = 'ERROR' or s.error_count > 0)`
	case "paused":
		q += ` and s.status = 'PAUSED'`
	}
	q += ` order by lower(s.name), s.id limit ` + arg(max(f.Limit, 1)) + ` offset ` + arg(max(f.Offset, 0))
	return queryAll(ctx, db, "sources", scanSource, q, args...)
}

// SourceSummary counts the user's sources: all, failing, paused, being fetched, unreachable
// (the failing sources whose last fetch never reached its host, app.FetchFailure.Unreachable).
func (db *DB) SourceSummary(ctx context.Context, userID int64) (app.SourceSummary, error) {
	var s app.SourceSummary
	err := db.SQL.QueryRowContext(ctx, `select count(*),
		count(*) filter (where status = 'ERROR' or error_count > 0),
		count(*) filter (where status = 'PAUSED'),
		count(*) filter (where fetch_status != 'IDLE'),
		count(*) filter (where status in ('ACTIVE', 'ERROR') and error_count > 0 and fetch_failure in ('dns', 'connect', 'timeout', 'network'))
		from sources where user_id = $1`, userID).Scan(&s.Total, &s.Errors, &s.Paused, &s.Busy, &s.Unreachable)
	if err != nil {
		return s, fmt.Errorf("postgres: source summary: %w", err)
	}
	return s, nil
}

// SourceNames returns the ids and names (the address when a source has none) of the user's
// sources, ordered by name.
func (db *DB) SourceNames(ctx context.Context, userID int64) ([]app.SourceName, error) {
	return queryAll(ctx, db, "source names", func(r scanner) (app.SourceName, error) {
		var n app.SourceName
		return n, r.Scan(&n.ID, &n.Name)
	}, `select id, case when name = '' then url else name end from sources where user_id = $1 order by lower(name), id`, userID)
}

// Sources returns the user's sources, by name.
func (db *DB) Sources(ctx context.Context, userID int64) ([]*app.Source, error) {
	return queryAll(ctx, db, "sources", scanSource, `select `+sourceColumns+` from sources s where s.user_id = $1 order by lower(s.name), s.id`, userID)
}

// UpdateSource applies the user's changes. A changed interval moves the next fetch accordingly;
// resuming a paused source makes it due at once.
func (db *DB) UpdateSource(ctx context.Context, userID, id int64, u app.SourceUpdate) (*app.Source, error) {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var found bool
		if err := tx.QueryRowContext(ctx, `select exists (select 1 from sources where id = $1 and user_id = $2)`, id, userID).Scan(&found); err != nil {
			return fmt.Errorf("postgres: update source: %w", err)
		}
		if !found {
			return app.Errorf(app.ENOTFOUND, "Source %d not found.", id)
		}
		if u.Name != nil {
			if _, err := tx.ExecContext(ctx, `update sources set name = $1 where id = $2`, *u.Name, id); err != nil {
				return fmt.Errorf("postgres: update source: %w", err)
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
			if _, err := tx.ExecContext(ctx, `update sources set folder_id = $1 where id = $2`, folderID, id); err != nil {
				return fmt.Errorf("postgres: move source: %w", err)
			}
		}
		if u.AutoInterval != nil {
			if _, err := tx.ExecContext(ctx, `update sources set auto_interval = $1 where id = $2`, *u.AutoInterval, id); err != nil {
				return fmt.Errorf("postgres: update source: %w", err)
			}
		}
		if u.RefreshIntervalMinutes != nil {
			// next_fetch_at = last fetch + new interval (an error backoff is kept as it is).
			_, err := tx.ExecContext(ctx, `update sources set refresh_interval_minutes = $1,
				next_fetch_at = case when last_fetched_at is not null and error_count = 0
					then last_fetched_at + make_interval(mins => $1) else next_fetch_at end
				where id = $2`, *u.RefreshIntervalMinutes, id)
			if err != nil {
				return fmt.Errorf("postgres: update source: %w", err)
			}
		}
		if u.Status != nil {
			switch *u.Status {
			case app.SourcePaused:
				if _, err := tx.ExecContext(ctx, `update sources set status = 'PAUSED' where id = $1`, id); err != nil {
					return fmt.Errorf("postgres: pause source: %w", err)
				}
			case app.SourceActive:
				_, err := tx.ExecContext(ctx, `update sources set status = case when error_count >= $1 then 'ERROR' else 'ACTIVE' end,
					next_fetch_at = null where id = $2 and status = 'PAUSED'`, app.ErrorThreshold, id)
				if err != nil {
					return fmt.Errorf("postgres: resume source: %w", err)
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
	res, err := db.SQL.ExecContext(ctx, `delete from sources where id = $1 and user_id = $2`, id, userID)
	if err != nil {
		return fmt.Errorf("postgres: delete source: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return app.Errorf(app.ENOTFOUND, "Source %d not found.", id)
	}
	return nil
}

// QueueSources marks the user's IDLE, non-paused sources among ids (all when nil) QUEUED and
// calls enqueue for each in the same transaction.
func (db *DB) QueueSources(ctx context.Context, userID int64, ids []int64, enqueue func(ctx context.Context, tx *sql.Tx, id int64) error) (int, error) {
	var queued int
	err := db.tx(ctx, func(tx *sql.Tx) error {
		queued = 0
		if ids == nil {
			rows, err := tx.QueryContext(ctx, `select id from sources where user_id = $1 and status != 'PAUSED' and fetch_status = 'IDLE' order by id`, userID)
			if err != nil {
				return fmt.Errorf("postgres: queue sources: %w", err)
			}
			if ids, err = scanIDs(rows); err != nil {
				return err
			}
		} else if len(ids) == 1 {
			// A single source asked for by id: say why nothing happens when it does not exist.
			var found bool
			if err := tx.QueryRowContext(ctx, `select exists (select 1 from sources where id = $1 and user_id = $2)`, ids[0], userID).Scan(&found); err != nil {
				return err
			}
			if !found {
				return app.Errorf(app.ENOTFOUND, "Source %d not found.", ids[0])
			}
		}
		now := db.now()
		for _, id := range ids {
			ok, err := markQueued(ctx, tx, id, userID, now)
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

// markQueued moves an IDLE, non-paused source to QUEUED. userID 0 matches any user. Of two
// instances marking one source at once, one wins: the other's update waits for its commit,
// then finds the source no longer IDLE (read committed re-checks the row).
func markQueued(ctx context.Context, tx *sql.Tx, id, userID int64, now time.Time) (bool, error) {
	res, err := tx.ExecContext(ctx, `update sources set fetch_status = 'QUEUED', queued_at = $1
		where id = $2 and ($3::bigint = 0 or user_id = $3::bigint) and fetch_status = 'IDLE' and status != 'PAUSED'`, now, id, userID)
	if err != nil {
		return false, fmt.Errorf("postgres: mark source queued: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// DueSources returns up to limit sources that are due for a scheduled fetch at now: IDLE, not
// PAUSED, never fetched or past their next fetch time; never-fetched first (sources_due_idx).
func (db *DB) DueSources(ctx context.Context, now time.Time, limit int) ([]int64, error) {
	rows, err := db.SQL.QueryContext(ctx, `select id from sources
		where fetch_status = 'IDLE' and status in ('ACTIVE', 'ERROR') and (next_fetch_at is null or next_fetch_at <= $1)
		order by next_fetch_at nulls first, id limit $2`, dbTime(now), limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: due sources: %w", err)
	}
	return scanIDs(rows)
}

// QueueDue marks each given source QUEUED (if it still is IDLE and due) and calls enqueue for it,
// all in one transaction. It stops early when enqueue returns app.ErrQueueFull.
func (db *DB) QueueDue(ctx context.Context, ids []int64, enqueue func(ctx context.Context, tx *sql.Tx, id int64) error) (int, error) {
	var queued int
	err := db.tx(ctx, func(tx *sql.Tx) error {
		queued = 0
		now := db.now()
		for _, id := range ids {
			ok, err := markQueued(ctx, tx, id, 0, now)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			if err := enqueue(ctx, tx, id); errors.Is(err, app.ErrQueueFull) {
				// Undo this one mark; the rest of the cycle waits for the next tick.
				_, err := tx.ExecContext(ctx, `update sources set fetch_status = 'IDLE', queued_at = null where id = $1`, id)
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

// StartFetch returns a source to fetch (without its counts), or nil (nothing to do) when it is
// gone or paused. It marks nothing: the sources being fetched are marked in memory
// (app.Sources.BeginFetch).
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
	s, err := scanSource(tx.QueryRowContext(ctx, `select `+strings.ReplaceAll(sourceBaseColumns, "s.", "")+`, 0, coalesce(folder_id, 0), '', 0, false
		from sources where id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("postgres: start fetch: %w", err)
	}
	if s.Status == app.SourcePaused {
		if s.FetchStatus != app.FetchIdle {
			_, err = tx.ExecContext(ctx, `update sources set fetch_status = 'IDLE', queued_at = null, fetch_started_at = null where id = $1`, id)
		}
		return nil, err
	}
	return s, nil
}

// FinishFetch stores a successful fetch in one transaction: new items (a re-fetch never
// duplicates one), validators, the next fetch time, and clears the error state. Items of a first
// import are DONE; later new items are NEW. then runs in the same transaction with the new
// items' ids and whether this was the first import. It returns the number of new items.
func (db *DB) FinishFetch(ctx context.Context, src *app.Source, r *app.FetchResult, then func(ctx context.Context, tx *sql.Tx, newItems []int64, first bool) error) (int, error) {
	var n int
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var err error
		n, err = db.finishFetchTx(ctx, tx, src, r, then)
		return err
	})
	return n, err
}

// FinishFetchLater is FinishFetch without waiting: PostgreSQL has no single writer to hand the
// transaction to, so it runs on a goroutine of its own, and done is told the outcome after the
// commit. ctx loses its cancellation.
func (db *DB) FinishFetchLater(ctx context.Context, src *app.Source, r *app.FetchResult, then func(ctx context.Context, tx *sql.Tx, newItems []int64, first bool) error, done func(n int, err error)) {
	ctx = context.WithoutCancel(ctx)
	db.later.Go(func() {
		n, err := db.FinishFetch(ctx, src, r, then)
		done(n, err)
	})
}

func (db *DB) finishFetchTx(ctx context.Context, tx *sql.Tx, src *app.Source, r *app.FetchResult, then func(ctx context.Context, tx *sql.Tx, newItems []int64, first bool) error) (int, error) {
	now := db.now()
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
		next = dbTime(*r.NextFetchAt)
	}
	name := app.FirstNonEmpty(src.Name, r.Title, src.URL)
	// The source's row is locked first: a fetch of a deleted source stores nothing, and two
	// instances finishing fetches of one source (a redelivered job) store theirs one after the
	// other.
	var exists bool
	err := tx.QueryRowContext(ctx, `select true from sources where id = $1 for update`, src.ID).Scan(&exists)
	if errors.Is(err, sql.ErrNoRows) {
		if then != nil {
			return 0, then(ctx, tx, nil, false)
		}
		return 0, nil
	} else if err != nil {
		return 0, fmt.Errorf("postgres: finish fetch: %w", err)
	}
	var newIDs []int64
	if !r.NotModified && len(r.Items) > 0 {
		if newIDs, err = insertItemsTx(ctx, tx, src, r.Items, status, now); err != nil {
			return 0, err
		}
	}
	etag, lastMod := r.ETag, r.LastModified
	if r.NotModified {
		etag, lastMod = src.ETag, src.LastModified
	}
	_, err = tx.ExecContext(ctx, `update sources set fetch_status = 'IDLE', queued_at = null, fetch_started_at = null,
		last_fetched_at = $1, next_fetch_at = $2, last_error = '', fetch_failure = '', error_count = 0,
		status = case when status = 'PAUSED' then 'PAUSED' else 'ACTIVE' end,
		etag = $3, last_modified = $4, name = $5, refresh_interval_minutes = $6
		where id = $7`, now, next, etag, lastMod, name, interval, src.ID)
	if err != nil {
		return 0, fmt.Errorf("postgres: finish fetch: %w", err)
	}
	if then != nil {
		if err := then(ctx, tx, newIDs, first); err != nil {
			return 0, err
		}
	}
	return len(newIDs), nil
}

// FailFetch records a failed fetch: its kind and message. When blame is false (the machine seems
// offline) the source's error count is left alone. The next attempt waits interval × 2^errors
// (capped at app.MaxBackoff), or retryAfter when the server asked for longer. then runs in the
// same transaction.
func (db *DB) FailFetch(ctx context.Context, src *app.Source, kind app.FetchFailure, msg string, blame bool, retryAfter time.Duration, then app.TxFunc) error {
	now := db.now()
	errs := src.ErrorCount
	if blame {
		errs++
	}
	wait := app.Backoff(time.Duration(src.RefreshIntervalMinutes)*time.Minute, errs)
	if !blame {
		wait = time.Duration(src.RefreshIntervalMinutes) * time.Minute
	}
	wait = max(wait, retryAfter)
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `update sources set fetch_status = 'IDLE', queued_at = null, fetch_started_at = null,
			last_error = $1, fetch_failure = $2, error_count = $3::integer, next_fetch_at = $4,
			status = case when status = 'PAUSED' then 'PAUSED' when $3::integer >= $5::integer then 'ERROR' else status end
			where id = $6`, msg, string(kind), errs, now.Add(wait), app.ErrorThreshold, src.ID)
		if err != nil {
			return fmt.Errorf("postgres: fail fetch: %w", err)
		}
		if then != nil {
			return then(ctx, tx)
		}
		return nil
	})
}

// ResetStuckSources sets sources QUEUED or FETCHING since before cutoff, whose job is gone, back
// to IDLE and returns their ids.
func (db *DB) ResetStuckSources(ctx context.Context, cutoff time.Time) ([]int64, error) {
	rows, err := db.SQL.QueryContext(ctx, `update sources set fetch_status = 'IDLE', queued_at = null, fetch_started_at = null
		where ((fetch_status = 'QUEUED' and queued_at < $1) or (fetch_status = 'FETCHING' and fetch_started_at < $1))
		and `+noLiveJob("fetch", "sourceId", "id")+` returning id`, dbTime(cutoff))
	if err != nil {
		return nil, fmt.Errorf("postgres: reset stuck sources: %w", err)
	}
	return scanIDs(rows)
}

// noLiveJob is a condition on idColumn: no message in goqite's queue carries the entity's id in
// its body's data.field (see package sqlite's: goqite has no way to find a message by its
// body, so its table is read). A body that is not JSON is passed over (md_json_or_null).
func noLiveJob(queue, field, idColumn string) string {
	return idColumn + ` not in (select v from (select (md_json_or_null(body) -> 'data' ->> '` + field + `')::bigint as v
		from goqite where ` + inQueue("'"+queue+"'") + `) j where v is not null)`
}

// scanIDs reads a column of ids and closes rows.
func scanIDs(rows *sql.Rows) ([]int64, error) {
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
