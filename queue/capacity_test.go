package queue_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/morningdeck/morningdeck/app"
)

// Issue 27, N4: an import (or a person's add) enqueues its sources' first fetches at once,
// past the capacity if need be (RELIABILITY.md says why); the scheduler then adds nothing,
// however many other sources are due, until the queue is back under its capacity.
func TestSchedulerPastCapacity(t *testing.T) {
	p := newPipeline(t, nil, 3)
	ctx := context.Background()
	for i := range 5 {
		p.add(t, fmt.Sprintf("http://127.0.0.1:1/imported-%d.xml", i), 15)
	}
	for i := range 4 { // due, never queued
		src := &app.Source{UserID: app.DefaultUserID, Type: app.SourceRSS, URL: fmt.Sprintf("http://127.0.0.1:1/due-%d.xml", i), RefreshIntervalMinutes: 15}
		if err := p.db.CreateSource(ctx, src, nil); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := p.sched.Cycle(ctx); err != nil || n != 0 {
		t.Fatalf("a cycle with the queue at 5 of its capacity 3 queued %d (%v), want 0", n, err)
	}
	if _, err := p.db.Write.Exec(`delete from goqite where rowid in (select rowid from goqite limit 4)`); err != nil {
		t.Fatal(err)
	}
	if n, err := p.sched.Cycle(ctx); err != nil || n != 2 {
		t.Fatalf("a cycle with room for 2 queued %d (%v)", n, err)
	}
	if size, _ := p.q.Size(ctx); size != 3 {
		t.Fatalf("queue holds %d, want its capacity 3", size)
	}
}
