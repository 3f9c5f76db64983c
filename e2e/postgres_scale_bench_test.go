package e2e_test

import (
	"bytes"
	"database/sql"
	"fmt"
	"net"
	"net/http"
	neturl "net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app/feeds/feedtest"
	"github.com/morningdeck/morningdeck/postgres/pgtest"
)

// The PostgreSQL scale figures of issue 29 (BENCHMARKS.md, "Session 12"), not part of `make test`:
//
//	go test ./e2e -run '^$' -bench 'PostgresInstances|Miniflux' -benchtime 1x [-feeds 1000]
//
// BenchmarkPostgresInstances times a first ingestion of the farm by one `morningdeck worker`
// and by two sharing the database. MORNINGDECK_BENCH_CPUS=0,1 pins instance k to the k-th CPU
// of the list with taskset (PostgreSQL is not pinned); BenchmarkMiniflux runs the Miniflux
// binary named by MINIFLUX_BIN on the same farm and the same PostgreSQL server.

// benchFarmOPML writes an OPML file of the farm's feeds.
func benchFarmOPML(b *testing.B, farm *feedtest.Farm) string {
	var o strings.Builder
	o.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<opml version=\"2.0\"><head><title>bench</title></head><body>\n")
	for i := range farm.Feeds {
		fmt.Fprintf(&o, "<outline type=\"rss\" text=\"Feed %d\" title=\"Feed %d\" xmlUrl=\"%s\"/>\n", i, i, farm.URL(i))
	}
	o.WriteString("</body></opml>\n")
	file := filepath.Join(b.TempDir(), "sources.opml")
	if err := os.WriteFile(file, []byte(o.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	return file
}

// pgServerCPU is the CPU time of the PostgreSQL server listening on url's port: its postmaster
// and live backends, and the backends that have exited (the postmaster's children's time).
func pgServerCPU(b testing.TB, url string) time.Duration {
	u, err := neturl.Parse(url)
	if err != nil {
		b.Fatal(err)
	}
	port := u.Port()
	procs, _ := filepath.Glob("/proc/[0-9]*")
	var master string
	parent := map[string]string{}
	ticks := map[string][4]int64{}
	for _, p := range procs {
		pid := filepath.Base(p)
		stat, err := os.ReadFile(p + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 || !bytes.Contains(stat[:i], []byte("(postgres")) {
			continue
		}
		f := strings.Fields(string(stat[i+2:]))
		var t [4]int64
		for k := range 4 {
			t[k], _ = strconv.ParseInt(f[11+k], 10, 64) // utime stime cutime cstime
		}
		parent[pid], ticks[pid] = f[1], t
		if cmd, _ := os.ReadFile(p + "/cmdline"); bytes.Contains(cmd, []byte("-p "+port+"\x00")) || bytes.Contains(cmd, []byte("\x00-p\x00"+port+"\x00")) || bytes.Contains(cmd, []byte("-p "+port+" ")) {
			master = pid
		}
	}
	if master == "" {
		b.Fatalf("no PostgreSQL server on port %s", port)
	}
	t := ticks[master]
	sum := t[0] + t[1] + t[2] + t[3]
	for pid, pp := range parent {
		if pp == master {
			sum += ticks[pid][0] + ticks[pid][1]
		}
	}
	return time.Duration(sum) * time.Second / 100 // USER_HZ
}

// benchCPUs is MORNINGDECK_BENCH_CPUS's list (empty: no pinning).
func benchCPUs() []string {
	if s := os.Getenv("MORNINGDECK_BENCH_CPUS"); s != "" {
		return strings.Split(s, ",")
	}
	return nil
}

func BenchmarkPostgresInstances(b *testing.B) {
	feeds, items := *benchFeeds, 20
	farm := feedtest.NewFarm(feeds, items)
	defer farm.Close()
	opml := benchFarmOPML(b, farm)
	cpus := benchCPUs()
	for _, n := range []int{1, 2} {
		b.Run(fmt.Sprintf("instances=%d", n), func(b *testing.B) {
			for range b.N {
				b.StopTimer()
				url := pgtest.URL(b)
				dir := b.TempDir()
				env := append(os.Environ(), "MORNINGDECK_LOG_LEVEL=error", "XDG_CONFIG_HOME="+b.TempDir(), "MORNINGDECK_DATABASE_URL="+url)
				imp := exec.Command(binary, "--data-dir", dir, "import", "opml", opml)
				imp.Env = env
				if out, err := imp.CombinedOutput(); err != nil {
					b.Fatalf("import: %v\n%s", err, out)
				}
				db, err := sql.Open("pgx", url)
				if err != nil {
					b.Fatal(err)
				}
				pgBefore := pgServerCPU(b, url)
				b.StartTimer()
				t0 := time.Now()
				var cmds []*exec.Cmd
				var pinned []string
				for k := range n {
					args := []string{binary, "--data-dir", dir, "worker", "--fetch-batch-size", "1000", "--fetch-queue-capacity", "10000", "--fetch-scheduler-interval", "200ms"}
					if len(cpus) > 0 {
						cpu := cpus[k%len(cpus)]
						args = append([]string{"taskset", "-c", cpu}, args...)
						pinned = append(pinned, cpu)
					}
					cmd := exec.Command(args[0], args[1:]...)
					cmd.Env = env
					cmd.Stderr = os.Stderr
					if err := cmd.Start(); err != nil {
						b.Fatal(err)
					}
					cmds = append(cmds, cmd)
				}
				for deadline := time.Now().Add(10 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
					var stored, busy int
					if err := db.QueryRow(`select (select count(*) from items where score is not null), (select count(*) from sources where fetch_status != 'IDLE' or last_fetched_at is null)`).Scan(&stored, &busy); err != nil {
						b.Fatal(err)
					}
					if stored == feeds*items && busy == 0 {
						break
					}
					if time.Now().After(deadline) {
						b.Fatalf("%d of %d items, %d sources busy", stored, feeds*items, busy)
					}
				}
				wall := time.Since(t0)
				b.StopTimer()
				pgCPU := pgServerCPU(b, url) - pgBefore
				var cpu time.Duration
				for _, cmd := range cmds {
					_ = cmd.Process.Signal(syscall.SIGTERM)
					_ = cmd.Wait()
					cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
				}
				db.Close()
				b.ReportMetric(wall.Seconds(), "s/ingestion")
				b.ReportMetric(cpu.Seconds(), "cpu-s/ingestion")
				b.ReportMetric(pgCPU.Seconds(), "pg-cpu-s/ingestion")
				b.Logf("%d instance(s) (CPUs %v) on PostgreSQL: %d feeds × %d items: %v; %v CPU in the instances (whole run, shutdown included), %v in PostgreSQL",
					n, pinned, feeds, items, wall.Round(time.Millisecond), cpu.Round(time.Millisecond), pgCPU.Round(time.Millisecond))
			}
		})
	}
}

func BenchmarkMiniflux(b *testing.B) {
	bin := os.Getenv("MINIFLUX_BIN")
	if bin == "" {
		b.Skip("MINIFLUX_BIN=path/to/miniflux: the Miniflux binary to run on the same farm")
	}
	feeds, items := *benchFeeds, 20
	farm := feedtest.NewFarm(feeds, items)
	defer farm.Close()
	opml := benchFarmOPML(b, farm)
	body, err := os.ReadFile(opml)
	if err != nil {
		b.Fatal(err)
	}
	for range b.N {
		b.StopTimer()
		url := pgtest.URL(b)
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		cmd := exec.Command(bin)
		cmd.Env = append(os.Environ(), "DATABASE_URL="+url, "RUN_MIGRATIONS=1", "CREATE_ADMIN=1", "ADMIN_USERNAME=admin",
			"ADMIN_PASSWORD=benchmark-password", "LISTEN_ADDR="+addr, "POLLING_FREQUENCY=1440", "BATCH_SIZE=100000",
			"WORKER_POOL_SIZE=16", "LOG_LEVEL=warning", "POLLING_PARSING_ERROR_LIMIT=0")
		if w := os.Getenv("MINIFLUX_WORKERS"); w != "" {
			cmd.Env = append(cmd.Env, "WORKER_POOL_SIZE="+w)
		}
		var logs bytes.Buffer
		cmd.Stdout, cmd.Stderr = &logs, &logs
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		api := func(method, path string, body []byte) int {
			req, _ := http.NewRequest(method, "http://"+addr+path, bytes.NewReader(body))
			req.SetBasicAuth("admin", "benchmark-password")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				return 0
			}
			res.Body.Close()
			return res.StatusCode
		}
		for deadline := time.Now().Add(60 * time.Second); api("GET", "/v1/me", nil) != 200; time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				b.Fatalf("Miniflux did not start:\n%s", logs.String())
			}
		}
		if code := api("POST", "/v1/import", body); code/100 != 2 {
			b.Fatalf("import: %d\n%s", code, logs.String())
		}
		db, err := sql.Open("pgx", url)
		if err != nil {
			b.Fatal(err)
		}
		var n int
		_ = db.QueryRow(`select count(*) from feeds`).Scan(&n)
		cpuOf := func() time.Duration {
			stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", cmd.Process.Pid))
			f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+2:]))
			u, _ := strconv.ParseInt(f[11], 10, 64)
			s, _ := strconv.ParseInt(f[12], 10, 64)
			return time.Duration(u+s) * time.Second / 100
		}
		cpuBefore, pgBefore := cpuOf(), pgServerCPU(b, url)
		b.StartTimer()
		t0 := time.Now()
		if code := api("PUT", "/v1/feeds/refresh", nil); code/100 != 2 {
			b.Fatalf("refresh: %d\n%s", code, logs.String())
		}
		for deadline := time.Now().Add(10 * time.Minute); ; time.Sleep(20 * time.Millisecond) {
			var entries, checked int
			if err := db.QueryRow(`select (select count(*) from entries), (select count(*) from feeds where checked_at > now() - interval '1 hour' and parsing_error_count = 0)`).Scan(&entries, &checked); err != nil {
				b.Fatal(err)
			}
			if entries == feeds*items && checked == feeds {
				break
			}
			if time.Now().After(deadline) {
				b.Fatalf("Miniflux: %d of %d entries, %d of %d feeds checked\n%s", entries, feeds*items, checked, feeds, logs.String())
			}
		}
		wall := time.Since(t0)
		b.StopTimer()
		cpu, pgCPU := cpuOf()-cpuBefore, pgServerCPU(b, url)-pgBefore
		_ = cmd.Process.Signal(syscall.SIGTERM)
		_ = cmd.Wait()
		db.Close()
		b.ReportMetric(wall.Seconds(), "s/ingestion")
		b.ReportMetric(cpu.Seconds(), "cpu-s/ingestion")
		b.ReportMetric(pgCPU.Seconds(), "pg-cpu-s/ingestion")
		b.Logf("Miniflux (%d feeds imported): %d feeds × %d items: %v; %v CPU in Miniflux, %v in PostgreSQL", n, feeds, items, wall.Round(time.Millisecond), cpu.Round(time.Millisecond), pgCPU.Round(time.Millisecond))
	}
}

// TestPostgresMigrateLoad times `morningdeck migrate --to postgres://…` (copy and verify) of a
// database the size of the load test's (10,000 sources, ~95,000 items: here 10,000 feeds of
// 10 items, first-ingested by `morningdeck fetch`). Issue 29's target: < 5 minutes. On demand:
//
//	MORNINGDECK_PG_MIGRATE_SOURCES=10000 go test ./e2e -run TestPostgresMigrateLoad -timeout 60m -v
func TestPostgresMigrateLoad(t *testing.T) {
	sources := drillEnvInt(t, "MORNINGDECK_PG_MIGRATE_SOURCES", 0)
	if sources == 0 {
		t.Skip("on demand: MORNINGDECK_PG_MIGRATE_SOURCES=10000 go test ./e2e -run TestPostgresMigrateLoad -timeout 60m -v")
	}
	const items = 10
	url := pgtest.URL(t)
	farm := feedtest.NewFarm(sources, items)
	defer farm.Close()
	dir := t.TempDir()
	outlines := make([][2]string, sources)
	for i := range outlines {
		outlines[i] = [2]string{fmt.Sprintf("Feed %d", i), farm.URL(i)}
	}
	t.Setenv("MORNINGDECK_MAX_SOURCES_PER_USER", strconv.Itoa(sources)) // the default allows 5,000
	began := time.Now()
	importOutlines(t, dir, outlines)
	mustRun(t, dir, "--fetch-workers", "8", "fetch")
	var size int64
	for _, suffix := range []string{"", "-wal"} {
		if fi, err := os.Stat(filepath.Join(dir, "morningdeck.db"+suffix)); err == nil {
			size += fi.Size()
		}
	}
	t.Logf("the SQLite database: %d sources, %d items, %.1f MB, made in %v", sources, sources*items, float64(size)/1e6, time.Since(began).Round(time.Second))
	pgBefore := pgServerCPU(t, url)
	began = time.Now()
	cmd := exec.Command(binary, "--data-dir", dir, "migrate", "--to", url)
	cmd.Env = append(os.Environ(), "MORNINGDECK_LOG_LEVEL=warn", "XDG_CONFIG_HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	took := time.Since(began)
	if err != nil || !strings.Contains(string(out), "Verified") || strings.Contains(string(out), "DIFFERENT") {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	pgCPU := pgServerCPU(t, url) - pgBefore
	t.Logf("migrate --to, verified: %v (%v CPU in the binary, %v in PostgreSQL)\n%s", took.Round(100*time.Millisecond), cpu.Round(100*time.Millisecond), pgCPU.Round(100*time.Millisecond), out)
	if took > 5*time.Minute {
		t.Errorf("the migration took %v: the target is under 5 minutes", took.Round(time.Second))
	}
}
