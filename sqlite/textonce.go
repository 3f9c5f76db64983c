package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/morningdeck/morningdeck/app/htmltext"
)

// goMigrations are the steps of migrations that SQL cannot do, run after the migration's script
// in its transaction.
var goMigrations = map[int]func(context.Context, *sql.Tx) error{
	31: migrateTextOnce,
}

// migrateTextOnce is migration 0031's step: each item's text_content is emptied where it is the
// plain text of its clean_content (htmltext.Stored), and the items indexed before (up to
// fts_state.last_id) go into the new contentless search index. It reads the items in id order,
// a thousand at a time (a row's text once, not the whole table in memory), and rewrites only
// the rows that change.
func migrateTextOnce(ctx context.Context, tx *sql.Tx) error {
	var indexed int64
	if err := tx.QueryRowContext(ctx, `select last_id from fts_state`).Scan(&indexed); err != nil {
		return fmt.Errorf("text once: %w", err)
	}
	clear, err := tx.PrepareContext(ctx, `update items set text_content = '' where id = ?`)
	if err != nil {
		return fmt.Errorf("text once: %w", err)
	}
	defer clear.Close()
	const step = 1000
	for from := int64(0); ; {
		rows, err := tx.QueryContext(ctx, `select id, text_content, clean_content from items where id > ? and text_content != '' order by id limit ?`, from, step)
		if err != nil {
			return fmt.Errorf("text once: %w", err)
		}
		ids, last, n, err := htmltext.Derivable(rows)
		if err != nil {
			return fmt.Errorf("text once: %w", err)
		}
		from = last
		for _, id := range ids {
			if _, err := clear.ExecContext(ctx, id); err != nil {
				return fmt.Errorf("text once: %w", err)
			}
		}
		if n < step {
			break
		}
	}
	// The index is rebuilt after the conversion: the update trigger marked nothing then that
	// is not indexed here (and marks are cleared).
	for from := int64(0); from < indexed; from += step {
		if _, err := indexRows(ctx, tx, `where id > ? and id <= ?`, from, min(from+step, indexed)); err != nil {
			return fmt.Errorf("text once: %w", err)
		}
	}
	if _, err := tx.ExecContext(ctx, `delete from fts_stale`); err != nil {
		return fmt.Errorf("text once: %w", err)
	}
	return nil
}
