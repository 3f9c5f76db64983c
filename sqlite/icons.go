package sqlite

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
	rows, err := db.Read.QueryContext(ctx, `select s.id, s.url from sources s left join source_icons c on c.source_id = s.id
		where c.source_id is null or c.fetched_at < ? order by c.fetched_at is not null, c.fetched_at, s.id limit ?`, FormatTime(cutoff), limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: icons due: %w", err)
	}
	defer rows.Close()
	var out []app.SourceName
	for rows.Next() {
		var n app.SourceName
		if err := rows.Scan(&n.ID, &n.Name); err != nil {
			return nil, fmt.Errorf("sqlite: icons due: %w", err)
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

// SaveIcon stores a source's icon, or with a nil icon that it has none (and why). A refresh
// that finds nothing keeps the icon stored before: a site down for a day keeps its icon.
func (db *DB) SaveIcon(ctx context.Context, sourceID int64, icon *app.Icon, problem string, at time.Time) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		var err error
		if icon == nil {
			_, err = tx.ExecContext(ctx, `insert into source_icons (source_id, error, fetched_at) select id, ?, ? from sources where id = ?
				on conflict (source_id) do update set error = excluded.error, fetched_at = excluded.fetched_at`, problem, FormatTime(at), sourceID)
		} else {
			_, err = tx.ExecContext(ctx, `insert into source_icons (source_id, content_type, data, etag, error, fetched_at) select id, ?, ?, ?, '', ? from sources where id = ?
				on conflict (source_id) do update set content_type = excluded.content_type, data = excluded.data, etag = excluded.etag,
				error = '', fetched_at = excluded.fetched_at`, icon.ContentType, icon.Data, icon.ETag, FormatTime(at), sourceID)
		}
		if err != nil {
			return fmt.Errorf("sqlite: save icon: %w", err)
		}
		return nil
	})
}

// SourceIcon returns one of the user's sources' stored icon.
func (db *DB) SourceIcon(ctx context.Context, userID, sourceID int64) (*app.Icon, error) {
	var ic app.Icon
	var at string
	err := db.Read.QueryRowContext(ctx, `select c.content_type, c.data, c.etag, c.fetched_at from source_icons c join sources s on s.id = c.source_id
		where c.source_id = ? and s.user_id = ? and length(c.data) > 0`, sourceID, userID).Scan(&ic.ContentType, &ic.Data, &ic.ETag, &at)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, app.Errorf(app.ENOTFOUND, "Source %d has no icon.", sourceID)
	} else if err != nil {
		return nil, fmt.Errorf("sqlite: icon: %w", err)
	}
	ic.FetchedAt = parseTime(at)
	return &ic, nil
}
