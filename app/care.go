package app

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// PruneResult is what a retention prune did.
type PruneResult struct {
	Items      int   // items deleted
	Kept       int   // items older than the cutoff kept: starred, in a report, or being processed
	Tombstones int   // tombstones deleted (their entries left their feeds long ago)
	Batches    int   // write transactions used for the items
	FreeBytes  int64 // free space in the file after pruning (reused by later writes; Vacuum returns it)
	// LongestBatch is the longest a batch held the write connection (what a worker may have waited).
	LongestBatch time.Duration
	// SearchCompacted says a full compaction of the search index finished during this Prune.
	SearchCompacted bool
}

// CareStore is the database file's upkeep: backups, retention, search index, checks.
type CareStore interface {
	Backup(ctx context.Context, path string) error
	BackupRotate(ctx context.Context, dir string, keep int, now time.Time) (string, error)
	Prune(ctx context.Context, olderThan time.Time) (PruneResult, error)
	Vacuum(ctx context.Context) error
	// IntegrityCheck is SQLite's integrity_check: "ok", or what is damaged.
	IntegrityCheck(ctx context.Context) (string, error)
	IndexItems(ctx context.Context, batch int) (int, error)
	// SourcesFetchedSince counts the sources fetched at or after t.
	SourcesFetchedSince(ctx context.Context, t time.Time) (int, error)
}

// Care is the service that looks after the data: the daily retention prune and backup, the
// search index, and the same by hand from the CLI.
type Care struct {
	Store         CareStore
	Path          string // the database file
	RetentionDays int    // 0 keeps everything
	BackupDir     string // "" makes no automatic backups
	BackupKeep    int
	Log           *slog.Logger

	mu       sync.Mutex
	lastCare time.Time
}

// Daily runs, at most once a day, the retention prune and the automatic backup. Several
// processes may run it: the prune is idempotent and the backup skips a day it has.
func (c *Care) Daily(ctx context.Context, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if now.Sub(c.lastCare) < 23*time.Hour {
		return
	}
	c.lastCare = now
	log := logOrDiscard(c.Log)
	if days := c.RetentionDays; days > 0 {
		res, err := c.Prune(ctx, now)
		if err != nil {
			log.Warn("retention prune failed", "error", err)
		} else if res.Items > 0 || res.Tombstones > 0 {
			log.Info("old items pruned", "items", res.Items, "kept", res.Kept, "older_than_days", days, "free_bytes", res.FreeBytes, "longest_batch", res.LongestBatch)
		}
	}
	if c.BackupDir != "" {
		path, err := c.Store.BackupRotate(ctx, c.BackupDir, c.BackupKeep, now)
		if err != nil {
			log.Warn("automatic backup failed", "dir", c.BackupDir, "error", err)
		} else if path != "" {
			log.Info("backup written", "path", path, "keep", c.BackupKeep)
		}
	}
}

// Prune deletes the items older than the retention period, as of now.
func (c *Care) Prune(ctx context.Context, now time.Time) (PruneResult, error) {
	return c.Store.Prune(ctx, now.Add(-time.Duration(c.RetentionDays)*24*time.Hour))
}

// Vacuum returns the free space of the file to the file system.
func (c *Care) Vacuum(ctx context.Context) error { return c.Store.Vacuum(ctx) }

// Backup writes a consistent copy of the database to path, a new file in a folder that
// exists; what stands in its way is said plainly (the store checks again as it writes).
func (c *Care) Backup(ctx context.Context, path string) error {
	if strings.TrimSpace(path) == "" {
		return Errorf(EINVALID, "Give the name of the backup file to write.")
	}
	if _, err := os.Lstat(path); err == nil {
		return Errorf(ECONFLICT, "%s already exists: a backup never replaces a file. Give a new file name, or delete that file first.", path)
	}
	dir := filepath.Dir(path)
	if fi, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return Errorf(EINVALID, "The folder %s does not exist: create it first, or write the backup elsewhere.", dir)
	} else if err == nil && !fi.IsDir() {
		return Errorf(EINVALID, "%s is not a folder: write the backup elsewhere.", dir)
	}
	return c.Store.Backup(ctx, path)
}

// Check runs SQLite's integrity check; a damaged file is an error that says so.
func (c *Care) Check(ctx context.Context) error {
	res, err := c.Store.IntegrityCheck(ctx)
	if err != nil {
		return err
	}
	if res != "ok" {
		return Errorf(EINTERNAL, "the database file %s is damaged: %s (restore a backup)", c.Path, res)
	}
	return nil
}

// IndexBatch is how many items one transaction adds to the search index. Every other write
// waits for the one write connection meanwhile: 5,000 items of ~300 words held it 0.55 s on the
// development machine (seconds on a busy small one), 500 hold it 0.08 s for the same total.
const IndexBatch = 500

// Index adds every item not yet in the search index to it.
func (c *Care) Index(ctx context.Context) error {
	for ctx.Err() == nil {
		n, err := c.Store.IndexItems(ctx, IndexBatch)
		if err != nil || n < IndexBatch {
			return err
		}
	}
	return ctx.Err()
}

// FetchedSince counts the sources fetched at or after t.
func (c *Care) FetchedSince(ctx context.Context, t time.Time) (int, error) {
	return c.Store.SourcesFetchedSince(ctx, t)
}
