package metrics

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

func scrape(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(Handler())
	defer srv.Close()
	res, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Fatalf("Content-Type %q", ct)
	}
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sampleLine is a sample line of the text format: a name, labels with quoted values (escaped
// backslash, quote and newline only), a value.
var sampleLine = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*")*\})? (\S+)$`)

// TestExposition: what /metrics serves is Prometheus's text format, line by line — HELP and TYPE
// once per metric before its samples, labels sorted by name (a bucket's le last) and escaped,
// cumulative histogram buckets ending in +Inf, the count equal to it — and holds the app's, the queues', the Go
// runtime's and (on Linux) the process's metrics under the names client_golang gave them.
func TestExposition(t *testing.T) {
	JobsEnqueued.WithLabelValues("fetch", "fetch").Inc()
	JobsEnqueued.WithLabelValues("fetch", "fetch").Add(2)
	FetchResponses.WithLabelValues("odd \"label\"\\\nvalue").Inc()
	for _, d := range []time.Duration{3 * time.Millisecond, 10 * time.Millisecond, 2 * time.Second, 10 * time.Minute} {
		Finished("email", "send", "dead", d)
	}
	WatchQueues(func(context.Context) ([]QueueSize, error) {
		return []QueueSize{{Queue: "fetch", Ready: 1, Capacity: 1000, OldestReady: 1500 * time.Millisecond}}, nil
	})
	out := scrape(t)
	if strings.Contains(out, "morningdeck_enrichments_total") {
		t.Error("a metric with no series yet is written")
	}
	typed := map[string]string{}
	for i, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if rest, ok := strings.CutPrefix(line, "# TYPE "); ok {
			name, typ, _ := strings.Cut(rest, " ")
			if typed[name] != "" {
				t.Errorf("line %d: %s typed twice", i+1, name)
			}
			typed[name] = typ
			continue
		}
		if strings.HasPrefix(line, "# HELP ") {
			continue
		}
		m := sampleLine.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("line %d is not a sample: %q", i+1, line)
			continue
		}
		if _, err := strconv.ParseFloat(strings.Replace(m[2], "+Inf", "Inf", 1), 64); err != nil {
			t.Errorf("line %d: value %q", i+1, m[2])
		}
		name := line[:strings.IndexAny(line, "{ ")]
		base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")
		if typed[name] == "" && typed[base] == "" {
			t.Errorf("line %d: %s has no TYPE before it", i+1, name)
		}
	}
	for _, want := range []string{
		`morningdeck_jobs_enqueued_total{kind="fetch",queue="fetch"} 3`,
		`morningdeck_fetch_responses_total{status="odd \"label\"\\\nvalue"} 1`,
		`morningdeck_job_duration_seconds_bucket{kind="send",queue="email",le="0.005"} 1`,
		`morningdeck_job_duration_seconds_bucket{kind="send",queue="email",le="0.01"} 2`,
		`morningdeck_job_duration_seconds_bucket{kind="send",queue="email",le="2.5"} 3`,
		`morningdeck_job_duration_seconds_bucket{kind="send",queue="email",le="120"} 3`,
		`morningdeck_job_duration_seconds_bucket{kind="send",queue="email",le="+Inf"} 4`,
		`morningdeck_job_duration_seconds_count{kind="send",queue="email"} 4`,
		`morningdeck_job_duration_seconds_sum{kind="send",queue="email"} 602.013`,
		`morningdeck_jobs_processed_total{kind="send",outcome="dead",queue="email"} 4`,
		`morningdeck_queue_stats_up 1`,
		`morningdeck_queue_size{queue="fetch",state="ready"} 1`,
		`morningdeck_queue_capacity{queue="fetch"} 1000`,
		`morningdeck_queue_oldest_ready_seconds{queue="fetch"} 1.5`,
		`go_info{version="` + runtime.Version() + `"} 1`,
		"\ngo_goroutines ", "\ngo_threads ", "\ngo_gc_duration_seconds_count ", "\ngo_memstats_heap_alloc_bytes ",
		"\ngo_memstats_sys_bytes ", "# TYPE go_memstats_alloc_bytes_total counter",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the metrics lack %s", want)
		}
	}
	if runtime.GOOS == "linux" {
		for _, want := range []string{"\nprocess_cpu_seconds_total ", "\nprocess_resident_memory_bytes ", "\nprocess_open_fds ", "\nprocess_start_time_seconds "} {
			if !strings.Contains(out, want) {
				t.Errorf("the metrics lack %s", want)
			}
		}
		rss := regexp.MustCompile(`\nprocess_resident_memory_bytes (\S+)`).FindStringSubmatch(out)
		if v, _ := strconv.ParseFloat(rss[1], 64); v < 1<<20 {
			t.Errorf("resident memory %s bytes", rss[1])
		}
		start := regexp.MustCompile(`\nprocess_start_time_seconds (\S+)`).FindStringSubmatch(out)
		if v, _ := strconv.ParseFloat(start[1], 64); time.Since(time.Unix(int64(v), 0)).Abs() > time.Hour {
			t.Errorf("start time %s is not near now", start[1])
		}
	}

	// The queue statistics could not be read: up is 0 and nothing else of the queues is written.
	WatchQueues(func(context.Context) ([]QueueSize, error) { return nil, errors.New("database closed") })
	out = scrape(t)
	if !strings.Contains(out, "\nmorningdeck_queue_stats_up 0\n") || strings.Contains(out, "morningdeck_queue_size{") {
		t.Errorf("with the queues unreadable:\n%s", out)
	}
}
