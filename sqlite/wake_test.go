package sqlite_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// OnSent wakes the queues for another process's commits, not for this one's own, while
// Checkpoints runs (as in the server).
func TestOnSentHearsOtherProcesses(t *testing.T) {
	db := sqlitetest.New(t)
	ctx, cancel := context.WithCancel(t.Context())
	stopped := make(chan error, 1)
	go func() { stopped <- db.Checkpoints(ctx, 100*time.Millisecond) }()
	defer func() { cancel(); <-stopped }()
	var woken atomic.Int32
	stop := db.OnSent("fetch", func() { woken.Add(1) })
	defer stop()
	// This process writes, for longer than two looks: nobody is woken.
	for i := range 12 {
		if _, err := db.Write.Exec(`insert into folders (user_id, name) values (1, ?)`, fmt.Sprint("mine ", i)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if n := woken.Load(); n != 0 {
		t.Fatalf("woken %d times by this process's own writes", n)
	}
	other, err := sqlite.Open(t.Context(), sqlite.Options{Path: db.Path})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Write.Exec(`insert into folders (user_id, name) values (1, 'theirs')`); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for woken.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("another process's commit woke nobody within 5 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
