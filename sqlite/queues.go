package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// noLiveJob is a condition on an entity's id column: no job in the named queue is about it
// (its data's field equals the id). An entity whose job still waits — the queue paused, the app
// down — or will be delivered again after its process was killed is not stuck: resetting it
// would lose what the job stands for (an acknowledged "run now") or queue the work twice.
// Only when the job is gone (dead-lettered, or lost with a queue emptied by hand) is the entity
// reset. The subquery is evaluated once per statement, not per row.
func noLiveJob(queue, field, idColumn string) string {
	return idColumn + ` not in (select v from (select case when json_valid(cast(body as text))
		then json_extract(cast(body as text), '$.data.` + field + `') end as v
		from goqite where queue = '` + queue + `') where v is not null)`
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
			where status in ('PENDING', 'PROCESSING') and status_changed_at < ?1 and `+noLiveJob("process", "itemId", "id")+`
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

// Check reports whether the database answers reads and can take a write.
func (db *DB) Check(ctx context.Context) error {
	var n int
	if err := db.Read.QueryRowContext(ctx, `select count(*) from users`).Scan(&n); err != nil {
		return fmt.Errorf("the database does not answer: %w", err)
	}
	// A write transaction (BEGIN IMMEDIATE on this pool) proves the write lock can be had.
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	tx, err := db.Write.BeginTx(wctx, nil)
	if err != nil {
		return fmt.Errorf("the database does not take writes: %w", err)
	}
	if err := tx.Rollback(); err != nil {
		return fmt.Errorf("the database does not take writes: %w", err)
	}
	return nil
}
