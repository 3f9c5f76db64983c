package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"time"
)

// Checkpoints copies the write-ahead log into the database file from a connection of its own,
// every interval while the log has changed, until ctx is done (issue 14).
//
// SQLite's automatic checkpoint runs in the connection that commits, after its commit: with
// one write connection that is the writer, so every 1,000 pages of log every waiting write
// also waited for the pages to be copied and for two fsyncs (a few milliseconds each on a
// small machine's disk; 320 of them in one first ingestion of 1,000 feeds). Here the writer
// only appends to the log; a PASSIVE checkpoint never blocks it, and runs on the other core.
// While Checkpoints runs, the writer's automatic checkpoint is off; it is back on when it
// returns (and a write connection opened again meanwhile has it on: only slower, never unsafe).
// CheckpointWAL still bounds the log's size when readers keep it from starting over.
func (db *DB) Checkpoints(ctx context.Context, interval time.Duration) error {
	conn, err := sql.Open("sqlite", db.dsn)
	if err != nil {
		return fmt.Errorf("sqlite: checkpoint connection: %w", err)
	}
	conn.SetMaxOpenConns(1)
	defer conn.Close()
	if _, err := db.Write.ExecContext(ctx, `pragma wal_autocheckpoint = 0`); err != nil {
		return fmt.Errorf("sqlite: turn automatic checkpoints off: %w", err)
	}
	defer db.Write.ExecContext(context.WithoutCancel(ctx), `pragma wal_autocheckpoint = 1000`)
	t := time.NewTicker(interval)
	defer t.Stop()
	var seen time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		fi, err := os.Stat(db.Path + "-wal")
		if err != nil || fi.ModTime().Equal(seen) {
			continue // no log, or nothing written since the last checkpoint
		}
		seen = fi.ModTime()
		var busy, frames, done int
		if err := conn.QueryRowContext(ctx, `pragma wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &done); err != nil && ctx.Err() == nil {
			db.log.Warn("WAL checkpoint failed", "component", "sqlite", "error", err)
		}
	}
}
