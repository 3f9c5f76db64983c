package postgres

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/morningdeck/morningdeck/app/htmltext"
)

// goMigrations are the steps of migrations that SQL cannot do, run after the migration's script
// in its transaction.
var goMigrations = map[int]func(context.Context, *sql.Tx) error{
	11: migrateTextOnce,
}

// migrateTextOnce is migration 0011's step: each item's text_content is emptied where it is the
// plain text of its clean_content (htmltext.Stored). It reads the items with a text in id
// order, a thousand at a time, and rewrites only the rows that change, a batch in one update.
func migrateTextOnce(ctx context.Context, tx *sql.Tx) error {
	const step = 1000
	for from := int64(0); ; {
		rows, err := tx.QueryContext(ctx, `select id, text_content, clean_content from items where id > $1 and text_content != '' order by id limit $2`, from, step)
		if err != nil {
			return fmt.Errorf("text once: %w", err)
		}
		ids, last, n, err := htmltext.Derivable(rows)
		if err != nil {
			return fmt.Errorf("text once: %w", err)
		}
		from = last
		if len(ids) > 0 {
			if _, err := tx.ExecContext(ctx, `update items set text_content = '' where id = any($1)`, ids); err != nil {
				return fmt.Errorf("text once: %w", err)
			}
		}
		if n < step {
			return nil
		}
	}
}
