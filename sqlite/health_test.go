package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/sqlite"
)

// The health check (views' /healthz and the layout's banner) says why the database cannot work.
func TestCheckTellsWhy(t *testing.T) {
	ctx := context.Background()

	t.Run("healthy", func(t *testing.T) {
		db := openAt(t, filepath.Join(t.TempDir(), "ok.db"), 0)
		if err := db.Check(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("disk full", func(t *testing.T) {
		db := openAt(t, filepath.Join(t.TempDir(), "full.db"), 0)
		var pages int
		if err := db.Write.QueryRow(`pragma page_count`).Scan(&pages); err != nil {
			t.Fatal(err)
		}
		// SQLite answers as for a full disk (SQLITE_FULL) once the file may not grow past
		// max_page_count (storage_test.go does the same); the one write connection keeps it.
		if _, err := db.Write.Exec(`pragma max_page_count = ` + itoa(pages+20)); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Write.Exec(`create table filler (x blob)`); err != nil {
			t.Fatal(err)
		}
		var full error
		for range 1000 {
			if _, full = db.Write.Exec(`insert into filler values (zeroblob(3000))`); full != nil {
				break
			}
		}
		if full == nil {
			t.Fatal("the file never filled up")
		}
		err := db.Check(ctx)
		if err == nil || !strings.Contains(err.Error(), "the disk holding the database is full") {
			t.Fatalf("Check = %v", err)
		}
	})

	t.Run("a write that failed on a full disk is reported until a write succeeds", func(t *testing.T) {
		db := openAt(t, filepath.Join(t.TempDir(), "sticky.db"), 0)
		var pages int
		if err := db.Write.QueryRow(`pragma page_count`).Scan(&pages); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Write.Exec(`pragma max_page_count = ` + itoa(pages)); err != nil {
			t.Fatal(err)
		}
		// A real write through the store: a user with a long name needs a new page.
		_, err := db.CreateUser(ctx, strings.Repeat("n", 64)+"x", strings.Repeat("h", 3000), false)
		for i := 0; err == nil && i < 200; i++ {
			_, err = db.CreateUser(ctx, strings.Repeat("n", 64)+itoa(i), strings.Repeat("h", 3000), false)
		}
		if err == nil || !strings.Contains(err.Error(), "full") {
			t.Fatalf("writes never failed: %v", err)
		}
		if _, err := db.Write.Exec(`pragma max_page_count = 1073741823`); err != nil {
			t.Fatal(err)
		}
		if err := db.Check(ctx); err == nil || !strings.Contains(err.Error(), "a write failed") || !strings.Contains(err.Error(), "full") {
			t.Fatalf("Check = %v", err)
		}
		if _, err := db.CreateUser(ctx, "after", "h", false); err != nil {
			t.Fatal(err)
		}
		if err := db.Check(ctx); err != nil {
			t.Fatalf("after a successful write: %v", err)
		}
	})

	t.Run("read-only database", func(t *testing.T) {
		db := openAt(t, filepath.Join(t.TempDir(), "ro.db"), 0)
		// query_only makes SQLite refuse every write with SQLITE_READONLY, as it does for a
		// file it could only open for reading.
		if _, err := db.Write.Exec(`pragma query_only = 1`); err != nil {
			t.Fatal(err)
		}
		err := db.Check(ctx)
		if err == nil || !strings.Contains(err.Error(), "read-only") {
			t.Fatalf("Check = %v", err)
		}
	})

	t.Run("damaged file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "damaged.db")
		db, err := sqlite.Open(ctx, sqlite.Options{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Write.Exec(`create table filler (x text)`); err != nil {
			t.Fatal(err)
		}
		for i := range 500 {
			if _, err := db.Write.Exec(`insert into filler values (?)`, strings.Repeat("row "+itoa(i)+" ", 200)); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		// Scribble over the last pages (the filler's), as a bad disk or a torn copy would.
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		junk := []byte(strings.Repeat("\xff\x13garbage", 8192))
		if _, err := f.WriteAt(junk[:16*4096], st.Size()-20*4096); err != nil {
			t.Fatal(err)
		}
		_ = f.Close()
		db2, err := sqlite.Open(ctx, sqlite.Options{Path: path, BusyTimeout: time.Second})
		if err != nil {
			t.Logf("open refuses the damaged file: %v", err)
			if !strings.Contains(err.Error(), "damaged") {
				t.Fatalf("open: %v", err)
			}
			return
		}
		t.Cleanup(func() { _ = db2.Close() })
		// The integrity check runs in the background: the verdict comes with a later Check.
		for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			err = db2.Check(ctx)
			if err != nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("Check never found the damage")
			}
		}
		if !strings.Contains(err.Error(), "the database file is damaged") {
			t.Fatalf("Check = %v", err)
		}
	})
}

// A database file of zero bytes (a failed copy, a full disk) is refused with a clear message,
// not silently made into a new empty database.
func TestZeroLengthFileRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "morningdeck.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(context.Background(), sqlite.Options{Path: path})
	if err == nil {
		_ = db.Close()
		t.Fatal("a zero-length database file was opened")
	}
	if !strings.Contains(err.Error(), "is empty (0 bytes)") || !strings.Contains(err.Error(), "delete it to start a new") {
		t.Errorf("error: %v", err)
	}
	if st, _ := os.Stat(path); st.Size() != 0 {
		t.Errorf("the file was written: %d bytes", st.Size())
	}
}
