package sqlite_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// openCheck opens a database file with sqlite.Open and fails unless PRAGMA integrity_check is ok.
func openCheck(t *testing.T, path string) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), sqlite.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	var res string
	if err := db.Read.QueryRow(`pragma integrity_check`).Scan(&res); err != nil || res != "ok" {
		t.Fatalf("integrity_check of %s: %q, %v", path, res, err)
	}
	return db
}

func newSource(t testing.TB, db *sqlite.DB, url string) *app.Source {
	t.Helper()
	src := &app.Source{UserID: 1, Type: app.SourceRSS, URL: url, RefreshIntervalMinutes: 15}
	if err := db.CreateSource(context.Background(), src, nil); err != nil {
		t.Fatal(err)
	}
	return src
}

func TestBackup(t *testing.T) {
	ctx := context.Background()

	t.Run("copies the live database while a worker keeps inserting items", func(t *testing.T) {
		db := sqlitetest.New(t)
		src := newSource(t, db, "http://x/feed")
		// Enough rows that the copy takes a while, so the writer really runs during it.
		var seed []app.Item
		for i := range 3000 {
			seed = append(seed, app.Item{GUID: fmt.Sprint("seed-", i), Title: "Seed", Text: strings.Repeat("lorem ipsum ", 200)})
		}
		if _, err := db.FinishFetch(ctx, src, &app.FetchResult{Items: seed}, nil); err != nil {
			t.Fatal(err)
		}
		var committed atomic.Int64 // items committed so far by the writer
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var writeErr error
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				_, err := db.FinishFetch(ctx, src, &app.FetchResult{Items: []app.Item{{GUID: fmt.Sprint("live-", i), Title: "Live", Text: "written during the backup"}}}, nil)
				if err != nil {
					writeErr = err
					return
				}
				committed.Store(int64(i + 1))
			}
		}()
		for committed.Load() < 20 {
			time.Sleep(time.Millisecond)
		}
		before := committed.Load()
		path := filepath.Join(t.TempDir(), "copy.db")
		if err := db.Backup(ctx, path); err != nil {
			t.Fatal(err)
		}
		during := committed.Load() - before
		close(stop)
		wg.Wait()
		if writeErr != nil {
			t.Fatalf("the writer failed during the backup: %v", writeErr)
		}
		t.Logf("%d items committed while the backup ran", during)

		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Fatalf("mode %v, want 0600", fi.Mode().Perm())
		}
		leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "*"))
		if len(leftovers) != 1 {
			t.Fatalf("files beside the backup: %v", leftovers)
		}
		cp := openCheck(t, path)
		var seeds, live, maxLive int
		if err := cp.Read.QueryRow(`select count(*) filter (where guid like 'seed-%'), count(*) filter (where guid like 'live-%'),
			coalesce(max(cast(substr(guid, 6) as integer)) filter (where guid like 'live-%'), -1) from items`).Scan(&seeds, &live, &maxLive); err != nil {
			t.Fatal(err)
		}
		if seeds != len(seed) || int64(live) < before {
			t.Fatalf("the copy has %d seed and %d live items; %d and at least %d were committed before the backup", seeds, live, len(seed), before)
		}
		// A consistent snapshot: the live items in the copy are exactly the first ones written.
		if maxLive != live-1 {
			t.Fatalf("the copy has %d live items but the highest is live-%d", live, maxLive)
		}
	})

	t.Run("refuses to overwrite an existing file", func(t *testing.T) {
		db := sqlitetest.New(t)
		path := filepath.Join(t.TempDir(), "copy.db")
		if err := os.WriteFile(path, []byte("precious"), 0o600); err != nil {
			t.Fatal(err)
		}
		err := db.Backup(ctx, path)
		if err == nil || !strings.Contains(err.Error(), "already exists") {
			t.Fatalf("error %v, want one saying the file already exists", err)
		}
		if b, _ := os.ReadFile(path); string(b) != "precious" {
			t.Fatalf("the existing file was changed: %q", b)
		}
		if err := db.Backup(ctx, db.Path); err == nil || !strings.Contains(err.Error(), "already exists") {
			t.Fatalf("backup onto the live database: %v", err)
		}
		entries, _ := os.ReadDir(filepath.Dir(path))
		if len(entries) != 1 {
			t.Fatalf("a temporary file was left: %v", entries)
		}
	})

	t.Run("says so when the directory does not exist", func(t *testing.T) {
		db := sqlitetest.New(t)
		missing := filepath.Join(t.TempDir(), "nope")
		err := db.Backup(ctx, filepath.Join(missing, "copy.db"))
		if err == nil || !strings.Contains(err.Error(), "does not exist") || !strings.Contains(err.Error(), missing) {
			t.Fatalf("error %v", err)
		}
		if _, err := os.Stat(missing); err == nil {
			t.Fatal("Backup created the directory")
		}
	})
}

func TestBackupRotate(t *testing.T) {
	ctx := context.Background()
	t.Run("writes one backup a day, keeps the newest N and leaves other files alone", func(t *testing.T) {
		db := sqlitetest.New(t)
		dir := filepath.Join(t.TempDir(), "backups")
		others := []string{"notes.txt", "morningdeck-latest.db", "morningdeck-2020-1-1.db", "morningdeck-2020-13-45.db",
			"morningdeck-2020-01-01.db.bak", "xmorningdeck-2020-01-01.db", "morningdeck-2020-01-01.db-wal"}
		day := time.Date(2026, 11, 20, 3, 0, 0, 0, time.UTC)
		// The first run creates the directory (0700).
		path, err := db.BackupRotate(ctx, dir, 3, day)
		if err != nil || path != filepath.Join(dir, "morningdeck-2026-11-20.db") {
			t.Fatalf("path %q, %v", path, err)
		}
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Fatalf("directory: %v %v", fi.Mode(), err)
		}
		for _, name := range others {
			if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		// A directory with a backup's name is not a backup.
		if err := os.Mkdir(filepath.Join(dir, "morningdeck-2020-01-02.db"), 0o700); err != nil {
			t.Fatal(err)
		}
		for i := 1; i <= 4; i++ {
			if _, err := db.BackupRotate(ctx, dir, 3, day.Add(time.Duration(i)*24*time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		// The same day again: nothing to do.
		if path, err := db.BackupRotate(ctx, dir, 3, day.Add(4*24*time.Hour+time.Hour)); err != nil || path != "" {
			t.Fatalf("second run of the day: %q, %v", path, err)
		}
		var got []string
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			got = append(got, e.Name())
		}
		want := append([]string{"morningdeck-2020-01-02.db", "morningdeck-2026-11-22.db", "morningdeck-2026-11-23.db", "morningdeck-2026-11-24.db"}, others...)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("files\n%v\nwant\n%v", got, want)
		}
		openCheck(t, filepath.Join(dir, "morningdeck-2026-11-24.db"))
	})

	t.Run("keep 0 keeps every backup", func(t *testing.T) {
		db := sqlitetest.New(t)
		dir := t.TempDir()
		day := time.Date(2026, 11, 20, 3, 0, 0, 0, time.UTC)
		for i := range 3 {
			if _, err := db.BackupRotate(ctx, dir, 0, day.Add(time.Duration(i)*24*time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		if m, _ := filepath.Glob(filepath.Join(dir, "morningdeck-*.db")); len(m) != 3 {
			t.Fatalf("backups %v", m)
		}
	})
}
