package queue_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"maragu.dev/goqite"

	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

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
