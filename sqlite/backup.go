package sqlite

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"time"
)

// Backup writes a consistent copy of the live database to path while the workers keep writing.
//
// The copy is made with VACUUM INTO on a connection of the read pool: it reads one snapshot of
// the database (WAL mode lets writers go on meanwhile; they never wait for a backup) and writes
// a compact file without free pages. It is written to a temporary file next to path (mode 0600),
// synced, then moved into place, so path is either absent or a whole copy. Backup never
// overwrites a file: it fails when path already exists, or when its directory does not.
//
// The copy holds everything, including the API keys and SMTP password of the settings: keep
// it as private as the database itself.
func (db *DB) Backup(ctx context.Context, path string) error {
	if path == "" {
		return errors.New("sqlite: backup: no path")
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("sqlite: backup: the directory %s does not exist", dir)
	} else if err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	} else if !fi.IsDir() {
		return fmt.Errorf("sqlite: backup: %s is not a directory", dir)
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("sqlite: backup: %s already exists", path)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("sqlite: backup: %w", err)
	}

	// VACUUM INTO takes an empty file: creating it first gives it mode 0600 (CreateTemp's).
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return describe(fmt.Errorf("sqlite: backup: %w", err))
	}
	tmp := f.Name()
	_ = f.Close()
	done := false
	defer func() {
		if !done {
			removeDB(tmp)
		}
	}()
	start := time.Now()
	if _, err := db.Read.ExecContext(ctx, `vacuum into ?`, tmp); err != nil {
		return describe(fmt.Errorf("sqlite: backup: %w", err))
	}
	// SQLite does not sync the file VACUUM INTO writes.
	if err := syncFile(tmp); err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	if err := os.Chmod(tmp, 0o600); err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	if err := publish(tmp, path); err != nil {
		return err
	}
	done = true
	_ = syncFile(dir)
	fi, _ := os.Stat(path)
	var size int64
	if fi != nil {
		size = fi.Size()
	}
	db.log.Info("backup written", "component", "sqlite", "path", path, "bytes", size, "duration", time.Since(start))
	return nil
}

// publish moves tmp to path without ever replacing a file at path: a hard link fails when path
// exists. File systems without hard links fall back to a check and a rename.
func publish(tmp, path string) error {
	err := os.Link(tmp, path)
	if err == nil {
		removeDB(tmp)
		return nil
	}
	if errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("sqlite: backup: %s already exists", path)
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("sqlite: backup: %s already exists", path)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	return nil
}

// removeDB removes a database file and whatever journal SQLite may have left beside it.
func removeDB(path string) {
	for _, suffix := range []string{"", "-journal", "-wal", "-shm"} {
		_ = os.Remove(path + suffix)
	}
}

func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	return errors.Join(err, f.Close())
}

// backupName is the only name BackupRotate writes, and the only one it ever deletes.
var backupName = regexp.MustCompile(`^morningdeck-(\d{4}-\d{2}-\d{2})\.db$`)

// BackupRotate makes the daily automatic backup: it writes morningdeck-YYYY-MM-DD.db (now's date,
// in now's location) into dir, creating dir with mode 0700, and returns its path. When that file
// already exists it does nothing and returns "". After writing, it deletes the oldest backups
// beyond the keep newest; keep <= 0 keeps them all. Only regular files named exactly
// morningdeck-YYYY-MM-DD.db (a real date) are counted or deleted: anything else in dir is left alone.
func (db *DB) BackupRotate(ctx context.Context, dir string, keep int, now time.Time) (string, error) {
	if dir == "" {
		return "", errors.New("sqlite: backup: no directory")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("sqlite: backup: create %s: %w", dir, err)
	}
	name := "morningdeck-" + now.Format("2006-01-02") + ".db"
	path := filepath.Join(dir, name)
	if _, err := os.Lstat(path); err == nil {
		return "", nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("sqlite: backup: %w", err)
	}
	if err := db.Backup(ctx, path); err != nil {
		return "", err
	}
	if keep <= 0 {
		return path, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return path, fmt.Errorf("sqlite: backup: rotate: %w", err)
	}
	var backups []string
	for _, e := range entries {
		m := backupName.FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() || e.Name() == name {
			continue
		}
		if _, err := time.Parse("2006-01-02", m[1]); err != nil {
			continue
		}
		backups = append(backups, e.Name())
	}
	sort.Strings(backups) // dates sort as text: oldest first
	var errs []error
	// The file just written is one of the keep.
	for _, old := range backups[:max(0, len(backups)-(keep-1))] {
		if err := os.Remove(filepath.Join(dir, old)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		db.log.Info("old backup deleted", "component", "sqlite", "path", filepath.Join(dir, old))
	}
	if err := errors.Join(errs...); err != nil {
		return path, fmt.Errorf("sqlite: backup: rotate: %w", err)
	}
	return path, nil
}
