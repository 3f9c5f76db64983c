package e2e_test

import (
	"database/sql"
	"fmt"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
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

// pgFeeds is the size of the end-to-end run on PostgreSQL (issue 29: two instances on
// one database, 1,000 feeds), which `make test` runs. MORNINGDECK_PG_FEEDS makes it larger (the
// issue's 5,000-feed farm: MORNINGDECK_PG_FEEDS=5000 go test -run Postgres -timeout 30m ./e2e)
// or smaller for a quick look.
func pgFeeds(t *testing.T) int { return drillEnvInt(t, "MORNINGDECK_PG_FEEDS", 1000) }

// pgWait is how long a phase of a run of feeds sources may take before the test gives up: far
// above what it takes (~10 s for 1,000 feeds on the shared 2-core VM), so only a stall fails.
func pgWait(feeds int) time.Duration {
	return 60*time.Second + time.Duration(feeds)*150*time.Millisecond
}

// pgImport follows feeds first..last-1 of the farm through `morningdeck import opml` (one process,
// as a person with many sources does) on the database url.
func pgImport(t *testing.T, dir, url string, farm *feedtest.Farm, first, last int) {
	t.Helper()
	var opml strings.Builder
	opml.WriteString(`<?xml version="1.0"?><opml version="2.0"><head><title>farm</title></head><body>`)
	for i := first; i < last; i++ {
		fmt.Fprintf(&opml, `<outline type="rss" text="Feed %d" xmlUrl="%s"/>`, i, farm.URL(i))
	}
	opml.WriteString(`</body></opml>`)
	file := filepath.Join(t.TempDir(), "farm.opml")
	if err := os.WriteFile(file, []byte(opml.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	runPG(t, dir, url, "import", "opml", file)
}

// pgCounter returns a function that counts with a query on db, failing the test on an error.
func pgCounter(t *testing.T, db *sql.DB) func(q string) int {
	return func(q string) int {
		t.Helper()
		var n int
		if err := db.QueryRow(q).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
}

// pgCredits gives the account n enrichment credits a day, granted now: the default allowance
// (1,000) would hold a larger farm's new items back until tomorrow.
func pgCredits(t *testing.T, db *sql.DB, n int) {
	t.Helper()
	if _, err := db.Exec(`update users set daily_credits = $1, credits = $1, credits_refilled_at = now()`, n); err != nil {
		t.Fatal(err)
	}
}

// TestPostgresTwoInstances runs the binary on PostgreSQL (--database, here through
// MORNINGDECK_DATABASE_URL) at the size: the CLI adds and lists sources (one added by
// `source add`, the rest of the 1,000-feed farm imported from OPML), and two `morningdeck
// worker` processes share the database and its queues: every source is fetched once and every
// item stored once, and after a refresh every new item processed once, between them —
// TestTwoWorkerProcesses's checks, on PostgreSQL.
func TestPostgresTwoInstances(t *testing.T) {
	url := pgtest.URL(t)
	feeds, items := pgFeeds(t), 4
	farm := feedtest.NewFarm(feeds, items)
	defer farm.Close()
	dir := t.TempDir()
	runPG(t, dir, url, "source", "add", farm.URL(0), "--type", "rss")
	pgImport(t, dir, url, farm, 1, feeds)
	if out := runPG(t, dir, url, "source", "list"); !strings.Contains(out, "Farm feed") && !strings.Contains(out, farm.URL(0)) {
		t.Fatalf("source list:\n%s", out)
	}
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	count := pgCounter(t, db)
	if n := count(`select count(*) from sources`); n != feeds {
		t.Fatalf("%d sources, want %d", n, feeds)
	}
	pgCredits(t, db, 2*feeds)
	startWorker := func() *exec.Cmd {
		cmd := exec.Command(binary, "--data-dir", dir, "worker", "--fetch-workers", "3", "--process-workers", "2",
			"--fetch-scheduler-interval", "200ms", "--process-scheduler-interval", "200ms", "--fetch-batch-size", "1000", "--fetch-queue-capacity", "10000")
		cmd.Env = append(os.Environ(), "MORNINGDECK_LOG_LEVEL=warn", "XDG_CONFIG_HOME="+t.TempDir(), "MORNINGDECK_DATABASE_URL="+url)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	began := time.Now()
	w1, w2 := startWorker(), startWorker()
	waitItems := func(want int) {
		t.Helper()
		deadline := time.Now().Add(pgWait(feeds))
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
	firstImport := time.Since(began)
	// The feeds' own requests (the farm's other requests are article pages and icons: the
	// instances look for 20 sources' icons now and then).
	feedFetches := func() int64 { return farm.Full.Load() + farm.NotMod.Load() }
	if n := feedFetches(); n != int64(feeds) {
		t.Fatalf("%d fetches for %d sources: a source was fetched twice", n, feeds)
	}
	for i := range feeds {
		farm.Bump(i)
	}
	runPG(t, dir, url, "source", "refresh", "--all")
	waitItems(feeds * (items + 1))
	for deadline := time.Now().Add(pgWait(feeds)); count(`select count(*) from items where score is null`) > 0; time.Sleep(100 * time.Millisecond) {
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
	if n := feedFetches(); n != int64(2*feeds) {
		t.Fatalf("%d feed requests after one refresh of %d sources, want %d", n, feeds, 2*feeds)
	}
	fetched := count(`select coalesce(sum(ok), 0) from queue_done where queue = 'fetch'`)
	processed := count(`select coalesce(sum(ok), 0) from queue_done where queue = 'process'`)
	if fetched != 2*feeds || processed != feeds {
		t.Fatalf("jobs done: %d fetches (want %d), %d processings (want %d)", fetched, 2*feeds, processed, feeds)
	}
	if n := count(`select count(*) from items`); n != feeds*(items+1) {
		t.Fatalf("%d items stored, the farm served %d", n, feeds*(items+1))
	}
	if n := count(`select count(*) from (select source_id, guid from items group by 1, 2 having count(*) > 1) d`); n != 0 {
		t.Fatalf("%d items stored twice", n)
	}
	if n := count(`select count(*) from items where enriched_by != ''`); n != feeds*(items+1) {
		t.Fatalf("%d items enriched, want %d", n, feeds*(items+1))
	}
	if jobs, dead := count(`select count(*) from goqite`), count(`select count(*) from queue_dead`); jobs != 0 || dead != 0 {
		t.Fatalf("%d jobs left in the queues, %d dead", jobs, dead)
	}
	// Only the key that seals mail passwords (secret.key) belongs there: no SQLite file.
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if e.Name() != "secret.key" {
			t.Fatalf("the data directory holds %s: a file of the SQLite store was made beside PostgreSQL", e.Name())
		}
	}
	if out := runPG(t, dir, url, "items", "list", "--q", "story notes"); len(strings.Split(strings.TrimSpace(out), "\n")) < 2 {
		t.Fatalf("search found nothing:\n%s", out)
	}
	t.Logf("%d feeds × %d items: first import by two instances in %v; %d fetches, %d processings", feeds, items, firstImport.Round(100*time.Millisecond), fetched, processed)
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

// TestPostgresKillOneInstance: two worker processes share a first ingestion of the 1,000-feed
// farm on PostgreSQL and one is killed (kill -9) a third of the way through: the other finishes
// it, with the crash drill's checks — every source fetched, IDLE, ACTIVE and without errors;
// every item the farm serves stored exactly once, DONE and scored; nothing left in the queues
// or dead-lettered. Then every feed gets a new item and the survivor alone brings each in once,
// processed once.
func TestPostgresKillOneInstance(t *testing.T) {
	url := pgtest.URL(t)
	feeds, items := pgFeeds(t), 5
	farm := feedtest.NewFarm(feeds, items)
	defer farm.Close()
	dir := t.TempDir()
	pgImport(t, dir, url, farm, 0, feeds)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	count := pgCounter(t, db)
	pgCredits(t, db, 2*feeds)
	start := func() *exec.Cmd {
		cmd := exec.Command(binary, "--data-dir", dir, "worker", "--fetch-workers", "2", "--process-workers", "2",
			"--fetch-scheduler-interval", "200ms", "--process-scheduler-interval", "200ms", "--fetch-job-timeout", "3s",
			"--stuck-threshold", "5s", "--recovery-interval", "1s", "--fetch-batch-size", "1000", "--fetch-queue-capacity", "10000")
		cmd.Env = append(os.Environ(), "MORNINGDECK_LOG_LEVEL=error", "XDG_CONFIG_HOME="+t.TempDir(), "MORNINGDECK_DATABASE_URL="+url)
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		return cmd
	}
	began := time.Now()
	victim, survivor := start(), start()
	// Mid-ingestion: a third of the items stored.
	for deadline := time.Now().Add(pgWait(feeds)); count(`select count(*) from items`) < feeds*items/3; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the ingestion did not get a third of the way")
		}
	}
	if err := victim.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = victim.Wait()
	killedAt, killedAfter := count(`select count(*) from items`), time.Since(began)
	inFlight := count(`select count(*) from sources where fetch_status != 'IDLE'`)
	settled := func(want int, what string) {
		t.Helper()
		deadline := time.Now().Add(pgWait(feeds))
		for {
			stored := count(`select count(*) from items where status = 'DONE' and score is not null`)
			busy := count(`select count(*) from sources where fetch_status != 'IDLE' or last_fetched_at is null`)
			jobs := count(`select count(*) from goqite`)
			if stored == want && busy == 0 && jobs == 0 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d of %d items stored and scored, %d sources not done, %d jobs left", what, stored, want, busy, jobs)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	settled(feeds*items, fmt.Sprintf("after the kill (at %d items)", killedAt))
	finished := time.Since(began)
	hitsFirst := farm.Hits.Load()
	feedFetches := func() int64 { return farm.Full.Load() + farm.NotMod.Load() } // the feeds' own requests, not the articles'
	fetchesFirst := feedFetches()

	// The crash drill's checks.
	check := func(perSource int) {
		t.Helper()
		if n := count(`select count(*) from items`); n != feeds*perSource {
			t.Errorf("%d items stored, the farm serves %d", n, feeds*perSource)
		}
		if n := count(`select count(*) from (select source_id, guid from items group by 1, 2 having count(*) > 1) d`); n != 0 {
			t.Errorf("%d items stored more than once", n)
		}
		if n := count(`select count(*) from (select s.id from sources s left join items i on i.source_id = s.id group by s.id having count(i.id) != ` + fmt.Sprint(perSource) + `) s`); n != 0 {
			t.Errorf("%d sources with other than %d items", n, perSource)
		}
		if n := count(`select count(*) from items where status != 'DONE' or score is null`); n != 0 {
			t.Errorf("%d items not DONE or not scored", n)
		}
		if n := count(`select count(*) from sources where fetch_status != 'IDLE' or status != 'ACTIVE' or error_count > 0 or last_fetched_at is null`); n != 0 {
			t.Errorf("%d sources not IDLE, not ACTIVE, failing or never fetched", n)
		}
		if jobs, dead := count(`select count(*) from goqite`), count(`select count(*) from queue_dead`); jobs != 0 || dead != 0 {
			t.Errorf("%d jobs left in the queues, %d dead-lettered", jobs, dead)
		}
	}
	check(items)
	if fetchesFirst < int64(feeds) {
		t.Errorf("%d feed requests for %d feeds", fetchesFirst, feeds)
	}

	// A new item on every feed: the survivor alone fetches each source once more and processes
	// each new item once.
	doneBefore := count(`select coalesce(sum(ok), 0) from queue_done where queue = 'process'`)
	for i := range feeds {
		farm.Bump(i)
	}
	runPG(t, dir, url, "source", "refresh", "--all")
	settled(feeds*(items+1), "after the refresh")
	check(items + 1)
	if n := count(`select count(*) from items where enriched_by = ''`); n != 0 {
		t.Errorf("%d items not enriched", n)
	}
	if err := survivor.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := survivor.Wait(); err != nil {
		t.Fatalf("the survivor's exit: %v", err)
	}
	// The job counts are written at the end of their minute or at exit.
	refetched := feedFetches() - fetchesFirst - int64(feeds)
	if failed := count(`select coalesce(sum(failed), 0) from queue_done where queue = 'fetch'`); refetched < 0 || refetched > int64(failed) {
		t.Errorf("%d feed requests for one refresh of %d sources (%d fetch jobs failed and were retried)", refetched+int64(feeds), feeds, failed)
	}
	if n := count(`select coalesce(sum(ok), 0) from queue_done where queue = 'process'`) - doneBefore; n != feeds {
		t.Errorf("%d processings for %d new items", n, feeds)
	}
	t.Logf("%d feeds × %d items: killed one instance after %v at %d items (%d sources not IDLE); the other finished at %v; %d feed requests for the first ingestion (%d fetched again after the kill); after the refresh %d other requests (article pages, icons) for %d new items",
		feeds, items, killedAfter.Round(100*time.Millisecond), killedAt, inFlight, finished.Round(100*time.Millisecond), fetchesFirst, fetchesFirst-int64(feeds),
		farm.Hits.Load()-hitsFirst-(feedFetches()-fetchesFirst), feeds)
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

// TestPostgresBackup: `morningdeck backup FILE` on PostgreSQL writes pg_dump's custom format
// (mode 0600) and says how to restore it; pg_restore into an empty database gives a database the
// binary runs on, with the same sources and items.
func TestPostgresBackup(t *testing.T) {
	url := pgtest.URL(t)
	farm := feedtest.NewFarm(3, 4)
	defer farm.Close()
	dir := t.TempDir()
	pgImport(t, dir, url, farm, 0, 3)
	runPG(t, dir, url, "fetch")
	file := filepath.Join(t.TempDir(), "deck.dump")
	out := runPG(t, dir, url, "backup", file)
	if !strings.Contains(out, "Backed up to "+file) || !strings.Contains(out, "pg_restore") {
		t.Fatalf("backup said:\n%s", out)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(b), "PGDMP") {
		t.Fatalf("the backup is not pg_dump's custom format: %q…", b[:min(len(b), 16)])
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("the backup's mode is %v, want 0600", fi.Mode().Perm())
	}
	if out := runPG(t, dir, url, "backup", "--help"); !strings.Contains(out, "pg_restore") {
		t.Errorf("backup --help says nothing of pg_restore:\n%s", out)
	}
	if _, errOut, err := func() (string, string, error) {
		cmd := exec.Command(binary, "--data-dir", dir, "backup", file)
		cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir(), "MORNINGDECK_DATABASE_URL="+url)
		var o, e strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &e
		err := cmd.Run()
		return o.String(), e.String(), err
	}(); err == nil || !strings.Contains(errOut, "already exists") {
		t.Errorf("a backup over an existing file: %v, %s", err, errOut)
	}

	// Restored into an empty database (pg_restore of the same client tools).
	restore, err := exec.LookPath("pg_restore")
	if err != nil {
		found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_restore")
		if len(found) == 0 {
			t.Fatal("pg_restore is not installed beside pg_dump")
		}
		restore = found[len(found)-1]
	}
	admin, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := fmt.Sprintf("restored_%d", os.Getpid())
	if _, err := admin.Exec(`create database ` + name + ` template template0`); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.Exec(`drop database if exists ` + name + ` with (force)`) })
	u, _ := neturl.Parse(url)
	u.Path = "/" + name
	if out, err := exec.Command(restore, "--no-owner", "--exit-on-error", "-d", u.String(), file).CombinedOutput(); err != nil {
		t.Fatalf("pg_restore: %v\n%s", err, out)
	}
	for _, args := range [][]string{{"source", "list"}, {"items", "list", "--limit", "100"}} {
		if before, after := runPG(t, dir, url, args...), runPG(t, t.TempDir(), u.String(), args...); before != after {
			t.Errorf("%v differs after the restore:\n%s\nrestored:\n%s", args, before, after)
		}
	}
}
