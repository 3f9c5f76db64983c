package sqlite

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestIdleCheckpointerWakesOnWrite: the checkpointer stops looking at the log while nothing is
// written (an idle server), and the next write transaction of this process wakes it: the log
// it writes is copied into the database file long before the idle checkpointer's own next look.
func TestIdleCheckpointerWakesOnWrite(t *testing.T) {
	old := idleLook
	idleLook = time.Hour // only a wake-up can end the idle wait within the test
	t.Cleanup(func() { idleLook = old })
	ctx := t.Context()
	db, err := Open(ctx, Options{Path: filepath.Join(t.TempDir(), "md.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Write.Exec(`create table filler (b blob)`); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	stopped := make(chan error, 1)
	go func() { stopped <- db.Checkpoints(cctx, 20*time.Millisecond) }()
	defer func() { cancel(); <-stopped }()
	time.Sleep(time.Second) // the checkpointer copies what migrations wrote, then goes idle
	before, err := os.Stat(db.Path)
	if err != nil {
		t.Fatal(err)
	}
	blob := []byte(strings.Repeat("z", 16<<10))
	// 10 MiB in one write transaction of the app's kind: past the 8 MiB a light log is held.
	if err := db.tx(ctx, func(tx *sql.Tx) error {
		for range 640 {
			if _, err := tx.Exec(`insert into filler (b) values (?)`, blob); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		fi, err := os.Stat(db.Path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() >= before.Size()+10<<20 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the database file is %d bytes (%d before): the idle checkpointer was not woken by the write", fi.Size(), before.Size())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
