package app

import "context"

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
