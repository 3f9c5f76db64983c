package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

var _ app.CareStore = (*DB)(nil)

// IntegrityCheck is SQLite's integrity_check: "ok", or the first problem it found.
func (db *DB) IntegrityCheck(ctx context.Context) (string, error) {
	var res string
	if err := db.Read.QueryRowContext(ctx, `pragma integrity_check`).Scan(&res); err != nil {
		return "", fmt.Errorf("sqlite: integrity check: %w", err)
	}
	return res, nil
}

// SourcesFetchedSince counts the sources fetched at or after t.
func (db *DB) SourcesFetchedSince(ctx context.Context, t time.Time) (int, error) {
	var n int
	if err := db.Read.QueryRowContext(ctx, `select count(*) from sources where last_fetched_at >= ?`, FormatTime(t)).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlite: count fetched sources: %w", err)
	}
	return n, nil
}
