package e2e_test

import (
	"database/sql"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/morningdeck/morningdeck/app/feeds/feedtest"
)

// TestTwoWorkerProcesses runs two `morningdeck worker` processes on one database file: every
// source is fetched once and every new item processed once, between them.
func TestTwoWorkerProcesses(t *testing.T) {
	const feeds, items = 30, 4
	farm := feedtest.NewFarm(feeds, items)
	defer farm.Close()
	dir := t.TempDir()
	for i := range feeds {
		mustRun(t, dir, "source", "add", farm.URL(i), "--type", "rss")
	}
	startWorker := func() *exec.Cmd {
		cmd := exec.Command(binary, "--data-dir", dir, "worker", "--fetch-workers", "3", "--process-workers", "2",
			"--fetch-scheduler-interval", "200ms", "--process-scheduler-interval", "200ms")
		cmd.Env = append(os.Environ(), "MORNINGDECK_LOG_LEVEL=warn", "XDG_CONFIG_HOME="+t.TempDir())
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	w1, w2 := startWorker(), startWorker()

	waitItems := func(want int, status string) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			n := countItems(t, dir, status)
			if n == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d %s items, want %d", n, status, want)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitItems(feeds*items, "DONE") // the first import
	if hits := farm.Hits.Load(); hits != feeds {
		t.Fatalf("%d fetches for %d sources: a source was fetched twice", hits, feeds)
	}
	// New items on every feed, a refresh of all: each new item is enriched once.
	for i := range feeds {
		farm.Bump(i)
	}
	mustRun(t, dir, "source", "refresh", "--all")
	waitItems(feeds*(items+1), "DONE")
	// The first imports are scored by the embedded enricher (issue 12), in their fetch.
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var unscored int
		_ = openRead(t, dir).QueryRow(`select count(*) from items where score is null`).Scan(&unscored)
		if unscored == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d items never scored", unscored)
		}
	}
	for _, w := range []*exec.Cmd{w1, w2} {
		if err := w.Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := w.Wait(); err != nil {
			t.Fatalf("worker exit: %v", err)
		}
	}
	// Each source fetched twice, and each new item's page once (its article text: the feed's is short).
	if hits := farm.Hits.Load(); hits != 3*feeds {
		t.Fatalf("%d requests after one refresh of %d sources, want %d", hits, feeds, 3*feeds)
	}
	db := openRead(t, dir)
	var fetched, processed int
	if err := db.QueryRow(`select coalesce(sum(ok), 0) from queue_done where queue = 'fetch'`).Scan(&fetched); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`select coalesce(sum(ok), 0) from queue_done where queue = 'process'`).Scan(&processed); err != nil {
		t.Fatal(err)
	}
	// One enrichment per new item; a first import is scored by its fetch, without a job (issue 14).
	if fetched != 2*feeds || processed != feeds {
		t.Fatalf("jobs done: %d fetches (want %d), %d processings (want %d)", fetched, 2*feeds, processed, feeds)
	}
	var enriched int
	if err := db.QueryRow(`select count(*) from items where enriched_by != ''`).Scan(&enriched); err != nil {
		t.Fatal(err)
	}
	if enriched != feeds*(items+1) {
		t.Fatalf("%d items enriched, want %d (the first imports by the embedded enricher, the new items by the pipeline)", enriched, feeds*(items+1))
	}
}

func TestConfigAndQueueCLI(t *testing.T) {
	t.Run("flags win over the environment, which wins over the config file; secrets are masked", func(t *testing.T) {
		dir := t.TempDir()
		conf := filepath.Join(t.TempDir(), "morningdeck.conf")
		if err := os.WriteFile(conf, []byte("# Morning Deck\nfetch-workers = 2\nprocess-workers = 7\nsmtp-password = \"hunter2\"\naddr = 127.0.0.1:7799\n\nlog-format = json\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(binary, "--data-dir", dir, "--config", conf, "config", "show", "--fetch-workers", "5")
		cmd.Env = append(os.Environ(), "MORNINGDECK_PROCESS_WORKERS=3", "MORNINGDECK_LLM_API_KEY=sk-secret")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		for _, want := range []string{"fetch-workers", "= 5", "# flag", "process-workers", "= 3", "# env", "addr", "= 127.0.0.1:7799", "# file",
			"smtp-password", "= ********", "configuration file: " + conf, "log-format"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("config show lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(string(out), "hunter2") || strings.Contains(string(out), "sk-secret") {
			t.Fatalf("a secret is shown:\n%s", out)
		}
		line := func(name string) string {
			for _, l := range strings.Split(string(out), "\n") {
				if strings.HasPrefix(l, name+" ") {
					return strings.Join(strings.Fields(l), " ")
				}
			}
			return ""
		}
		if line("fetch-workers") != "fetch-workers = 5 # flag" || line("process-workers") != "process-workers = 3 # env" ||
			line("log-format") != "log-format = json # file" || line("http-timeout") != "http-timeout = 30s # default" {
			t.Fatalf("precedence:\n%s", out)
		}

		if err := os.WriteFile(conf, []byte("fetch-wrokers = 2\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, errOut, err := run(t, dir, "--config", conf, "source", "list")
		if err == nil || !strings.Contains(errOut, `:1: unknown setting "fetch-wrokers"`) {
			t.Fatalf("a misspelt setting: %v %s", err, errOut)
		}
		_, errOut, err = run(t, dir, "--config", filepath.Join(dir, "missing.conf"), "source", "list")
		if err == nil || !strings.Contains(errOut, "missing.conf") {
			t.Fatalf("a missing named config file: %v %s", err, errOut)
		}
	})

	t.Run("queue stats, pause, resume, failed, retry and their errors", func(t *testing.T) {
		dir := t.TempDir()
		out := mustRun(t, dir, "queue", "stats")
		for _, q := range []string{"fetch", "process", "briefing", "email"} {
			if !strings.Contains(out, q) {
				t.Fatalf("stats lack %s:\n%s", q, out)
			}
		}
		if out := mustRun(t, dir, "queue", "pause", "process"); !strings.Contains(out, "Queue process paused.") {
			t.Fatalf("pause said %q", out)
		}
		var stats map[string]struct {
			Pending, Failed int
			Paused          bool
		}
		if err := json.Unmarshal([]byte(mustRun(t, dir, "queue", "stats", "--json")), &stats); err != nil {
			t.Fatal(err)
		}
		if !stats["process"].Paused || stats["fetch"].Paused {
			t.Fatalf("after pause: %+v", stats)
		}
		mustRun(t, dir, "queue", "resume", "process")
		if !strings.Contains(mustRun(t, dir, "queue", "stats"), "process   running") {
			t.Fatal("resume did not resume")
		}
		if out := mustRun(t, dir, "queue", "failed"); !strings.Contains(out, "No failed jobs.") {
			t.Fatalf("failed said %q", out)
		}
		for _, tc := range []struct {
			args []string
			want string
		}{
			{[]string{"queue", "pause", "nope"}, `There is no queue "nope"`},
			{[]string{"queue", "retry", "fetch"}, "pass --all"},
			{[]string{"queue", "retry", "fetch", "m_123"}, "is not in the fetch queue"},
			{[]string{"queue", "discard", "email", "m_123"}, "is not in the email queue"},
		} {
			_, errOut, err := run(t, dir, tc.args...)
			if err == nil || !strings.Contains(errOut, tc.want) {
				t.Errorf("%v: %v %q", tc.args, err, errOut)
			}
		}
		if out := mustRun(t, dir, "queue", "retry", "email", "--all"); !strings.Contains(out, "0 failed jobs sent back") {
			t.Fatalf("retry --all said %q", out)
		}
	})
}

func TestAccountsCLI(t *testing.T) {
	dir := t.TempDir()
	// Beyond loopback without an account, serve refuses to start (before it binds anything).
	_, errOut, err := run(t, dir, "serve", "--no-browser", "--addr", "0.0.0.0:0")
	if err == nil || !strings.Contains(errOut, "morningdeck user add NAME") {
		t.Fatalf("serve beyond loopback without an account: %v %s", err, errOut)
	}
	add := func(args ...string) (string, string, error) {
		cmd := exec.Command(binary, append([]string{"--data-dir", dir, "user", "add"}, args...)...)
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir())
		cmd.Stdin = strings.NewReader("a long enough password\n")
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		return out.String(), errb.String(), err
	}
	if out, errOut, err := add("ann"); err != nil || !strings.Contains(out, "Created admin ann (id 1)") {
		t.Fatalf("user add: %v %s %s", err, out, errOut)
	}
	if out, _, err := add("bob"); err != nil || !strings.Contains(out, "Created user bob (id 2)") {
		t.Fatalf("second user: %v %s", err, out)
	}
	if _, errOut, err := add("ann"); err == nil || !strings.Contains(errOut, `There is already a user "ann"`) {
		t.Fatalf("a taken name: %v %s", err, errOut)
	}
	if _, errOut, err := add("bad name!"); err == nil || !strings.Contains(errOut, "user name uses letters") {
		t.Fatalf("a bad name: %v %s", err, errOut)
	}
	out := mustRun(t, dir, "user", "list")
	if !strings.Contains(out, "ann") || !strings.Contains(out, "admin") || !strings.Contains(out, "bob") {
		t.Fatalf("user list:\n%s", out)
	}
	tok := strings.TrimSpace(mustRun(t, dir, "user", "token", "bob", "script"))
	if !strings.HasPrefix(tok, "md_") {
		t.Fatalf("token %q", tok)
	}

	// With sign-in required, the API answers bob's token and nothing without one.
	base, _ := startServer(t, dir, "--require-login")
	get := func(auth string) int {
		req, _ := http.NewRequest("GET", base+"api/sources", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := get(""); code != http.StatusUnauthorized {
		t.Fatalf("no token: %d", code)
	}
	if code := get("Bearer " + tok); code != http.StatusOK {
		t.Fatalf("bob's token: %d", code)
	}
	if _, errOut, err := run(t, dir, "user", "rm", "ann"); err == nil || !strings.Contains(errOut, "last admin") {
		t.Fatalf("removing the last admin: %v %s", err, errOut)
	}
}

func TestDatabaseFileProblems(t *testing.T) {
	t.Run("a database file the app may not write gives a clear error", func(t *testing.T) {
		dir, err := os.MkdirTemp("", "morningdeck-ro-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		mustRun(t, dir, "source", "list")
		if err := os.Chmod(filepath.Join(dir, "morningdeck.db"), 0o444); err != nil {
			t.Fatal(err)
		}
		_ = os.Chmod(dir, 0o755)
		args := []string{binary, "--data-dir", dir, "source", "list"}
		if os.Geteuid() == 0 {
			// root writes whatever the mode says: run as nobody, as a service user would be.
			args = append([]string{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"}, args...)
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+dir+"/config", "HOME="+dir)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "cannot be written (permission denied)") {
			t.Fatalf("read-only database file: %v\n%s", err, out)
		}
		_ = os.Chmod(filepath.Join(dir, "morningdeck.db"), 0o600)
		mustRun(t, dir, "source", "list") // nothing was harmed
	})

	t.Run("a database locked by another program is waited on for --db-busy-timeout, then a clear error", func(t *testing.T) {
		dir := t.TempDir()
		mustRun(t, dir, "source", "list")
		db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "morningdeck.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		conn, err := db.Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := conn.ExecContext(t.Context(), `begin exclusive`); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		_, errOut, err := run(t, dir, "--db-busy-timeout", "1s", "source", "add", "https://example.com/feed.xml", "--type", "rss")
		if err == nil || !strings.Contains(errOut, "locked by another program") {
			t.Fatalf("under a lock: %v %s", err, errOut)
		}
		if took := time.Since(start); took > 20*time.Second {
			t.Fatalf("took %s with a 1s busy timeout", took)
		}
		if _, err := conn.ExecContext(t.Context(), `rollback`); err != nil {
			t.Fatal(err)
		}
		mustRun(t, dir, "source", "add", "https://example.com/feed.xml", "--type", "rss")
	})
}

func TestDataCareCLI(t *testing.T) {
	farm := feedtest.NewFarm(2, 5)
	defer farm.Close()
	dir := t.TempDir()
	for i := range 2 {
		mustRun(t, dir, "source", "add", farm.URL(i), "--type", "rss")
	}
	mustRun(t, dir, "fetch")

	backup := filepath.Join(t.TempDir(), "copy.db")
	if out := mustRun(t, dir, "backup", backup); !strings.Contains(out, "Backed up to "+backup) {
		t.Fatalf("backup said %q", out)
	}
	st, err := os.Stat(backup)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("backup file: %v %v", st, err)
	}
	if _, errOut, err := run(t, dir, "backup", backup); err == nil || !strings.Contains(errOut, "already exists") || strings.Contains(errOut, "sqlite:") {
		t.Fatalf("a second backup over the first, said plainly: %v %s", err, errOut)
	}
	// Restore: the copy is a whole database.
	restored := t.TempDir()
	b, _ := os.ReadFile(backup)
	if err := os.WriteFile(filepath.Join(restored, "morningdeck.db"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if out := mustRun(t, restored, "check"); !strings.Contains(out, ": ok") {
		t.Fatalf("check said %q", out)
	}
	if s := listSources(t, restored); len(s) != 2 || s[0].ItemCount != 5 {
		t.Fatalf("restored sources: %+v", s)
	}

	// Retention: the first source's items are 100 days old; one of them is starred.
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "morningdeck.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-100 * 24 * time.Hour).UTC().Format("2006-01-02T15:04:05.000Z")
	if _, err := db.Exec(`update items set created_at = ?, published_at = ? where source_id = 1`, old, old); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`update items set starred = 1 where id = (select min(id) from items where source_id = 1)`); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	if out := mustRun(t, dir, "prune"); !strings.Contains(out, "Pruned 4 items older than 90 days") {
		t.Fatalf("prune said %q", out)
	}
	if n := countItems(t, dir, "DONE"); n != 6 {
		t.Fatalf("%d items left, want 6 (5 recent, 1 starred)", n)
	}
	// A fetch of the same feed does not bring the pruned entries back.
	mustRun(t, dir, "source", "refresh", "1")
	mustRun(t, dir, "fetch")
	if n := countItems(t, dir, "DONE"); n != 6 {
		t.Fatalf("after a refetch %d items, want 6: pruned items came back", n)
	}

	// The daily automatic backup, by a running process.
	backups := t.TempDir()
	cmd := exec.Command(binary, "--data-dir", dir, "worker", "--backup-dir", backups, "--backup-keep", "2")
	cmd.Env = append(os.Environ(), "MORNINGDECK_LOG_LEVEL=warn", "XDG_CONFIG_HOME="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	want := filepath.Join(backups, "morningdeck-"+time.Now().Format("2006-01-02")+".db")
	for deadline := time.Now().Add(patience); ; time.Sleep(100 * time.Millisecond) {
		if st, err := os.Stat(want); err == nil && st.Size() > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no automatic backup %s", want)
		}
	}
}
