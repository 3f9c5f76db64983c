// Package storetest is the stores' conformance suite: the same tests, through the app's store
// interfaces, for every engine that implements them (package sqlite and package postgres each
// call it from a test file of theirs). A test here says what a store does, never how.
//
// Each suite takes an Open that returns a new, migrated, empty database of its own (local mode's
// default user only) whose timestamps come from the clock given.
package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// Open returns a new store of an engine for one test, its times told by clock.
type Open[S any] func(t *testing.T, clock app.Clock) S

// Clock is the suite's clock: set to a time until a test moves it; safe for concurrent use.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock set to t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now is the time the clock is set to.
func (c *Clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

// Add moves the clock by d.
func (c *Clock) Add(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.t = c.t.Add(d) }

// start is when every test's clock starts: a time with milliseconds, which both engines keep.
var start = time.Date(2026, 3, 14, 9, 26, 53, 589_000_000, time.UTC)

// wantCode fails the test unless err carries the domain error code want.
func wantCode(t *testing.T, what string, err error, want string) {
	t.Helper()
	if got := app.ErrorCode(err); got != want {
		t.Fatalf("%s: error %v (code %q), want code %q", what, err, got, want)
	}
}

// must fails the test on an error.
func must(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}
