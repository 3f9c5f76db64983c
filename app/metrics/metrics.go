// Package metrics holds the app's Prometheus metrics, served at /metrics.
//
// The collectors are process-wide, as Prometheus expects: the pipelines count into them
// directly, and Registry gathers them with the Go runtime and process metrics.
package metrics

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Registry is what /metrics serves.
var Registry = prometheus.NewRegistry()

var (
	// JobsEnqueued counts jobs sent, by queue and kind.
	JobsEnqueued = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "morningdeck", Name: "jobs_enqueued_total", Help: "Jobs sent to a queue.",
	}, []string{"queue", "kind"})
	// JobsProcessed counts finished job runs by outcome: ok, retry, dead or interrupted.
	JobsProcessed = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "morningdeck", Name: "jobs_processed_total", Help: "Job runs by outcome (ok, retry, dead, interrupted).",
	}, []string{"queue", "kind", "outcome"})
	// JobDuration is how long job runs take.
	JobDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: "morningdeck", Name: "job_duration_seconds", Help: "How long a job run takes.",
		Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120},
	}, []string{"queue", "kind"})
	// FetchResponses counts source fetches by HTTP status ("error" when no response came).
	FetchResponses = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "morningdeck", Name: "fetch_responses_total", Help: "Source fetches by HTTP status code, or error when no response came.",
	}, []string{"status"})
	// Enrichments counts items enriched, by enricher (embedded, llm:MODEL) and outcome.
	Enrichments = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "morningdeck", Name: "enrichments_total", Help: "Items enriched, by enricher and outcome (ok, error).",
	}, []string{"enricher", "outcome"})
	// EmailDeliveries counts report email deliveries by outcome: sent, retry, failed or skipped.
	EmailDeliveries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: "morningdeck", Name: "email_deliveries_total", Help: "Report email delivery attempts by outcome (sent, retry, failed, skipped).",
	}, []string{"outcome"})
)

func init() {
	Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		JobsEnqueued, JobsProcessed, JobDuration, FetchResponses, Enrichments, EmailDeliveries)
}

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
	if !watch.registered {
		Registry.MustRegister(queueCollector{})
		watch.registered = true
	}
}

var watch struct {
	sync.Mutex
	sizes      func(ctx context.Context) ([]QueueSize, error)
	registered bool
}

var (
	sizeDesc     = prometheus.NewDesc("morningdeck_queue_size", "Messages in a queue by state (ready, delayed, in_flight, dead).", []string{"queue", "state"}, nil)
	capacityDesc = prometheus.NewDesc("morningdeck_queue_capacity", "Most messages a queue's scheduler lets wait (0: unbounded).", []string{"queue"}, nil)
	pausedDesc   = prometheus.NewDesc("morningdeck_queue_paused", "1 when the queue is paused.", []string{"queue"}, nil)
	oldestDesc   = prometheus.NewDesc("morningdeck_queue_oldest_ready_seconds", "How long the oldest ready message has waited.", []string{"queue"}, nil)
	upDesc       = prometheus.NewDesc("morningdeck_queue_stats_up", "1 when the queue statistics could be read from the database.", nil, nil)
)

type queueCollector struct{}

func (c queueCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{sizeDesc, capacityDesc, pausedDesc, oldestDesc, upDesc} {
		ch <- d
	}
}

func (c queueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	watch.Lock()
	read := watch.sizes
	watch.Unlock()
	sizes, err := read(ctx)
	if err != nil {
		ch <- prometheus.MustNewConstMetric(upDesc, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(upDesc, prometheus.GaugeValue, 1)
	for _, s := range sizes {
		for state, n := range map[string]int{"ready": s.Ready, "delayed": s.Delayed, "in_flight": s.InFlight, "dead": s.Dead} {
			ch <- prometheus.MustNewConstMetric(sizeDesc, prometheus.GaugeValue, float64(n), s.Queue, state)
		}
		ch <- prometheus.MustNewConstMetric(capacityDesc, prometheus.GaugeValue, float64(s.Capacity), s.Queue)
		paused := 0.0
		if s.Paused {
			paused = 1
		}
		ch <- prometheus.MustNewConstMetric(pausedDesc, prometheus.GaugeValue, paused, s.Queue)
		ch <- prometheus.MustNewConstMetric(oldestDesc, prometheus.GaugeValue, s.OldestReady.Seconds(), s.Queue)
	}
}
