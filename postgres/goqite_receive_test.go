package postgres_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"maragu.dev/goqite"

	"github.com/morningdeck/morningdeck/postgres"
	"github.com/morningdeck/morningdeck/postgres/pgtest"
)

// receiveResult is what several receivers of one queue saw.
type receiveResult struct {
	messages, delivered, duplicates, missing int
	serialization, otherErrors               int
	p50, p99, max                            time.Duration
	wall                                     time.Duration
}

func (r receiveResult) String() string {
	return fmt.Sprintf("%d messages: %d deliveries, %d duplicate, %d never delivered; %d serialization failures, %d other errors; receive p50 %v, p99 %v, max %v; all in %v",
		r.messages, r.delivered, r.duplicates, r.missing, r.serialization, r.otherErrors, r.p50, r.p99, r.max, r.wall.Round(time.Millisecond))
}

// receiveAll sends n messages to a new queue and lets receivers receive them all (a message
// received is not deleted: its timeout keeps it from being received again within the test),
// each receive in a transaction of its own through receive.
func receiveAll(t *testing.T, db *sql.DB, name string, n, receivers int, receive func(ctx context.Context, q *goqite.Queue) (*goqite.Message, error)) receiveResult {
	t.Helper()
	ctx := context.Background()
	q := goqite.New(goqite.NewOpts{DB: db, Name: name, SQLFlavor: goqite.SQLFlavorPostgreSQL, MaxReceive: 1_000_000, Timeout: time.Hour})
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := q.SendTx(ctx, tx, goqite.Message{Body: fmt.Appendf(nil, "%d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	got := map[string]int{}
	var lat []time.Duration
	var res receiveResult
	res.messages = n
	begin := time.Now()
	var wg sync.WaitGroup
	for range receivers {
		wg.Go(func() {
			empty := 0
			for empty < 3 {
				t0 := time.Now()
				m, err := receive(ctx, q)
				d := time.Since(t0)
				mu.Lock()
				lat = append(lat, d)
				var pe *pgconn.PgError
				switch {
				case errors.As(err, &pe) && pe.Code == "40001":
					res.serialization++
				case err != nil:
					res.otherErrors++
					if res.otherErrors == 1 {
						t.Logf("%s: %v", name, err)
					}
				case m == nil:
					empty++
				default:
					empty = 0
					got[string(m.Body)]++
					res.delivered++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	res.wall = time.Since(begin)
	for i := range n {
		switch c := got[fmt.Sprint(i)]; {
		case c == 0:
			res.missing++
		case c > 1:
			res.duplicates += c - 1
		}
	}
	slices.Sort(lat)
	res.p50, res.p99, res.max = lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1]
	return res
}

// TestGoqiteReceiveConcurrent measures goqite's receive on PostgreSQL with several receivers
// (several instances, each on connections of its own): goqite's ReceiveTx in a read-committed
// transaction of ours (how package queue calls it), goqite's own Receive (a serializable
// transaction), and postgres.ReceiveTx (for update skip locked). Only the last must deliver
// every message exactly once without errors; the others' duplicates and failures are logged
// (docs/ARCHITECTURE-NOTES.md records them).
func TestGoqiteReceiveConcurrent(t *testing.T) {
	db := pgtest.New(t)
	const n, receivers = 1000, 8
	db.SQL.SetMaxOpenConns(receivers + 2)
	inTx := func(ctx context.Context, fn func(tx *sql.Tx) (*goqite.Message, error)) (*goqite.Message, error) {
		tx, err := db.SQL.BeginTx(ctx, nil) // read committed, PostgreSQL's default
		if err != nil {
			return nil, err
		}
		m, err := fn(tx)
		if err != nil {
			_ = tx.Rollback()
			return nil, err
		}
		return m, tx.Commit()
	}

	rc := receiveAll(t, db.SQL, "readcommitted", n, receivers, func(ctx context.Context, q *goqite.Queue) (*goqite.Message, error) {
		return inTx(ctx, func(tx *sql.Tx) (*goqite.Message, error) { return q.ReceiveTx(ctx, tx) })
	})
	t.Logf("goqite ReceiveTx, read committed, %d receivers: %v", receivers, rc)

	ser := receiveAll(t, db.SQL, "serializable", n, receivers, func(ctx context.Context, q *goqite.Queue) (*goqite.Message, error) {
		return q.Receive(ctx)
	})
	t.Logf("goqite Receive, serializable, %d receivers: %v", receivers, ser)

	sl := receiveAll(t, db.SQL, "skiplocked", n, receivers, func(ctx context.Context, q *goqite.Queue) (*goqite.Message, error) {
		return inTx(ctx, func(tx *sql.Tx) (*goqite.Message, error) {
			return postgres.ReceiveTx(ctx, tx, "skiplocked", time.Hour, 1_000_000)
		})
	})
	t.Logf("postgres.ReceiveTx (skip locked), read committed, %d receivers: %v", receivers, sl)
	if sl.duplicates != 0 || sl.missing != 0 || sl.serialization != 0 || sl.otherErrors != 0 || sl.delivered != n {
		t.Fatalf("skip locked: %v", sl)
	}
	if ser.duplicates != 0 {
		t.Errorf("goqite's serializable Receive delivered %d duplicates", ser.duplicates)
	}
}
