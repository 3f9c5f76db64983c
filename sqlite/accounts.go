package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

var _ app.AccountStore = (*DB)(nil)

const userColumns = `id, name, is_admin, password_hash != '', created_at`

func scanUser(row scanner, extra ...any) (*app.User, error) {
	var u app.User
	var created string
	if err := row.Scan(append([]any{&u.ID, &u.Name, &u.Admin, &u.HasPassword, &created}, extra...)...); err != nil {
		return nil, err
	}
	u.CreatedAt = parseTime(created)
	return &u, nil
}

// Users lists every account.
func (db *DB) Users(ctx context.Context) ([]*app.User, error) {
	return queryAll(ctx, db, "users", func(r scanner) (*app.User, error) { return scanUser(r) },
		`select `+userColumns+` from users order by id`)
}

// UserByName returns an account and its password hash.
func (db *DB) UserByName(ctx context.Context, name string) (*app.User, string, error) {
	var hash string
	u, err := scanUser(db.Read.QueryRowContext(ctx, `select `+userColumns+`, password_hash from users where name = ? collate nocase`, name), &hash)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", app.Errorf(app.ENOTFOUND, "There is no user %q.", name)
	} else if err != nil {
		return nil, "", fmt.Errorf("sqlite: user: %w", err)
	}
	return u, hash, nil
}

// UserByID returns an account.
func (db *DB) UserByID(ctx context.Context, id int64) (*app.User, error) {
	u, err := scanUser(db.Read.QueryRowContext(ctx, `select `+userColumns+` from users where id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, app.Errorf(app.ENOTFOUND, "User %d not found.", id)
	} else if err != nil {
		return nil, fmt.Errorf("sqlite: user: %w", err)
	}
	return u, nil
}

// CreateUser adds an account. While no account has a password, the first one takes over the
// default user (id 1), so the data of local mode becomes theirs, and is an admin.
func (db *DB) CreateUser(ctx context.Context, name, passwordHash string, admin bool) (*app.User, error) {
	var id int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var taken int
		if err := tx.QueryRowContext(ctx, `select count(*) from users where name = ? collate nocase and not (id = 1 and password_hash = '')`, name).Scan(&taken); err != nil {
			return err
		}
		if taken > 0 {
			return app.Errorf(app.ECONFLICT, "There is already a user %q.", name)
		}
		var withPassword int
		if err := tx.QueryRowContext(ctx, `select count(*) from users where password_hash != ''`).Scan(&withPassword); err != nil {
			return err
		}
		if withPassword == 0 {
			id = app.DefaultUserID
			_, err := tx.ExecContext(ctx, `update users set name = ?, password_hash = ?, is_admin = 1 where id = ?`, name, passwordHash, id)
			return err
		}
		return tx.QueryRowContext(ctx, `insert into users (name, password_hash, is_admin, created_at) values (?, ?, ?, ?) returning id`,
			name, passwordHash, admin, db.now()).Scan(&id)
	})
	if err != nil {
		if app.ErrorCode(err) != app.EINTERNAL {
			return nil, err
		}
		return nil, fmt.Errorf("sqlite: create user: %w", err)
	}
	return db.UserByID(ctx, id)
}

// SetPassword changes a password, ends the user's sessions and revokes their API tokens.
func (db *DB) SetPassword(ctx context.Context, userID int64, passwordHash string) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `update users set password_hash = ? where id = ?`, passwordHash, userID)
		if err != nil {
			return fmt.Errorf("sqlite: set password: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return app.Errorf(app.ENOTFOUND, "User %d not found.", userID)
		}
		if _, err = tx.ExecContext(ctx, `delete from sessions where user_id = ?`, userID); err != nil {
			return err
		}
		// API tokens too: a password change is what someone does who fears their account was
		// used by another, and a token made meanwhile must not outlive it.
		_, err = tx.ExecContext(ctx, `delete from api_tokens where user_id = ?`, userID)
		return err
	})
}

// DeleteUser deletes an account and everything it owns. The last admin cannot be deleted.
func (db *DB) DeleteUser(ctx context.Context, userID int64) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		var admins, isAdmin int
		if err := tx.QueryRowContext(ctx, `select count(*) from users where is_admin = 1`).Scan(&admins); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `select is_admin from users where id = ?`, userID).Scan(&isAdmin); errors.Is(err, sql.ErrNoRows) {
			return app.Errorf(app.ENOTFOUND, "User %d not found.", userID)
		} else if err != nil {
			return err
		}
		if isAdmin == 1 && admins == 1 {
			return app.Errorf(app.ECONFLICT, "This is the last admin: make another user an admin first.")
		}
		_, err := tx.ExecContext(ctx, `delete from users where id = ?`, userID)
		return err
	})
}

// CreateSession stores a session (by its token's hash) and drops expired ones.
func (db *DB) CreateSession(ctx context.Context, userID int64, tokenHash string, expires time.Time) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `delete from sessions where expires_at < ?`, db.now()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `insert into sessions (token_hash, user_id, created_at, expires_at) values (?, ?, ?, ?)`,
			tokenHash, userID, db.now(), FormatTime(expires))
		return err
	})
}

// SessionUser returns the user of a live session.
func (db *DB) SessionUser(ctx context.Context, tokenHash string, now time.Time) (*app.User, error) {
	u, err := scanUser(db.Read.QueryRowContext(ctx, `select u.id, u.name, u.is_admin, u.password_hash != '', u.created_at
		from sessions s join users u on u.id = s.user_id where s.token_hash = ? and s.expires_at > ?`, tokenHash, FormatTime(now)))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, app.Errorf(app.EUNAUTHORIZED, "Your session has ended: sign in again.")
	} else if err != nil {
		return nil, fmt.Errorf("sqlite: session: %w", err)
	}
	return u, nil
}

// DeleteSession ends a session.
func (db *DB) DeleteSession(ctx context.Context, tokenHash string) error {
	_, err := db.Write.ExecContext(ctx, `delete from sessions where token_hash = ?`, tokenHash)
	return err
}

// CreateAPIToken stores a token by its hash.
func (db *DB) CreateAPIToken(ctx context.Context, userID int64, name, tokenHash string) (*app.APIToken, error) {
	t := &app.APIToken{Name: name, CreatedAt: db.clock.Now().UTC().Truncate(time.Millisecond)}
	err := db.Write.QueryRowContext(ctx, `insert into api_tokens (user_id, name, token_hash, created_at) values (?, ?, ?, ?) returning id`,
		userID, name, tokenHash, FormatTime(t.CreatedAt)).Scan(&t.ID)
	if err != nil {
		if strings.Contains(err.Error(), "FOREIGN KEY") {
			return nil, app.Errorf(app.ENOTFOUND, "User %d not found.", userID)
		}
		return nil, fmt.Errorf("sqlite: create token: %w", err)
	}
	return t, nil
}

// TokenUser returns the user of an API token and notes its use (at most once a minute).
func (db *DB) TokenUser(ctx context.Context, tokenHash string, now time.Time) (*app.User, error) {
	var tokenID int64
	var last sql.NullString
	u, err := scanUser(db.Read.QueryRowContext(ctx, `select u.id, u.name, u.is_admin, u.password_hash != '', u.created_at, t.id, t.last_used_at
		from api_tokens t join users u on u.id = t.user_id where t.token_hash = ?`, tokenHash), &tokenID, &last)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, app.Errorf(app.EUNAUTHORIZED, "This API token is not valid (revoked, or mistyped).")
	} else if err != nil {
		return nil, fmt.Errorf("sqlite: token: %w", err)
	}
	if lu := parseTimePtr(last); lu == nil || now.Sub(*lu) > time.Minute {
		_, _ = db.Write.ExecContext(ctx, `update api_tokens set last_used_at = ? where id = ?`, FormatTime(now), tokenID)
	}
	return u, nil
}

// APITokens lists a user's tokens (never their secrets).
func (db *DB) APITokens(ctx context.Context, userID int64) ([]*app.APIToken, error) {
	rows, err := db.Read.QueryContext(ctx, `select id, name, created_at, last_used_at from api_tokens where user_id = ? order by id`, userID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: tokens: %w", err)
	}
	defer rows.Close()
	var out []*app.APIToken
	for rows.Next() {
		var t app.APIToken
		var created string
		var last sql.NullString
		if err := rows.Scan(&t.ID, &t.Name, &created, &last); err != nil {
			return nil, fmt.Errorf("sqlite: tokens: %w", err)
		}
		t.CreatedAt, t.LastUsedAt = parseTime(created), parseTimePtr(last)
		out = append(out, &t)
	}
	return out, rows.Err()
}

// DeleteAPIToken revokes a token.
func (db *DB) DeleteAPIToken(ctx context.Context, userID, id int64) error {
	res, err := db.Write.ExecContext(ctx, `delete from api_tokens where id = ? and user_id = ?`, id, userID)
	if err != nil {
		return fmt.Errorf("sqlite: delete token: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return app.Errorf(app.ENOTFOUND, "Token %d not found.", id)
	}
	return nil
}

// Secret returns an installation secret made by a migration.
func (db *DB) Secret(ctx context.Context, name string) ([]byte, error) {
	var b []byte
	if err := db.Read.QueryRowContext(ctx, `select value from app_secrets where name = ?`, name).Scan(&b); err != nil {
		return nil, fmt.Errorf("sqlite: secret %s: %w", name, err)
	}
	return b, nil
}
