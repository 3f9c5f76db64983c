package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/morningdeck/morningdeck/app"
)

var _ app.FolderStore = (*DB)(nil)

// Folders returns the user's folders by name with their source and unread counts, each unread
// count up to unreadCap when it is above 0. The unread count reads items_source_unread_idx's
// entries of each source, not the items.
func (db *DB) Folders(ctx context.Context, userID int64, unreadCap int) ([]*app.Folder, error) {
	st, err := db.readStmt(ctx, `select f.id, f.user_id, f.name,
		(select count(*) from sources s where s.folder_id = f.id),
		(select count(*) from (select 1 from sources s join items i indexed by items_source_unread_idx on i.source_id = s.id
			where s.folder_id = f.id and i.read_at is null and i.hidden = 0 limit ?2))
		from folders f where f.user_id = ?1 order by f.name collate nocase, f.id`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: folders: %w", err)
	}
	rows, err := st.QueryContext(ctx, userID, sqlLimit(unreadCap))
	if err != nil {
		return nil, fmt.Errorf("sqlite: folders: %w", err)
	}
	defer rows.Close()
	var out []*app.Folder
	for rows.Next() {
		var f app.Folder
		if err := rows.Scan(&f.ID, &f.UserID, &f.Name, &f.Sources, &f.Unread); err != nil {
			return nil, fmt.Errorf("sqlite: folders: %w", err)
		}
		out = append(out, &f)
	}
	return out, rows.Err()
}

// UnfiledUnread counts the unread items of the user's sources in no folder.
func (db *DB) UnfiledUnread(ctx context.Context, userID int64) (int, error) {
	var n int
	err := db.Read.QueryRowContext(ctx, `select count(*) from sources s join items i indexed by items_source_unread_idx on i.source_id = s.id
		where s.user_id = ? and s.folder_id is null and i.read_at is null and i.hidden = 0`, userID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("sqlite: unfiled unread: %w", err)
	}
	return n, nil
}

func (db *DB) folder(ctx context.Context, userID, id int64) (*app.Folder, error) {
	all, err := db.Folders(ctx, userID, 0)
	if err != nil {
		return nil, err
	}
	for _, f := range all {
		if f.ID == id {
			return f, nil
		}
	}
	return nil, app.Errorf(app.ENOTFOUND, "Folder %d not found.", id)
}

// ensureFolderTx returns the id of the user's folder called name (any case), making it when new.
func ensureFolderTx(ctx context.Context, tx *sql.Tx, userID int64, name string) (int64, error) {
	var id int64
	err := tx.QueryRowContext(ctx, `select id from folders where user_id = ? and name = ?`, userID, name).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		err = tx.QueryRowContext(ctx, `insert into folders (user_id, name) values (?, ?) returning id`, userID, name).Scan(&id)
	}
	if err != nil {
		return 0, fmt.Errorf("sqlite: folder: %w", err)
	}
	return id, nil
}

// EnsureFolder returns the user's folder called name (any case), making it when new.
func (db *DB) EnsureFolder(ctx context.Context, userID int64, name string) (*app.Folder, error) {
	var id int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var err error
		id, err = ensureFolderTx(ctx, tx, userID, name)
		return err
	})
	if err != nil {
		return nil, err
	}
	return db.folder(ctx, userID, id)
}

// RenameFolder renames one of the user's folders.
func (db *DB) RenameFolder(ctx context.Context, userID, id int64, name string) (*app.Folder, error) {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `update folders set name = ? where id = ? and user_id = ?`, name, id, userID)
		if err != nil {
			if strings.Contains(err.Error(), "UNIQUE constraint failed") {
				return app.Errorf(app.ECONFLICT, "You already have a folder called %q.", name)
			}
			return fmt.Errorf("sqlite: rename folder: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return app.Errorf(app.ENOTFOUND, "Folder %d not found.", id)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return db.folder(ctx, userID, id)
}

// DeleteFolder deletes one of the user's folders; its sources stay, in no folder.
func (db *DB) DeleteFolder(ctx context.Context, userID, id int64) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `update sources set folder_id = null where folder_id = ? and user_id = ?`, id, userID); err != nil {
			return fmt.Errorf("sqlite: delete folder: %w", err)
		}
		res, err := tx.ExecContext(ctx, `delete from folders where id = ? and user_id = ?`, id, userID)
		if err != nil {
			return fmt.Errorf("sqlite: delete folder: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return app.Errorf(app.ENOTFOUND, "Folder %d not found.", id)
		}
		return nil
	})
}
