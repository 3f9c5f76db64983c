package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/postgres"
	"github.com/morningdeck/morningdeck/postgres/pgtest"
	"github.com/morningdeck/morningdeck/queue"
)

var _ queue.Store = (*postgres.DB)(nil)

// TestQueueInstances: package queue's queues on PostgreSQL, run by three instances (three pools
// on one database, each with its queue of 4 workers receiving 4 ahead): 600 jobs, a tenth of
// them failing their first attempt, are each done exactly once, the failed ones on their retry,
// and the queue ends empty with nothing dead.
func TestQueueInstances(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	const jobs, instances = 600, 3
	var mu sync.Mutex
	done := map[int]int{}
	attempts := map[int]int{}
	var queues []*queue.Queue
	var dbs []*postgres.DB
	for i := range instances {
		db, err := postgres.Open(ctx, postgres.Options{URL: url, MaxConns: 8})
		if err != nil {
			t.Fatal(err)
		}
		dbs = append(dbs, db)
		q := queue.New(queue.Options{Store: db, Name: "work", Workers: 4, Prefetch: 4, PollInterval: 10 * time.Millisecond,
			BaseBackoff: 10 * time.Millisecond, MaxBackoff: 50 * time.Millisecond, Timeout: 30 * time.Second})
		q.Register("job", func(ctx context.Context, job queue.Job) error {
			var n int
			if err := json.Unmarshal(job.Data, &n); err != nil {
				return err
			}
			mu.Lock()
			defer mu.Unlock()
			attempts[n]++
			if n%10 == 0 && job.Attempt == 1 {
				return errors.New("the first attempt fails")
			}
			done[n]++
			return nil
		})
		queues = append(queues, q)
		_ = i
	}
	for n := range jobs {
		if err := queues[n%instances].Send(ctx, "job", 1, n, queue.SendOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, q := range queues {
		wg.Go(func() {
			if err := q.Run(runCtx); err != nil {
				t.Errorf("run: %v", err)
			}
		})
	}
	began := time.Now()
	deadline := time.Now().Add(60 * time.Second)
	for {
		mu.Lock()
		n := len(done)
		mu.Unlock()
		size, err := queues[0].Size(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if n == jobs && size == 0 {
			break
		}
		if time.Now().After(deadline) {
			cancel()
			wg.Wait()
			t.Fatalf("after 60 s: %d of %d jobs done, %d messages left", n, jobs, size)
		}
		time.Sleep(20 * time.Millisecond)
	}
	elapsed := time.Since(began)
	cancel()
	wg.Wait()
	for _, db := range dbs {
		_ = db.Close()
	}
	var twice, retried []string
	for n := range jobs {
		if done[n] != 1 {
			twice = append(twice, fmt.Sprintf("%d done %d times", n, done[n]))
		}
		if want := 1 + btoi(n%10 == 0); attempts[n] != want {
			retried = append(retried, fmt.Sprintf("%d run %d times (want %d)", n, attempts[n], want))
		}
	}
	if len(twice) > 0 || len(retried) > 0 {
		t.Fatalf("each job once: %v; attempts: %v", twice, retried)
	}
	t.Logf("%d jobs by %d instances in %v", jobs, instances, elapsed.Round(time.Millisecond))
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestQueueWakesForAnotherInstancesJob: an idle queue on one instance, polling every 20 s,
// takes a job another instance sends within seconds: the database announces it (LISTEN/NOTIFY,
// migration 0012) and the receiver wakes. Again after the listening connection was killed (it
// is opened again, and the queue woken). Without the announcement each job would wait for the
// next poll, 20 s later.
func TestQueueWakesForAnotherInstancesJob(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	open := func() *postgres.DB {
		db, err := postgres.Open(ctx, postgres.Options{URL: url, MaxConns: 4})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		return db
	}
	sender, worker := open(), open()
	opts := queue.Options{Name: "wake", Workers: 1, PollInterval: 20 * time.Second, IdlePoll: 40 * time.Second}
	opts.Store = sender
	out := queue.New(opts)
	opts.Store = worker
	in := queue.New(opts)
	got := make(chan int, 4)
	in.Register("job", func(ctx context.Context, job queue.Job) error {
		var n int
		if err := json.Unmarshal(job.Data, &n); err != nil {
			return err
		}
		got <- n
		return nil
	})
	runCtx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := in.Run(runCtx); err != nil {
			t.Errorf("run: %v", err)
		}
	})
	defer func() { cancel(); wg.Wait() }()
	await := func(n int) {
		t.Helper()
		sent := time.Now()
		if err := out.Send(ctx, "job", 1, n, queue.SendOptions{}); err != nil {
			t.Fatal(err)
		}
		select {
		case m := <-got:
			if m != n {
				t.Fatalf("got job %d, want %d", m, n)
			}
			t.Logf("job %d taken %v after it was sent", n, time.Since(sent).Round(time.Millisecond))
		case <-time.After(8 * time.Second):
			t.Fatalf("job %d, sent by another instance, was not taken within 8 s by an idle queue polling every 20 s", n)
		}
	}
	time.Sleep(time.Second) // the first receive has found nothing: the queue waits for its next poll
	await(1)
	time.Sleep(500 * time.Millisecond)
	await(2)
	// The listening connection dies: it is opened again.
	var killed int
	if err := sender.SQL.QueryRowContext(ctx, `select count(pg_terminate_backend(pid)) from pg_stat_activity where query like 'listen %'`).Scan(&killed); err != nil {
		t.Fatal(err)
	}
	if killed != 1 {
		t.Fatalf("%d listening connections, want 1", killed)
	}
	time.Sleep(500 * time.Millisecond)
	await(3)
	// A job sent with a delay is not taken before it (the announcement is for visible messages).
	if err := out.Send(ctx, "job", 1, 4, queue.SendOptions{Delay: 3 * time.Second}); err != nil {
		t.Fatal(err)
	}
	select {
	case m := <-got:
		t.Fatalf("job %d was taken before its delay", m)
	case <-time.After(2 * time.Second):
	}
}
