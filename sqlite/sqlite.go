// Package sqlite keeps all of Morning Deck's state, queues included, in one SQLite file.
package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/wake"
	_ "modernc.org/sqlite" // the cgo-free driver
)

//go:embed migrations/*.sql
var migrations embed.FS

// TimeFormat is how times are stored: UTC, fixed millisecond precision, so they sort as text.
// It is the format goqite uses for its timeout column.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// DB is the database. Writes go through one connection (Write), so writers queue in Go
// instead of failing with SQLITE_BUSY; reads use a small pool of their own (Read).
type DB struct {
	Write *sql.DB
	Read  *sql.DB
	Path  string
	dsn   string // the writer's, for the checkpoint connection
	log   *slog.Logger
	clock app.Clock
	stmts sync.Map // query → *sql.Stmt prepared on Write: the hot statements skip SQL parsing
	reads sync.Map // query → *sql.Stmt prepared on Read, on first use (readStmt)
	group grouper  // the transactions waiting to share a commit (group.go)

	// writeFailure is the last write that failed for a reason a person must act on (disk full,
	// read-only, damaged file), until a write succeeds: the health check reports it.
	writeFailure atomic.Pointer[failure]
	// walRefused: the write-ahead log is past its bound and cannot be checkpointed (checkpoint.go).
	walRefused atomic.Pointer[walRefusal]
	// checkpointing: Checkpoints runs, and the writer looks at the log before each write (beforeWrite).
	checkpointing atomic.Bool
	// wrote wakes an idle Checkpoints: a write transaction begins or commits (wakeCheckpoints).
	wrote    chan struct{}
	pageSize int64
	// checked is the last integrity check (quick_check), run at most every integrityEvery.
	checkMu     sync.Mutex
	checking    bool
	checkedAt   time.Time
	checkResult error
	// jobs are the queues' receivers that hear of another process's messages (wake.go, OnSent);
	// logMoved tells its watcher that Checkpoints saw the log file change.
	jobs     wake.Hub
	logMoved chan struct{}
}

// failure is a write failure and when it happened.
type failure struct {
	err error
	at  time.Time
}

// Options for Open.
type Options struct {
	Path  string // file path; the directory is created with mode 0700
	Log   *slog.Logger
	Clock app.Clock
	// BusyTimeout bounds how long a connection waits for a lock held by another process.
	BusyTimeout time.Duration
	// StartCheck bounds the integrity check of an existing file before anything is written to
	// it (see startCheck); default DefaultStartCheck, negative: no check. A check that does not
	// finish in time lets the app start, and the periodic check (Check) goes on looking.
	StartCheck time.Duration
}

// DefaultStartCheck is how long Open's integrity check may take.
const DefaultStartCheck = 10 * time.Second

// Open opens (creating if needed) and migrates the database.
func Open(ctx context.Context, opts Options) (*DB, error) {
	if opts.Path == "" {
		return nil, errors.New("sqlite: no path")
	}
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.BusyTimeout == 0 {
		opts.BusyTimeout = 10 * time.Second
	}
	if err := os.MkdirAll(filepath.Dir(opts.Path), 0o700); err != nil {
		return nil, fmt.Errorf("sqlite: create data directory: %w", err)
	}
	// An existing file of zero bytes is not a database SQLite would quietly start over in: it is
	// what a failed copy, a full disk or a truncation leaves. Refuse it, rather than lose
	// everything it held under a new empty database.
	if st, err := os.Stat(opts.Path); err == nil && st.Mode().IsRegular() && st.Size() == 0 {
		return nil, fmt.Errorf("the database file %s is empty (0 bytes): it was probably cut short by a failed copy or a full disk. "+
			"Restore a backup over it (see morningdeck backup --help), or delete it to start a new, empty database", opts.Path)
	}
	// An existing file is checked, read-only, before the migrations or anything else writes to
	// it: a file damaged in its interior pages is refused, untouched (issue 27, N7).
	if st, err := os.Stat(opts.Path); err == nil && st.Mode().IsRegular() && opts.StartCheck >= 0 {
		if err := startCheck(ctx, opts); err != nil {
			return nil, err
		}
	}
	// Create the file with 0600 before the driver does, so it is never world-readable.
	if f, err := os.OpenFile(opts.Path, os.O_RDWR|os.O_CREATE, 0o600); err != nil {
		switch {
		case errors.Is(err, os.ErrPermission):
			return nil, fmt.Errorf("the database file %s cannot be written (permission denied): Morning Deck must read and write it; check its owner and mode: %w", opts.Path, err)
		case errors.Is(err, syscall.EROFS):
			return nil, fmt.Errorf("the database file %s is on a read-only file system: Morning Deck must write to it; choose another --data-dir: %w", opts.Path, err)
		}
		return nil, fmt.Errorf("sqlite: open %s: %w", opts.Path, err)
	} else {
		_ = f.Close()
	}

	pragmas := url.Values{}
	for _, p := range []string{
		"journal_mode(WAL)",
		"busy_timeout(" + strconv.Itoa(int(opts.BusyTimeout.Milliseconds())) + ")",
		"foreign_keys(1)",
		"synchronous(NORMAL)",
		// 1 MB of page cache a connection (SQLite's default is 2): issue 14 measured the
		// shipped binary's peak RSS 48.7 / 48.8 → 46.0 / 46.0 MB with the same CPU per feed, and
		// the pages at 10,000 sources no slower (BenchmarkFolderPages). modernc's SQLite is built
		// with SQLITE_ENABLE_MEMORY_MANAGEMENT: the connections share one page pool bounded by the
		// sum of their sizes (~970 pages for the writer, two readers and the checkpointer), and
		// the writer takes pages the readers let go, ~350 in a first ingestion, each in an
		// 8 KiB block of modernc's allocator (BENCHMARKS.md, session 14: smaller sizes lowered the
		// peak ~1 MB but were not shown to keep the speed).
		"cache_size(-1000)",
		"temp_store(MEMORY)",
		// When the WAL starts over, truncate it to this size (SQLite otherwise keeps the file at
		// its largest): checkpoint.go.
		"journal_size_limit(" + strconv.Itoa(walRestartAt) + ")",
	} {
		pragmas.Add("_pragma", p)
	}
	dsn := "file:" + opts.Path + "?" + pragmas.Encode()

	// The writer keeps the statements it runs prepared (stmtcache.go): goqite's among them.
	write := openCached(dsn + "&_txlock=immediate")
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxIdleTime(0)
	write.SetConnMaxLifetime(0)

	read, err := sql.Open("sqlite", dsn+"&mode=ro")
	if err != nil {
		_ = write.Close()
		return nil, fmt.Errorf("sqlite: open: %w", err)
	}
	// A read connection per core (at least two): each holds its page cache and its own copy of
	// the schema; a pool of four on two cores cost ~1 MB of peak RSS in a first ingestion
	// (ingestbench 48.1 / 47.8 → 47.0 / 46.9 MB) and read no faster.
	n := max(2, runtime.NumCPU())
	read.SetMaxOpenConns(n)
	read.SetMaxIdleConns(n)

	db := &DB{Write: write, Read: read, Path: opts.Path, dsn: dsn, log: opts.Log, clock: app.ClockOrSystem(opts.Clock), wrote: make(chan struct{}, 1), logMoved: make(chan struct{}, 1)}
	db.jobs.Watch = db.watchVersion
	if err := db.migrate(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	if err := db.prepare(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	if err := db.Write.QueryRowContext(ctx, `pragma page_size`).Scan(&db.pageSize); err != nil {
		_ = db.Close()
		return nil, describe(fmt.Errorf("sqlite: page size: %w", err))
	}
	return db, nil
}

// startCheck runs SQLite's quick_check on the file through a read-only connection, bounded by
// opts.StartCheck, and refuses a damaged file with a message that names it and says what to do.
// quick_check reads every page of every b-tree and checks their structure (not the indexes'
// contents against their tables, which integrity_check does at many times the cost): a 2 GB
// file takes seconds. When it cannot finish in time, or cannot run at all for another reason
// (a lock, a missing -shm beside a WAL), it gives no verdict: the app starts, logs why, and
// the health check's periodic quick_check goes on looking.
func startCheck(ctx context.Context, opts Options) error {
	limit := cmp.Or(opts.StartCheck, DefaultStartCheck)
	dsn := "file:" + opts.Path + "?mode=ro&_pragma=" + url.QueryEscape("busy_timeout("+strconv.Itoa(int(opts.BusyTimeout.Milliseconds()))+")")
	ro, err := sql.Open("sqlite", dsn)
	if err != nil {
		return fmt.Errorf("sqlite: open: %w", err)
	}
	defer ro.Close()
	ro.SetMaxOpenConns(1)
	cctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	var problems []string
	rows, err := ro.QueryContext(cctx, `pragma quick_check(5)`)
	if err == nil {
		for rows.Next() {
			var p string
			if err = rows.Scan(&p); err != nil {
				break
			}
			problems = append(problems, p)
		}
		if err == nil {
			err = rows.Err()
		}
		_ = rows.Close()
	}
	damaged := func(what string) error {
		return fmt.Errorf("the database file %s is damaged (%s). Morning Deck will not start on it, so that nothing is written to the damaged file. "+
			"Stop anything else using it, keep a copy of it, and restore a backup over it: `morningdeck backup` writes them to the backup folder "+
			"(see morningdeck backup --help and docs/INSTALL.md, \"Backup and restore\"); or move it aside to start a new, empty database", opts.Path, what)
	}
	switch {
	case err != nil && strings.HasPrefix(describe(err).Error(), "the database file is damaged"):
		return damaged(app.Shorten(err.Error(), 300))
	case err != nil && cctx.Err() != nil && ctx.Err() == nil:
		opts.Log.Warn("the integrity check at start did not finish in time; starting, the periodic check goes on looking", "path", opts.Path, "limit", limit)
	case err != nil:
		opts.Log.Warn("the integrity check at start could not run; starting, the periodic check goes on looking", "path", opts.Path, "error", err)
	case len(problems) > 0 && !(len(problems) == 1 && problems[0] == "ok"):
		return damaged(app.Shorten(strings.ReplaceAll(strings.Join(problems, "; "), "\n", "; "), 300))
	}
	return nil
}

// Close commits the transactions handed over to the writer (groupLater), then closes both
// pools.
func (db *DB) Close() error {
	db.jobs.Close()
	db.group.mu.Lock()
	db.group.closed = true
	db.group.mu.Unlock()
	db.flushSoon()
	db.group.laterWG.Wait()
	db.stmts.Range(func(_, v any) bool { _ = v.(*sql.Stmt).Close(); return true })
	db.reads.Range(func(_, v any) bool { _ = v.(*sql.Stmt).Close(); return true })
	return errors.Join(db.Read.Close(), db.Write.Close())
}

// hotQueries are prepared once at Open on the write connection: parsing SQL costs more than
// running these statements of the worker hot path.
var hotQueries []string

func hot(q string) string {
	hotQueries = append(hotQueries, q)
	return q
}

func (db *DB) prepare(ctx context.Context) error {
	for _, q := range hotQueries {
		st, err := db.Write.PrepareContext(ctx, q)
		if err != nil {
			return fmt.Errorf("sqlite: prepare %q: %w", q, err)
		}
		db.stmts.Store(q, st)
	}
	return nil
}

// readStmt returns query prepared on the read pool, preparing it on first use: for the reads
// every fetch makes (a first import's scoring reads the user's settings and filters), where
// parsing the SQL cost more than running it. database/sql prepares it again on each read
// connection as it is used there.
func (db *DB) readStmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := db.reads.Load(query); ok {
		return st.(*sql.Stmt), nil
	}
	st, err := db.Read.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if prev, loaded := db.reads.LoadOrStore(query, st); loaded {
		_ = st.Close()
		return prev.(*sql.Stmt), nil
	}
	return st, nil
}

// stmt returns the prepared statement of a hot query, bound to tx.
func (db *DB) stmt(ctx context.Context, tx *sql.Tx, query string) *sql.Stmt {
	st, ok := db.stmts.Load(query)
	if !ok {
		panic("sqlite: query not prepared: " + query)
	}
	return tx.StmtContext(ctx, st.(*sql.Stmt))
}

func (db *DB) migrate(ctx context.Context) error {
	if _, err := db.Write.ExecContext(ctx, `create table if not exists schema_migrations (version integer primary key, applied_at text not null)`); err != nil {
		return describe(fmt.Errorf("sqlite: create migrations table: %w", err))
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		base := filepath.Base(name)
		version, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("sqlite: migration %s has no version number", base)
		}
		script, err := migrations.ReadFile(name)
		if err != nil {
			return err
		}
		err = db.tx(ctx, func(tx *sql.Tx) error {
			var done int
			if err := tx.QueryRowContext(ctx, `select count(*) from schema_migrations where version = ?`, version).Scan(&done); err != nil {
				return err
			}
			if done > 0 {
				return nil
			}
			if _, err := tx.ExecContext(ctx, string(script)); err != nil {
				return err
			}
			if step := goMigrations[version]; step != nil {
				if err := step(ctx, tx); err != nil {
					return err
				}
			}
			_, err := tx.ExecContext(ctx, `insert into schema_migrations (version, applied_at) values (?, ?)`, version, db.now())
			return err
		})
		if err != nil {
			return describe(fmt.Errorf("sqlite: migration %s: %w", base, err))
		}
	}
	return nil
}

// describe turns the errors a person can act on (disk full, read-only file, locked database) into a clear message.
func describe(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "SQLITE_FULL") || strings.Contains(msg, "database or disk is full"):
		return fmt.Errorf("the disk holding the database is full: %w", err)
	case strings.Contains(msg, "SQLITE_READONLY") || strings.Contains(msg, "readonly database"):
		return fmt.Errorf("the database file is read-only (check its permissions): %w", err)
	case strings.Contains(msg, "SQLITE_BUSY") || strings.Contains(msg, "database is locked"):
		return fmt.Errorf("the database is locked by another program: %w", err)
	case strings.Contains(msg, "SQLITE_CORRUPT") || strings.Contains(msg, "SQLITE_NOTADB") || strings.Contains(msg, "malformed") || strings.Contains(msg, "not a database"):
		return fmt.Errorf("the database file is damaged: stop Morning Deck and copy a backup over it (see morningdeck backup --help): %w", err)
	}
	return err
}

// needsAction reports whether a described error is one a person must act on.
func needsAction(err error) bool {
	msg := err.Error()
	return strings.HasPrefix(msg, "the disk holding the database is full") || strings.HasPrefix(msg, "the database file is read-only") ||
		strings.HasPrefix(msg, "the database file is damaged")
}

// noteWrite records the outcome of a write for the health check.
func (db *DB) noteWrite(err error) error {
	if err == nil {
		db.writeFailure.Store(nil)
	} else if needsAction(err) {
		db.writeFailure.Store(&failure{err: err, at: time.Now()})
	}
	return err
}

// begin begins a write transaction, unless writes are refused (checkpoint.go).
func (db *DB) begin(ctx context.Context) (*sql.Tx, error) {
	db.beforeWrite(ctx)
	if err := db.refusal(); err != nil {
		return nil, err
	}
	return db.Write.BeginTx(ctx, nil)
}

// tx runs fn in a write transaction (BEGIN IMMEDIATE through the single write connection).
func (db *DB) tx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := db.begin(ctx)
	if err != nil {
		return db.noteWrite(describe(fmt.Errorf("begin: %w", err)))
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return db.noteWrite(describe(err))
	}
	if err := tx.Commit(); err != nil {
		return db.noteWrite(describe(fmt.Errorf("commit: %w", err)))
	}
	db.wakeCheckpoints()
	return db.noteWrite(nil)
}

func (db *DB) now() string { return db.clock.Now().UTC().Format(TimeFormat) }

// FormatTime writes a time as the database stores it (UTC, TimeFormat).
func FormatTime(t time.Time) string { return t.UTC().Format(TimeFormat) }

func formatTimePtr(t *time.Time) any {
	if t == nil {
		return nil
	}
	return FormatTime(*t)
}

func parseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t, _ = time.Parse("2006-01-02 15:04:05", s)
	}
	return t
}

func parseTimePtr(s sql.NullString) *time.Time {
	if !s.Valid || s.String == "" {
		return nil
	}
	t := parseTime(s.String)
	return &t
}

// scanIDs reads a column of ids and closes rows.
func scanIDs(rows *sql.Rows) ([]int64, error) {
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}

// queryAll runs q on the read connection and scans every row with scan; what names the query
// in its errors.
func queryAll[T any](ctx context.Context, db *DB, what string, scan func(scanner) (T, error), q string, args ...any) ([]T, error) {
	rows, err := db.Read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %s: %w", what, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: %s: %w", what, err)
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
