package postgres

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

var _ app.CareStore = (*DB)(nil)

// TombstoneGrace is how long after a fetch last offered a pruned entry (or after it was pruned)
// its tombstone is kept once later fetches show it left its feed (package sqlite's).
const TombstoneGrace = 30 * 24 * time.Hour

// pruneLock is the advisory lock key of the prune ("mdprune" in ASCII).
const pruneLock int64 = 0x6d647072756e65

// pruneBatch is how many items one prune transaction looks at: PostgreSQL has no single writer
// for it to hold up, but a short transaction keeps its row locks brief.
const pruneBatch = 1000

// Prune deletes the items that arrived (created_at) before olderThan, except starred items,
// items referenced by a report and items being processed (PENDING, PROCESSING), leaving a
// tombstone for each so the fetcher does not store them again (the items_tombstone trigger),
// and deletes the tombstones of entries that have left their feeds. The search vector goes with
// its row: there is no index to compact. Several instances may run it at once: a row deleted by
// one is not found by the other, and tombstones are inserted on conflict do nothing.
// FreeBytes is 0: PostgreSQL's autovacuum makes the space of deleted rows reusable.
func (db *DB) Prune(ctx context.Context, olderThan time.Time) (app.PruneResult, error) {
	var res app.PruneResult
	// One instance prunes at a time (a session lock on a connection of its own); another
	// asking meanwhile has nothing to do: the one pruning deletes what it would.
	conn, err := db.SQL.Conn(ctx)
	if err != nil {
		return res, fmt.Errorf("postgres: prune: %w", err)
	}
	defer conn.Close()
	var locked bool
	if err := conn.QueryRowContext(ctx, `select pg_try_advisory_lock($1)`, pruneLock).Scan(&locked); err != nil {
		return res, fmt.Errorf("postgres: prune: %w", err)
	}
	if !locked {
		db.log.Info("another instance is pruning", "component", "postgres")
		return res, nil
	}
	defer func() {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), `select pg_advisory_unlock($1)`, pruneLock)
	}()
	start := time.Now()
	cutoff := dbTime(olderThan)
	lastAt, lastID := time.Time{}, int64(0)
	for {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		var seen, deleted int
		t0 := time.Now()
		err := db.tx(ctx, func(tx *sql.Tx) error {
			seen, deleted = 0, 0
			rows, err := tx.QueryContext(ctx, `select id, created_at,
				not starred and status not in ('PENDING', 'PROCESSING') and not exists (select 1 from report_items r where r.item_id = items.id)
				from items where created_at < $1 and (created_at, id) > ($2, $3)
				order by created_at, id limit $4`, cutoff, lastAt, lastID, pruneBatch)
			if err != nil {
				return fmt.Errorf("postgres: prune: %w", err)
			}
			var ids []int64
			for rows.Next() {
				var id int64
				var at time.Time
				var del bool
				if err := rows.Scan(&id, &at, &del); err != nil {
					rows.Close()
					return fmt.Errorf("postgres: prune: %w", err)
				}
				seen++
				lastAt, lastID = at, id
				if del {
					ids = append(ids, id)
				}
			}
			if err := errors.Join(rows.Err(), rows.Close()); err != nil {
				return fmt.Errorf("postgres: prune: %w", err)
			}
			if len(ids) == 0 {
				return nil
			}
			if _, err := tx.ExecContext(ctx, `insert into item_tombstones (source_id, guid, pruned_at)
				select source_id, guid, $1 from items where id = any($2)
				on conflict (source_id, guid) do nothing`, db.now(), ids); err != nil {
				return fmt.Errorf("postgres: prune: tombstones: %w", err)
			}
			r, err := tx.ExecContext(ctx, `delete from items where id = any($1)`, ids)
			if err != nil {
				return fmt.Errorf("postgres: prune: delete items: %w", err)
			}
			n, _ := r.RowsAffected()
			deleted = int(n)
			return nil
		})
		if err != nil {
			return res, err
		}
		res.Batches++
		res.Items += deleted
		res.LongestBatch = max(res.LongestBatch, time.Since(t0))
		if seen < pruneBatch {
			break
		}
	}
	n, err := db.expireTombstones(ctx)
	res.Tombstones = n
	if err != nil {
		return res, err
	}
	if err := db.SQL.QueryRowContext(ctx, `select count(*) from items where created_at < $1`, cutoff).Scan(&res.Kept); err != nil {
		return res, fmt.Errorf("postgres: prune: %w", err)
	}
	db.log.Info("pruned", "component", "postgres", "before", cutoff, "items", res.Items, "kept", res.Kept,
		"tombstones", res.Tombstones, "batches", res.Batches, "longestBatch", res.LongestBatch, "duration", time.Since(start))
	return res, nil
}

// expireTombstones deletes the tombstones whose entries have left their feeds: a fetch of the
// source at least TombstoneGrace after the entry was last offered (or pruned) did not offer it.
// The latest fetch of a source that brought anything is the later of its newest item's arrival
// and its tombstones' latest sighting (package sqlite's rule), here in one statement.
func (db *DB) expireTombstones(ctx context.Context) (int, error) {
	res, err := db.SQL.ExecContext(ctx, `with last as (
			select t.source_id, greatest(max(t.seen_at), (select i.created_at from items i where i.source_id = t.source_id order by i.id desc limit 1)) as at
			from item_tombstones t group by t.source_id)
		delete from item_tombstones t using last
		where t.source_id = last.source_id and last.at is not null and coalesce(t.seen_at, t.pruned_at) < last.at - $1::interval`,
		strconv.Itoa(int(TombstoneGrace/time.Second))+" seconds")
	if err != nil {
		return 0, fmt.Errorf("postgres: expire tombstones: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// Vacuum runs VACUUM (ANALYZE) on the database: it makes the space of deleted rows reusable
// and refreshes the planner's statistics, without locking out the other instances. (It gives no
// space back to the file system; VACUUM FULL would, locking each table while it rewrites it:
// run that by hand at a quiet time if ever needed.) autovacuum does the same on its own.
func (db *DB) Vacuum(ctx context.Context) error {
	if _, err := db.SQL.ExecContext(ctx, `vacuum (analyze)`); err != nil {
		return fmt.Errorf("postgres: vacuum: %w", err)
	}
	return nil
}

// IntegrityCheck is "ok" unless PostgreSQL counted data-checksum failures in this database
// (pg_stat_database.checksum_failures). PostgreSQL checks a page's checksum when it reads it,
// when the cluster was made with data checksums (initdb --data-checksums); without them it
// cannot tell a damaged page, and "ok" says only that the database answers.
func (db *DB) IntegrityCheck(ctx context.Context) (string, error) {
	var failures sql.NullInt64
	if err := db.SQL.QueryRowContext(ctx, `select checksum_failures from pg_stat_database where datname = current_database()`).Scan(&failures); err != nil {
		return "", fmt.Errorf("postgres: integrity check: %w", err)
	}
	if failures.Valid && failures.Int64 > 0 {
		return fmt.Sprintf("%d data checksum failures (see the server's log)", failures.Int64), nil
	}
	return "ok", nil
}

// IndexItems has nothing to do: the search vector is a generated column, current with every
// write.
func (db *DB) IndexItems(context.Context, int) (int, error) { return 0, nil }

// SourcesFetchedSince counts the sources fetched at or after t.
func (db *DB) SourcesFetchedSince(ctx context.Context, t time.Time) (int, error) {
	var n int
	if err := db.SQL.QueryRowContext(ctx, `select count(*) from sources where last_fetched_at >= $1`, dbTime(t)).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: count fetched sources: %w", err)
	}
	return n, nil
}

// pgDump finds pg_dump: on the PATH, else Debian's newest.
func pgDump() (string, error) {
	if p, err := exec.LookPath("pg_dump"); err == nil {
		return p, nil
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_dump")
	sort.Slice(found, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(found[i]))))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(found[j]))))
		return vi > vj
	})
	if len(found) > 0 {
		return found[0], nil
	}
	return "", errors.New("a backup of a PostgreSQL database is made with pg_dump, which is not installed here: " +
		"install PostgreSQL's client tools (Debian: apt-get install postgresql-client, of the server's major version or newer), " +
		"or back the database up with your server's own tools (pg_dump, pg_basebackup, or your provider's snapshots)")
}

// Backup writes a consistent copy of the database to path with pg_dump (its custom format, for
// pg_restore), while the instances keep writing (pg_dump reads one snapshot). It is written to a
// temporary file next to path (mode 0600), then moved into place; it never overwrites a file.
func (db *DB) Backup(ctx context.Context, path string) error {
	if path == "" {
		return errors.New("postgres: backup: no path")
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); err != nil {
		return fmt.Errorf("postgres: backup: %w", err)
	} else if !fi.IsDir() {
		return fmt.Errorf("postgres: backup: %s is not a directory", dir)
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("postgres: backup: %s already exists", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("postgres: backup: %w", err)
	}
	dump, err := pgDump()
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("postgres: backup: %w", err)
	}
	tmp := f.Name()
	defer os.Remove(tmp) // gone once renamed
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, dump, "--format=custom", "--no-owner", "--dbname="+db.url)
	cmd.Stdout, cmd.Stderr = f, &stderr
	err = cmd.Run()
	if err == nil {
		err = f.Sync()
	}
	if err = errors.Join(err, f.Close()); err != nil {
		return fmt.Errorf("postgres: backup with pg_dump: %w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("postgres: backup: %w", err)
	}
	return nil
}

// backupName matches the daily backups' names.
var backupName = regexp.MustCompile(`^morningdeck-(\d{4}-\d{2}-\d{2})\.dump$`)

// BackupRotate writes the day's backup (morningdeck-YYYY-MM-DD.dump) into dir unless it is
// there or another instance made the day's backup (care_runs), and deletes the oldest beyond
// keep (0 keeps all). It returns the new file's path, or "" when the day had one.
func (db *DB) BackupRotate(ctx context.Context, dir string, keep int, now time.Time) (string, error) {
	if dir == "" {
		return "", errors.New("postgres: backup: no directory")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("postgres: backup: create %s: %w", dir, err)
	}
	name := "morningdeck-" + now.Format("2006-01-02") + ".dump"
	path := filepath.Join(dir, name)
	if _, err := os.Lstat(path); err == nil {
		return "", nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("postgres: backup: %w", err)
	}
	// One instance makes the day's backup: the day's row, inserted in a transaction kept open
	// while pg_dump runs, makes the others wait, then find the day done (or, when this backup
	// failed and the row was rolled back, make it themselves).
	tx, err := db.SQL.BeginTx(ctx, nil)
	if err != nil {
		return "", fmt.Errorf("postgres: backup: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	host, _ := os.Hostname()
	res, err := tx.ExecContext(ctx, `insert into care_runs (what, day, host, at) values ('backup', $1, $2, $3) on conflict do nothing`,
		now.Format("2006-01-02"), host, db.now())
	if err != nil {
		return "", fmt.Errorf("postgres: backup: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return "", nil // another instance made the day's backup
	}
	if err := db.Backup(ctx, path); err != nil {
		return "", err
	}
	if err := tx.Commit(); err != nil {
		return path, fmt.Errorf("postgres: backup: %w", err)
	}
	if keep <= 0 {
		return path, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return path, fmt.Errorf("postgres: backup: rotate: %w", err)
	}
	var backups []string
	for _, e := range entries {
		if backupName.MatchString(e.Name()) && e.Type().IsRegular() && e.Name() != name {
			backups = append(backups, e.Name())
		}
	}
	sort.Strings(backups)
	var errs []error
	for _, old := range backups[:max(0, len(backups)-(keep-1))] {
		if err := os.Remove(filepath.Join(dir, old)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return path, errors.Join(errs...)
}

// StuckEntities lists sources, items and briefings in a transitional state since before cutoff
// whose job is gone (what the recovery jobs will reset), at most limit, oldest first.
func (db *DB) StuckEntities(ctx context.Context, cutoff time.Time, limit int) ([]app.StuckEntity, error) {
	return queryAll(ctx, db, "stuck entities", func(r scanner) (app.StuckEntity, error) {
		var e app.StuckEntity
		var since sql.NullTime
		err := r.Scan(&e.Kind, &e.ID, &e.Name, &e.State, &since)
		if since.Valid {
			e.Since = since.Time.UTC()
		}
		return e, err
	}, `select * from (
			select 'source' as kind, id, name, fetch_status as state, case fetch_status when 'QUEUED' then queued_at else fetch_started_at end as since
			from sources where ((fetch_status = 'QUEUED' and queued_at < $1) or (fetch_status = 'FETCHING' and fetch_started_at < $1))
			and `+noLiveJob("fetch", "sourceId", "id")+`
			union all
			select 'item', id, title, status, status_changed_at from items
			where status in ('PENDING', 'PROCESSING') and status_changed_at < $1 and `+noLiveJob("process", "itemId", "id")+`
			union all
			select 'briefing', id, name, status, status_changed_at from briefings
			where status in ('QUEUED', 'PROCESSING') and status_changed_at < $1 and `+noLiveJob("briefing", "briefingId", "id")+`
		) s order by since nulls first limit $2`, dbTime(cutoff), max(limit, 1))
}

// Check reports whether the database answers reads and takes a committed write.
func (db *DB) Check(ctx context.Context) error {
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var n int
	if err := db.SQL.QueryRowContext(wctx, `select count(*) from users`).Scan(&n); err != nil {
		return fmt.Errorf("the database does not answer: %w", err)
	}
	if _, err := db.SQL.ExecContext(wctx, `insert into health (id, checked_at) values (1, $1) on conflict (id) do update set checked_at = excluded.checked_at`, db.now()); err != nil {
		return fmt.Errorf("the database does not take writes: %w", err)
	}
	return nil
}
