package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
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
			if i != 7 && i != 9 && i != 11 {
				want = append(want, base+i)
			}
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("stored %v, want %v", got, want)
	}

	// Alone, a caller still gets its transaction (and a later one works after the batch).
	if err := db.groupTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.Exec(`insert into g (x, note) values (1000, 'alone')`)
		return err
	}); err != nil {
		t.Fatal(err)
	}
}
