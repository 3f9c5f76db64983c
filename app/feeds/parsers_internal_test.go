package feeds

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app/feeds/feedtest"
)

// TestParsersBound: however many fetches are in flight, at most Options.Parsers feeds are
// parsed at once; a fetch waiting for a parse slot gives up with its context, and a 304 (no
// body to parse) never waits for one.
func TestParsersBound(t *testing.T) {
	farm := feedtest.NewFarm(2, 3)
	defer farm.Close()
	f := New(Options{Parsers: 1, PerHost: 4})
	ctx := context.Background()
	first, err := f.Fetch(ctx, Request{URL: farm.URL(0)})
	if err != nil || len(first.Items) != 3 {
		t.Fatalf("a fetch with a free slot: %v, %+v", err, first)
	}

	release, err := f.parsers.Take(ctx) // the only slot, held as by a long parse
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		res, err := f.Fetch(ctx, Request{URL: farm.URL(1)})
		if err == nil && len(res.Items) != 3 {
			err = errors.New("not the feed's 3 items")
		}
		done <- err
	}()
	// A conditional fetch answered 304 has nothing to parse: it does not wait for the slot.
	nm, err := f.Fetch(ctx, Request{URL: farm.URL(0), ETag: first.ETag, LastModified: first.LastModified})
	if err != nil || !nm.NotModified {
		t.Fatalf("304 while the slot is held: %v, %+v", err, nm)
	}
	select {
	case err := <-done:
		t.Fatalf("a feed was parsed while the only parse slot was held (%v)", err)
	case <-time.After(300 * time.Millisecond):
	}
	// Waiting for a slot ends with the fetch's context.
	cctx, cancel := context.WithCancel(ctx)
	waiting := make(chan error, 1)
	go func() { _, err := f.Fetch(cctx, Request{URL: farm.URL(1)}); waiting <- err }()
	cancel()
	if err := <-waiting; !errors.Is(err, context.Canceled) {
		t.Errorf("a fetch cancelled while waiting for a parse slot: %v, want context.Canceled", err)
	}
	release()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the waiting fetch was not parsed once the slot was free")
	}
}
