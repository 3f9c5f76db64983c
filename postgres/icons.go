package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

var _ app.IconStore = (*DB)(nil)

// IconsDue returns up to limit sources (id and address) whose icon was never fetched or was
// fetched before cutoff, those never fetched first.
func (db *DB) IconsDue(ctx context.Context, cutoff time.Time, limit int) ([]app.SourceName, error) {
	return queryAll(ctx, db, "icons due", func(r scanner) (app.SourceName, error) {
		var n app.SourceName
		return n, r.Scan(&n.ID, &n.Name)
	}, `select s.id, s.url from sources s left join source_icons c on c.source_id = s.id
		where c.source_id is null or c.fetched_at < $1 order by c.fetched_at nulls first, s.id limit $2`, dbTime(cutoff), limit)
}

// SaveIcon stores a source's icon, or with a nil icon that it has none (and why). A refresh
// that finds nothing keeps the icon stored before: a site down for a day keeps its icon.
func (db *DB) SaveIcon(ctx context.Context, sourceID int64, icon *app.Icon, problem string, at time.Time) error {
	var err error
	if icon == nil {
		_, err = db.SQL.ExecContext(ctx, `insert into source_icons (source_id, error, fetched_at) select id, $1, $2 from sources where id = $3
			on conflict (source_id) do update set error = excluded.error, fetched_at = excluded.fetched_at`, problem, dbTime(at), sourceID)
	} else {
		_, err = db.SQL.ExecContext(ctx, `insert into source_icons (source_id, content_type, data, etag, error, fetched_at) select id, $1, $2, $3, '', $4 from sources where id = $5
			on conflict (source_id) do update set content_type = excluded.content_type, data = excluded.data, etag = excluded.etag,
			error = '', fetched_at = excluded.fetched_at`, icon.ContentType, icon.Data, icon.ETag, dbTime(at), sourceID)
	}
	if err != nil {
		return fmt.Errorf("postgres: save icon: %w", err)
	}
	return nil
}

// SourceIcon returns one of the user's sources' stored icon.
func (db *DB) SourceIcon(ctx context.Context, userID, sourceID int64) (*app.Icon, error) {
	var ic app.Icon
	err := db.SQL.QueryRowContext(ctx, `select c.content_type, c.data, c.etag, c.fetched_at from source_icons c join sources s on s.id = c.source_id
		where c.source_id = $1 and s.user_id = $2 and length(c.data) > 0`, sourceID, userID).Scan(&ic.ContentType, &ic.Data, &ic.ETag, &ic.FetchedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, app.Errorf(app.ENOTFOUND, "Source %d has no icon.", sourceID)
	} else if err != nil {
		return nil, fmt.Errorf("postgres: icon: %w", err)
	}
	ic.FetchedAt = ic.FetchedAt.UTC()
	return &ic, nil
}
