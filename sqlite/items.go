package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/morningdeck/morningdeck/app"
)

func encodeExtra(m map[string]any) string {
	if len(m) == 0 {
		return "{}"
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "{}"
	}
	return string(b)
}

// Items returns the user's items, newest first (by publication, else arrival).
func (db *DB) Items(ctx context.Context, f app.ItemFilter) ([]*app.Item, error) {
	if f.Limit <= 0 || f.Limit > 500 {
		f.Limit = 50
	}
	q := `select i.id, i.source_id, i.user_id, i.guid, i.title, i.link, i.author, i.published_at, i.raw_content,
		i.clean_content, i.extra, i.status, i.created_at, s.name
		from items i join sources s on s.id = i.source_id
		where i.user_id = ?`
	args := []any{f.UserID}
	if f.SourceID != 0 {
		q += ` and i.source_id = ?`
		args = append(args, f.SourceID)
	}
	q += ` order by coalesce(i.published_at, i.created_at) desc, i.id desc limit ? offset ?`
	args = append(args, f.Limit, max(f.Offset, 0))
	rows, err := db.Read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: items: %w", err)
	}
	defer rows.Close()
	var out []*app.Item
	for rows.Next() {
		var it app.Item
		var published sql.NullString
		var created, extra string
		if err := rows.Scan(&it.ID, &it.SourceID, &it.UserID, &it.GUID, &it.Title, &it.Link, &it.Author, &published,
			&it.RawContent, &it.CleanContent, &extra, &it.Status, &created, &it.SourceName); err != nil {
			return nil, fmt.Errorf("sqlite: items: %w", err)
		}
		it.PublishedAt = parseTimePtr(published)
		it.CreatedAt = parseTime(created)
		if extra != "" && extra != "{}" {
			_ = json.Unmarshal([]byte(extra), &it.Extra)
		}
		out = append(out, &it)
	}
	return out, rows.Err()
}

// CountItems returns how many items the user has (of one source when sourceID is not 0).
func (db *DB) CountItems(ctx context.Context, userID, sourceID int64) (int, error) {
	var n int
	err := db.Read.QueryRowContext(ctx, `select count(*) from items where user_id = ? and (? = 0 or source_id = ?)`, userID, sourceID, sourceID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("sqlite: count items: %w", err)
	}
	return n, nil
}
