// Package app holds Morning Deck's domain: its types, statuses, errors and the
// interfaces that the sqlite, queue and views packages implement or use.
// It imports no other package of ours.
package app

import (
	"context"
	"database/sql"
	"time"
)

// Clock tells the time. Everything where time decides behaviour takes one, so tests can move it.
type Clock interface {
	Now() time.Time
}

// SystemClock is the real clock.
type SystemClock struct{}

// Now returns time.Now().
func (SystemClock) Now() time.Time { return time.Now() }

// ClockOrSystem returns c, or the system clock when c is nil.
func ClockOrSystem(c Clock) Clock {
	if c == nil {
		return SystemClock{}
	}
	return c
}

// TxFunc runs inside a store's write transaction, so follow-up work (a queue message)
// commits or rolls back together with the business write.
type TxFunc func(ctx context.Context, tx *sql.Tx) error

// DefaultUserID is the single user of local mode, created by the first migration.
const DefaultUserID int64 = 1
