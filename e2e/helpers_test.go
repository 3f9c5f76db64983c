package e2e_test

// Helpers shared by the root tests (CLI, server, crash drill, email, browser, load): the
// binary under test, running it, reading its database, and an SMTP server in the test process.

import (
	"bufio"
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	_ "modernc.org/sqlite" // openRead reads the app's database file
)

var binary string

// repoRoot is the repository's root, where the module's main package is, seen from this folder.
const repoRoot = ".."

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "morningdeck-bin")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "morningdeck")
	build := exec.Command("go", "build", "-o", binary, repoRoot)
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build failed: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// missingTool ends a test whose outside tool (Chromium, newsboat, tmux, qemu, goreleaser,
// dpkg-deb) is not installed. `make test` installs them all and sets MORNINGDECK_E2E=all, and
// there a missing tool fails the test; a plain `go test ./...` skips it, saying what to install.
func missingTool(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if os.Getenv("MORNINGDECK_E2E") == "all" {
		t.Fatal(msg)
	}
	t.Skip(msg + " (skipped: run `make test`, which installs it, to run this test)")
}

// run runs the binary with a data dir and returns stdout, stderr and the exit error.
func run(t *testing.T, dataDir string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"--data-dir", dataDir}, args...)...)
	// A configuration file of the machine's user must not change what the tests see.
	cmd.Env = append(os.Environ(), "MORNINGDECK_LOG_LEVEL=warn", "XDG_CONFIG_HOME="+t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

func mustRun(t *testing.T, dataDir string, args ...string) string {
	t.Helper()
	out, errOut, err := run(t, dataDir, args...)
	if err != nil {
		t.Fatalf("morningdeck %v: %v\nstdout: %s\nstderr: %s", args, err, out, errOut)
	}
	return out
}

type sourceJSON struct {
	ID          int64  `json:"id"`
	URL         string `json:"url"`
	Name        string `json:"name"`
	Type        string `json:"type"`
	Status      string `json:"status"`
	FetchStatus string `json:"fetchStatus"`
	ItemCount   int    `json:"itemCount"`
	LastError   string `json:"lastError"`
}

func listSources(t *testing.T, dataDir string) []sourceJSON {
	t.Helper()
	var out []sourceJSON
	if err := json.Unmarshal([]byte(mustRun(t, dataDir, "source", "list", "--json")), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// startServer starts `morningdeck serve` and returns its base URL and process.
func startServer(t *testing.T, dataDir string, extra ...string) (string, *exec.Cmd) {
	t.Helper()
	return startServerLog(t, dataDir, os.Stderr, extra...)
}

// startServerLog is startServer with the app's log (its stderr) written to logw.
func startServerLog(t *testing.T, dataDir string, logw io.Writer, extra ...string) (string, *exec.Cmd) {
	t.Helper()
	args := append([]string{"--data-dir", dataDir, "serve", "--no-browser", "--addr", "127.0.0.1:0"}, extra...)
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "MORNINGDECK_LOG_LEVEL=warn")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = logw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewScanner(stdout)
	re := regexp.MustCompile(`http://[0-9.:]+/`)
	found := make(chan string, 1)
	go func() {
		for lines.Scan() {
			if u := re.FindString(lines.Text()); u != "" {
				found <- u
			}
		}
	}()
	select {
	case u := <-found:
		return u, cmd
	case <-time.After(patience):
		t.Fatal("server did not start")
	}
	return "", nil
}

func openRead(t *testing.T, dir string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "morningdeck.db")+"?mode=ro&_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func countItems(t *testing.T, dir, status string) int {
	t.Helper()
	var n int
	if err := openRead(t, dir).QueryRow(`select count(*) from items where status = ?`, status).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// mailbox is a real SMTP server in the test process; hangFirst makes the first message's DATA
// block, without an answer, until the test ends: the client that sent it is killed meanwhile.
type mailbox struct {
	addr      string
	mu        sync.Mutex
	got       []string
	hangFirst atomic.Bool
	hung      chan struct{}
	release   chan struct{} // closed when the test ends
	n         atomic.Int64
}

func newMailbox(t *testing.T) *mailbox {
	t.Helper()
	m := &mailbox{hung: make(chan struct{}), release: make(chan struct{})}
	srv := smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &mailboxSession{m: m}, nil }))
	srv.Domain, srv.AllowInsecureAuth = "localhost", true
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	m.addr = l.Addr().String()
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	t.Cleanup(func() { close(m.release) }) // first: a hung DATA returns before the server closes
	return m
}

type mailboxSession struct{ m *mailbox }

func (s *mailboxSession) Reset() {}

func (s *mailboxSession) Logout() error { return nil }

func (s *mailboxSession) Mail(string, *smtp.MailOptions) error { return nil }

func (s *mailboxSession) Rcpt(string, *smtp.RcptOptions) error { return nil }

func (s *mailboxSession) Data(r io.Reader) error {
	if s.m.n.Add(1) == 1 && s.m.hangFirst.Load() {
		close(s.m.hung)
		_, _ = io.Copy(io.Discard, r)
		// No answer until the test ends: the client must not learn that this attempt failed
		// (an answer before the kill recorded a retry 24–36 s later, past the test's wait for
		// the restarted server's delivery; CI failed once so).
		<-s.m.release
		return &smtp.SMTPError{Code: 451, Message: "connection lost"}
	}
	b, _ := io.ReadAll(r)
	s.m.mu.Lock()
	s.m.got = append(s.m.got, string(b))
	s.m.mu.Unlock()
	return nil
}

func (m *mailbox) messages() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.got...)
}

// importOutlines imports into dataDir, through `morningdeck import opml`, an OPML file of RSS
// outlines given as title → feed address, in the order given.
func importOutlines(t *testing.T, dataDir string, outlines [][2]string) {
	t.Helper()
	var opml strings.Builder
	opml.WriteString(`<?xml version="1.0"?><opml version="2.0"><head><title>subs</title></head><body>`)
	for _, o := range outlines {
		fmt.Fprintf(&opml, `<outline type="rss" text="%s" xmlUrl="%s"/>`, html.EscapeString(o[0]), html.EscapeString(o[1]))
	}
	opml.WriteString(`</body></opml>`)
	file := filepath.Join(t.TempDir(), "subs.opml")
	if err := os.WriteFile(file, []byte(opml.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	mustRun(t, dataDir, "import", "opml", file)
}
