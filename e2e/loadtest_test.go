package e2e_test

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestLoad is the load test, run on demand (it takes about a quarter of an hour and most of a
// small machine, so `make test` skips it — a skip, not a pass):
//
//	MORNINGDECK_LOAD=1 go test -run TestLoad -timeout 60m -v ./e2e
//
// 10,000 sources on a local feed farm (100 hosts of 100 feeds) with refresh intervals spread
// over 1–60 minutes, 4 % answering 500 and 1 % never answering (the client times out), and new
// items appearing all along, are imported from OPML into the real binary, which then runs for
// MORNINGDECK_LOAD_DURATION (default 10m). Meanwhile the test asks for the UI pages (/, /items,
// /sources, /queues) four times a second each and samples the queues, the process's RSS and
// the database size. It reports the queues at the end (and whether they drain once new items
// stop), the longest wait of a source beyond its interval (from the farm's own record of each
// feed's requests), the pages' p50/p95/p99 latency, peak RSS (VmHWM) and the database size;
// it fails when a page's p95 is above 100 ms, a healthy source starves (was never fetched
// after its first fetch, or waited more than 5 minutes beyond its interval), or the queues do
// not drain.
//
// Knobs: MORNINGDECK_LOAD_SOURCES (10000), MORNINGDECK_LOAD_NEW_PER_SEC (new items a second
// over the whole farm, 3), MORNINGDECK_LOAD_FLAGS (the app's flags; default the ones below,
// sized for 10,000 sources; "-" runs the app on its defaults), MORNINGDECK_LOAD_UI_PERIOD
// (how often each page is asked for, 250ms; 0: never), MORNINGDECK_LOAD_KEEP=FILE (a copy of
// the database at the end, to study it).
func TestLoad(t *testing.T) {
	if os.Getenv("MORNINGDECK_LOAD") == "" {
		t.Skip("the load test runs on demand: MORNINGDECK_LOAD=1 go test -run TestLoad -timeout 60m -v ./e2e")
	}
	duration := 10 * time.Minute
	if s := os.Getenv("MORNINGDECK_LOAD_DURATION"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("MORNINGDECK_LOAD_DURATION=%q: %v", s, err)
		}
		duration = d
	}
	sources := drillEnvInt(t, "MORNINGDECK_LOAD_SOURCES", 10_000)
	uiPeriod := 250 * time.Millisecond
	if s := os.Getenv("MORNINGDECK_LOAD_UI_PERIOD"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			t.Fatalf("MORNINGDECK_LOAD_UI_PERIOD=%q: %v", s, err)
		}
		uiPeriod = d
	}
	newPerSec := drillEnvInt(t, "MORNINGDECK_LOAD_NEW_PER_SEC", 3)
	// Sized for 10,000 sources whose intervals average ~780 fetches a minute: the default
	// scheduler enqueues at most 100 due sources a minute, and a feed that never answers holds
	// a worker for the whole HTTP timeout.
	flags := strings.Fields("--fetch-workers 16 --fetch-batch-size 1000 --fetch-scheduler-interval 10s --http-timeout 10s")
	if s, ok := os.LookupEnv("MORNINGDECK_LOAD_FLAGS"); ok {
		flags = strings.Fields(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "-")))
	}
	t.Logf("load: %d sources, %d new items a second, %v, app flags %q", sources, newPerSec, duration, flags)

	farm := newLoadFarm(t, sources, 100)
	dir, logDir := t.TempDir(), t.TempDir()
	appLog, err := os.Create(filepath.Join(logDir, "morningdeck.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer appLog.Close()

	// A daily allowance for every enrichment (granted by the first refill: processing is off
	// until then), then the sources, imported from OPML as a user would.
	setup := drillStart(t, dir, logDir, appLog, "--process-enabled=false", "--fetch-enabled=false", "--briefing-enabled=false")
	setup.mustAPI(t, "PATCH", "api/settings", map[string]any{"dailyCredits": 1_000_000}, 200)
	if err := setup.stop(); err != nil {
		t.Fatal(err)
	}
	opml := filepath.Join(logDir, "farm.opml")
	if err := os.WriteFile(opml, farm.opml(), 0o600); err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	out := mustRun(t, dir, "import", "opml", opml)
	t.Logf("import: %s in %v", strings.TrimSpace(out), time.Since(began).Round(100*time.Millisecond))

	farm.startBumping(newPerSec)
	a := drillStart(t, dir, logDir, appLog, flags...)
	start := time.Now()
	pid := a.cmd.Process.Pid
	db := openRead(t, dir)

	ctx, cancel := context.WithTimeout(context.Background(), duration)
	defer cancel()
	var wg sync.WaitGroup
	pages := []string{"", "items", "sources", "queues"}
	lat := make([]*loadSamples, len(pages))
	for i, p := range pages {
		lat[i] = &loadSamples{}
		if uiPeriod > 0 {
			wg.Go(func() { loadPoll(ctx, a.base+p, uiPeriod, lat[i]) })
		}
	}
	var peakRSS, peakDB atomic.Int64
	var mu sync.Mutex
	var queueLog []string
	var maxFetchPending, maxProcessPending int
	var allFetched time.Duration
	wg.Go(func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for i := 0; ; i++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			if rss := loadProcKB(pid, "VmRSS"); rss > peakRSS.Load() {
				peakRSS.Store(rss)
			}
			if size := drillFileSize(filepath.Join(dir, "morningdeck.db")); size > peakDB.Load() {
				peakDB.Store(size)
			}
			if i%10 != 0 {
				continue
			}
			q, err := loadQueueStats(a.base)
			if err != nil {
				continue
			}
			var never int // sources never fetched nor failed yet
			_ = db.QueryRow(`select count(*) from sources where last_fetched_at is null and last_error = ''`).Scan(&never)
			mu.Lock()
			elapsed := time.Since(start)
			if never == 0 && allFetched == 0 {
				allFetched = elapsed
			}
			if allFetched > 0 { // the steady state, after the first import of every source
				maxFetchPending = max(maxFetchPending, q["fetch"].Pending)
				maxProcessPending = max(maxProcessPending, q["process"].Pending)
			}
			line := fmt.Sprintf("%4ds fetch %5d waiting %3d running; process %5d waiting %2d running; never tried %5d; oldest ready fetch %s; RSS %d MiB; db %d MiB",
				int(elapsed.Seconds()), q["fetch"].Pending, q["fetch"].Processing, q["process"].Pending, q["process"].Processing, never,
				loadOldest(a.base, "fetch"), loadProcKB(pid, "VmRSS")>>10, drillFileSize(filepath.Join(dir, "morningdeck.db"))>>20)
			queueLog = append(queueLog, line)
			mu.Unlock()
			t.Log(line)
		}
	})
	wg.Wait()
	ran := time.Since(start)

	// New items stop; the queues should drain: the processing queue to empty, the fetch
	// queue to what its schedule asks for (its oldest ready job no older than a minute).
	farm.stopBumping()
	drainStart := time.Now()
	drained := false
	var endQ map[string]loadQueue
	var oldestFetch string
	for time.Since(drainStart) < 3*time.Minute {
		q, err := loadQueueStats(a.base)
		if err == nil {
			endQ = q
			oldestFetch = loadOldest(a.base, "fetch")
			secs, _ := strconv.ParseFloat(oldestFetch, 64)
			if q["process"].Pending+q["process"].Processing == 0 && secs < 60 {
				drained = true
				break
			}
		}
		time.Sleep(2 * time.Second)
	}
	drainTime := time.Since(drainStart)
	hwm := loadProcKB(pid, "VmHWM")
	var sourcesOverdue, neverHealthy int
	var worstOverdue sql.NullFloat64
	now := time.Now().UTC().Format("2006-01-02T15:04:05.000Z")
	_ = db.QueryRow(`select count(*), max((julianday(?) - julianday(next_fetch_at)) * 86400) from sources
		where fetch_status = 'IDLE' and next_fetch_at < ?`, now, now).Scan(&sourcesOverdue, &worstOverdue)
	var dbItems, dbDone, dbEnriched int
	_ = db.QueryRow(`select count(*), coalesce(sum(status = 'DONE'), 0), coalesce(sum(enriched_by != ''), 0) from items`).Scan(&dbItems, &dbDone, &dbEnriched)
	stats := mustRun(t, dir, "queue", "stats")
	if err := a.stop(); err != nil {
		t.Errorf("stop: %v", err)
	}
	dbSize := drillFileSize(filepath.Join(dir, "morningdeck.db"))
	if keep := os.Getenv("MORNINGDECK_LOAD_KEEP"); keep != "" {
		if b, err := os.ReadFile(filepath.Join(dir, "morningdeck.db")); err == nil {
			_ = os.WriteFile(keep, b, 0o600)
		}
	}

	// The same pages on the same database with no workers running: what ingestion costs them.
	quiet := make([]*loadSamples, len(pages))
	if uiPeriod > 0 {
		ro := drillStart(t, dir, logDir, appLog, "--no-workers")
		for i, p := range pages {
			quiet[i] = &loadSamples{}
			qctx, qcancel := context.WithTimeout(context.Background(), 10*time.Second)
			loadPoll(qctx, ro.base+p, 100*time.Millisecond, quiet[i])
			qcancel()
		}
		if err := ro.stop(); err != nil {
			t.Errorf("stop the quiet server: %v", err)
		}
	}

	// Waits beyond the interval, from the farm's record of every healthy feed's requests.
	waits, firstWaits, worst := farm.waits(start)
	for _, n := range farm.healthy() {
		if len(farm.hitsOf(n)) < 2 && farm.interval(n) < int(ran.Minutes())-5 {
			neverHealthy++
		}
	}

	t.Logf("queue stats at the end:\n%s", stats)
	t.Logf("figures: %d sources (%d healthy, %d answering 500, %d never answering), intervals 1–60 min; ran %v; new items %d",
		sources, len(farm.healthy()), farm.count(loadFail), farm.count(loadHang), ran.Round(time.Second), farm.bumped.Load())
	t.Logf("figures: farm: %d feed requests (%d answered 304, %d 500, %d left hanging), %d article pages; items in the database %d (%d DONE, %d enriched)",
		farm.requests.Load(), farm.notMod.Load(), farm.failed.Load(), farm.hung.Load(), farm.pages.Load(), dbItems, dbDone, dbEnriched)
	firstRound := "every source was fetched (or failed) once after " + allFetched.Round(time.Second).String()
	if allFetched == 0 {
		firstRound = "some sources were never tried within the run"
		allFetched = ran
	}
	t.Logf("figures: %s; first fetch of healthy sources after the start: %s", firstRound, drillPercentiles(firstWaits))
	t.Logf("figures: wait beyond the interval, over %d later fetches of healthy sources: %s (worst: %s)", len(waits), drillPercentiles(waits), worst)
	t.Logf("figures: at the end %d sources overdue (worst by %.0f s); %d healthy sources not fetched again within their interval + 5 min",
		sourcesOverdue, worstOverdue.Float64, neverHealthy)
	t.Logf("figures: steady state (after every source's first fetch): fetch queue at most %d waiting, process queue at most %d waiting", maxFetchPending, maxProcessPending)
	t.Logf("figures: after new items stopped: drained %v in %v (process waiting %d, running %d; oldest ready fetch job %s s)",
		drained, drainTime.Round(time.Second), endQ["process"].Pending, endQ["process"].Processing, oldestFetch)
	for i, p := range pages {
		all, steady := lat[i].stats(0), lat[i].stats(allFetched)
		t.Logf("figures: GET /%-8s while ingesting: %s; after the first import: %s", p, all, steady)
		if quiet[i] != nil {
			t.Logf("figures: GET /%-8s no workers, same database: %s", p, quiet[i].stats(0))
		}
		if q := lat[i].p95(); uiPeriod > 0 && q > 100*time.Millisecond {
			t.Errorf("GET /%s: p95 %v, above 100 ms", p, q.Round(time.Millisecond))
		}
	}
	t.Logf("figures: peak RSS (VmHWM) %d MiB (highest VmRSS sampled %d MiB); database %d MiB at the end (peak with WAL %d MiB)",
		hwm>>10, peakRSS.Load()>>10, dbSize>>20, peakDB.Load()>>20)
	t.Logf("figures: the app's warnings and errors: %s", drillLogSummary(appLog.Name()))
	if len(waits) > 0 && waits[len(waits)-1] > 5*time.Minute || neverHealthy > 0 {
		t.Errorf("sources starve: the longest wait beyond an interval is %s; %d healthy sources were not fetched again", worst, neverHealthy)
	}
	if !drained {
		t.Errorf("the queues did not drain within 3 minutes after new items stopped")
	}
}

// Kinds of feeds on the load farm.
const (
	loadHealthy = iota
	loadFail    // answers 500
	loadHang    // never answers
)

// loadFarm serves n generated feeds over several local hosts (ports): each feed has its own
// interval and kind, ETag/304 support, and new items when bumped. It records when each feed
// was asked for.
type loadFarm struct {
	servers []*httptest.Server
	perHost int
	n       int
	extra   []atomic.Int32
	mu      sync.Mutex
	hits    [][]time.Time

	requests, notMod, failed, hung, pages, bumped atomic.Int64
	quit                                          chan struct{}
	stopBump                                      chan struct{}
	stopOnce                                      sync.Once
	bumpDone                                      sync.WaitGroup
}

func newLoadFarm(t *testing.T, n, perHost int) *loadFarm {
	t.Helper()
	f := &loadFarm{n: n, perHost: perHost, extra: make([]atomic.Int32, n), hits: make([][]time.Time, n), quit: make(chan struct{}), stopBump: make(chan struct{})}
	for range (n + perHost - 1) / perHost {
		f.servers = append(f.servers, httptest.NewServer(http.HandlerFunc(f.serve)))
	}
	t.Cleanup(func() {
		f.stopBumping()
		close(f.quit)
		for _, s := range f.servers {
			s.Close()
		}
	})
	return f
}

func loadHash(n int) uint32 {
	h := fnv.New32a()
	fmt.Fprintf(h, "feed %d", n)
	return h.Sum32()
}

// interval is feed n's refresh interval in minutes, 1–60.
func (f *loadFarm) interval(n int) int { return 1 + int(loadHash(n)%60) }

func (f *loadFarm) kind(n int) int {
	switch m := loadHash(n) / 60 % 100; {
	case m < 4:
		return loadFail
	case m < 5:
		return loadHang
	}
	return loadHealthy
}

func (f *loadFarm) count(kind int) int {
	c := 0
	for n := range f.n {
		if f.kind(n) == kind {
			c++
		}
	}
	return c
}

func (f *loadFarm) healthy() []int {
	var out []int
	for n := range f.n {
		if f.kind(n) == loadHealthy {
			out = append(out, n)
		}
	}
	return out
}

func (f *loadFarm) url(n int) string {
	return f.host(n) + "/feed/" + strconv.Itoa(n) + ".xml"
}

// host is feed n's server: feeds are dealt over the hosts in turn, so that neighbours in the
// OPML file (and in the fetch queue) are on different hosts, as in a real subscription list.
func (f *loadFarm) host(n int) string { return f.servers[n%len(f.servers)].URL }

func (f *loadFarm) opml() []byte {
	var b strings.Builder
	b.WriteString(xml.Header + `<opml version="2.0"><head><title>Load farm</title></head><body>` + "\n")
	for n := range f.n {
		fmt.Fprintf(&b, `<outline text="Load feed %d" type="rss" xmlUrl="%s" refreshIntervalMinutes="%d"/>`+"\n", n, f.url(n), f.interval(n))
	}
	b.WriteString("</body></opml>\n")
	return []byte(b.String())
}

var loadWords = strings.Fields(`sqlite queues golang rust kernel release security patch database index search browser
	compiler garbage collector network protocol latency memory cache cloud storage backup privacy open source license
	python javascript typescript linux debian ubuntu raspberry keyboard editor terminal shell container scheduler`)

func (f *loadFarm) serve(w http.ResponseWriter, r *http.Request) {
	if rest, ok := strings.CutPrefix(r.URL.Path, "/page/"); ok {
		f.pages.Add(1)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><html><head><title>Page %s</title></head><body><article><h1>Page %s</h1>`, rest, rest)
		for i := range 3 {
			fmt.Fprintf(w, "<p>Paragraph %d of page %s: a longer text about %s and %s, written to be extracted by the readability step.</p>",
				i, rest, loadWords[(len(rest)+i)%len(loadWords)], loadWords[(len(rest)*7+i)%len(loadWords)])
		}
		fmt.Fprint(w, `</article></body></html>`)
		return
	}
	name, ok := strings.CutPrefix(r.URL.Path, "/feed/")
	n, err := strconv.Atoi(strings.TrimSuffix(name, ".xml"))
	if !ok || err != nil || n < 0 || n >= f.n {
		http.NotFound(w, r)
		return
	}
	f.requests.Add(1)
	switch f.kind(n) {
	case loadFail:
		f.failed.Add(1)
		http.Error(w, "the farm fails this feed", http.StatusInternalServerError)
		return
	case loadHang:
		f.hung.Add(1)
		select {
		case <-r.Context().Done():
		case <-f.quit:
		}
		return
	}
	now := time.Now()
	f.mu.Lock()
	f.hits[n] = append(f.hits[n], now)
	f.mu.Unlock()
	extra := int(f.extra[n].Load())
	etag := fmt.Sprintf(`"%d-%d"`, n, extra)
	w.Header().Set("ETag", etag)
	if r.Header.Get("If-None-Match") == etag {
		f.notMod.Add(1)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "application/rss+xml; charset=utf-8")
	base := f.host(n)
	var b strings.Builder
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"+`<rss version="2.0"><channel><title>Load feed %d</title><link>%s/site/%d</link><description>Feed %d</description>`+"\n", n, base, n, n)
	total := 10 + extra
	epoch := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := total - 1; i >= max(0, total-20); i-- {
		h := loadHash(n*1000 + i)
		w1, w2, w3 := loadWords[h%uint32(len(loadWords))], loadWords[h/7%uint32(len(loadWords))], loadWords[h/49%uint32(len(loadWords))]
		pub := epoch.Add(time.Duration(i) * time.Hour)
		if i >= 10 {
			pub = time.Now().Add(-time.Duration(total-1-i) * time.Minute)
		}
		fmt.Fprintf(&b, `<item><title>%s %s: story %d of feed %d</title><link>%s/page/%d/%d</link><guid isPermaLink="false">load-%d-%d</guid><pubDate>%s</pubDate>
<description>Story %d of feed %d is about %s, %s and %s. It is a short summary paragraph like the ones feeds carry, with enough words to be summarized and tagged.</description></item>`+"\n",
			strings.ToUpper(w1[:1])+w1[1:], w2, i, n, base, n, i, n, i, pub.Format(time.RFC1123Z), i, n, w1, w2, w3)
	}
	b.WriteString("</channel></rss>\n")
	_, _ = io.WriteString(w, b.String())
}

// startBumping adds perSec new items a second to random healthy feeds until stopBumping.
func (f *loadFarm) startBumping(perSec int) {
	healthy := f.healthy()
	f.bumpDone.Add(1)
	go func() {
		defer f.bumpDone.Done()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		owed := 0.0
		for {
			select {
			case <-f.stopBump:
				return
			case <-tick.C:
			}
			owed += float64(perSec) / 10
			for ; owed >= 1; owed-- {
				f.extra[healthy[rand.IntN(len(healthy))]].Add(1)
				f.bumped.Add(1)
			}
		}
	}()
}

func (f *loadFarm) stopBumping() {
	f.stopOnce.Do(func() { close(f.stopBump) })
	f.bumpDone.Wait()
}

func (f *loadFarm) hitsOf(n int) []time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]time.Time(nil), f.hits[n]...)
}

// waits returns, for healthy feeds, each later request's wait beyond the feed's interval
// (request − previous request − interval; the next fetch is due an interval after the
// previous one ends), the first request's wait after start, and the worst case described.
func (f *loadFarm) waits(start time.Time) (later, first []time.Duration, worst string) {
	var worstD time.Duration = -1
	for _, n := range f.healthy() {
		hits := f.hitsOf(n)
		if len(hits) == 0 {
			continue
		}
		first = append(first, hits[0].Sub(start))
		iv := time.Duration(f.interval(n)) * time.Minute
		for i := 1; i < len(hits); i++ {
			d := max(hits[i].Sub(hits[i-1])-iv, 0)
			later = append(later, d)
			if d > worstD {
				worstD = d
				worst = fmt.Sprintf("feed %d, every %d min, waited %v beyond its interval at %v into the run", n, f.interval(n), d.Round(time.Second), hits[i].Sub(start).Round(time.Second))
			}
		}
	}
	sort.Slice(later, func(i, j int) bool { return later[i] < later[j] })
	return later, first, worst
}

// loadSamples are one page's latencies, with when they were taken.
type loadSamples struct {
	mu     sync.Mutex
	at     []time.Duration // since the first sample
	d      []time.Duration
	errors int
	t0     time.Time
}

func (s *loadSamples) add(at time.Time, d time.Duration, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.t0.IsZero() {
		s.t0 = at
	}
	if !ok {
		s.errors++
	}
	s.at = append(s.at, at.Sub(s.t0))
	s.d = append(s.d, d)
}

// stats describes the samples taken from `from` on.
func (s *loadSamples) stats(from time.Duration) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var d []time.Duration
	for i, at := range s.at {
		if at >= from {
			d = append(d, s.d[i])
		}
	}
	return fmt.Sprintf("%d requests, %s", len(d), drillPercentiles(d)) + map[bool]string{true: fmt.Sprintf(", %d errors", s.errors)}[s.errors > 0]
}

func (s *loadSamples) p95() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.d) == 0 {
		return 0
	}
	d := append([]time.Duration(nil), s.d...)
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[min(len(d)-1, int(0.95*float64(len(d))))]
}

// loadPoll GETs url every period (less the time the request took) until ctx is done.
func loadPoll(ctx context.Context, url string, period time.Duration, s *loadSamples) {
	c := &http.Client{Timeout: 30 * time.Second}
	for ctx.Err() == nil {
		t0 := time.Now()
		res, err := c.Get(url)
		ok := err == nil
		if err == nil {
			_, _ = io.Copy(io.Discard, res.Body)
			res.Body.Close()
			ok = res.StatusCode == 200
		}
		d := time.Since(t0)
		if ctx.Err() == nil {
			s.add(t0, d, ok)
		}
		select {
		case <-ctx.Done():
		case <-time.After(max(period-d, 0)):
		}
	}
}

type loadQueue struct {
	Pending, Processing, Completed, Failed int
}

func loadQueueStats(base string) (map[string]loadQueue, error) {
	res, err := drillClient.Get(base + "admin/queue-stats")
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	var out map[string]loadQueue
	return out, json.NewDecoder(res.Body).Decode(&out)
}

var loadOldestRE = regexp.MustCompile(`(?m)^morningdeck_queue_oldest_ready_seconds\{queue="([a-z]+)"\} (\S+)$`)

// loadOldest is the age in seconds of the queue's oldest ready job, from /metrics.
func loadOldest(base, queue string) string {
	res, err := drillClient.Get(base + "metrics")
	if err != nil {
		return "?"
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	for _, m := range loadOldestRE.FindAllStringSubmatch(string(b), -1) {
		if m[1] == queue {
			v, _ := strconv.ParseFloat(m[2], 64)
			return strconv.FormatFloat(v, 'f', 1, 64)
		}
	}
	return "?"
}

// loadProcKB reads a field (VmRSS, VmHWM) of /proc/PID/status in KiB; 0 when unknown.
func loadProcKB(pid int, field string) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
