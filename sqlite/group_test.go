package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestGroupTx: transactions waiting for the writer share one commit, and each is still all or
// nothing on its own: one that fails, or panics, is rolled back alone, the others commit.
func TestGroupTx(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "md.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.Write.Exec(`create table g (x integer primary key, note text not null)`); err != nil {
		t.Fatal(err)
	}

	// Hold the write connection so that every caller queues; then let them all through.
	hold, err := db.Write.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 20
	errs := make([]error, n)
	panics := make([]any, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			defer func() { panics[i] = recover() }()
			errs[i] = db.groupTx(ctx, func(tx *sql.Tx) error {
				// Two writes each, so that a rollback of half of one would show.
				if _, err := tx.Exec(`insert into g (x, note) values (?, 'first')`, i); err != nil {
					return err
				}
				if _, err := tx.Exec(`insert into g (x, note) values (?, 'second')`, 100+i); err != nil {
					return err
				}
				switch i {
				case 7:
					return errors.New("seven fails")
				case 9:
					panic("nine panics")
				case 11:
					_, err := tx.Exec(`insert into g (x, note) values (?, 'duplicate')`, 100+i)
					return err
				}
				return nil
			})
		})
	}
	// The first caller leads and waits for the connection with its own transaction; the others
	// queue behind it (to be committed together).
	for waiting, deadline := 0, time.Now().Add(5*time.Second); waiting < n-1 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
		db.group.mu.Lock()
		waiting = len(db.group.pending)
		db.group.mu.Unlock()
	}
	if err := hold.Rollback(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()

	for i := range n {
		switch i {
		case 7, 11:
			if errs[i] == nil {
				t.Errorf("transaction %d: no error", i)
			}
		case 9:
			if panics[i] != "nine panics" {
				t.Errorf("transaction 9: panic %v, want its own", panics[i])
			}
		default:
			if errs[i] != nil || panics[i] != nil {
				t.Errorf("transaction %d: %v %v", i, errs[i], panics[i])
			}
		}
	}
	checkStored(t, db, n, 7, 9, 11)

	// Alone, a caller still gets its transaction (and a later one works after the batch).
	if err := db.groupTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`insert into g (x, note) values (1000, 'alone')`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// TestGroupLater: a transaction handed over to the writer (groupLater) returns before it is
// committed, shares commits with the others waiting, is all or nothing on its own, tells its
// outcome once committed, and Close commits what is still waiting before closing.
func TestGroupLater(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "md.db")
	db, err := Open(ctx, Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Write.Exec(`create table g (x integer primary key, note text not null)`); err != nil {
		t.Fatal(err)
	}
	// Hold the write connection: nothing handed over can commit until it is released.
	hold, err := db.Write.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = laterMax // as many as are handed over without waiting
	var mu sync.Mutex
	outcome := map[int]error{}
	returned := make(chan int, n)
	for i := range n {
		go func() {
			cctx, cancel := context.WithCancel(ctx)
			db.groupLater(cctx, func(ctx context.Context, tx *sql.Tx) error {
				if _, err := tx.ExecContext(ctx, `insert into g (x, note) values (?, 'first')`, i); err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, `insert into g (x, note) values (?, 'second')`, 100+i); err != nil {
					return err
				}
				switch i {
				case 1:
					return errors.New("one fails")
				case 2:
					panic("two panics")
				}
				return nil
			}, func(err error) {
				mu.Lock()
				outcome[i] = err
				mu.Unlock()
			})
			cancel() // the caller has moved on: its context ends; the transaction must not care
			returned <- i
		}()
	}
	for range n {
		select {
		case <-returned:
		case <-time.After(time.Minute):
			t.Fatal("groupLater waited for the writer with fewer than laterMax transactions handed over")
		}
	}
	mu.Lock()
	if len(outcome) != 0 {
		t.Errorf("outcomes told before the commit: %v", outcome)
	}
	mu.Unlock()
	if !db.WritesWaiting() {
		t.Error("WritesWaiting is false with transactions handed over and not committed")
	}
	if err := hold.Rollback(); err != nil {
		t.Fatal(err)
	}
	// Close commits what waits, then closes.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		err, told := outcome[i]
		switch {
		case !told:
			t.Errorf("transaction %d: no outcome told", i)
		case i == 1 || i == 2:
			if err == nil {
				t.Errorf("transaction %d: no error told", i)
			}
		case err != nil:
			t.Errorf("transaction %d: %v", i, err)
		}
	}
	db, err = Open(ctx, Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.WritesWaiting() {
		t.Error("WritesWaiting is true on a database nothing was handed over to")
	}
	checkStored(t, db, n, 1, 2)
}

// checkStored checks that table g holds both rows (x and 100+x) of each of the n transactions
// but the failed ones, and nothing else.
func checkStored(t *testing.T, db *DB, n int, failed ...int64) {
	t.Helper()
	rows, err := db.Read.Query(`select x from g order by x`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := scanIDs(rows)
	if err != nil {
		t.Fatal(err)
	}
	var want []int64
	for _, base := range []int64{0, 100} {
		for i := range int64(n) {
			if !slices.Contains(failed, i) {
				want = append(want, base+i)
			}
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("stored %v, want %v", got, want)
	}
}
