package views_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
	"github.com/morningdeck/morningdeck/views"
)

// A worker held by a job past its timeout makes /healthz 503 with the reason, and every page
// shows the banner; the disk filling up does the same.
func TestHealthTellsTheTruth(t *testing.T) {
	db := sqlitetest.New(t)
	pin := queue.New(queue.Options{Store: db, Name: "fetch", Timeout: 200 * time.Millisecond, PollInterval: 10 * time.Millisecond})
	release := make(chan struct{})
	started := make(chan struct{})
	pin.Register("fetch", func(ctx context.Context, job queue.Job) error {
		close(started)
		<-release // ignores ctx: a worker that does not end
		return nil
	})
	admin := &queue.Admin{List: []*queue.Queue{pin}, Store: db}
	srv := httptest.NewServer(views.New(views.Options{Sources: &app.Sources{Store: db}, Reading: &app.Reading{Store: db}, Queues: admin}))
	t.Cleanup(srv.Close)
	e := &env{t: t, db: db, srv: srv, c: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}

	code, body := e.json("GET", "/healthz", "")
	if code != 200 {
		t.Fatalf("healthy: %d %s", code, body)
	}
	if _, page := e.get("/sources"); strings.Contains(page, `data-testid="health-banner"`) {
		t.Fatal("banner on a healthy app")
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = pin.Run(ctx); close(done) }()
	t.Cleanup(func() { close(release); cancel(); <-done })
	if err := pin.Send(context.Background(), "fetch", 1, map[string]int{"sourceId": 1}, queue.SendOptions{}); err != nil {
		t.Fatal(err)
	}
	<-started
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		code, body = e.json("GET", "/healthz", "")
		if code == 503 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a pinned worker never made /healthz fail: %d %s", code, body)
		}
	}
	if !strings.Contains(body, "a fetch worker has been running a fetch job for") || !strings.Contains(body, "past its 200ms timeout") {
		t.Errorf("pinned worker: %s", body)
	}
	_, page := e.get("/sources")
	mustContainBody(t, page, `data-testid="health-banner"`, "Morning Deck cannot work as it should", "past its 200ms timeout")

	// Disk full (max_page_count, as storage_test.go): the reason is in /healthz. VACUUM first:
	// the migrations leave free pages (a dropped index), and a file with free pages is not full.
	if _, err := db.Write.Exec(`vacuum`); err != nil {
		t.Fatal(err)
	}
	var pages int
	if err := db.Write.QueryRow(`pragma page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Write.Exec(`pragma max_page_count = ` + strconv.Itoa(pages)); err != nil {
		t.Fatal(err)
	}
	code, body = e.json("GET", "/healthz", "")
	if code != 503 || !strings.Contains(body, "the disk holding the database is full") {
		t.Errorf("disk full: %d %s", code, body)
	}
}
