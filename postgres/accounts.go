package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

var _ app.AccountStore = (*DB)(nil)

const userColumns = `id, name, is_admin, password_hash != '', created_at`

func scanUser(row scanner, extra ...any) (*app.User, error) {
	var u app.User
	if err := row.Scan(append([]any{&u.ID, &u.Name, &u.Admin, &u.HasPassword, &u.CreatedAt}, extra...)...); err != nil {
		return nil, err
	}
	u.CreatedAt = u.CreatedAt.UTC()
	return &u, nil
}

// Users lists every account.
func (db *DB) Users(ctx context.Context) ([]*app.User, error) {
	return queryAll(ctx, db, "users", func(r scanner) (*app.User, error) { return scanUser(r) },
		`select `+userColumns+` from users order by id`)
}

// UserByName returns an account and its password hash; the name in any case (SQLite's
// collate nocase: ASCII letters only).
func (db *DB) UserByName(ctx context.Context, name string) (*app.User, string, error) {
	var hash string
	u, err := scanUser(db.SQL.QueryRowContext(ctx, `select `+userColumns+`, password_hash from users where md_nocase(name) = md_nocase($1) order by id limit 1`, name), &hash)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, "", app.Errorf(app.ENOTFOUND, "There is no user %q.", name)
	} else if err != nil {
		return nil, "", fmt.Errorf("postgres: user: %w", err)
	}
	return u, hash, nil
}

// UserByID returns an account.
func (db *DB) UserByID(ctx context.Context, id int64) (*app.User, error) {
	u, err := scanUser(db.SQL.QueryRowContext(ctx, `select `+userColumns+` from users where id = $1`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, app.Errorf(app.ENOTFOUND, "User %d not found.", id)
	} else if err != nil {
		return nil, fmt.Errorf("postgres: user: %w", err)
	}
	return u, nil
}

// CreateUser adds an account. While no account has a password, the first one takes over the
// default user (id 1), so the data of local mode becomes theirs, and is an admin. Two instances
// creating accounts at once are serialized by a lock on the users table (in share row exclusive
// mode: readers go on), so that only one takes over the default user and a name is taken once.
func (db *DB) CreateUser(ctx context.Context, name, passwordHash string, admin bool) (*app.User, error) {
	var id int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `lock table users in share row exclusive mode`); err != nil {
			return err
		}
		var taken bool
		if err := tx.QueryRowContext(ctx, `select exists (select 1 from users where md_nocase(name) = md_nocase($1) and not (id = 1 and password_hash = ''))`, name).Scan(&taken); err != nil {
			return err
		}
		if taken {
			return app.Errorf(app.ECONFLICT, "There is already a user %q.", name)
		}
		var withPassword bool
		if err := tx.QueryRowContext(ctx, `select exists (select 1 from users where password_hash != '')`).Scan(&withPassword); err != nil {
			return err
		}
		if !withPassword {
			id = app.DefaultUserID
			_, err := tx.ExecContext(ctx, `update users set name = $1, password_hash = $2, is_admin = true where id = $3`, name, passwordHash, id)
			return err
		}
		return tx.QueryRowContext(ctx, `insert into users (name, password_hash, is_admin, created_at) values ($1, $2, $3, $4) returning id`,
			name, passwordHash, admin, db.now()).Scan(&id)
	})
	if err != nil {
		if app.ErrorCode(err) != app.EINTERNAL {
			return nil, err
		}
		if isCode(err, uniqueViolation) {
			return nil, app.Errorf(app.ECONFLICT, "There is already a user %q.", name)
		}
		return nil, fmt.Errorf("postgres: create user: %w", err)
	}
	return db.UserByID(ctx, id)
}

// SetPassword changes a password, ends the user's sessions and revokes their API tokens.
func (db *DB) SetPassword(ctx context.Context, userID int64, passwordHash string) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `update users set password_hash = $1 where id = $2`, passwordHash, userID)
		if err != nil {
			return fmt.Errorf("postgres: set password: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return app.Errorf(app.ENOTFOUND, "User %d not found.", userID)
		}
		if _, err = tx.ExecContext(ctx, `delete from sessions where user_id = $1`, userID); err != nil {
			return err
		}
		// API tokens too: a password change is what someone does who fears their account was
		// used by another, and a token made meanwhile must not outlive it.
		_, err = tx.ExecContext(ctx, `delete from api_tokens where user_id = $1`, userID)
		return err
	})
}

// DeleteUser deletes an account and everything it owns. The last admin cannot be deleted: the
// admins' rows are locked first, so two instances deleting the last two admins at once cannot
// both succeed.
func (db *DB) DeleteUser(ctx context.Context, userID int64) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		admins, err := tx.QueryContext(ctx, `select id from users where is_admin or id = $1 order by id for update`, userID)
		if err != nil {
			return err
		}
		var n int
		found := false
		for admins.Next() {
			var id int64
			if err := admins.Scan(&id); err != nil {
				admins.Close()
				return err
			}
			n++
			found = found || id == userID
		}
		admins.Close()
		if err := admins.Err(); err != nil {
			return err
		}
		if !found {
			return app.Errorf(app.ENOTFOUND, "User %d not found.", userID)
		}
		var isAdmin bool
		if err := tx.QueryRowContext(ctx, `select is_admin from users where id = $1`, userID).Scan(&isAdmin); err != nil {
			return err
		}
		if isAdmin && n == 1 {
			return app.Errorf(app.ECONFLICT, "This is the last admin: make another user an admin first.")
		}
		_, err = tx.ExecContext(ctx, `delete from users where id = $1`, userID)
		return err
	})
}

// CreateSession stores a session (by its token's hash) and drops expired ones.
func (db *DB) CreateSession(ctx context.Context, userID int64, tokenHash string, expires time.Time) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `delete from sessions where expires_at < $1`, db.now()); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `insert into sessions (token_hash, user_id, created_at, expires_at) values ($1, $2, $3, $4)`,
			tokenHash, userID, db.now(), dbTime(expires))
		return err
	})
}

// SessionUser returns the user of a live session.
func (db *DB) SessionUser(ctx context.Context, tokenHash string, now time.Time) (*app.User, error) {
	u, err := scanUser(db.SQL.QueryRowContext(ctx, `select u.id, u.name, u.is_admin, u.password_hash != '', u.created_at
		from sessions s join users u on u.id = s.user_id where s.token_hash = $1 and s.expires_at > $2`, tokenHash, dbTime(now)))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, app.Errorf(app.EUNAUTHORIZED, "Your session has ended: sign in again.")
	} else if err != nil {
		return nil, fmt.Errorf("postgres: session: %w", err)
	}
	return u, nil
}

// DeleteSession ends a session.
func (db *DB) DeleteSession(ctx context.Context, tokenHash string) error {
	_, err := db.SQL.ExecContext(ctx, `delete from sessions where token_hash = $1`, tokenHash)
	return err
}

// CreateAPIToken stores a token by its hash.
func (db *DB) CreateAPIToken(ctx context.Context, userID int64, name, tokenHash string) (*app.APIToken, error) {
	t := &app.APIToken{Name: name, CreatedAt: db.now()}
	err := db.SQL.QueryRowContext(ctx, `insert into api_tokens (user_id, name, token_hash, created_at) values ($1, $2, $3, $4) returning id`,
		userID, name, tokenHash, t.CreatedAt).Scan(&t.ID)
	if err != nil {
		if isCode(err, foreignKeyViolation) {
			return nil, app.Errorf(app.ENOTFOUND, "User %d not found.", userID)
		}
		return nil, fmt.Errorf("postgres: create token: %w", err)
	}
	return t, nil
}

// TokenUser returns the user of an API token and notes its use (at most once a minute).
func (db *DB) TokenUser(ctx context.Context, tokenHash string, now time.Time) (*app.User, error) {
	var tokenID int64
	var last sql.NullTime
	u, err := scanUser(db.SQL.QueryRowContext(ctx, `select u.id, u.name, u.is_admin, u.password_hash != '', u.created_at, t.id, t.last_used_at
		from api_tokens t join users u on u.id = t.user_id where t.token_hash = $1`, tokenHash), &tokenID, &last)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, app.Errorf(app.EUNAUTHORIZED, "This API token is not valid (revoked, or mistyped).")
	} else if err != nil {
		return nil, fmt.Errorf("postgres: token: %w", err)
	}
	if lu := timePtr(last); lu == nil || now.Sub(*lu) > time.Minute {
		_, _ = db.SQL.ExecContext(ctx, `update api_tokens set last_used_at = $1 where id = $2`, dbTime(now), tokenID)
	}
	return u, nil
}

// APITokens lists a user's tokens (never their secrets).
func (db *DB) APITokens(ctx context.Context, userID int64) ([]*app.APIToken, error) {
	return queryAll(ctx, db, "tokens", func(r scanner) (*app.APIToken, error) {
		var t app.APIToken
		var last sql.NullTime
		if err := r.Scan(&t.ID, &t.Name, &t.CreatedAt, &last); err != nil {
			return nil, err
		}
		t.CreatedAt, t.LastUsedAt = t.CreatedAt.UTC(), timePtr(last)
		return &t, nil
	}, `select id, name, created_at, last_used_at from api_tokens where user_id = $1 order by id`, userID)
}

// DeleteAPIToken revokes a token.
func (db *DB) DeleteAPIToken(ctx context.Context, userID, id int64) error {
	res, err := db.SQL.ExecContext(ctx, `delete from api_tokens where id = $1 and user_id = $2`, id, userID)
	if err != nil {
		return fmt.Errorf("postgres: delete token: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return app.Errorf(app.ENOTFOUND, "Token %d not found.", id)
	}
	return nil
}

// Secret returns an installation secret made by a migration.
func (db *DB) Secret(ctx context.Context, name string) ([]byte, error) {
	var b []byte
	if err := db.SQL.QueryRowContext(ctx, `select value from app_secrets where name = $1`, name).Scan(&b); err != nil {
		return nil, fmt.Errorf("postgres: secret %s: %w", name, err)
	}
	return b, nil
}
