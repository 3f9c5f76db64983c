// Package sqlitetest gives tests a real, migrated database in a temporary directory.
package sqlitetest

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/sqlite"
)

// New returns a migrated database in t.TempDir(), closed when the test ends.
func New(t testing.TB) *sqlite.DB {
	t.Helper()
	return NewWithClock(t, nil)
}

// NewWithClock is New with a clock for the database's timestamps.
func NewWithClock(t testing.TB, c app.Clock) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), sqlite.Options{Path: filepath.Join(t.TempDir(), "test.db"), Clock: c})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}
