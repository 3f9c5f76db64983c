package wake_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app/wake"
)

// The watcher runs from the first subscription to the last one's stop; Wake reaches the
// receivers of the queue it names, or all of them.
func TestHub(t *testing.T) {
	var running atomic.Int32
	started := make(chan struct{}, 4)
	h := &wake.Hub{Watch: func(ctx context.Context) {
		running.Add(1)
		started <- struct{}{}
		<-ctx.Done()
		running.Add(-1)
	}}
	var a, b atomic.Int32
	stopA := h.OnSent("fetch", func() { a.Add(1) })
	stopB := h.OnSent("process", func() { b.Add(1) })
	select {
	case <-started:
	case <-time.After(5 * time.Second):
		t.Fatal("the watcher did not start")
	}
	h.Wake("fetch")
	h.Wake("")
	if a.Load() != 2 || b.Load() != 1 {
		t.Fatalf("fetch woken %d times, process %d; want 2 and 1", a.Load(), b.Load())
	}
	stopA()
	if running.Load() != 1 {
		t.Fatal("the watcher stopped while a queue still listens")
	}
	stopB()
	if running.Load() != 0 {
		t.Fatal("the watcher runs on with nobody subscribed")
	}
	h.Wake("")
	if a.Load() != 2 || b.Load() != 1 {
		t.Fatal("a stopped subscription was woken")
	}
	// Subscribed again, it starts again; Close stops it.
	h.OnSent("fetch", func() {})
	<-started
	h.Close()
	if running.Load() != 0 {
		t.Fatal("Close left the watcher running")
	}
}
