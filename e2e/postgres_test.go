package e2e_test

import (
	"database/sql"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver

	"github.com/morningdeck/morningdeck/app/feeds/feedtest"
	"github.com/morningdeck/morningdeck/postgres/pgtest"
)

// runPG runs the binary on the PostgreSQL database url (MORNINGDECK_DATABASE_URL) and fails the
// test when it fails. dir is its --data-dir, which the database leaves empty.
func runPG(t *testing.T, dir, url string, args ...string) string {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"--data-dir", dir}, args...)...)
	cmd.Env = append(os.Environ(), "MORNINGDECK_LOG_LEVEL=warn", "XDG_CONFIG_HOME="+t.TempDir(), "MORNINGDECK_DATABASE_URL="+url)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("morningdeck %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// TestPostgresTwoInstances runs the binary on PostgreSQL (--database, here through
// MORNINGDECK_DATABASE_URL): the CLI adds and lists sources, and two `morningdeck worker`
// processes share the database and its queues: every source is fetched once and every new item
// processed once, between them — TestTwoWorkerProcesses's checks, on PostgreSQL.
func TestPostgresTwoInstances(t *testing.T) {
	url := pgtest.URL(t)
	const feeds, items = 30, 4
	farm := feedtest.NewFarm(feeds, items)
	defer farm.Close()
	dir := t.TempDir()
	for i := range feeds {
		runPG(t, dir, url, "source", "add", farm.URL(i), "--type", "rss")
	}
	if out := runPG(t, dir, url, "source", "list"); !strings.Contains(out, "Farm feed") && !strings.Contains(out, farm.URL(0)) {
		t.Fatalf("source list:\n%s", out)
	}
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	count := func(q string) int {
		t.Helper()
		var n int
		if err := db.QueryRow(q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	startWorker := func() *exec.Cmd {
		cmd := exec.Command(binary, "--data-dir", dir, "worker", "--fetch-workers", "3", "--process-workers", "2",
			"--fetch-scheduler-interval", "200ms", "--process-scheduler-interval", "200ms")
		cmd.Env = append(os.Environ(), "MORNINGDECK_LOG_LEVEL=warn", "XDG_CONFIG_HOME="+t.TempDir(), "MORNINGDECK_DATABASE_URL="+url)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	w1, w2 := startWorker(), startWorker()
	waitItems := func(want int) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			n := count(`select count(*) from items where status = 'DONE'`)
			if n == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d DONE items, want %d", n, want)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitItems(feeds * items) // the first import
	if hits := farm.Hits.Load(); hits != feeds {
		t.Fatalf("%d fetches for %d sources: a source was fetched twice", hits, feeds)
	}
	for i := range feeds {
		farm.Bump(i)
	}
	runPG(t, dir, url, "source", "refresh", "--all")
	waitItems(feeds * (items + 1))
	for deadline := time.Now().Add(60 * time.Second); count(`select count(*) from items where score is null`) > 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("items never scored")
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
	if hits := farm.Hits.Load(); hits != 3*feeds {
		t.Fatalf("%d requests after one refresh of %d sources, want %d", hits, feeds, 3*feeds)
	}
	fetched := count(`select coalesce(sum(ok), 0) from queue_done where queue = 'fetch'`)
	processed := count(`select coalesce(sum(ok), 0) from queue_done where queue = 'process'`)
	if fetched != 2*feeds || processed != feeds {
		t.Fatalf("jobs done: %d fetches (want %d), %d processings (want %d)", fetched, 2*feeds, processed, feeds)
	}
	if n := count(`select count(*) from items where enriched_by != ''`); n != feeds*(items+1) {
		t.Fatalf("%d items enriched, want %d", n, feeds*(items+1))
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("the data directory holds %d files: the SQLite file was made beside PostgreSQL", len(entries))
	}
	if out := runPG(t, dir, url, "items", "list", "--q", "story notes"); len(strings.Split(strings.TrimSpace(out), "\n")) < 2 {
		t.Fatalf("search found nothing:\n%s", out)
	}
}

// TestPostgresMigrate: `morningdeck migrate --to` copies a SQLite database that the app filled
// (sources fetched, an item read, a folder) into an empty PostgreSQL database and verifies it;
// the binary then shows the same sources and items from PostgreSQL, and a second migrate
// refuses to copy again while --verify still passes.
func TestPostgresMigrate(t *testing.T) {
	url := pgtest.URL(t)
	farm := feedtest.NewFarm(5, 4)
	defer farm.Close()
	dir := t.TempDir()
	for i := range 5 {
		mustRun(t, dir, "source", "add", farm.URL(i), "--type", "rss", "--folder", "Farm")
	}
	mustRun(t, dir, "fetch")
	mustRun(t, dir, "items", "read", "--source", "1")
	out := mustRun(t, dir, "migrate", "--to", url)
	if !strings.Contains(out, "Verified") || strings.Contains(out, "DIFFERENT") {
		t.Fatalf("migrate said:\n%s", out)
	}
	for _, args := range [][]string{{"source", "list"}, {"items", "list", "--limit", "100"}, {"folder", "list"}} {
		lite := mustRun(t, dir, args...)
		pg := runPG(t, t.TempDir(), url, args...)
		if lite != pg {
			t.Errorf("%v differs:\nSQLite:\n%s\nPostgreSQL:\n%s", args, lite, pg)
		}
	}
	if _, errOut, err := run(t, dir, "migrate", "--to", url); err == nil || !strings.Contains(errOut, "finished copy") {
		t.Fatalf("a second migrate: %v, %s", err, errOut)
	}
	if out := mustRun(t, dir, "migrate", "--to", url, "--verify"); !strings.Contains(out, "Verified") {
		t.Fatalf("verify said:\n%s", out)
	}
}

// TestPostgresKillOneInstance: two worker processes share a first ingestion on PostgreSQL and
// one is killed (kill -9) while it runs: the other finishes it — every source fetched and idle,
// every item stored once and scored, nothing left in the queues or dead.
func TestPostgresKillOneInstance(t *testing.T) {
	url := pgtest.URL(t)
	const feeds, items = 60, 5
	farm := feedtest.NewFarm(feeds, items)
	defer farm.Close()
	dir := t.TempDir()
	for i := range feeds {
		runPG(t, dir, url, "source", "add", farm.URL(i), "--type", "rss")
	}
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	count := func(q string) int {
		t.Helper()
		var n int
		if err := db.QueryRow(q).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	start := func() *exec.Cmd {
		cmd := exec.Command(binary, "--data-dir", dir, "worker", "--fetch-workers", "2", "--process-workers", "2",
			"--fetch-scheduler-interval", "200ms", "--process-scheduler-interval", "200ms", "--fetch-job-timeout", "3s",
			"--stuck-threshold", "5s", "--recovery-interval", "1s")
		cmd.Env = append(os.Environ(), "MORNINGDECK_LOG_LEVEL=error", "XDG_CONFIG_HOME="+t.TempDir(), "MORNINGDECK_DATABASE_URL="+url)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	victim, survivor := start(), start()
	// Mid-ingestion: a third of the items stored.
	for deadline := time.Now().Add(30 * time.Second); count(`select count(*) from items`) < feeds*items/3; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the ingestion did not get a third of the way")
		}
	}
	if err := victim.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = victim.Wait()
	killedAt := count(`select count(*) from items`)
	deadline := time.Now().Add(90 * time.Second)
	for {
		stored := count(`select count(*) from items where status = 'DONE' and score is not null`)
		busy := count(`select count(*) from sources where fetch_status != 'IDLE' or last_fetched_at is null`)
		jobs := count(`select count(*) from goqite`)
		if stored == feeds*items && busy == 0 && jobs == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the kill (at %d items): %d of %d items stored and scored, %d sources not done, %d jobs left", killedAt, stored, feeds*items, busy, jobs)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if dead := count(`select count(*) from queue_dead`); dead != 0 {
		t.Fatalf("%d dead jobs", dead)
	}
	if n := count(`select count(*) from (select source_id, count(*) c from items group by source_id) s where c != ` + fmt.Sprint(items)); n != 0 {
		t.Fatalf("%d sources with other than %d items", n, items)
	}
	if err := survivor.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := survivor.Wait(); err != nil {
		t.Fatalf("the survivor's exit: %v", err)
	}
	t.Logf("killed one instance at %d of %d items; the other finished", killedAt, feeds*items)
}

// TestPostgresEmailOnce: two servers share a PostgreSQL database; a briefing made through one
// and run through the other emails its report once, and a second run once more.
func TestPostgresEmailOnce(t *testing.T) {
	url := pgtest.URL(t)
	box := newMailbox(t)
	farm := feedtest.NewFarm(1, 3)
	defer farm.Close()
	host, port, _ := net.SplitHostPort(box.addr)
	flags := []string{"--smtp-host", host, "--smtp-port", port, "--smtp-tls", "none", "--smtp-from", "deck@example.com", "--process-job-timeout", "2s"}
	dir := t.TempDir()
	runPG(t, dir, url, "source", "add", farm.URL(0), "--type", "rss")
	runPG(t, dir, url, "fetch")
	t.Setenv("MORNINGDECK_DATABASE_URL", url)
	one, _ := startServer(t, dir, flags...)
	two, _ := startServer(t, t.TempDir(), flags...)
	res, err := http.Post(one+"api/briefings", "application/json", strings.NewReader(`{"name": "Morning", "time": "07:00", "emailEnabled": true, "recipients": ["ann@example.com"]}`))
	if err != nil || res.StatusCode != 201 {
		t.Fatalf("create briefing: %v %v", err, res.Status)
	}
	res.Body.Close()
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for run, base := range []string{two, one} {
		res, err := http.Post(base+"api/briefings/1/run", "application/json", nil)
		if err != nil || res.StatusCode != 202 {
			t.Fatalf("run %d: %v %v", run+1, err, res.Status)
		}
		res.Body.Close()
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
			var sent int
			_ = db.QueryRow(`select count(*) from deliveries where status = 'SENT'`).Scan(&sent)
			if sent == run+1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("run %d: %d deliveries sent", run+1, sent)
			}
		}
		time.Sleep(time.Second) // a second sending would have arrived by now
		if got := box.messages(); len(got) != run+1 {
			t.Fatalf("after run %d: %d emails, want %d", run+1, len(got), run+1)
		}
	}
}
