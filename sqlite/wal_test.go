package sqlite_test

import (
	"context"
	"os"
	"strings"
	"testing"

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
