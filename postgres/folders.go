package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/morningdeck/morningdeck/app"
)

var _ app.FolderStore = (*DB)(nil)

// Folders returns the user's folders by name (any case) with their source and unread counts,
// each unread count up to unreadCap when it is above 0. The unread count reads
// items_source_unread_idx's entries of each source.
func (db *DB) Folders(ctx context.Context, userID int64, unreadCap int) ([]*app.Folder, error) {
	return queryAll(ctx, db, "folders", func(r scanner) (*app.Folder, error) {
		var f app.Folder
		return &f, r.Scan(&f.ID, &f.UserID, &f.Name, &f.Sources, &f.Unread)
	}, `select f.id, f.user_id, f.name,
		(select count(*) from sources s where s.folder_id = f.id),
		(select count(*) from (select 1 from sources s join items i on i.source_id = s.id
			where s.folder_id = f.id and i.read_at is null and not i.hidden limit $2) u)
		from folders f where f.user_id = $1 order by md_nocase(f.name), f.id`, userID, sqlLimit(unreadCap))
}

// sqlLimit is a limit of n when n is above 0, none otherwise (limit null is no limit).
func sqlLimit(n int) any {
	if n > 0 {
		return n
	}
	return nil
}

// UnfiledUnread counts the unread items of the user's sources in no folder.
func (db *DB) UnfiledUnread(ctx context.Context, userID int64) (int, error) {
	var n int
	err := db.SQL.QueryRowContext(ctx, `select count(*) from sources s join items i on i.source_id = s.id
		where s.user_id = $1 and s.folder_id is null and i.read_at is null and not i.hidden`, userID).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("postgres: unfiled unread: %w", err)
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

// ensureFolderTx returns the id of the user's folder called name (any case), making it when
// new. Two instances making the same folder at once get the same one: the insert that loses
// the race on the unique index does nothing, and the select then finds the winner's.
func ensureFolderTx(ctx context.Context, tx *sql.Tx, userID int64, name string) (int64, error) {
	var id int64
	err := tx.QueryRowContext(ctx, `insert into folders (user_id, name) values ($1, $2)
		on conflict (user_id, md_nocase(name)) do nothing returning id`, userID, name).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		err = tx.QueryRowContext(ctx, `select id from folders where user_id = $1 and md_nocase(name) = md_nocase($2)`, userID, name).Scan(&id)
	}
	if err != nil {
		return 0, fmt.Errorf("postgres: folder: %w", err)
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
	res, err := db.SQL.ExecContext(ctx, `update folders set name = $1 where id = $2 and user_id = $3`, name, id, userID)
	if isCode(err, uniqueViolation) {
		return nil, app.Errorf(app.ECONFLICT, "You already have a folder called %q.", name)
	} else if err != nil {
		return nil, fmt.Errorf("postgres: rename folder: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, app.Errorf(app.ENOTFOUND, "Folder %d not found.", id)
	}
	return db.folder(ctx, userID, id)
}

// DeleteFolder deletes one of the user's folders; its sources stay, in no folder.
func (db *DB) DeleteFolder(ctx context.Context, userID, id int64) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `update sources set folder_id = null where folder_id = $1 and user_id = $2`, id, userID); err != nil {
			return fmt.Errorf("postgres: delete folder: %w", err)
		}
		res, err := tx.ExecContext(ctx, `delete from folders where id = $1 and user_id = $2`, id, userID)
		if err != nil {
			return fmt.Errorf("postgres: delete folder: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return app.Errorf(app.ENOTFOUND, "Folder %d not found.", id)
		}
		return nil
	})
}
