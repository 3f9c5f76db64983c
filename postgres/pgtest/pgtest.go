// Package pgtest gives tests a real PostgreSQL: one throwaway server per test binary (initdb in
// a temporary directory, a free loopback port, its socket in that directory) and a fresh
// database per test, made from a migrated template, dropped when the test ends.
//
// The server's tools come from Debian's postgresql package (`make deps` installs it): initdb and
// pg_ctl on the PATH or in /usr/lib/postgresql/<version>/bin. Run as root (as CI does), the
// server runs as the unprivileged user nobody, which owns the temporary directory. It is stopped
// and its directory removed when the test binary exits, however it exits (a watchdog process
// waits on a pipe that only the binary holds open).
//
// Where the tools are missing, a test that needs them fails under `make test` (which sets
// MORNINGDECK_E2E=all) or in CI (CI=true), and is skipped, saying what to install, in a plain
// `go test` run.
package pgtest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/postgres"
)

// server is the test binary's PostgreSQL.
type server struct {
	dir   string
	port  int
	admin *sql.DB // to the "postgres" database, for creating and dropping the tests' databases
}

var (
	startOnce sync.Once
	srv       *server
	srvErr    error
	// watchdog holds the write end of the pipe the watchdog reads: the server is stopped when
	// this process exits and the pipe closes.
	watchdog *os.File

	templateOnce sync.Once
	templateErr  error

	dbSeq atomic.Int64

	dropMu sync.Mutex // one drop at a time
)

const templateDB = "morningdeck_template"

// Required reports whether a missing PostgreSQL fails the tests rather than skipping them:
// under `make test` (MORNINGDECK_E2E=all) and in CI (CI=true).
func Required() bool {
	return os.Getenv("MORNINGDECK_E2E") == "all" || os.Getenv("CI") == "true"
}

// missing ends a test that has no PostgreSQL: a failure where one is required, a skip elsewhere.
func missing(t testing.TB, err error) {
	t.Helper()
	msg := fmt.Sprintf("PostgreSQL for the tests: %v", err)
	if Required() {
		t.Fatal(msg)
	}
	t.Skip(msg + " (skipped: `make test` installs Debian's postgresql package and runs these tests)")
}

// errNoTools says that the server's programs are not installed.
var errNoTools = errors.New("initdb and pg_ctl not found on the PATH or in /usr/lib/postgresql/*/bin: install PostgreSQL's server (Debian: apt-get install postgresql)")

// binDir finds the directory of initdb and pg_ctl: the PATH's, else Debian's newest version.
func binDir() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if _, err := exec.LookPath("pg_ctl"); err == nil {
			return filepath.Dir(p), nil
		}
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Slice(found, func(i, j int) bool { return version(found[i]) > version(found[j]) })
	for _, p := range found {
		dir := filepath.Dir(p)
		if _, err := os.Stat(filepath.Join(dir, "pg_ctl")); err == nil {
			return dir, nil
		}
	}
	return "", errNoTools
}

// version is the major version in /usr/lib/postgresql/<version>/bin/initdb.
func version(initdb string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(initdb))))
	return v
}

// start initializes and starts the server, once per test binary.
func start() (*server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "morningdeck-pg-")
	if err != nil {
		return nil, err
	}
	// As root, the server runs as nobody (initdb and postgres refuse root), owning the directory.
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("nobody")
		if err != nil {
			_ = os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root, and no user nobody to run the server as: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
	}
	command := func(name string, args ...string) *exec.Cmd {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "PGTZ=UTC")
		if cred != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		}
		return cmd
	}
	data := filepath.Join(dir, "data")
	if out, err := command("initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync", "--no-instructions").CombinedOutput(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}

	// The watchdog stops the server and removes the directory once this process has exited:
	// its stdin is a pipe whose only writer is this process. It runs in its own process group,
	// so an interrupt of the test run does not stop it before it has cleaned up.
	r, w, err := os.Pipe()
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	// SIGQUIT is the server's immediate shutdown; root may send it to nobody's server.
	pidFile := filepath.Join(data, "postmaster.pid")
	wd := exec.Command("sh", "-c", `cat >/dev/null; pid=$(head -n 1 "$1" 2>/dev/null)
if [ -n "$pid" ] && kill -QUIT "$pid" 2>/dev/null; then
	for i in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
fi
rm -rf "$2"`, "watchdog", pidFile, dir)
	wd.Stdin = r
	wd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := wd.Start(); err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("watchdog: %w", err)
	}
	_ = r.Close()
	watchdog = w
	go func() { _ = wd.Wait() }()

	var lastErr error
	for range 3 { // a free port may be taken between finding it and the server's bind
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		opts := strings.Join([]string{
			"-p " + strconv.Itoa(port),
			"-c listen_addresses=127.0.0.1",
			"-c unix_socket_directories=" + dir,
			// A throwaway server: durability is not wanted, speed is.
			"-c fsync=off", "-c synchronous_commit=off", "-c full_page_writes=off",
			"-c max_connections=200", "-c shared_buffers=32MB",
			"-c timezone=UTC",
		}, " ")
		out, err := command("pg_ctl", "-D", data, "-l", filepath.Join(dir, "server.log"), "-w", "-t", "60", "-o", opts, "start").CombinedOutput()
		if err != nil {
			log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
			lastErr = fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, log)
			continue
		}
		admin, err := sql.Open("pgx", url(port, "postgres"))
		if err != nil {
			return nil, err
		}
		admin.SetMaxOpenConns(4)
		return &server{dir: dir, port: port, admin: admin}, nil
	}
	return nil, lastErr
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func url(port int, db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", port, db)
}

// get returns the test binary's server, starting it on first use, or ends the test.
func get(t testing.TB) *server {
	t.Helper()
	startOnce.Do(func() { srv, srvErr = start() })
	if srvErr != nil {
		missing(t, srvErr)
	}
	return srv
}

// Require ends the test (a failure under `make test` and in CI, a skip elsewhere) when
// PostgreSQL's server cannot be started.
func Require(t testing.TB) { t.Helper(); get(t) }

// URL returns the address of a new, empty database (no migrations run), dropped when the test
// ends.
func URL(t testing.TB) string {
	t.Helper()
	return create(t, get(t), "template0")
}

// create makes a database from template and drops it when the test ends.
func create(t testing.TB, s *server, template string) string {
	t.Helper()
	name := fmt.Sprintf("test_%d_%d", os.Getpid(), dbSeq.Add(1))
	ctx := context.Background()
	if _, err := s.admin.ExecContext(ctx, `create database `+name+` template `+template); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		// Dropped in the background, one at a time: a drop waits for a checkpoint, and the test
		// need not wait for it (the server and its directory go when the test binary exits, with
		// whatever is left). with (force): a connection a failed test left open does not keep it.
		go func() {
			dropMu.Lock()
			defer dropMu.Unlock()
			_, _ = s.admin.ExecContext(ctx, `drop database if exists `+name+` with (force)`)
		}()
	})
	return url(s.port, name)
}

// New returns a migrated database of its own, closed and dropped when the test ends.
func New(t testing.TB) *postgres.DB { t.Helper(); return NewWithClock(t, nil) }

// NewWithClock is New with a clock for the database's timestamps.
func NewWithClock(t testing.TB, c app.Clock) *postgres.DB {
	t.Helper()
	s := get(t)
	// The migrations run once per test binary, into a template that each test's database copies.
	templateOnce.Do(func() {
		ctx := context.Background()
		if _, err := s.admin.ExecContext(ctx, `create database `+templateDB); err != nil {
			templateErr = err
			return
		}
		db, err := postgres.Open(ctx, postgres.Options{URL: url(s.port, templateDB)})
		if err != nil {
			templateErr = err
			return
		}
		templateErr = db.Close()
	})
	if templateErr != nil {
		t.Fatalf("pgtest: migrated template: %v", templateErr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := postgres.Open(ctx, postgres.Options{URL: create(t, s, templateDB), Clock: c, MaxConns: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}
