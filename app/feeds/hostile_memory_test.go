package feeds_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// Peak memory. The parent serves every case; a child process (this test binary again) fetches
// them one by one and reads its peak RSS (VmHWM) after each, having reset it before
// (writing 5 to /proc/self/clear_refs). Servers and documents live in the parent, so the
// figures are the fetcher's alone, Go runtime included.

const hostileChildEnv = "MORNINGDECK_HOSTILE_MEMORY_JOBS"

type hostileJob struct {
	Name, Entry, Base, Path string
	Type                    app.SourceType
	Timeout                 time.Duration
	// Copies is how many fetches of the case run at once (0 is 1).
	Copies int
}

type hostilePeak struct {
	Name         string
	Before, Peak int64 // RSS before the fetch and peak RSS during it, bytes
	HeapPeak     int64 // the largest live heap the GC saw (bytes), sampled
	Outcome      string
	Seconds      float64
}

func TestHostilePeakMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches the hostile set in a child process")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	var jobs []hostileJob
	for _, c := range hostileCases() {
		srv := httptest.NewServer(c.serve)
		defer srv.Close()
		jobs = append(jobs, hostileJob{Name: c.name, Entry: c.entry, Base: srv.URL, Path: c.path, Type: c.typ, Timeout: c.timeout})
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "jobs.json"), filepath.Join(dir, "jobs.json.out")
	b, _ := json.Marshal(jobs)
	if err := os.WriteFile(in, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHostilePeakMemoryChild$", "-test.count=1", "-test.timeout=10m")
	cmd.Env = append(os.Environ(), hostileChildEnv+"="+in)
	if output, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, output)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var peaks []hostilePeak
	if err := json.Unmarshal(b, &peaks); err != nil || len(peaks) != len(jobs) {
		t.Fatalf("%d results of %d jobs: %v", len(peaks), len(jobs), err)
	}
	var worst hostilePeak
	var report strings.Builder
	fmt.Fprintf(&report, "%-8s %-8s %-8s %6s  %s\n", "peakRSS", "before", "heap", "secs", "case → outcome")
	for _, p := range peaks {
		fmt.Fprintf(&report, "%5d MB %5d MB %5d MB %6.2f  %s → %s\n", p.Peak>>20, p.Before>>20, p.HeapPeak>>20, p.Seconds, p.Name, p.Outcome)
		if p.Peak > worst.Peak {
			worst = p
		}
		if p.Peak > hostilePeakLimit {
			t.Errorf("%s: peak RSS %d MB, more than %d MB", p.Name, p.Peak>>20, hostilePeakLimit>>20)
		}
	}
	t.Logf("peak RSS per case (the fetcher's process, 10 MiB body limit):\n%s\nworst: %d MB (%s)", report.String(), worst.Peak>>20, worst.Name)
}

// TestHostileConcurrentPeak fetches four hostile feeds at once, as the four fetch workers may,
// in a child process, and bounds its peak RSS: each of the JSON attachment bomb (1.06 GB for
// one, 2.59 GB for four before) and the namespace bomb, four copies in flight.
func TestHostileConcurrentPeak(t *testing.T) {
	if testing.Short() {
		t.Skip("fetches in a child process")
	}
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	cases := map[string]http.HandlerFunc{
		"four JSON attachment bombs": serve("application/feed+json", attachmentBomb()),
		"four namespace bombs":       serve("application/rss+xml", namespaceBomb(357<<10)),
		"four 10 MB tiny-item feeds": func(w http.ResponseWriter, r *http.Request) { serve("application/rss+xml", tinyItems())(w, r) },
	}
	var jobs []hostileJob
	for name, h := range cases {
		srv := httptest.NewServer(h)
		defer srv.Close()
		jobs = append(jobs, hostileJob{Name: name, Base: srv.URL, Copies: 4})
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "jobs.json")
	b, _ := json.Marshal(jobs)
	if err := os.WriteFile(in, b, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHostilePeakMemoryChild$", "-test.count=1", "-test.timeout=10m")
	cmd.Env = append(os.Environ(), hostileChildEnv+"="+in)
	if output, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, output)
	}
	b, err := os.ReadFile(in + ".out")
	if err != nil {
		t.Fatal(err)
	}
	var peaks []hostilePeak
	if err := json.Unmarshal(b, &peaks); err != nil || len(peaks) != len(jobs) {
		t.Fatalf("%d results of %d jobs: %v", len(peaks), len(jobs), err)
	}
	for _, p := range peaks {
		t.Logf("%s: peak RSS %d MB (heap %d MB), %.2f s → %s", p.Name, p.Peak>>20, p.HeapPeak>>20, p.Seconds, p.Outcome)
		if p.Peak > hostileConcurrentLimit {
			t.Errorf("%s: peak RSS %d MB, more than %d MB", p.Name, p.Peak>>20, hostileConcurrentLimit>>20)
		}
	}
}

// hostileConcurrentLimit bounds the peak RSS of four hostile fetches in flight at once: for
// RELIABILITY.md, 4 × 10 MiB bodies within 512 MB, about 12 times the body limit per fetch.
const hostileConcurrentLimit = 512 << 20

// hostilePeakLimit bounds the peak RSS of the fetching process in any one case: generous,
// for a 10 MiB body limit, against the 400–600 MB that unbounded parsing took.
const hostilePeakLimit = 256 << 20

func TestHostilePeakMemoryChild(t *testing.T) {
	path := os.Getenv(hostileChildEnv)
	if path == "" {
		t.Skip("run by TestHostilePeakMemory")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var jobs []hostileJob
	if err := json.Unmarshal(b, &jobs); err != nil {
		t.Fatal(err)
	}
	var peaks []hostilePeak
	for _, j := range jobs {
		runtime.GC()
		debug.FreeOSMemory()
		if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
			t.Fatalf("resetting the peak RSS: %v", err)
		}
		p := hostilePeak{Name: j.Name, Before: procStatus(t, "VmRSS")}
		stop := sampleHeap(&p.HeapPeak)
		start := time.Now()
		c := hostileCase{entry: j.Entry, typ: j.Type, path: j.Path, timeout: j.Timeout}
		var (
			wg  sync.WaitGroup
			r   hostileResult
			err error
		)
		for i := range max(j.Copies, 1) {
			wg.Go(func() {
				ri, erri := c.run(context.Background(), j.Base)
				if i == 0 {
					r, err = ri, erri
				}
			})
		}
		wg.Wait()
		p.Seconds = time.Since(start).Seconds()
		stop()
		p.Peak = procStatus(t, "VmHWM")
		switch {
		case err != nil:
			p.Outcome = err.Error()
		case r.res != nil:
			p.Outcome = fmt.Sprintf("%d items", len(r.res.Items))
		case r.det != nil:
			p.Outcome = "detected " + string(r.det.Type)
		case r.art != nil:
			p.Outcome = fmt.Sprintf("article of %d bytes of text", len(r.art.Text))
		}
		runtime.KeepAlive(r)
		peaks = append(peaks, p)
	}
	b, _ = json.Marshal(peaks)
	if err := os.WriteFile(path+".out", b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// procStatus reads a size field of /proc/self/status, in bytes.
func procStatus(t *testing.T, field string) int64 {
	t.Helper()
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	re := regexp.MustCompile(`^` + field + `:\s+(\d+) kB`)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			return n << 10
		}
	}
	t.Fatalf("no %s in /proc/self/status", field)
	return 0
}

// sampleHeap records the largest heap (live and not yet collected objects) seen every
// few milliseconds until stop is called.
func sampleHeap(peak *int64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		for {
			metrics.Read(s)
			*peak = max(*peak, int64(s[0].Value.Uint64()))
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	})
	return func() { close(done); wg.Wait() }
}
