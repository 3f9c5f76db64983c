package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/morningdeck/morningdeck/app"
)

// Filters returns the user's filter rules.
func (db *DB) Filters(ctx context.Context, userID int64) ([]*app.Filter, error) {
	st, err := db.readStmt(ctx, `select id, user_id, source_id, name, field, match, pattern, action, score_delta, enabled, created_at
		from filters where user_id = ? order by id`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: filters: %w", err)
	}
	rows, err := st.QueryContext(ctx, userID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: filters: %w", err)
	}
	defer rows.Close()
	var out []*app.Filter
	for rows.Next() {
		var f app.Filter
		var src sql.NullInt64
		var created string
		if err := rows.Scan(&f.ID, &f.UserID, &src, &f.Name, &f.Field, &f.Match, &f.Pattern, &f.Action, &f.ScoreDelta, &f.Enabled, &created); err != nil {
			return nil, fmt.Errorf("sqlite: filters: %w", err)
		}
		if src.Valid {
			f.SourceID = &src.Int64
		}
		f.CreatedAt = parseTime(created)
		if f.Validate() != nil {
			continue // a rule that no longer compiles is skipped, not fatal
		}
		out = append(out, &f)
	}
	return out, rows.Err()
}

// CreateFilter stores a filter rule that app.Reading.AddFilter validated; it checks that the
// rule's source is the user's.
func (db *DB) CreateFilter(ctx context.Context, f *app.Filter) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		if f.SourceID != nil {
			var n int
			if err := tx.QueryRowContext(ctx, `select count(*) from sources where id = ? and user_id = ?`, *f.SourceID, f.UserID).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				return app.Errorf(app.EINVALID, "Source %d not found.", *f.SourceID)
			}
		}
		return tx.QueryRowContext(ctx, `insert into filters (user_id, source_id, name, field, match, pattern, action, score_delta, enabled)
			values (?, ?, ?, ?, ?, ?, ?, ?, ?) returning id`, f.UserID, f.SourceID, f.Name, f.Field, f.Match, f.Pattern, f.Action, f.ScoreDelta, f.Enabled).Scan(&f.ID)
	})
}

// DeleteFilter deletes a filter rule.
func (db *DB) DeleteFilter(ctx context.Context, userID, id int64) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `delete from filters where id = ? and user_id = ?`, id, userID)
		if err != nil {
			return fmt.Errorf("sqlite: delete filter: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return app.Errorf(app.ENOTFOUND, "Filter %d not found.", id)
		}
		return nil
	})
}
