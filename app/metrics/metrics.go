// Package metrics holds the app's Prometheus metrics, served at /metrics (Handler) in
// Prometheus's text exposition format (version 0.0.4).
//
// The metrics are process-wide, as Prometheus expects: the pipelines count into them directly,
// and Handler writes them with the queue gauges (read at each scrape), the Go runtime's and the
// process's.
//
// It is written on the standard library rather than on client_golang, which served it until
// session 22: client_golang brings protobuf, and protobuf's formatting reaches
// reflect.Value.MethodByName, which keeps the linker from dropping any unused exported method of
// the whole program. Without it the binary is 7.6 MB smaller and the first ingestion's peak
// resident memory about 3.5 MB lower (BENCHMARKS.md, session 22). The app's names, labels, types
// and buckets are those client_golang served; of the Go runtime's and the process's, the series
// its default collectors served (README lists them), but the process's network counters.
// Responses are not compressed.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"
)

var (
	// JobsEnqueued counts jobs sent, by queue and kind.
	JobsEnqueued = newCounterVec("morningdeck_jobs_enqueued_total", "Jobs sent to a queue.", "queue", "kind")
	// JobsProcessed counts finished job runs by outcome: ok, retry, dead or interrupted.
	JobsProcessed = newCounterVec("morningdeck_jobs_processed_total", "Job runs by outcome (ok, retry, dead, interrupted).", "queue", "kind", "outcome")
	// JobDuration is how long job runs take.
	JobDuration = newHistogramVec("morningdeck_job_duration_seconds", "How long a job run takes.",
		[]float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120}, "queue", "kind")
	// FetchResponses counts source fetches by HTTP status ("error" when no response came).
	FetchResponses = newCounterVec("morningdeck_fetch_responses_total", "Source fetches by HTTP status code, or error when no response came.", "status")
	// Enrichments counts items enriched, by enricher (embedded, llm:MODEL) and outcome.
	Enrichments = newCounterVec("morningdeck_enrichments_total", "Items enriched, by enricher and outcome (ok, error).", "enricher", "outcome")
	// EmailDeliveries counts report email deliveries by outcome: sent, retry, failed or skipped.
	EmailDeliveries = newCounterVec("morningdeck_email_deliveries_total", "Report email delivery attempts by outcome (sent, retry, failed, skipped).", "outcome")
)

// families are what Handler writes first, in this order.
var families = []family{JobsEnqueued, JobsProcessed, JobDuration, FetchResponses, Enrichments, EmailDeliveries}

// Fetched counts one fetch: its HTTP status, or 0 when no response came.
func Fetched(status int) {
	label := "error"
	if status > 0 {
		label = strconv.Itoa(status)
	}
	FetchResponses.WithLabelValues(label).Inc()
}

// Finished counts one job run.
func Finished(queue, kind, outcome string, took time.Duration) {
	JobsProcessed.WithLabelValues(queue, kind, outcome).Inc()
	JobDuration.WithLabelValues(queue, kind).Observe(took.Seconds())
}

// QueueSize is a queue's messages by state at one moment.
type QueueSize struct {
	Queue                          string
	Ready, Delayed, InFlight, Dead int
	Capacity                       int // 0: unbounded
	Paused                         bool
	OldestReady                    time.Duration
}

// WatchQueues makes the queue gauges read sizes at each scrape (one call per scrape); a later
// call replaces an earlier one.
func WatchQueues(sizes func(ctx context.Context) ([]QueueSize, error)) {
	watch.Lock()
	defer watch.Unlock()
	watch.sizes = sizes
}

var watch struct {
	sync.Mutex
	sizes func(ctx context.Context) ([]QueueSize, error)
}

// Handler serves the metrics: the app's counters and histograms, the queue gauges (when
// WatchQueues was called), the Go runtime's and the process's. It is mounted for GET (and so
// HEAD) only (views: "GET /metrics").
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var e expo
		for _, f := range families {
			f.write(&e)
		}
		writeQueues(r.Context(), &e)
		writeRuntime(&e)
		writeProcess(&e)
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if r.Method != http.MethodHead {
			_, _ = w.Write(e.b)
		}
	})
}

// writeQueues writes the queue gauges, read now; morningdeck_queue_stats_up says whether they
// could be.
func writeQueues(ctx context.Context, e *expo) {
	watch.Lock()
	read := watch.sizes
	watch.Unlock()
	if read == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	sizes, err := read(ctx)
	e.header("morningdeck_queue_stats_up", "1 when the queue statistics could be read from the database.", "gauge")
	if err != nil {
		e.sample("morningdeck_queue_stats_up", nil, 0)
		return
	}
	e.sample("morningdeck_queue_stats_up", nil, 1)
	e.header("morningdeck_queue_size", "Messages in a queue by state (ready, delayed, in_flight, dead).", "gauge")
	for _, s := range sizes {
		for _, st := range []struct {
			name string
			n    int
		}{{"dead", s.Dead}, {"delayed", s.Delayed}, {"in_flight", s.InFlight}, {"ready", s.Ready}} {
			e.sample("morningdeck_queue_size", []label{{"queue", s.Queue}, {"state", st.name}}, float64(st.n))
		}
	}
	e.header("morningdeck_queue_capacity", "Most messages a queue's scheduler lets wait (0: unbounded).", "gauge")
	for _, s := range sizes {
		e.sample("morningdeck_queue_capacity", []label{{"queue", s.Queue}}, float64(s.Capacity))
	}
	e.header("morningdeck_queue_paused", "1 when the queue is paused.", "gauge")
	for _, s := range sizes {
		paused := 0.0
		if s.Paused {
			paused = 1
		}
		e.sample("morningdeck_queue_paused", []label{{"queue", s.Queue}}, paused)
	}
	e.header("morningdeck_queue_oldest_ready_seconds", "How long the oldest ready message has waited.", "gauge")
	for _, s := range sizes {
		e.sample("morningdeck_queue_oldest_ready_seconds", []label{{"queue", s.Queue}}, s.OldestReady.Seconds())
	}
}
