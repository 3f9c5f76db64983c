// Package sqlitetest gives tests a real, migrated database in a temporary directory.
package sqlitetest

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

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

// Clock is the tests' one clock: it tells the time it was set to until a test moves it, and is
// safe for concurrent use. It is an app.Clock.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

var _ app.Clock = (*Clock)(nil)

// NewClock returns a clock set to t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now is the time the clock is set to.
func (c *Clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

// Set sets the clock to t.
func (c *Clock) Set(t time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }

// Add moves the clock by d.
func (c *Clock) Add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }
