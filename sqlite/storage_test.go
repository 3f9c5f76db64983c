package sqlite_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/sqlite"
)

func openAt(t *testing.T, path string, busy time.Duration) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), sqlite.Options{Path: path, BusyTimeout: busy})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func integrityOK(t *testing.T, db *sql.DB) {
	t.Helper()
	var res string
	if err := db.QueryRow(`pragma integrity_check`).Scan(&res); err != nil || res != "ok" {
		t.Fatalf("integrity_check = %q, %v", res, err)
	}
}

func TestStorageFailures(t *testing.T) {
	ctx := context.Background()

	t.Run("a full disk gives a clear error, loses nothing committed, and writing resumes when there is room", func(t *testing.T) {
		db := openAt(t, filepath.Join(t.TempDir(), "full.db"), 0)
		src := &app.Source{UserID: 1, Type: app.SourceRSS, URL: "https://example.com/feed", Name: "Example", RefreshIntervalMinutes: 15}
		if err := db.CreateSource(ctx, src, nil); err != nil {
			t.Fatal(err)
		}
		// SQLite answers exactly as for a full disk (SQLITE_FULL) once the file may not grow
		// past max_page_count; the single write connection keeps the setting.
		var pages int
		if err := db.Write.QueryRow(`pragma page_count`).Scan(&pages); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Write.Exec(`pragma max_page_count = ` + itoa(pages+300)); err != nil {
			t.Fatal(err)
		}
		big := strings.Repeat("lorem ipsum dolor sit amet ", 4000) // ~100 KB an item
		var stored int
		var fullErr error
		for i := range 200 {
			s, err := db.StartFetch(ctx, src.ID, time.Minute)
			if err != nil || s == nil {
				fullErr = err
				break
			}
			items := []app.Item{{GUID: "g" + itoa(i), Title: "Item " + itoa(i), Link: "https://example.com/" + itoa(i), Text: big, RawContent: big}}
			if _, err := db.FinishFetch(ctx, s, &app.FetchResult{Items: items}, nil); err != nil {
				fullErr = err
				break
			}
			stored++
		}
		if fullErr == nil || !strings.Contains(fullErr.Error(), "the disk holding the database is full") {
			t.Fatalf("after %d items: %v", stored, fullErr)
		}
		integrityOK(t, db.Write)
		var n int
		if err := db.Read.QueryRow(`select count(*) from items`).Scan(&n); err != nil || n != stored {
			t.Fatalf("%d items in the file, %d committed (%v)", n, stored, err)
		}
		if _, err := db.Write.Exec(`pragma max_page_count = 1073741823`); err != nil {
			t.Fatal(err)
		}
		if _, err := db.ResetStuckSources(ctx, time.Now().Add(time.Hour)); err != nil {
			t.Fatalf("writing after room was made: %v", err)
		}
		s, err := db.StartFetch(ctx, src.ID, time.Minute)
		if err != nil || s == nil {
			t.Fatalf("start fetch after room was made: %v", err)
		}
		if _, err := db.FinishFetch(ctx, s, &app.FetchResult{Items: []app.Item{{GUID: "after", Title: "After", Text: big}}}, nil); err != nil {
			t.Fatalf("store after room was made: %v", err)
		}
	})

	t.Run("a database locked by another program is waited on, within the busy timeout, then a clear error", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "locked.db")
		db := openAt(t, path, 400*time.Millisecond)
		other, err := sql.Open("sqlite", "file:"+path)
		if err != nil {
			t.Fatal(err)
		}
		defer other.Close()
		conn, err := other.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		lock := func() {
			if _, err := conn.ExecContext(ctx, `begin exclusive`); err != nil {
				t.Fatal(err)
			}
		}
		lock()
		start := time.Now()
		_, err = db.ResetStuckSources(ctx, time.Now())
		waited := time.Since(start)
		if err == nil || !strings.Contains(err.Error(), "locked by another program") {
			t.Fatalf("write under another program's lock: %v", err)
		}
		if waited < 300*time.Millisecond || waited > 5*time.Second {
			t.Fatalf("gave up after %s; the busy timeout is 400ms", waited)
		}
		// Released within the timeout: the write waits for it and succeeds.
		if _, err := conn.ExecContext(ctx, `rollback`); err != nil {
			t.Fatal(err)
		}
		lock()
		go func() { time.Sleep(150 * time.Millisecond); _, _ = conn.ExecContext(ctx, `rollback`) }()
		if _, err := db.ResetStuckSources(ctx, time.Now()); err != nil {
			t.Fatalf("a lock released within the timeout: %v", err)
		}
		integrityOK(t, db.Write)
	})

	t.Run("the database file and its WAL are readable by their owner only", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "perm.db")
		db := openAt(t, path, 0)
		if err := db.CreateSource(ctx, &app.Source{UserID: 1, Type: app.SourceRSS, URL: "https://example.com/f", RefreshIntervalMinutes: 15}, nil); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{path, path + "-wal", path + "-shm"} {
			st, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm()&0o077 != 0 {
				t.Errorf("%s has mode %v", filepath.Base(f), st.Mode().Perm())
			}
		}
	})
}

func itoa(i int) string { return strconv.Itoa(i) }
