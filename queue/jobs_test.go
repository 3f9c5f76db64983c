package queue_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"maragu.dev/goqite"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

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

func TestQueueBadMessages(t *testing.T) {
	t.Run("an unknown kind is dead-lettered with the reason and other jobs keep running", func(t *testing.T) {
		db := sqlitetest.New(t)
		q := newQueue(t, db, queue.Options{})
		var ran atomic.Int32
		q.Register("known", func(ctx context.Context, job queue.Job) error { ran.Add(1); return nil })
		send(t, q, "mystery", map[string]int{"id": 1})
		send(t, q, "known", nil)
		run(t, q)

		eventually(t, "the known job", func() bool { return ran.Load() == 1 })
		eventually(t, "a dead job", func() bool { return len(dead(t, q)) == 1 })
		d := dead(t, q)[0]
		if d.Kind != "mystery" || !strings.Contains(d.Error, `unknown kind "mystery"`) || d.Attempts != 1 {
			t.Errorf("dead job = %+v", d)
		}
		send(t, q, "known", nil)
		eventually(t, "the queue to keep running", func() bool { return ran.Load() == 2 })
	})

	t.Run("an undecodable body is dead-lettered and never panics", func(t *testing.T) {
		db := sqlitetest.New(t)
		q := newQueue(t, db, queue.Options{})
		if err := rawQueue(db, time.Second).Send(t.Context(), goqite.Message{Body: []byte("not json")}); err != nil {
			t.Fatal(err)
		}
		run(t, q)

		eventually(t, "a dead job", func() bool { return len(dead(t, q)) == 1 })
		d := dead(t, q)[0]
		if !strings.Contains(d.Error, "undecodable body") || string(d.Body) != "not json" {
			t.Errorf("dead job = %+v", d)
		}
		if n := count(t, db, `select count(*) from goqite`); n != 0 {
			t.Errorf("%d messages left in goqite", n)
		}
	})
}

func TestQueueRetries(t *testing.T) {
	t.Run("a failing job is retried with growing backoff and then dead-lettered with the last error", func(t *testing.T) {
		db := sqlitetest.New(t)
		q := newQueue(t, db, queue.Options{BaseBackoff: 100 * time.Millisecond, MaxBackoff: time.Second})
		var mu sync.Mutex
		var attempts []int
		var times []time.Time
		q.Register("fail", func(ctx context.Context, job queue.Job) error {
			mu.Lock()
			defer mu.Unlock()
			attempts = append(attempts, job.Attempt)
			times = append(times, time.Now())
			return errors.New("boom " + string(rune('0'+job.Attempt)))
		})
		if err := q.Send(t.Context(), "fail", 1, nil, queue.SendOptions{Priority: 5}); err != nil {
			t.Fatal(err)
		}
		run(t, q)

		eventually(t, "a dead job", func() bool { return len(dead(t, q)) == 1 })
		mu.Lock()
		defer mu.Unlock()
		if len(attempts) != 3 || attempts[0] != 1 || attempts[1] != 2 || attempts[2] != 3 {
			t.Fatalf("attempts = %v", attempts)
		}
		// 100ms then 200ms, each ±20%.
		if d := times[1].Sub(times[0]); d < 80*time.Millisecond {
			t.Errorf("second attempt after %v", d)
		}
		if d := times[2].Sub(times[1]); d < 160*time.Millisecond {
			t.Errorf("third attempt after %v", d)
		}
		d := dead(t, q)[0]
		if d.Attempts != 3 || d.Error != "boom 3" || d.Kind != "fail" || d.Queue != name {
			t.Errorf("dead job = %+v", d)
		}
		var env struct {
			Priority int `json:"p"`
		}
		if err := json.Unmarshal(d.Body, &env); err != nil || env.Priority != 5 {
			t.Errorf("retries lost the priority: %s", d.Body)
		}
	})

	t.Run("Retry puts a dead job back at attempt 1 and it runs", func(t *testing.T) {
		db := sqlitetest.New(t)
		q := newQueue(t, db, queue.Options{MaxAttempts: 1})
		var fixed atomic.Bool
		seen := make(chan queue.Job, 10)
		q.Register("flaky", func(ctx context.Context, job queue.Job) error {
			seen <- job
			if !fixed.Load() {
				return errors.New("not yet")
			}
			return nil
		})
		send(t, q, "flaky", map[string]int{"id": 7})
		run(t, q)
		eventually(t, "a dead job", func() bool { return len(dead(t, q)) == 1 })
		<-seen

		fixed.Store(true)
		if err := q.Retry(t.Context(), dead(t, q)[0].ID); err != nil {
			t.Fatal(err)
		}
		select {
		case job := <-seen:
			if job.Attempt != 1 || string(job.Data) != `{"id":7}` {
				t.Errorf("job = %+v", job)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("retried job did not run")
		}
		eventually(t, "the queue to empty", func() bool { return count(t, db, `select count(*) from goqite`) == 0 })
		if n := len(dead(t, q)); n != 0 {
			t.Errorf("%d dead jobs", n)
		}
	})

	t.Run("RetryAll moves every dead job back and Discard removes one", func(t *testing.T) {
		db := sqlitetest.New(t)
		q := newQueue(t, db, queue.Options{})
		q.Register("bad", func(ctx context.Context, job queue.Job) error { return queue.Permanent(errors.New("bad")) })
		for range 3 {
			send(t, q, "bad", nil)
		}
		stop := run(t, q)
		eventually(t, "three dead jobs", func() bool { return len(dead(t, q)) == 3 })
		stop()

		if err := q.Discard(t.Context(), dead(t, q)[0].ID); err != nil {
			t.Fatal(err)
		}
		n, err := q.RetryAll(t.Context())
		if err != nil || n != 2 {
			t.Fatalf("RetryAll = %d, %v", n, err)
		}
		if got := count(t, db, `select count(*) from goqite`); got != 2 || len(dead(t, q)) != 0 {
			t.Errorf("%d messages, %d dead", got, len(dead(t, q)))
		}
	})

	t.Run("Retry and Discard of an unknown id wrap sql.ErrNoRows", func(t *testing.T) {
		q := newQueue(t, sqlitetest.New(t), queue.Options{})
		if err := q.Retry(t.Context(), "nope"); !errors.Is(err, sql.ErrNoRows) {
			t.Errorf("Retry = %v", err)
		}
		if err := q.Discard(t.Context(), "nope"); !errors.Is(err, sql.ErrNoRows) {
			t.Errorf("Discard = %v", err)
		}
	})
}

func TestQueuePermanent(t *testing.T) {
	t.Run("a permanent error dead-letters the job without retrying", func(t *testing.T) {
		db := sqlitetest.New(t)
		q := newQueue(t, db, queue.Options{MaxAttempts: 5})
		var calls atomic.Int32
		q.Register("bad", func(ctx context.Context, job queue.Job) error {
			calls.Add(1)
			return queue.Permanent(errors.New("invalid url"))
		})
		send(t, q, "bad", nil)
		run(t, q)

		eventually(t, "a dead job", func() bool { return len(dead(t, q)) == 1 })
		if d := dead(t, q)[0]; d.Attempts != 1 || d.Error != "invalid url" {
			t.Errorf("dead job = %+v", d)
		}
		time.Sleep(50 * time.Millisecond)
		if n := calls.Load(); n != 1 {
			t.Errorf("handler ran %d times", n)
		}
	})
}

func TestQueueHeartbeat(t *testing.T) {
	t.Run("a job running longer than the timeout is never received twice", func(t *testing.T) {
		db := sqlitetest.New(t)
		var calls atomic.Int32
		h := func(ctx context.Context, job queue.Job) error {
			calls.Add(1)
			time.Sleep(1200 * time.Millisecond)
			return nil
		}
		a := newQueue(t, db, queue.Options{Timeout: 300 * time.Millisecond})
		b := newQueue(t, db, queue.Options{Timeout: 300 * time.Millisecond})
		a.Register("slow", h)
		b.Register("slow", h)
		send(t, a, "slow", nil)
		run(t, a)
		run(t, b)

		eventually(t, "the job to finish", func() bool { return count(t, db, `select count(*) from goqite`) == 0 })
		if n := calls.Load(); n != 1 {
			t.Errorf("handler ran %d times", n)
		}
	})
}

func TestQueueRedelivery(t *testing.T) {
	t.Run("a job whose process died runs again after the timeout", func(t *testing.T) {
		db := sqlitetest.New(t)
		q := newQueue(t, db, queue.Options{})
		seen := make(chan queue.Job, 1)
		q.Register("job", func(ctx context.Context, job queue.Job) error { seen <- job; return nil })
		send(t, q, "job", nil)
		if m, err := rawQueue(db, 300*time.Millisecond).Receive(t.Context()); err != nil || m == nil {
			t.Fatalf("raw receive = %v, %v", m, err)
		}
		received := time.Now()
		run(t, q)

		select {
		case job := <-seen:
			if d := time.Since(received); d < 250*time.Millisecond {
				t.Errorf("ran again after %v, before the timeout", d)
			}
			if job.Received != 2 || job.Attempt != 1 {
				t.Errorf("job = %+v", job)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("job did not run")
		}
	})

	t.Run("a job received MaxDeliveries times is dead-lettered instead of running again", func(t *testing.T) {
		db := sqlitetest.New(t)
		q := newQueue(t, db, queue.Options{MaxDeliveries: 2})
		var calls atomic.Int32
		q.Register("job", func(ctx context.Context, job queue.Job) error { calls.Add(1); return nil })
		send(t, q, "job", nil)
		raw := rawQueue(db, 20*time.Millisecond)
		var id goqite.ID
		for range 2 {
			eventually(t, "a raw receive", func() bool {
				m, err := raw.Receive(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				if m != nil {
					id = m.ID
				}
				return m != nil
			})
		}
		if n := count(t, db, `select received from goqite where id = ?`, id); n != 2 {
			t.Fatalf("received = %d", n)
		}
		run(t, q)

		eventually(t, "a dead job", func() bool { return len(dead(t, q)) == 1 })
		if d := dead(t, q)[0]; d.ID != string(id) || !strings.Contains(d.Error, "delivered 2 times") {
			t.Errorf("dead job = %+v", d)
		}
		if n := calls.Load(); n != 0 {
			t.Errorf("handler ran %d times", n)
		}
	})
}

func TestQueueShutdown(t *testing.T) {
	t.Run("a running job finishes and is deleted before Run returns", func(t *testing.T) {
		db := sqlitetest.New(t)
		q := newQueue(t, db, queue.Options{})
		started := make(chan struct{})
		var finished atomic.Bool
		var jobErr atomic.Value
		q.Register("job", func(ctx context.Context, job queue.Job) error {
			close(started)
			time.Sleep(500 * time.Millisecond)
			jobErr.Store(ctx.Err() == nil)
			finished.Store(true)
			return nil
		})
		send(t, q, "job", nil)
		stop := run(t, q)
		<-started
		stop()

		if !finished.Load() {
			t.Fatal("Run returned before the job finished")
		}
		if ok, _ := jobErr.Load().(bool); !ok {
			t.Error("the job's context was cancelled")
		}
		if n := count(t, db, `select count(*) from goqite`); n != 0 {
			t.Errorf("%d messages left", n)
		}
	})

	t.Run("after the grace period the job's context is cancelled and the message stays", func(t *testing.T) {
		db := sqlitetest.New(t)
		q := newQueue(t, db, queue.Options{ShutdownGrace: 100 * time.Millisecond})
		started := make(chan struct{})
		q.Register("job", func(ctx context.Context, job queue.Job) error {
			close(started)
			<-ctx.Done()
			return ctx.Err()
		})
		send(t, q, "job", nil)
		stop := run(t, q)
		<-started
		begin := time.Now()
		stop()

		if d := time.Since(begin); d < 100*time.Millisecond || d > 5*time.Second {
			t.Errorf("Run returned after %v", d)
		}
		if n := count(t, db, `select count(*) from goqite`); n != 1 {
			t.Errorf("%d messages left, want 1", n)
		}
		if n := len(dead(t, q)); n != 0 {
			t.Errorf("%d dead jobs", n)
		}
	})
}

func TestQueueCounts(t *testing.T) {
	t.Run("success deletes the message and failures are counted in queue_done", func(t *testing.T) {
		db := sqlitetest.New(t)
		q := newQueue(t, db, queue.Options{MaxAttempts: 2})
		q.Register("ok", func(ctx context.Context, job queue.Job) error { return nil })
		q.Register("fail", func(ctx context.Context, job queue.Job) error { return errors.New("no") })
		send(t, q, "ok", nil)
		send(t, q, "ok", nil)
		send(t, q, "fail", nil)
		run(t, q)

		eventually(t, "a dead job", func() bool { return len(dead(t, q)) == 1 })
		eventually(t, "the queue to empty", func() bool { return count(t, db, `select count(*) from goqite`) == 0 })
		// Successes are counted in memory and written every 2 s.
		eventually(t, "2 successes in queue_done", func() bool {
			return count(t, db, `select coalesce(sum(ok), 0) from queue_done where queue = ?`, name) == 2
		})
		if n := count(t, db, `select sum(failed) from queue_done where queue = ?`, name); n != 2 {
			t.Errorf("failed = %d (one retry, one dead letter)", n)
		}
		s, err := q.Stats(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if s.DoneLastHour != 2 || s.FailedLastHour != 2 || s.Dead != 1 {
			t.Errorf("stats = %+v", s)
		}
	})

	t.Run("Stats reports ready, delayed, in flight and dead", func(t *testing.T) {
		db := sqlitetest.New(t)
		q := newQueue(t, db, queue.Options{})
		send(t, q, "a", nil)
		send(t, q, "b", nil)
		if err := q.Send(t.Context(), "c", 1, nil, queue.SendOptions{Delay: time.Hour}); err != nil {
			t.Fatal(err)
		}
		if m, err := rawQueue(db, time.Minute).Receive(t.Context()); err != nil || m == nil {
			t.Fatalf("raw receive = %v, %v", m, err)
		}
		if _, err := db.Write.Exec(`insert into queue_dead (id, queue, kind, body) values ('d1', ?, 'x', cast('{}' as blob))`, name); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)

		s, err := q.Stats(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if s.Ready != 1 || s.Delayed != 1 || s.InFlight != 1 || s.Dead != 1 || s.OldestReady <= 0 || s.OldestReady > time.Minute {
			t.Errorf("stats = %+v", s)
		}
		if n, err := q.Size(t.Context()); err != nil || n != 3 {
			t.Errorf("Size = %d, %v", n, err)
		}
	})

	t.Run("Cleanup removes old dead jobs and counters but keeps recent ones", func(t *testing.T) {
		db := sqlitetest.New(t)
		c := sqlitetest.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
		q := newQueue(t, db, queue.Options{Clock: c, DeadRetention: 24 * time.Hour})
		for _, row := range [][]string{{"old", "2026-02-28T11:59:00.000Z"}, {"new", "2026-02-28T12:01:00.000Z"}} {
			if _, err := db.Write.Exec(`insert into queue_dead (id, queue, kind, body, failed_at) values (?, ?, 'x', cast('{}' as blob), ?)`, row[0], name, row[1]); err != nil {
				t.Fatal(err)
			}
		}
		for _, minute := range []string{"2026-02-20T12:00", "2026-02-28T12:00"} {
			if _, err := db.Write.Exec(`insert into queue_done (queue, minute, ok) values (?, ?, 1)`, name, minute); err != nil {
				t.Fatal(err)
			}
		}
		if err := q.Cleanup(t.Context()); err != nil {
			t.Fatal(err)
		}
		if d := dead(t, q); len(d) != 1 || d[0].ID != "new" {
			t.Errorf("dead = %+v", d)
		}
		if n := count(t, db, `select count(*) from queue_done`); n != 1 {
			t.Errorf("%d counter rows", n)
		}
	})
}

func TestQueuePanic(t *testing.T) {
	t.Run("a panicking handler is recovered and retried", func(t *testing.T) {
		db := sqlitetest.New(t)
		q := newQueue(t, db, queue.Options{})
		var attempts []int
		var mu sync.Mutex
		q.Register("job", func(ctx context.Context, job queue.Job) error {
			mu.Lock()
			attempts = append(attempts, job.Attempt)
			mu.Unlock()
			if job.Attempt == 1 {
				panic("oops")
			}
			return nil
		})
		send(t, q, "job", nil)
		run(t, q)

		eventually(t, "the queue to empty", func() bool { return count(t, db, `select count(*) from goqite`) == 0 })
		mu.Lock()
		defer mu.Unlock()
		if len(attempts) != 2 || attempts[1] != 2 {
			t.Errorf("attempts = %v", attempts)
		}
	})
}

func TestQueueWorkers(t *testing.T) {
	t.Run("at most Workers jobs run at once, and that many do", func(t *testing.T) {
		db := sqlitetest.New(t)
		q := newQueue(t, db, queue.Options{Workers: 3})
		var running, most, done atomic.Int32
		q.Register("job", func(ctx context.Context, job queue.Job) error {
			n := running.Add(1)
			for {
				m := most.Load()
				if n <= m || most.CompareAndSwap(m, n) {
					break
				}
			}
			time.Sleep(100 * time.Millisecond)
			running.Add(-1)
			done.Add(1)
			return nil
		})
		for range 9 {
			send(t, q, "job", nil)
		}
		run(t, q)

		eventually(t, "all jobs", func() bool { return done.Load() == 9 })
		if m := most.Load(); m != 3 {
			t.Errorf("at most %d jobs ran at once, want 3", m)
		}
	})

	t.Run("receive errors are retried and never stop the queue", func(t *testing.T) {
		db := sqlitetest.New(t)
		q := newQueue(t, db, queue.Options{})
		var ran atomic.Bool
		q.Register("job", func(ctx context.Context, job queue.Job) error { ran.Store(true); return nil })
		send(t, q, "job", nil)
		if _, err := db.Write.Exec(`alter table goqite rename to goqite_away`); err != nil {
			t.Fatal(err)
		}
		run(t, q)
		time.Sleep(100 * time.Millisecond)
		if _, err := db.Write.Exec(`alter table goqite_away rename to goqite`); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the job", ran.Load)
	})

	t.Run("a paused queue accepts jobs but runs none until resumed", func(t *testing.T) {
		db := sqlitetest.New(t)
		q := newQueue(t, db, queue.Options{})
		var ran atomic.Bool
		q.Register("job", func(ctx context.Context, job queue.Job) error { ran.Store(true); return nil })
		if err := q.Pause(context.Background()); err != nil {
			t.Fatal(err)
		}
		run(t, q)
		send(t, q, "job", nil)
		time.Sleep(100 * time.Millisecond)
		if p, err := q.Paused(context.Background()); ran.Load() || !p || err != nil {
			t.Fatalf("a paused queue ran a job (paused %v, %v)", p, err)
		}
		if err := q.Resume(context.Background()); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the job", ran.Load)
	})

	t.Run("a pause set by another process (another Queue value on the same file) holds, and so does its resume", func(t *testing.T) {
		db := sqlitetest.New(t)
		q := newQueue(t, db, queue.Options{PollInterval: 20 * time.Millisecond})
		var ran atomic.Int32
		q.Register("job", func(ctx context.Context, job queue.Job) error { ran.Add(1); return nil })
		run(t, q)
		other := newQueue(t, db, queue.Options{})
		if err := other.Pause(context.Background()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond) // more than a poll interval
		send(t, q, "job", nil)
		time.Sleep(200 * time.Millisecond)
		if ran.Load() != 0 {
			t.Fatal("the running queue ignored the other process's pause")
		}
		if err := other.Resume(context.Background()); err != nil {
			t.Fatal(err)
		}
		eventually(t, "the job", func() bool { return ran.Load() == 1 })
	})
}

// TestQueueBatchClaim: the receiver claims as many jobs as there are free workers in one
// transaction, in goqite's order (highest priority first), each exactly once, with its claim.
func TestQueueBatchClaim(t *testing.T) {
	db := sqlitetest.New(t)
	q := newQueue(t, db, queue.Options{Workers: 4})
	var mu sync.Mutex
	var claimed []int
	ran := map[int]int{}
	txs := map[*sql.Tx]int{}
	q.RegisterClaim("job", func(ctx context.Context, tx *sql.Tx, job queue.Job) (any, error) {
		var p struct{ N, P int }
		if err := json.Unmarshal(job.Data, &p); err != nil {
			return nil, err
		}
		// The claim writes in the receiving transaction, as the fetch claim marks its source.
		if _, err := tx.ExecContext(ctx, `insert into queue_state (queue, paused) values (?, 0)`, job.ID); err != nil {
			return nil, err
		}
		mu.Lock()
		claimed = append(claimed, p.P)
		txs[tx]++
		mu.Unlock()
		return p.N, nil
	})
	q.Register("job", func(ctx context.Context, job queue.Job) error {
		mu.Lock()
		ran[job.Claimed.(int)]++
		mu.Unlock()
		time.Sleep(5 * time.Millisecond)
		return nil
	})
	const n = 40
	for i := range n {
		p := 0
		if i >= n/2 {
			p = 10 // sent last, received first
		}
		if err := q.Send(t.Context(), "job", 1, map[string]int{"N": i, "P": p}, queue.SendOptions{Priority: p}); err != nil {
			t.Fatal(err)
		}
	}
	run(t, q)
	eventually(t, "all jobs", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(ran) == n
	})
	mu.Lock()
	defer mu.Unlock()
	for i := range n {
		if ran[i] != 1 {
			t.Errorf("job %d ran %d times", i, ran[i])
		}
	}
	for i, p := range claimed {
		if want := 10; i < n/2 && p != want {
			t.Fatalf("claim %d had priority %d: the high-priority jobs were not received first (%v)", i, p, claimed)
		}
	}
	if txs[firstTx(txs)] < 2 && len(txs) >= n {
		t.Errorf("%d jobs claimed in %d transactions: never more than one per transaction", n, len(txs))
	}
	if got := count(t, db, `select count(*) from queue_state where queue != ?`, name); got != n {
		t.Errorf("%d claims stored, want %d", got, n)
	}
}

func firstTx(m map[*sql.Tx]int) *sql.Tx {
	var best *sql.Tx
	for tx, n := range m {
		if best == nil || n > m[best] {
			best = tx
		}
	}
	return best
}

// TestPrefetch: jobs received ahead of the workers run as soon as a worker is free; one that
// waited longer than half its timeout is not run then (another worker may get it again as its
// timeout ends) but delivered again, and runs once.
func TestPrefetch(t *testing.T) {
	t.Run("received ahead, run by the next free worker", func(t *testing.T) {
		db := sqlitetest.New(t)
		q := newQueue(t, db, queue.Options{Workers: 1, Prefetch: 2})
		var ran atomic.Int32
		q.Register("quick", func(ctx context.Context, job queue.Job) error { ran.Add(1); return nil })
		for range 10 {
			send(t, q, "quick", nil)
		}
		run(t, q)
		eventually(t, "every job", func() bool { return ran.Load() == 10 })
		eventually(t, "an empty queue", func() bool { n, _ := q.Size(t.Context()); return n == 0 })
	})

	t.Run("one that waited past half its timeout is delivered again", func(t *testing.T) {
		db := sqlitetest.New(t)
		const timeout = 2 * time.Second
		q := newQueue(t, db, queue.Options{Workers: 1, Prefetch: 1, Timeout: timeout})
		var mu sync.Mutex
		received := map[string][]int{} // kind → the delivery count of each run
		q.Register("slow", func(ctx context.Context, job queue.Job) error {
			time.Sleep(timeout/2 + 300*time.Millisecond)
			mu.Lock()
			received["slow"] = append(received["slow"], job.Received)
			mu.Unlock()
			return nil
		})
		q.Register("next", func(ctx context.Context, job queue.Job) error {
			mu.Lock()
			received["next"] = append(received["next"], job.Received)
			mu.Unlock()
			return nil
		})
		send(t, q, "slow", nil)
		send(t, q, "next", nil)
		run(t, q)
		deadline := time.Now().Add(3 * time.Minute)
		for {
			mu.Lock()
			n := len(received["next"])
			mu.Unlock()
			if n > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the job received ahead never ran")
			}
			time.Sleep(20 * time.Millisecond)
		}
		eventually(t, "an empty queue", func() bool { n, _ := q.Size(t.Context()); return n == 0 })
		mu.Lock()
		defer mu.Unlock()
		if len(received["slow"]) != 1 || len(received["next"]) != 1 || received["next"][0] != 2 {
			t.Errorf("runs (their delivery counts) = %v; want slow once, next once on its second delivery", received)
		}
	})
}
