package app

import (
	"context"
	"fmt"
	"math"
	"time"
)

// Slots bounds how many of something run at once: Take waits for a free slot while ctx lasts
// and returns the function that frees it. The zero value has no slots; make it with NewSlots.
type Slots chan struct{}

// NewSlots returns n slots.
func NewSlots(n int) Slots { return make(Slots, n) }

// Take takes a slot, waiting for one while ctx lasts.
func (s Slots) Take(ctx context.Context) (release func(), err error) {
	select {
	case s <- struct{}{}:
		return func() { <-s }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// TakeWithin takes a slot, waiting at most wait (and while ctx lasts); when none is free by
// then it returns Busy(wait).
func (s Slots) TakeWithin(ctx context.Context, wait time.Duration) (release func(), err error) {
	select {
	case s <- struct{}{}:
		return func() { <-s }, nil
	default:
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case s <- struct{}{}:
		return func() { <-s }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		return nil, Busy(wait)
	}
}

type personWaitingKey struct{}

// PersonWaiting marks ctx as work a person waits on (adding a source, which reads it first):
// a bounded resource it needs, such as the fetcher's slots for untrusted bodies (issue 27),
// is waited for only briefly and then refused with Busy, rather than queued behind the
// background's work while the request and its connection pile up.
func PersonWaiting(ctx context.Context) context.Context {
	return context.WithValue(ctx, personWaitingKey{}, true)
}

// IsPersonWaiting reports whether ctx was marked by PersonWaiting.
func IsPersonWaiting(ctx context.Context) bool {
	v, _ := ctx.Value(personWaitingKey{}).(bool)
	return v
}

// Busy is the ETOOMANY error of a request refused because the server is at its bound for that
// work; it says to try again after retryAfter (the API's Retry-After).
func Busy(retryAfter time.Duration) *Error {
	secs := max(1, int(math.Ceil(retryAfter.Seconds())))
	return &Error{Code: ETOOMANY, RetryAfter: time.Duration(secs) * time.Second,
		Message: fmt.Sprintf("The server is busy reading other feeds right now. Try again in %d %s.", secs, Plural(secs, "second", "seconds"))}
}
