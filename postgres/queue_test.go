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
