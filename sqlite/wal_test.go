package sqlite_test

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// TestCheckpointWAL: while readers keep the write-ahead log in use, SQLite's automatic
// checkpoints cannot start it over and it grows; CheckpointWAL empties it once they are done.
func TestCheckpointWAL(t *testing.T) {
	ctx := context.Background()
	db := sqlitetest.New(t)
	walSize := func() int64 {
		fi, err := os.Stat(db.Path + "-wal")
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	if _, err := db.Write.Exec(`create table filler (b blob)`); err != nil {
		t.Fatal(err)
	}
	// A reader in the middle of a long read: its snapshot pins the log.
	tx, err := db.Read.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRow(`select count(*) from filler`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	blob := []byte(strings.Repeat("x", 64<<10))
	for range 200 { // 12.5 MiB of writes
		if _, err := db.Write.Exec(`insert into filler (b) values (?)`, blob); err != nil {
			t.Fatal(err)
		}
	}
	grown := walSize()
	if grown < 10<<20 {
		t.Fatalf("the log is %d bytes with a reader holding it; the test needs it to grow", grown)
	}
	// Under the limit: nothing to do.
	if did, err := db.CheckpointWAL(ctx, grown+1); err != nil || did {
		t.Fatalf("checkpoint under the limit: %v, %v", did, err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	did, err := db.CheckpointWAL(ctx, 1<<20)
	if err != nil || !did {
		t.Fatalf("checkpoint: %v, %v", did, err)
	}
	if got := walSize(); got != 0 {
		t.Fatalf("the log is %d bytes after the checkpoint, was %d", got, grown)
	}
	var count int
	if err := db.Read.QueryRow(`select count(*) from filler`).Scan(&count); err != nil || count != 200 {
		t.Fatalf("after the checkpoint: %d rows, %v", count, err)
	}
	var check string
	if err := db.Read.QueryRow(`pragma integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %s, %v", check, err)
	}
}

// TestBackgroundCheckpoints: while Checkpoints runs, the writer does not checkpoint (its
// automatic checkpoint is off) and the log is still copied into the database file, by the
// background connection; when it stops, the writer checkpoints as before.
func TestBackgroundCheckpoints(t *testing.T) {
	db := sqlitetest.New(t)
	autocheckpoint := func() int {
		var n int
		if err := db.Write.QueryRow(`pragma wal_autocheckpoint`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if _, err := db.Write.Exec(`create table filler (b blob)`); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error)
	go func() { stopped <- db.Checkpoints(ctx, 20*time.Millisecond) }()
	deadline := time.Now().Add(3 * time.Minute)
	for autocheckpoint() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the writer's automatic checkpoint is still on")
		}
		time.Sleep(10 * time.Millisecond)
	}
	blob := []byte(strings.Repeat("y", 16<<10))
	// 10 MiB: past the 1,000 pages at which the writer would checkpoint itself, and past the
	// 8 MiB a light log is held before it is copied (lightHoldLog).
	for range 640 {
		if _, err := db.Write.Exec(`insert into filler (b) values (?)`, blob); err != nil {
			t.Fatal(err)
		}
	}
	// The log is copied into the database file, which grows to hold the rows: with the
	// writer's automatic checkpoint off, only the background connection can have done it.
	for {
		fi, err := os.Stat(db.Path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() >= 10<<20 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the database file is %d bytes: the background checkpoints did not copy the log", fi.Size())
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	if n := autocheckpoint(); n != 1000 {
		t.Errorf("after Checkpoints returned, the writer's automatic checkpoint is %d, want 1000", n)
	}
	var check string
	if err := db.Read.QueryRow(`pragma integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %s, %v", check, err)
	}
}

// TestWALStaysSmall: with Checkpoints running, a writer that never pauses (100 MiB of rows, as a
// first ingestion writes them) and readers reading all the while, the write-ahead log never
// passes sqlite.WALLimit, and ends no larger than the size it starts over at.
func TestWALStaysSmall(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 100 MiB")
	}
	db := sqlitetest.New(t)
	if _, err := db.Write.Exec(`create table filler (id integer primary key, b blob)`); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stopped := make(chan error, 1)
	go func() { stopped <- db.Checkpoints(ctx, 20*time.Millisecond) }()
	var peak atomic.Int64
	sample := func() {
		if fi, err := os.Stat(db.Path + "-wal"); err == nil && fi.Size() > peak.Load() {
			peak.Store(fi.Size())
		}
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() { // the sampler, every 5 ms
		for {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
				sample()
			}
		}
	})
	for range 2 { // readers, short reads one after the other
		wg.Go(func() {
			for {
				select {
				case <-done:
					return
				default:
				}
				var n int
				_ = db.Read.QueryRow(`select count(*) from filler where id > (select max(id) - 50 from filler)`).Scan(&n)
			}
		})
	}
	blob := []byte(strings.Repeat("z", 32<<10))
	for range 400 { // 100 MiB, 8 rows a transaction
		err := db.JobTx(ctx, func(tx *sql.Tx) error {
			for range 8 {
				if _, err := tx.Exec(`insert into filler (b) values (?)`, blob); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	close(done)
	wg.Wait()
	sample()
	cancel()
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	if p := peak.Load(); p > sqlite.WALLimit {
		t.Errorf("the log reached %d MiB, bound %d MiB", p>>20, sqlite.WALLimit>>20)
	} else {
		t.Logf("peak log %.1f MiB", float64(p)/(1<<20))
	}
	var check string
	if err := db.Read.QueryRow(`pragma integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %s, %v", check, err)
	}
}

// TestLightLogHeld: while the writer writes little, Checkpoints leaves the log's frames where
// they are (synced, not copied into the database file) until they reach 8 MiB, so that an
// idle cycle's pages, written again by the next, are copied once for several cycles (issue 26);
// past that it copies them. walPending reads the count from the log's shared-memory index.
func TestLightLogHeld(t *testing.T) {
	db := sqlitetest.New(t)
	if _, err := db.Write.Exec(`create table filler (b blob)`); err != nil {
		t.Fatal(err)
	}
	var busy, frames, done int
	if err := db.Write.QueryRow(`pragma wal_checkpoint(TRUNCATE)`).Scan(&busy, &frames, &done); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error)
	go func() { stopped <- db.Checkpoints(ctx, 20*time.Millisecond) }()
	defer func() {
		cancel()
		if err := <-stopped; err != nil {
			t.Error(err)
		}
	}()
	// Checkpoints first copies the log it finds (its mode starts heavy): let it, then write little.
	time.Sleep(200 * time.Millisecond)
	if _, err := db.Write.Exec(`insert into filler (b) values (zeroblob(100))`); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if _, err := db.Write.Exec(`insert into filler (b) values (zeroblob(100))`); err != nil {
		t.Fatal(err)
	}
	time.Sleep(800 * time.Millisecond) // past the pause after which the log would be copied
	pending, ok := db.WALPendingForTest()
	if !ok || pending == 0 {
		t.Fatalf("after a small write and a pause, %d frames wait to be copied (ok %v), want them held in the log", pending, ok)
	}
	// Past lightHoldLog (8 MiB), the log is copied once the writes pause.
	blob := []byte(strings.Repeat("z", 16<<10))
	for range 600 {
		if _, err := db.Write.Exec(`insert into filler (b) values (?)`, blob); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(time.Minute)
	for {
		pending, ok := db.WALPendingForTest()
		if ok && pending == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d frames still wait to be copied (ok %v)", pending, ok)
		}
		time.Sleep(20 * time.Millisecond)
	}
	var n int
	if err := db.Read.QueryRow(`select count(*) from filler`).Scan(&n); err != nil || n != 602 {
		t.Fatalf("%d rows, %v", n, err)
	}
}
