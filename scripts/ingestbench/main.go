// Command ingestbench measures the shipped binary with its default settings, as a person runs it:
// a farm of generated RSS feeds spread over many loopback hosts (127.0.0.1–127.0.0.N all route to
// loopback on Linux), the sources imported from an OPML file, then `morningdeck serve` started
// and timed from process start until every item is stored and every source is idle, and until
// the back catalogue is scored and in the search index too (the CPU to that point is what a
// first ingestion costs in all); then all-304 refreshes (POST /api/sources/refresh, the Sources page's "Refresh all"),
// each timed until every feed answered 304 and every source is idle again (-cycles, default 3:
// the round reports their median time and mean CPU), and what each wrote counted from a quiet
// process until it is quiet again (its checkpoint included). It reads the database read-only to watch
// completion, and /proc for the server's CPU time and peak RSS, and for the machine's: how busy
// its CPUs were during the first ingestion and how much of that was other processes' (on a
// shared machine another process's load is what moves the wall time most). Each round uses a
// fresh data directory.
//
//	go run ./scripts/ingestbench                      # 1,000 feeds × 20 items, 100 hosts, 3 rounds
//	go run ./scripts/ingestbench -feeds 200 -rounds 1 # a quick look
//	go run ./scripts/ingestbench -observe             # with the Sources and Queues pages open
//
// It prints one line per round and the medians; BENCHMARKS.md records them with the machine.
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	_ "modernc.org/sqlite"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds/feedtest"
	mdsqlite "github.com/morningdeck/morningdeck/sqlite"
)

// interests are the user's interests (-interests), one a line; empty for none.
var interests string

// setInterests sets the local user's interests in the database the import made, through the
// app's own settings service, before the server opens it.
func setInterests(dbPath, lines string) error {
	ctx := context.Background()
	db, err := mdsqlite.Open(ctx, mdsqlite.Options{Path: dbPath})
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = (&app.UserSettings{Store: db}).Update(ctx, 1, app.SettingsUpdate{Interests: &lines})
	return err
}

func main() {
	feeds := flag.Int("feeds", 1000, "feeds in the farm")
	items := flag.Int("items", 20, "items per feed")
	hosts := flag.Int("hosts", 100, "loopback hosts the feeds are spread over (127.0.0.1 …)")
	rounds := flag.Int("rounds", 3, "rounds, each on a fresh data directory")
	bin := flag.String("bin", "", "the morningdeck binary (default: build it from this checkout)")
	limit := flag.Duration("limit", 10*time.Minute, "give up on a phase after this long")
	keep := flag.Bool("keep", false, "keep the data directories and server logs (their place is printed)")
	cycles := flag.Int("cycles", 3, "all-304 cycles per round (the round reports their median time and mean CPU)")
	flag.StringVar(&yarrBin, "yarr", "", "also run yarr (the path of a yarr binary, such as the peers folder of the shared material has) on the same farm after each round: its first ingestion's time, CPU, peak RSS and database bytes an item")
	flag.StringVar(&interests, "interests", "", `the user's interests, separated by ";" ("sports;world news;Go programming"), set before the server starts: the enricher then reads every item for them, as a reader's does (default: none)`)
	flag.BoolVar(&observe, "observe", false, "during the first ingestion, keep the Sources page open as a browser does (its live list polled every 2 s, revalidated by ETag) and the Queues page (every 3 s)")
	flag.Parse()
	if err := run(*feeds, *items, *hosts, *rounds, *cycles, *bin, *limit, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "ingestbench:", err)
		os.Exit(1)
	}
}

// observe: see the -observe flag.
var observe bool

// yarrBin: see the -yarr flag.
var yarrBin string

type result struct {
	first, cycle           time.Duration
	cpuFirst, cpuCycle     time.Duration
	scored, cpuScored      time.Duration // until the back catalogue is scored and searchable too (from process start)
	peakRSS                int64         // bytes
	peakWAL                int64         // the write-ahead log's largest size, sampled every 50 ms (bytes)
	dbBytes                int64         // the database's pages in use at the end of the round (page_count - freelist_count)
	wroteFirst, wroteCycle int64         // bytes the server wrote (write syscalls: the WAL, the database, logs)
	observed               int           // requests of the observer (-observe)
	machine                machineShare  // the machine's two (or more) cores during the first ingestion
	load                   string        // /proc/loadavg at the round's start
	stored, want, notMod   int
}

func run(feeds, items, hosts, rounds, cycles int, bin string, limit time.Duration, keep bool) error {
	work, err := os.MkdirTemp("", "ingestbench-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Println("ingestbench: data and logs kept in", work)
	} else {
		defer os.RemoveAll(work)
	}
	if bin == "" {
		bin = filepath.Join(work, "morningdeck")
		build := exec.Command("go", "build", "-o", bin, ".")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		build.Stdout, build.Stderr = os.Stdout, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("build: %w", err)
		}
	}
	fmt.Printf("ingestbench: %d feeds × %d items over %d loopback hosts, %d rounds, %s, %d CPUs, binary %s\n",
		feeds, items, hosts, rounds, runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU(), bin)

	var results []result
	for r := 1; r <= rounds; r++ {
		res, err := round(work, bin, feeds, items, hosts, r, max(cycles, 1), limit)
		if err != nil {
			return fmt.Errorf("round %d: %w", r, err)
		}
		results = append(results, res)
		if yarrBin != "" {
			if err := yarrRound(work, yarrBin, feeds, items, hosts, r, max(cycles, 1), limit); err != nil {
				return fmt.Errorf("yarr round %d: %w", r, err)
			}
		}
		fmt.Printf("round %d: first ingestion %.2f s (CPU %.2f s, %.2f ms/feed, wrote %.0f MB), scored and searchable %.2f s (CPU %.2f s, %.2f ms/feed), all-304 cycle %.3f s (CPU %.2f s, wrote %.1f MB), peak RSS %.1f MB, peak WAL %.1f MB, database %.1f MB (%.0f bytes an item), items %d/%d, 304s %d\n",
			r, res.first.Seconds(), res.cpuFirst.Seconds(), res.cpuFirst.Seconds()*1000/float64(feeds), float64(res.wroteFirst)/1e6,
			res.scored.Seconds(), res.cpuScored.Seconds(), res.cpuScored.Seconds()*1000/float64(feeds),
			res.cycle.Seconds(), res.cpuCycle.Seconds(), float64(res.wroteCycle)/1e6, float64(res.peakRSS)/1e6, float64(res.peakWAL)/1e6,
			float64(res.dbBytes)/1e6, float64(res.dbBytes)/float64(max(res.stored, 1)), res.stored, res.want, res.notMod)
		fmt.Printf("round %d: load average at its start %s; during the first ingestion the machine's %d CPUs were busy %.2f on average (this server %.2f, ingestbench %.2f, other processes %.2f), idle %.2f, stolen %.2f\n",
			r, res.load, runtime.NumCPU(), res.machine.busy, res.cpuFirst.Seconds()/res.first.Seconds(), res.machine.self, res.machine.others(res.cpuFirst.Seconds()/res.first.Seconds()),
			res.machine.idle, res.machine.steal)
		if observe {
			fmt.Printf("round %d: the observer made %d requests during the first ingestion\n", r, res.observed)
		}
	}
	med := func(f func(result) float64) float64 {
		v := make([]float64, len(results))
		for i, r := range results {
			v[i] = f(r)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	fmt.Printf("median: first ingestion %.2f s, CPU %.2f s (%.2f ms/feed), wrote %.0f MB; scored and searchable %.2f s, CPU %.2f ms/feed; all-304 cycle %.3f s, CPU %.2f s, wrote %.1f MB; peak RSS %.1f MB, peak WAL %.1f MB\n",
		med(func(r result) float64 { return r.first.Seconds() }), med(func(r result) float64 { return r.cpuFirst.Seconds() }),
		med(func(r result) float64 { return r.cpuFirst.Seconds() * 1000 / float64(feeds) }),
		med(func(r result) float64 { return float64(r.wroteFirst) / 1e6 }),
		med(func(r result) float64 { return r.scored.Seconds() }),
		med(func(r result) float64 { return r.cpuScored.Seconds() * 1000 / float64(feeds) }),
		med(func(r result) float64 { return r.cycle.Seconds() }), med(func(r result) float64 { return r.cpuCycle.Seconds() }),
		med(func(r result) float64 { return float64(r.wroteCycle) / 1e6 }),
		med(func(r result) float64 { return float64(r.peakRSS) / 1e6 }),
		med(func(r result) float64 { return float64(r.peakWAL) / 1e6 }))
	return nil
}

func round(work, bin string, feeds, items, hosts, n, cycles int, limit time.Duration) (result, error) {
	var res result
	res.want = feeds * items
	dir := filepath.Join(work, "round"+strconv.Itoa(n))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, err
	}
	farm := feedtest.NewFarm(feeds, items)
	defer farm.Close()
	urls, closeHosts, err := serveHosts(farm, feeds, hosts)
	if err != nil {
		return res, err
	}
	defer closeHosts()

	opml := filepath.Join(dir, "sources.opml")
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<opml version=\"2.0\"><head><title>bench</title></head><body>\n")
	for i, u := range urls {
		fmt.Fprintf(&b, "<outline type=\"rss\" text=\"Feed %d\" xmlUrl=\"%s\"/>\n", i, u)
	}
	b.WriteString("</body></opml>\n")
	if err := os.WriteFile(opml, []byte(b.String()), 0o644); err != nil {
		return res, err
	}
	env := append(os.Environ(), "XDG_DATA_HOME="+filepath.Join(dir, "data"), "XDG_CONFIG_HOME="+filepath.Join(dir, "config"),
		"XDG_STATE_HOME="+filepath.Join(dir, "state"), "XDG_CACHE_HOME="+filepath.Join(dir, "cache"))
	cli := func(args ...string) error {
		c := exec.Command(bin, args...)
		c.Env = env
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: %w: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if err := cli("import", "opml", opml); err != nil {
		return res, err
	}
	dbPath := filepath.Join(dir, "data", "morningdeck", "morningdeck.db")
	if _, err := os.Stat(dbPath); err != nil {
		return res, fmt.Errorf("the database is not where expected: %w", err)
	}
	if interests != "" {
		if err := setInterests(dbPath, strings.ReplaceAll(interests, ";", "\n")); err != nil {
			return res, err
		}
	}

	port, err := freePort()
	if err != nil {
		return res, err
	}
	logf, err := os.Create(filepath.Join(dir, "serve.log"))
	if err != nil {
		return res, err
	}
	defer logf.Close()
	srv := exec.Command(bin, "serve", "--no-browser", "--addr", "127.0.0.1:"+strconv.Itoa(port))
	srv.Env = env
	srv.Stdout, srv.Stderr = logf, logf
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		res.load = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	// The machine's CPUs from here to the end of the first ingestion: on a shared machine the
	// first ingestion's wall time is its CPU over the share of the cores it gets, and another
	// process's load (one core of two) doubles it (BENCHMARKS, session 15).
	machineStart, _ := readMachine()
	start := time.Now()
	if err := srv.Start(); err != nil {
		return res, err
	}
	defer func() {
		_ = srv.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- srv.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = srv.Process.Kill()
			<-done
		}
	}()

	if observe {
		stop := make(chan struct{})
		done := make(chan int)
		go func() { done <- observer(port, stop) }()
		defer func() {
			if stop != nil {
				close(stop)
				<-done
			}
		}()
		observeStop = func() { close(stop); res.observed = <-done; stop = nil }
	}

	// The write-ahead log's size, every 50 ms for the whole round (issue 26: it must stay small).
	walStop := make(chan struct{})
	walDone := make(chan int64)
	go func() {
		var peak int64
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			if fi, err := os.Stat(dbPath + "-wal"); err == nil {
				peak = max(peak, fi.Size())
			}
			select {
			case <-walStop:
				walDone <- peak
				return
			case <-t.C:
			}
		}
	}()
	defer func() {
		if walStop != nil {
			close(walStop)
			<-walDone
		}
	}()

	db, err := sql.Open("sqlite", "file:"+dbPath+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return res, err
	}
	defer db.Close()
	ctx := context.Background()
	// Phase 1: every item stored, every source fetched and idle.
	err = poll(limit, func() (bool, error) {
		var stored, busy int
		if err := db.QueryRowContext(ctx, `select count(*) from items`).Scan(&stored); err != nil {
			return false, err
		}
		if err := db.QueryRowContext(ctx, `select count(*) from sources where fetch_status != 'IDLE' or last_fetched_at is null`).Scan(&busy); err != nil {
			return false, err
		}
		res.stored = stored
		return stored >= res.want && busy == 0, nil
	})
	res.first = time.Since(start)
	if end, err := readMachine(); err == nil && machineStart.total > 0 {
		res.machine = end.since(machineStart, res.first)
	}
	if observeStop != nil {
		observeStop()
		observeStop = nil
	}
	if err != nil {
		return res, fmt.Errorf("first ingestion: %w (items %d of %d; log in %s)", err, res.stored, res.want, logf.Name())
	}
	if res.cpuFirst, err = cpuTime(srv.Process.Pid); err != nil {
		return res, err
	}
	if res.wroteFirst, err = wrote(srv.Process.Pid); err != nil {
		return res, err
	}

	// Phase 1b: the back catalogue scored (a first import the fetch could not score is ranked
	// in the background) and searchable (the search indexer lets fetch results go first and
	// catches up after a burst): the work a first ingestion costs in all, and the 304 cycle is
	// then measured on a quiet process.
	err = poll(limit, func() (bool, error) {
		var unscored, unindexed int
		err := db.QueryRowContext(ctx, `select (select count(*) from items where status = 'DONE' and score is null and hidden = 0),
			(select coalesce(max(id), 0) from items) > (select last_id from fts_state)`).Scan(&unscored, &unindexed)
		return unscored == 0 && unindexed == 0, err
	})
	res.scored = time.Since(start)
	if err != nil {
		return res, fmt.Errorf("scoring and indexing the first import: %w", err)
	}
	if res.cpuScored, err = cpuTime(srv.Process.Pid); err != nil {
		return res, err
	}

	// Phase 2: all-304 cycles, each asked for as the Sources page's "Refresh all" does; the
	// round reports their median time and their mean CPU.
	var times []time.Duration
	var wrotes, disks []string
	for c := 0; c < cycles; c++ {
		// What the cycle writes is counted from a quiet process (the first import's last
		// writes, and the previous cycle's checkpoint, are done) until it is quiet again
		// after the cycle (its checkpoint included).
		if err := settle(srv.Process.Pid); err != nil {
			return res, err
		}
		cpuBefore, err := cpuTime(srv.Process.Pid)
		if err != nil {
			return res, err
		}
		wroteBefore, err := wrote(srv.Process.Pid)
		if err != nil {
			return res, err
		}
		diskBefore, err := procIO(srv.Process.Pid, "write_bytes")
		if err != nil {
			return res, err
		}
		before := farm.NotMod.Load()
		t1 := time.Now()
		resp, err := http.Post(fmt.Sprintf("http://127.0.0.1:%d/api/sources/refresh", port), "application/json", nil)
		if err != nil {
			return res, err
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			return res, fmt.Errorf("refresh all: %s", resp.Status)
		}
		err = poll(limit, func() (bool, error) {
			var busy int
			if err := db.QueryRowContext(ctx, `select count(*) from sources where fetch_status != 'IDLE'`).Scan(&busy); err != nil {
				return false, err
			}
			res.notMod = int(farm.NotMod.Load() - before)
			return res.notMod >= feeds && busy == 0, nil
		})
		times = append(times, time.Since(t1))
		if err != nil {
			return res, fmt.Errorf("304 cycle: %w (%d of %d answered 304)", err, res.notMod, feeds)
		}
		cpu, err := cpuTime(srv.Process.Pid)
		if err != nil {
			return res, err
		}
		res.cpuCycle += (cpu - cpuBefore) / time.Duration(cycles)
		if err := settle(srv.Process.Pid); err != nil {
			return res, err
		}
		w, err := wrote(srv.Process.Pid)
		if err != nil {
			return res, err
		}
		res.wroteCycle += (w - wroteBefore) / int64(cycles)
		wrotes = append(wrotes, fmt.Sprintf("%.2f", float64(w-wroteBefore)/1e6))
		d, err := procIO(srv.Process.Pid, "write_bytes")
		if err != nil {
			return res, err
		}
		disks = append(disks, fmt.Sprintf("%.2f", float64(d-diskBefore)/1e6))
	}
	fmt.Printf("round %d: the all-304 cycles wrote %s MB (write calls); to the disk (/proc io write_bytes) %s MB\n", n, strings.Join(wrotes, " / "), strings.Join(disks, " / "))
	slices.Sort(times)
	res.cycle = times[len(times)/2]
	var pages, free, pageSize int64
	if err := db.QueryRowContext(ctx, `select (select page_count from pragma_page_count), (select freelist_count from pragma_freelist_count), (select page_size from pragma_page_size)`).Scan(&pages, &free, &pageSize); err != nil {
		return res, err
	}
	res.dbBytes = (pages - free) * pageSize
	close(walStop)
	res.peakWAL, walStop = <-walDone, nil
	res.peakRSS, err = peakRSS(srv.Process.Pid)
	return res, err
}

// serveHosts serves the farm on hosts loopback addresses and returns each feed's URL, feed i
// on host i%hosts.
func serveHosts(farm *feedtest.Farm, feeds, hosts int) ([]string, func(), error) {
	var servers []*http.Server
	closeAll := func() {
		for _, s := range servers {
			_ = s.Close()
		}
	}
	base := make([]string, hosts)
	for h := 0; h < hosts; h++ {
		ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.%d:0", h+1))
		if err != nil {
			closeAll()
			return nil, nil, fmt.Errorf("listen on 127.0.0.%d (Linux routes all of 127/8 to loopback): %w", h+1, err)
		}
		s := &http.Server{Handler: farm.Config.Handler, ReadHeaderTimeout: 10 * time.Second}
		servers = append(servers, s)
		go func() { _ = s.Serve(ln) }()
		base[h] = "http://" + ln.Addr().String()
	}
	urls := make([]string, feeds)
	for i := range urls {
		urls[i] = base[i%hosts] + "/feed/" + strconv.Itoa(i) + ".xml"
	}
	return urls, closeAll, nil
}

// observeStop ends the observer of the round under way and counts its requests.
var observeStop func()

// observer is a person with the Sources page open (its live list asked for every 2 s, with the
// ETag of the last answer, as a browser revalidates it) and the Queues page (every 3 s), until
// stop; it returns how many requests it made.
func observer(port int, stop <-chan struct{}) int {
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	n := 0
	get := func(path, etag string) string {
		req, _ := http.NewRequest("GET", base+path, nil)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return etag
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		n++
		if e := resp.Header.Get("ETag"); e != "" {
			return e
		}
		return etag
	}
	for { // the page itself, once the server answers
		if resp, err := http.Get(base + "/sources"); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			n++
			break
		}
		select {
		case <-stop:
			return n
		case <-time.After(10 * time.Millisecond):
		}
	}
	get("/queues", "")
	sources, queues := time.NewTicker(2*time.Second), time.NewTicker(3*time.Second)
	defer sources.Stop()
	defer queues.Stop()
	etag := ""
	for {
		select {
		case <-stop:
			return n
		case <-sources.C:
			etag = get("/fragments/sources", etag)
		case <-queues.C:
			get("/fragments/queues", "")
		}
	}
}

func poll(limit time.Duration, done func() (bool, error)) error {
	deadline := time.Now().Add(limit)
	for {
		ok, err := done()
		if err != nil && !strings.Contains(err.Error(), "no such table") {
			return err
		}
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return errors.New("gave up after " + limit.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// cpuTime is the user + system CPU time of a process (Linux /proc; clock ticks of 1/100 s).
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}

// settle waits until a process has written nothing for 2.5 s (longer than the checkpointer waits
// for a pause in the writes), at most 20 s.
func settle(pid int) error {
	last, err := wrote(pid)
	if err != nil {
		return err
	}
	since, deadline := time.Now(), time.Now().Add(20*time.Second)
	for time.Since(since) < 2500*time.Millisecond && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
		w, err := wrote(pid)
		if err != nil {
			return err
		}
		if w != last {
			last, since = w, time.Now()
		}
	}
	return nil
}

// wrote is how many bytes a process has passed to write system calls (Linux /proc io: wchar:
// files and sockets alike).
func wrote(pid int) (int64, error) { return procIO(pid, "wchar") }

// procIO is one counter of a process's /proc io: wchar (bytes passed to write calls),
// write_bytes (bytes of the page cache it dirtied for the disk: file writes only, a page dirtied
// again before it reached the disk counted once).
func procIO(pid int, name string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/io", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, name+": "); ok {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, errors.New("no " + name + " in /proc io")
}

// peakRSS is a process's high-water mark of resident memory (VmHWM).
func peakRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, errors.New("no VmHWM in /proc status")
}

// yarrRound runs yarr on a farm like round's: the feeds imported from OPML (POST /opml/import),
// its first ingestion timed until its items stop growing for 3 s (or all are stored), with its
// CPU, peak RSS and database bytes an item. Its database runs in WAL mode with a busy timeout
// (as the peers README of the shared material advises: with its defaults it loses whole feeds to "database is
// locked").
func yarrRound(work, bin string, feeds, items, hosts, n, cycles int, limit time.Duration) error {
	dir := filepath.Join(work, "yarr"+strconv.Itoa(n))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	farm := feedtest.NewFarm(feeds, items)
	defer farm.Close()
	urls, closeHosts, err := serveHosts(farm, feeds, hosts)
	if err != nil {
		return err
	}
	defer closeHosts()
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<opml version=\"2.0\"><head><title>bench</title></head><body>\n")
	for i, u := range urls {
		fmt.Fprintf(&b, "<outline type=\"rss\" text=\"Feed %d\" xmlUrl=\"%s\"/>\n", i, u)
	}
	b.WriteString("</body></opml>\n")
	port, err := freePort()
	if err != nil {
		return err
	}
	dbPath := filepath.Join(dir, "storage.db")
	srv := exec.Command(bin, "-addr", "127.0.0.1:"+strconv.Itoa(port), "-db", dbPath+"?_journal=WAL&_busy_timeout=5000&_txlock=immediate", "-log-file", filepath.Join(dir, "yarr.log"))
	start := time.Now()
	if err := srv.Start(); err != nil {
		return err
	}
	defer func() { _ = srv.Process.Kill(); _ = srv.Wait() }()
	var body strings.Builder
	mw := "ingestbenchboundary"
	fmt.Fprintf(&body, "--%s\r\nContent-Disposition: form-data; name=\"opml\"; filename=\"s.opml\"\r\nContent-Type: text/xml\r\n\r\n%s\r\n--%s--\r\n", mw, b.String(), mw)
	for {
		resp, err := http.Post(fmt.Sprintf("http://127.0.0.1:%d/opml/import", port), "multipart/form-data; boundary="+mw, strings.NewReader(body.String()))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode/100 != 2 {
				return fmt.Errorf("opml import: %s", resp.Status)
			}
			break
		}
		if time.Since(start) > 10*time.Second {
			return err
		}
		time.Sleep(20 * time.Millisecond)
	}
	db, err := sql.Open("sqlite", "file:"+dbPath+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	var stored, last int
	lastChange := time.Now()
	err = poll(limit, func() (bool, error) {
		if err := db.QueryRow(`select count(*) from items`).Scan(&stored); err != nil {
			return false, err
		}
		if stored != last {
			last, lastChange = stored, time.Now()
		}
		return stored >= feeds*items || (stored > 0 && time.Since(lastChange) > 3*time.Second), nil
	})
	took := time.Since(start)
	if stored < feeds*items {
		took -= 3 * time.Second
	}
	if err != nil {
		return err
	}
	cpu, err := cpuTime(srv.Process.Pid)
	if err != nil {
		return err
	}
	rss, err := peakRSS(srv.Process.Pid)
	if err != nil {
		return err
	}
	var pages, free, pageSize int64
	if err := db.QueryRow(`select (select page_count from pragma_page_count), (select freelist_count from pragma_freelist_count), (select page_size from pragma_page_size)`).Scan(&pages, &free, &pageSize); err != nil {
		return err
	}
	used := (pages - free) * pageSize
	fmt.Printf("round %d, yarr: first ingestion %.2f s (CPU %.2f s), peak RSS %.1f MB, database %.1f MB (%.0f bytes an item), items %d/%d\n",
		n, took.Seconds(), cpu.Seconds(), float64(rss)/1e6, float64(used)/1e6, float64(used)/float64(max(stored, 1)), stored, feeds*items)

	// yarr's all-304 cycles, measured as ours are (POST /api/feeds/refresh, its "Refresh"; done
	// when every feed answered 304 and /api/status counts no feed pending).
	var lines []string
	for c := 0; c < cycles; c++ {
		if err := settle(srv.Process.Pid); err != nil {
			return err
		}
		cpu0, err := cpuTime(srv.Process.Pid)
		if err != nil {
			return err
		}
		w0, err := wrote(srv.Process.Pid)
		if err != nil {
			return err
		}
		d0, err := procIO(srv.Process.Pid, "write_bytes")
		if err != nil {
			return err
		}
		before := farm.NotMod.Load()
		t1 := time.Now()
		resp, err := http.Post(fmt.Sprintf("http://127.0.0.1:%d/api/feeds/refresh", port), "application/json", nil)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode/100 != 2 {
			return fmt.Errorf("yarr refresh: %s", resp.Status)
		}
		err = poll(limit, func() (bool, error) {
			if farm.NotMod.Load()-before < int64(feeds) {
				return false, nil
			}
			resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/api/status", port))
			if err != nil {
				return false, err
			}
			defer resp.Body.Close()
			var st struct {
				Running int `json:"running"`
			}
			if err := json.NewDecoder(resp.Body).Decode(&st); err != nil {
				return false, err
			}
			return st.Running == 0, nil
		})
		took := time.Since(t1)
		if err != nil {
			return fmt.Errorf("yarr 304 cycle: %w", err)
		}
		cpu1, err := cpuTime(srv.Process.Pid)
		if err != nil {
			return err
		}
		if err := settle(srv.Process.Pid); err != nil {
			return err
		}
		w1, err := wrote(srv.Process.Pid)
		if err != nil {
			return err
		}
		d1, err := procIO(srv.Process.Pid, "write_bytes")
		if err != nil {
			return err
		}
		lines = append(lines, fmt.Sprintf("%.3f s CPU %.2f s wrote %.2f MB (disk %.2f MB)", took.Seconds(), (cpu1-cpu0).Seconds(), float64(w1-w0)/1e6, float64(d1-d0)/1e6))
	}
	fmt.Printf("round %d, yarr: all-304 cycles %s\n", n, strings.Join(lines, " / "))
	return nil
}

// machineTimes is the machine's CPU time (all CPUs: busy, idle) and this process's own, from
// /proc (clock ticks of 1/100 s).
type machineTimes struct{ busy, idle, steal, total, self int64 }

// readMachine reads the machine's CPU times (/proc/stat's first line) and this process's.
func readMachine() (machineTimes, error) {
	var m machineTimes
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return m, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return m, errors.New("no cpu line in /proc/stat")
	}
	// user nice system idle iowait irq softirq steal: idle and iowait are the CPUs' idle time,
	// steal the time the hypervisor gave to another machine.
	for i, v := range f[1:9] {
		n, _ := strconv.ParseInt(v, 10, 64)
		m.total += n
		switch i {
		case 3, 4:
			m.idle += n
		case 7:
			m.steal += n
		default:
			m.busy += n
		}
	}
	self, err := cpuTime(os.Getpid())
	m.self = int64(self / (10 * time.Millisecond))
	return m, err
}

// machineShare is how many CPUs were busy on average over a span, and how many of them this
// process (ingestbench: the feed farm and its watching) used, how many were idle, and how
// many the hypervisor took (steal).
type machineShare struct{ busy, self, idle, steal float64 }

func (m machineTimes) since(start machineTimes, d time.Duration) machineShare {
	s := d.Seconds() * 100
	return machineShare{busy: float64(m.busy-start.busy) / s, self: float64(m.self-start.self) / s, idle: float64(m.idle-start.idle) / s,
		steal: float64(m.steal-start.steal) / s}
}

// others is the CPUs the other processes used, given the server's.
func (m machineShare) others(server float64) float64 { return max(m.busy-m.self-server, 0) }
