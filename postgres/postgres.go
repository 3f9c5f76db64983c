// Package postgres keeps Morning Deck's state on PostgreSQL: the same stores as package sqlite,
// for when one machine is not enough and several instances share one database (issue 29).
//
// It talks to the server through pgx's database/sql driver (pure Go, so the binary stays
// cgo-free). Times are timestamptz, flags are boolean, and JSON lists are text as in SQLite, so
// the stores read and write the same values; each public store method is one transaction.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/wake"
)

//go:embed migrations/*.sql goqite/schema_postgres.sql
var migrations embed.FS

// goqiteSchema is goqite's own schema (a verbatim copy of the module's file), run as migration 1.
const goqiteSchema = "goqite/schema_postgres.sql"

// migrationLock is the advisory lock key that serializes the migrations of instances starting
// together on one database ("mdmigrat" in ASCII).
const migrationLock int64 = 0x6d646d6967726174

// DB is the database: one pool of connections, shared by reads and writes. PostgreSQL takes
// concurrent writers itself, so there is no single writer as in package sqlite.
type DB struct {
	SQL   *sql.DB
	url   string // for pg_dump (care.go)
	log   *slog.Logger
	clock app.Clock
	later sync.WaitGroup // FinishFetchLater's transactions, which Close waits for

	// The queues' receivers and the connection that LISTENs for their messages (notify.go,
	// OnSent).
	jobs wake.Hub
}

// Options for Open.
type Options struct {
	// URL is the server's connection string, postgres://user:password@host:port/database?….
	URL   string
	Log   *slog.Logger
	Clock app.Clock
	// MaxConns bounds the pool (default 16, at least 2): each connection is a server process,
	// and a server's max_connections (100 by default) is shared by every instance. One of them
	// listens for the queues' jobs while a queue runs (OnSent).
	MaxConns int
}

// Open connects to the database and runs the migrations it has not run yet.
func Open(ctx context.Context, opts Options) (*DB, error) {
	if opts.URL == "" {
		return nil, errors.New("postgres: no database URL")
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.MaxConns <= 0 {
		opts.MaxConns = 16
	}
	opts.MaxConns = max(opts.MaxConns, 2) // one may be listening (OnSent)
	pool, err := sql.Open("pgx", opts.URL)
	if err != nil {
		return nil, fmt.Errorf("postgres: open: %w", err)
	}
	pool.SetMaxOpenConns(opts.MaxConns)
	pool.SetMaxIdleConns(opts.MaxConns)
	// Idle connections are closed after a while (each is a server process holding memory), and
	// every connection is renewed now and then, so a failover or a pooler's restart is followed.
	pool.SetConnMaxIdleTime(5 * time.Minute)
	pool.SetConnMaxLifetime(time.Hour)
	db := &DB{SQL: pool, url: opts.URL, log: opts.Log, clock: app.ClockOrSystem(opts.Clock)}
	db.jobs.Watch = db.listen
	if err := pool.PingContext(ctx); err != nil {
		_ = pool.Close()
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	if err := db.migrate(ctx); err != nil {
		_ = pool.Close()
		return nil, err
	}
	return db, nil
}

// Close waits for the transactions FinishFetchLater started, ends the listening connection
// (OnSent), then closes the pool.
func (db *DB) Close() error {
	db.later.Wait()
	db.jobs.Close()
	return db.SQL.Close()
}

type migration struct {
	version int
	name    string
}

// migrationList is goqite's schema (version 1), then migrations/NNNN_*.sql in order.
func migrationList() ([]migration, error) {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	out := []migration{{1, goqiteSchema}}
	for _, name := range names {
		v, err := strconv.Atoi(strings.SplitN(path.Base(name), "_", 2)[0])
		if err != nil {
			return nil, fmt.Errorf("postgres: migration %s has no version number", name)
		}
		if v <= out[len(out)-1].version {
			return nil, fmt.Errorf("postgres: migration %s is out of order", name)
		}
		out = append(out, migration{v, name})
	}
	return out, nil
}

// migrate runs the migrations not yet recorded, each in its own transaction, on one connection
// holding an advisory lock: instances started together on one database migrate it once, one
// after the other.
func (db *DB) migrate(ctx context.Context) error {
	list, err := migrationList()
	if err != nil {
		return err
	}
	conn, err := db.SQL.Conn(ctx)
	if err != nil {
		return fmt.Errorf("postgres: migrate: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `select pg_advisory_lock($1)`, migrationLock); err != nil {
		return fmt.Errorf("postgres: migration lock: %w", err)
	}
	defer func() {
		_, _ = conn.ExecContext(context.WithoutCancel(ctx), `select pg_advisory_unlock($1)`, migrationLock)
	}()
	if _, err := conn.ExecContext(ctx, `create table if not exists schema_migrations (version integer primary key, applied_at timestamptz not null)`); err != nil {
		return fmt.Errorf("postgres: create migrations table: %w", err)
	}
	for _, m := range list {
		script, err := migrations.ReadFile(m.name)
		if err != nil {
			return err
		}
		err = func() error {
			tx, err := conn.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			defer func() { _ = tx.Rollback() }()
			var done bool
			if err := tx.QueryRowContext(ctx, `select exists (select 1 from schema_migrations where version = $1)`, m.version).Scan(&done); err != nil || done {
				return err
			}
			// Several statements in one Exec: the simple protocol, as psql would run the file.
			if _, err := tx.ExecContext(ctx, string(script)); err != nil {
				return err
			}
			if step := goMigrations[m.version]; step != nil {
				if err := step(ctx, tx); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, `insert into schema_migrations (version, applied_at) values ($1, $2)`, m.version, db.now()); err != nil {
				return err
			}
			return tx.Commit()
		}()
		if err != nil {
			return fmt.Errorf("postgres: migration %s: %w", path.Base(m.name), err)
		}
	}
	return nil
}

// tx runs fn in a transaction and commits it.
func (db *DB) tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.SQL.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("postgres: begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("postgres: commit: %w", err)
	}
	return nil
}

// now is the clock's time as the database keeps it: UTC, to the millisecond (SQLite's
// precision, so both engines give the same times back).
func (db *DB) now() time.Time { return db.clock.Now().UTC().Truncate(time.Millisecond) }

// dbTime is t as stored: UTC, to the millisecond.
func dbTime(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

// timePtr reads a nullable timestamptz.
func timePtr(t sql.NullTime) *time.Time {
	if !t.Valid {
		return nil
	}
	u := t.Time.UTC()
	return &u
}

// timeArg writes a nullable time.
func timeArg(t *time.Time) any {
	if t == nil {
		return nil
	}
	return dbTime(*t)
}

// Error codes of PostgreSQL that the stores tell apart (SQLSTATE).
const (
	uniqueViolation     = "23505"
	foreignKeyViolation = "23503"
)

// isCode reports whether err is a server error with that SQLSTATE.
func isCode(err error, code string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code
}

type scanner interface{ Scan(dest ...any) error }

// queryAll runs q and scans every row with scan; what names the query in its errors.
func queryAll[T any](ctx context.Context, db *DB, what string, scan func(scanner) (T, error), q string, args ...any) ([]T, error) {
	rows, err := db.SQL.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: %s: %w", what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("postgres: %s: %w", what, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: %s: %w", what, err)
	}
	return out, nil
}
