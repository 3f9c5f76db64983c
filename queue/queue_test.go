package queue_test

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"

	"maragu.dev/goqite"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite"
)

// name is the queue the tests use.
const name = "test"

// newQueue returns a queue on db with fast test settings; opts overrides them where set.
func newQueue(t *testing.T, db *sqlite.DB, opts queue.Options) *queue.Queue {
	t.Helper()
	opts.Store = db
	if opts.Log == nil {
		opts.Log = slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if opts.Name == "" {
		opts.Name = name
	}
	if opts.PollInterval == 0 {
		opts.PollInterval = 10 * time.Millisecond
	}
	if opts.BaseBackoff == 0 {
		opts.BaseBackoff = 10 * time.Millisecond
	}
	if opts.MaxBackoff == 0 {
		opts.MaxBackoff = 100 * time.Millisecond
	}
	return queue.New(opts)
}

// run starts q and returns a function that stops it and waits for Run to return.
func run(t *testing.T, q *queue.Queue) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- q.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run returned %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Error("Run did not return")
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func count(t *testing.T, db *sqlite.DB, query string, args ...any) int {
	t.Helper()
	var n int
	if err := db.Write.QueryRow(query, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func send(t *testing.T, q *queue.Queue, kind string, data any) {
	t.Helper()
	if err := q.Send(t.Context(), kind, 1, data, queue.SendOptions{}); err != nil {
		t.Fatal(err)
	}
}

func dead(t *testing.T, q *queue.Queue) []app.DeadJob {
	t.Helper()
	jobs, err := q.Dead(t.Context(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return jobs
}

func rawQueue(db *sqlite.DB, timeout time.Duration) *goqite.Queue {
	return goqite.New(goqite.NewOpts{DB: db.Write, Name: name, MaxReceive: 1_000_000, Timeout: timeout})
}
