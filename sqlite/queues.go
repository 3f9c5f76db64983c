package sqlite

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// noLiveJob is a condition on an entity's id column: no job in the named queue is about it
// (its data's field equals the id). An entity whose job still waits — the queue paused, the app
// down — or will be delivered again after its process was killed is not stuck: resetting it
// would lose what the job stands for (an acknowledged "run now") or queue the work twice.
// Only when the job is gone (dead-lettered, or lost with a queue emptied by hand) is the entity
// reset. The subquery is evaluated once per statement, not per row. It reads goqite's table
// itself: goqite has no way to list a queue's messages or find one by its body.
func noLiveJob(queue, field, idColumn string) string {
	return idColumn + ` not in (select v from (select case when json_valid(cast(body as text))
		then json_extract(cast(body as text), '$.data.` + field + `') end as v
		from goqite where ` + inQueue("'"+queue+"'") + `) where v is not null)`
}

// inQueue is the condition on goqite's queue column for a queue of ours, name (an SQL
// expression): its messages may be spread over lanes (queue.Options.Lanes), goqite queues named
// name, name#1, name#2, …
func inQueue(name string) string {
	return `(queue = ` + name + ` or queue glob ` + name + ` || '#[0-9]*')`
}

// StuckEntities lists sources, items and briefings in a transitional state since before cutoff
// (what the recovery jobs will reset), at most limit, oldest first.
func (db *DB) StuckEntities(ctx context.Context, cutoff time.Time, limit int) ([]app.StuckEntity, error) {
	c := FormatTime(cutoff)
	rows, err := db.Read.QueryContext(ctx, `
		select * from (
			select 'source', id, name, fetch_status, coalesce(case fetch_status when 'QUEUED' then queued_at else fetch_started_at end, '') as since
			from sources where ((fetch_status = 'QUEUED' and queued_at < ?1) or (fetch_status = 'FETCHING' and fetch_started_at < ?1))
			and `+noLiveJob("fetch", "sourceId", "id")+`
			union all
			select 'item', id, title, status, status_changed_at from items
			where status in ('PENDING', 'PROCESSING') and `+inFlight+` and status_changed_at < ?1 and `+noLiveJob("process", "itemId", "id")+`
			union all
			select 'briefing', id, name, status, status_changed_at from briefings
			where status in ('QUEUED', 'PROCESSING') and status_changed_at < ?1 and `+noLiveJob("briefing", "briefingId", "id")+`
		) order by since limit ?2`, c, max(limit, 1))
	if err != nil {
		return nil, fmt.Errorf("sqlite: stuck entities: %w", err)
	}
	defer rows.Close()
	var out []app.StuckEntity
	for rows.Next() {
		var e app.StuckEntity
		var since string
		if err := rows.Scan(&e.Kind, &e.ID, &e.Name, &e.State, &since); err != nil {
			return nil, fmt.Errorf("sqlite: stuck entities: %w", err)
		}
		e.Since = parseTime(since)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: stuck entities: %w", err)
	}
	return out, nil
}

// Check reports whether the database answers reads and takes a committed write, and says why
// not in words a person can act on: the disk is full, the file is read-only, the file is
// damaged (an integrity check, run at most every integrityEvery), or a recent write failed for
// one of these reasons.
func (db *DB) Check(ctx context.Context) error {
	var n int
	if err := db.Read.QueryRowContext(ctx, `select count(*) from users`).Scan(&n); err != nil {
		return fmt.Errorf("the database does not answer: %w", describe(err))
	}
	if err := db.integrity(ctx); err != nil {
		return err
	}
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	var pages, maxPages, free int64
	if err := db.Write.QueryRowContext(wctx, `select (select page_count from pragma_page_count), (select max_page_count from pragma_max_page_count), (select freelist_count from pragma_freelist_count)`).Scan(&pages, &maxPages, &free); err != nil {
		return fmt.Errorf("the database does not answer: %w", describe(err))
	}
	if maxPages > 0 && pages >= maxPages && free == 0 {
		return fmt.Errorf("the disk holding the database is full: the file reached its largest size (%d pages)", maxPages)
	}
	// A committed write (one row of its own) proves the file takes writes. It is not recorded as
	// a successful write: rewriting a row needs no new space, so it says nothing of a full disk.
	if _, err := db.Write.ExecContext(wctx, `insert into health (id, checked_at) values (1, ?) on conflict (id) do update set checked_at = excluded.checked_at`, db.now()); err != nil {
		return fmt.Errorf("the database does not take writes: %w", describe(err))
	}
	if f := db.writeFailure.Load(); f != nil && time.Since(f.at) < 10*time.Minute {
		return fmt.Errorf("a write failed %s ago: %w", time.Since(f.at).Round(time.Second), f.err)
	}
	return nil
}

// integrityEvery is how often Check runs SQLite's quick_check (which reads the whole file).
const integrityEvery = 10 * time.Minute

// integrity returns the last verdict of quick_check and, when it is older than integrityEvery,
// starts the next one in the background: reading a large file takes seconds, which a page
// render (the health banner) or an uptime probe must not wait for.
func (db *DB) integrity(context.Context) error {
	db.checkMu.Lock()
	defer db.checkMu.Unlock()
	if !db.checking && (db.checkedAt.IsZero() || time.Since(db.checkedAt) >= integrityEvery) {
		db.checking = true
		go db.quickCheck()
	}
	return db.checkResult
}

// quickCheck runs quick_check and records its verdict (a failure to run it, such as a closed
// database, is no verdict).
func (db *DB) quickCheck() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var res string
	err := db.Read.QueryRowContext(ctx, `pragma quick_check(1)`).Scan(&res)
	var verdict error
	switch {
	case err != nil && !strings.HasPrefix(describe(err).Error(), "the database file is damaged"):
		db.checkMu.Lock()
		db.checking = false
		db.checkedAt = time.Now()
		db.checkMu.Unlock()
		return
	case err != nil:
		verdict = describe(err)
	case res != "ok":
		verdict = fmt.Errorf("the database file is damaged (%s): stop Morning Deck and copy a backup over it (see morningdeck backup --help)", res)
	}
	db.checkMu.Lock()
	db.checking, db.checkedAt, db.checkResult = false, time.Now(), verdict
	db.checkMu.Unlock()
}
