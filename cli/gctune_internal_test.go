package cli

import (
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestGCLimited(t *testing.T) {
	const limit = 24 << 20
	const other = 10 << 20 // stacks, metadata, fragmentation: limit mode's heap goal is 14 MiB
	for _, c := range []struct {
		live, roots, other uint64
		limited            bool // the mode before
		want               bool
	}{
		{0, 0, other, true, true},              // nothing measured yet
		{4 << 20, 1 << 20, other, true, true},  // default goal 8 MiB (gcPercent 80), limit mode's 14: collect at the limit
		{4 << 20, 1 << 20, other, false, true}, // and back to it from the default
		{7 << 20, 0, other, true, true},        // 12.6 vs 14: still worth it once in it (≥ 1.1)
		{7 << 20, 0, other, false, false},      // but not worth entering (< 1.25)
		{8 << 20, 0, other, true, false},       // 14.4 vs 14: nothing gained, and the heap would sit at the limit
		{100 << 20, 0, other, true, false},     // a large live heap is collected as by default, never continuously
		{1 << 20, 0, 30 << 20, true, false},    // the runtime's other memory alone past the limit
	} {
		if got := gcLimited(c.live, c.roots, c.other, limit, c.limited); got != c.want {
			t.Errorf("gcLimited(live %d, roots %d, other %d, limited %v) = %v, want %v", c.live, c.roots, c.other, c.limited, got, c.want)
		}
	}
}

// The tuner really follows collections: with a limit far above this test's heap it collects
// at the limit (GOGC off); with one far below, after a collection, by the default; stopping it
// restores the default.
func TestTuneGC(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	// GOGC read without writing it: setting it to probe it raced the tuner's finalizer (its
	// choice, made between the probe's two writes, was overwritten by the second one).
	gogc := func() int {
		s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
		metrics.Read(s)
		if s[0].Value.Kind() != metrics.KindUint64 {
			t.Fatal("runtime/metrics has no /gc/gogc:percent")
		}
		if v := s[0].Value.Uint64(); v <= math.MaxInt32 {
			return int(v)
		}
		return -1 // off reads as the largest value
	}

	stop := tuneGC(1 << 40)
	if p, l := gogc(), debug.SetMemoryLimit(-1); p != -1 || l != 1<<40 {
		t.Fatalf("limit mode: GOGC %d, memory limit %d; want off and %d", p, l, int64(1<<40))
	}
	stop()
	if p, l := gogc(), debug.SetMemoryLimit(-1); p != 100 || l != math.MaxInt64 {
		t.Fatalf("after stop: GOGC %d, memory limit %d; want the default", p, l)
	}

	keep := make([]byte, 4<<20) // a live heap far above the next limit
	stop = tuneGC(1 << 20)
	defer stop()
	deadline := time.Now().Add(time.Minute)
	for gogc() != gcPercent {
		if time.Now().After(deadline) {
			t.Fatal("the tuner never left limit mode after a collection with a large live heap")
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // the finalizer runs on its own goroutine
	}
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		t.Fatalf("default mode with memory limit %d", l)
	}
	runtime.KeepAlive(keep)
}
