package queue_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"maragu.dev/goqite"

	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

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

	t.Run("OnIdle runs once the queue has given all it had and every job ended, not between", func(t *testing.T) {
		db := sqlitetest.New(t)
		q := newQueue(t, db, queue.Options{Workers: 2, Prefetch: 8})
		var ran, idleAt atomic.Int32
		var idles atomic.Int32
		q.Register("quick", func(ctx context.Context, job queue.Job) error { ran.Add(1); return nil })
		q.OnIdle(func() { idles.Add(1); idleAt.Store(ran.Load()) })
		for range 40 {
			send(t, q, "quick", nil)
		}
		run(t, q)
		eventually(t, "the idle hook", func() bool { return idles.Load() > 0 })
		if n, at := idles.Load(), idleAt.Load(); n != 1 || at != 40 {
			t.Errorf("idle %d times, the first after %d of 40 jobs", n, at)
		}
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

// TestQueueLanes (issue 26): a queue's messages spread over lanes (goqite queues name, name#1,
// …) are all received, run once and deleted, a heartbeat extends each in its own lane, and a
// message left in the first lane (sent before the queue had lanes, whatever its body) is deleted
// where it was received; the queue's size counts every lane.
func TestQueueLanes(t *testing.T) {
	db := sqlitetest.New(t)
	q := newQueue(t, db, queue.Options{Lanes: 4, Workers: 3, Prefetch: 6, Timeout: 300 * time.Millisecond})
	var mu sync.Mutex
	ran := map[int]int{}
	q.Register("lane", func(ctx context.Context, job queue.Job) error {
		var n int
		if err := json.Unmarshal(job.Data, &n); err != nil {
			return err
		}
		if n%10 == 0 {
			time.Sleep(250 * time.Millisecond) // past the timeout: extended by the heartbeat
		}
		mu.Lock()
		ran[n]++
		mu.Unlock()
		return nil
	})
	for n := range 40 {
		send(t, q, "lane", n)
	}
	old := goqite.New(goqite.NewOpts{DB: db.Write, Name: q.Name()})
	for n := 40; n < 50; n++ {
		if err := old.Send(t.Context(), goqite.Message{Body: []byte(`{"kind":"lane","v":1,"attempt":1,"data":` + strconv.Itoa(n) + `}`)}); err != nil {
			t.Fatal(err)
		}
	}
	if lanes := count(t, db, `select count(distinct queue) from goqite`); lanes < 3 {
		t.Fatalf("the messages are in %d goqite queues, want them spread over the lanes", lanes)
	}
	if size, err := q.Size(t.Context()); err != nil || size != 50 {
		t.Fatalf("size %d, %v: want all 50 messages counted", size, err)
	}
	run(t, q)
	eventually(t, "every lane to empty", func() bool { return count(t, db, `select count(*) from goqite`) == 0 })
	mu.Lock()
	defer mu.Unlock()
	for n := range 50 {
		if ran[n] != 1 {
			t.Errorf("job %d ran %d times", n, ran[n])
		}
	}
}

// TestIdleQueuePollsLess: an idle queue waits longer and longer between receives (up to
// IdlePoll), so an idle server costs little CPU; a Send in this process still wakes it at
// once, and a message nothing announces is received within IdlePoll.
func TestIdleQueuePollsLess(t *testing.T) {
	db := sqlitetest.New(t)
	q := newQueue(t, db, queue.Options{PollInterval: 20 * time.Millisecond, IdlePoll: 3 * time.Second})
	got := make(chan time.Time, 4)
	q.Register("job", func(ctx context.Context, job queue.Job) error { got <- time.Now(); return nil })
	run(t, q)
	// Idle long enough for the wait to grow to IdlePoll (20 ms doubled eight times).
	time.Sleep(4 * time.Second)

	t.Run("a Send in this process wakes it at once", func(t *testing.T) {
		sent := time.Now()
		send(t, q, "job", nil)
		select {
		case at := <-got:
			if d := at.Sub(sent); d > 1500*time.Millisecond {
				t.Errorf("received %v after the send: the idle wait was not cut short", d)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("never received")
		}
	})

	t.Run("a message nothing announces is received within IdlePoll", func(t *testing.T) {
		time.Sleep(4 * time.Second)
		// Another queue on the same connections: same table, same name, no wake-up of q (the
		// writer's own commits do not change the data version TestQueueWakesForAnotherProcessesJob
		// relies on).
		other := newQueue(t, db, queue.Options{PollInterval: 20 * time.Millisecond})
		sent := time.Now()
		send(t, other, "job", nil)
		select {
		case at := <-got:
			if d := at.Sub(sent); d > 3*time.Second+2*time.Second {
				t.Errorf("received %v after the send, IdlePoll is 3 s", d)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("a message from another process was never received")
		}
	})
}

// TestQueueWakesForAnotherProcessesJob: a job another process sends to the same SQLite file (a
// command run beside the server) is taken within about two seconds (sqlite.DB.OnSent: the log
// file seen changed by Checkpoints, then the data version), not at the idle queue's next poll.
func TestQueueWakesForAnotherProcessesJob(t *testing.T) {
	db := sqlitetest.New(t)
	// The other process's handle: connections of its own on the same file, as SQLite sees a
	// second process.
	other, err := sqlite.Open(t.Context(), sqlite.Options{Path: db.Path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Close() })
	// As the server does: the log is looked after, and looked at, by Checkpoints.
	ctx, cancel := context.WithCancel(t.Context())
	stopped := make(chan error, 1)
	go func() { stopped <- db.Checkpoints(ctx, 100*time.Millisecond) }()
	t.Cleanup(func() { cancel(); <-stopped })
	in := newQueue(t, db, queue.Options{PollInterval: 20 * time.Second, IdlePoll: 40 * time.Second})
	out := newQueue(t, other, queue.Options{})
	got := make(chan time.Time, 4)
	in.Register("job", func(ctx context.Context, job queue.Job) error { got <- time.Now(); return nil })
	run(t, in)
	time.Sleep(3 * time.Second) // the first receive found nothing: the queue waits 20 s; Checkpoints is idle
	for i := range 2 {
		sent := time.Now()
		send(t, out, "job", i)
		select {
		case at := <-got:
			t.Logf("job %d taken %v after another process sent it", i, at.Sub(sent).Round(time.Millisecond))
		case <-time.After(8 * time.Second):
			t.Fatalf("job %d, sent by another process, was not taken within 8 s by an idle queue polling every 20 s", i)
		}
	}
}
