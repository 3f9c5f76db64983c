package sqlite_test

import (
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"context"
	"testing"

	"github.com/morningdeck/morningdeck/sqlite"

	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

func TestOpen(t *testing.T) {
	t.Run("migrates a new file and sets WAL, foreign keys and the default user", func(t *testing.T) {
		db := sqlitetest.New(t)
		ctx := context.Background()
		var mode string
		if err := db.Write.QueryRowContext(ctx, `pragma journal_mode`).Scan(&mode); err != nil || mode != "wal" {
			t.Fatalf("journal_mode = %q, %v", mode, err)
		}
		var fk int
		if err := db.Read.QueryRowContext(ctx, `pragma foreign_keys`).Scan(&fk); err != nil || fk != 1 {
			t.Fatalf("foreign_keys = %d, %v", fk, err)
		}
		var name string
		if err := db.Read.QueryRowContext(ctx, `select name from users where id = 1`).Scan(&name); err != nil || name != "local" {
			t.Fatalf("default user = %q, %v", name, err)
		}
		if _, err := db.Read.ExecContext(ctx, `insert into users (name) values ('x')`); err == nil {
			t.Fatal("the read pool accepted a write")
		}
	})
}

// TestContention measures SQLITE_BUSY under concurrent writers and readers: goroutines of one
// process share the single write connection, and a second handle on the same file (another
// process) waits on the busy timeout. Neither may see "database is locked".
func TestContention(t *testing.T) {
	t.Run("concurrent writers in two handles and readers never get SQLITE_BUSY", func(t *testing.T) {
		dir := t.TempDir()
		ctx := context.Background()
		path := filepath.Join(dir, "c.db")
		a, err := sqlite.Open(ctx, sqlite.Options{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		b, err := sqlite.Open(ctx, sqlite.Options{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		var wg sync.WaitGroup
		var failures atomic.Int64
		var firstErr atomic.Value
		start := time.Now()
		const writers, writes = 8, 150
		for w := range writers {
			db := a
			if w%2 == 1 {
				db = b
			}
			wg.Add(2)
			go func() {
				defer wg.Done()
				for i := range writes {
					tx, err := db.Write.BeginTx(ctx, nil)
					if err == nil {
						_, err = tx.ExecContext(ctx, `insert into sources (user_id, type, url) values (1, 'rss', ?)`, fmt.Sprintf("http://h/%d/%d", w, i))
						if err == nil {
							err = tx.Commit()
						} else {
							_ = tx.Rollback()
						}
					}
					if err != nil {
						failures.Add(1)
						firstErr.CompareAndSwap(nil, err)
					}
				}
			}()
			go func() {
				defer wg.Done()
				for range writes {
					var n int
					if err := db.Read.QueryRowContext(ctx, `select count(*) from sources`).Scan(&n); err != nil {
						failures.Add(1)
						firstErr.CompareAndSwap(nil, err)
					}
				}
			}()
		}
		wg.Wait()
		if failures.Load() > 0 {
			t.Fatalf("%d operations failed, first: %v", failures.Load(), firstErr.Load())
		}
		var n int
		_ = a.Read.QueryRow(`select count(*) from sources`).Scan(&n)
		if n != writers*writes {
			t.Fatalf("%d rows, want %d", n, writers*writes)
		}
		t.Logf("%d write transactions from 2 handles and %d reads in %s, 0 SQLITE_BUSY", writers*writes, writers*writes, time.Since(start))
	})
}
