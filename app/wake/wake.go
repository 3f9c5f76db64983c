// Package wake is how a store tells the queues' receivers of a message another process or
// instance sent (queue's sentWatcher, OnSent): the receivers that want to hear of one, and the
// store's watcher that hears of them, run from the first subscription to the last one's stop.
// PostgreSQL's watcher LISTENs for the notifications of a trigger (postgres/notify.go);
// SQLite's looks at the database's data version (sqlite/wake.go).
package wake

import (
	"context"
	"sync"
)

// Hub is the receivers subscribed to a store's announcements of sent messages, and its watcher.
// The zero Hub with Watch set is ready; it must not be copied after first use.
type Hub struct {
	// Watch hears of sent messages until ctx ends, calling Wake for each (or Wake("") when it
	// cannot tell which queue's). It runs in a goroutine of its own while anyone is subscribed.
	Watch func(ctx context.Context)

	mu     sync.Mutex
	subs   map[int]sub
	next   int
	cancel context.CancelFunc
	done   chan struct{}
}

type sub struct {
	queue string
	wake  func()
}

// OnSent calls wake whenever the watcher hears of a message in the queue named queue (or in any
// queue, when it cannot tell), until stop is called. wake must not block.
func (h *Hub) OnSent(queue string, wake func()) (stop func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.subs == nil {
		h.subs = map[int]sub{}
	}
	h.next++
	id := h.next
	h.subs[id] = sub{queue, wake}
	if h.cancel == nil && h.Watch != nil {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		h.cancel, h.done = cancel, done
		go func() {
			defer close(done)
			h.Watch(ctx)
		}()
	}
	return func() {
		h.mu.Lock()
		delete(h.subs, id)
		end := func() {}
		if len(h.subs) == 0 {
			end = h.detach()
		}
		h.mu.Unlock()
		end()
	}
}

// detach takes the watcher from h (h.mu held) and returns what stops it and waits for it, to
// be called after h.mu is let go; a no-op when none runs.
func (h *Hub) detach() (end func()) {
	cancel, done := h.cancel, h.done
	h.cancel, h.done = nil, nil
	return func() {
		if cancel != nil {
			cancel()
			<-done
		}
	}
}

// Wake wakes the receivers of queue, or all of them for "".
func (h *Hub) Wake(queue string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, s := range h.subs {
		if queue == "" || s.queue == queue {
			s.wake()
		}
	}
}

// Close stops the watcher and forgets every subscription (the store is closing).
func (h *Hub) Close() {
	h.mu.Lock()
	end := h.detach()
	h.subs = nil
	h.mu.Unlock()
	end()
}
