package views_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/metrics"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
	"github.com/morningdeck/morningdeck/views"
)

// queuesEnv is a server with the Queues page, health, stats and metrics over real queues.
type queuesEnv struct {
	*env
	fetch, email *queue.Queue
	admin        *queue.Admin
}

func newQueuesEnv(t *testing.T, fetchCapacity int) *queuesEnv {
	t.Helper()
	db := sqlitetest.New(t)
	fq := queue.NewFetchQueue(queue.FetchQueueOptions{Store: db, Capacity: fetchCapacity})
	pq := queue.NewProcessQueue(queue.ProcessQueueOptions{Store: db})
	bq := queue.NewBriefingQueue(queue.Options{Store: db})
	eq := queue.NewEmailQueue(queue.Options{Store: db, PollInterval: 10 * time.Millisecond, MaxAttempts: 1})
	admin := &queue.Admin{List: []*queue.Queue{fq.Queue, pq.Queue, bq.Queue, eq.Queue},
		Capacities: map[string]int{"fetch": fetchCapacity, "process": 5000}, Store: db}
	metrics.WatchQueues(admin.Sizes)
	h := views.New(views.Options{Sources: &app.Sources{Store: db, Queue: fq}, Version: "v-test",
		Queues: admin, Metrics: metrics.Handler()})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &queuesEnv{env: &env{t: t, db: db, srv: srv, c: c}, fetch: fq.Queue, email: eq.Queue, admin: admin}
}

// failOne sends an email job that fails for good, runs the queue until it is dead, and returns its id.
func (e *queuesEnv) failOne(t *testing.T, payload any) string {
	t.Helper()
	e.email.Register("send", func(ctx context.Context, job queue.Job) error {
		return queue.Permanent(errors.New("550 mailbox <unavailable>"))
	})
	if err := e.email.Send(context.Background(), "send", 1, payload, queue.SendOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = e.email.Run(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		dead, err := e.email.Dead(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(payload)
		for _, d := range dead {
			if strings.Contains(string(d.Body), string(want)) {
				return d.ID
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the job never failed")
		}
	}
}

func TestQueuesPage(t *testing.T) {
	ctx := context.Background()

	t.Run("the dashboard shows each queue's numbers, the failed jobs, and retry, discard, pause and resume work", func(t *testing.T) {
		e := newQueuesEnv(t, 1000)
		for i := range 3 {
			if err := e.fetch.Send(ctx, "fetch", 1, map[string]int64{"sourceId": int64(i + 1)}, queue.SendOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if err := e.fetch.Send(ctx, "fetch", 1, map[string]int64{"sourceId": 9}, queue.SendOptions{Delay: time.Hour}); err != nil {
			t.Fatal(err)
		}
		id := e.failOne(t, map[string]int64{"deliveryId": 42})

		code, body := e.json("GET", "/admin/queue-stats", "")
		if code != 200 || !strings.Contains(body, `"fetch":{"pending":4,"processing":0,"completed":0,"failed":0,"capacity":1000,"paused":false}`) ||
			!strings.Contains(body, `"email":{"pending":0,"processing":0,"completed":0,"failed":1,"capacity":0,"paused":false}`) {
			t.Fatalf("queue-stats: %d %s", code, body)
		}
		res, page := e.get("/queues")
		mustContain(t, res, page, 200, `data-queue="fetch"`, `data-testid="q-ready">3<`, `data-testid="q-delayed">1<`, `data-testid="q-capacity">4 of 1000<`,
			`data-testid="failed-job" data-job="`+id+`"`, "send delivery 42", "550 mailbox &lt;unavailable&gt;", `data-testid="no-stuck"`,
			`data-testid="failed-count"`, `<polyline`)
		res, frag := e.get("/fragments/queues")
		mustContain(t, res, frag, 200, `id="queues-live"`, `hx-trigger="every 3s"`)
		if strings.Contains(frag, "<html") {
			t.Fatal("the fragment is a whole page")
		}

		res, _ = e.form("/queues/email/failed/"+id+"/retry", url.Values{})
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("retry: %d", res.StatusCode)
		}
		if _, body := e.json("GET", "/admin/queue-stats", ""); !strings.Contains(body, `"email":{"pending":1,"processing":0,"completed":0,"failed":0`) {
			t.Fatalf("after retry: %s", body)
		}
		res, _ = e.form("/queues/email/failed/"+id+"/retry", url.Values{})
		if res.StatusCode != http.StatusSeeOther || !strings.Contains(res.Header.Get("Set-Cookie"), "flash") {
			t.Fatalf("retrying a job no longer failed: %d", res.StatusCode)
		}

		id = e.failOne(t, map[string]int64{"deliveryId": 43})
		if res, _ := e.form("/queues/email/failed/"+id+"/discard", url.Values{}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("discard: %d", res.StatusCode)
		}
		dead, _ := e.email.Dead(ctx, 0)
		for _, d := range dead {
			if d.ID == id {
				t.Fatal("the discarded job is still there")
			}
		}

		if res, _ := e.form("/queues/fetch/pause", url.Values{}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("pause: %d", res.StatusCode)
		}
		_, page = e.get("/queues")
		mustContainBody(t, page, `data-testid="queue-resume"`, `data-status="paused"`)
		if _, body := e.json("GET", "/admin/queue-stats", ""); !strings.Contains(body, `"capacity":1000,"paused":true`) {
			t.Fatalf("after pause: %s", body)
		}
		e.form("/queues/fetch/resume", url.Values{})
		if p, _ := e.fetch.Paused(ctx); p {
			t.Fatal("resume did not resume")
		}
		if res, _ := e.form("/queues/nosuch/pause", url.Values{}); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("unknown queue: %d", res.StatusCode)
		}
	})

	// Busy is not broken (issue 27, N4): a queue over its capacity (a large import) and entities
	// waiting are a backlog, 200 with the details; 503 is for faults (the database here; disk
	// full and stuck workers in TestHealthTellsTheTruth). The old code answered 503 to both.
	t.Run("healthz is 200 when healthy, 200 busy with the backlog, 503 naming a fault", func(t *testing.T) {
		e := newQueuesEnv(t, 10)
		code, body := e.json("GET", "/healthz", "")
		if code != 200 || body != `{"ok":true,"status":"ok","problems":[]}`+"\n" {
			t.Fatalf("healthy: %d %q", code, body)
		}
		for i := range 10 {
			if err := e.fetch.Send(ctx, "fetch", 1, map[string]int{"sourceId": i}, queue.SendOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		code, body = e.json("GET", "/healthz", "")
		if code != 200 || !strings.Contains(body, `"ok":true,"status":"busy","problems":[],"backlog":["queue fetch holds 10 jobs, its scheduler's capacity is 10: fetching 10 sources`) {
			t.Fatalf("full queue: %d %s; want 200, busy, with the backlog", code, body)
		}
		_, page := e.get("/queues")
		mustContainBody(t, page, `data-status="busy"`, "queue fetch holds 10 jobs")
		if strings.Contains(page, `data-testid="health-banner"`) {
			t.Error("a busy app shows the banner of a broken one")
		}

		e = newQueuesEnv(t, 1000)
		old := time.Now().Add(-time.Hour).UTC().Format(sqlite.TimeFormat)
		for i := range 11 {
			if _, err := e.db.Write.Exec(`insert into sources (user_id, type, url, name, fetch_status, queued_at, created_at) values (1, 'rss', ?, ?, 'QUEUED', ?, ?)`,
				fmt.Sprintf("http://x/%d", i), fmt.Sprintf("Feed %d", i), old, old); err != nil {
				t.Fatal(err)
			}
		}
		code, body = e.json("GET", "/healthz", "")
		if code != 200 || !strings.Contains(body, `"status":"busy"`) || !strings.Contains(body, "11 entities have waited in a transitional state") {
			t.Fatalf("stuck: %d %s; want 200, busy", code, body)
		}
		_, page = e.get("/queues")
		mustContainBody(t, page, `data-status="busy"`, `data-testid="stuck"`, "Feed 3")

		e = newQueuesEnv(t, 1000)
		if err := e.db.Close(); err != nil {
			t.Fatal(err)
		}
		code, body = e.json("GET", "/healthz", "")
		if code != 503 || !strings.Contains(body, "database") {
			t.Fatalf("closed database: %d %s", code, body)
		}
	})

	t.Run("metrics: queue gauges, job counters by outcome, durations and the Go runtime", func(t *testing.T) {
		e := newQueuesEnv(t, 1000)
		if err := e.fetch.Send(ctx, "fetch", 1, map[string]int{"sourceId": 1}, queue.SendOptions{}); err != nil {
			t.Fatal(err)
		}
		e.failOne(t, map[string]int{"deliveryId": 1})
		_, body := e.get("/metrics")
		for _, want := range []string{`morningdeck_queue_size{queue="fetch",state="ready"} 1`, `morningdeck_queue_size{queue="email",state="dead"} 1`,
			`morningdeck_queue_capacity{queue="fetch"} 1000`, `morningdeck_jobs_enqueued_total{kind="fetch",queue="fetch"}`,
			`morningdeck_jobs_processed_total{kind="send",outcome="dead",queue="email"}`, `morningdeck_job_duration_seconds_bucket{kind="send",queue="email"`,
			"go_goroutines", "morningdeck_queue_stats_up 1"} {
			if !strings.Contains(body, want) {
				t.Errorf("metrics lack %s", want)
			}
		}
	})
}

func mustContainBody(t *testing.T, body string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(body, w) {
			t.Errorf("missing %q", w)
		}
	}
}
