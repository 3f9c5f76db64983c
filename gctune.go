package main

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// gcLimit is the memory the Go runtime may use before it collects, while the live heap is
// small (issue 14). With the runtime's default (GOGC=100: collect when the heap has doubled
// since the last collection) a process whose live heap is 5 MB collects every 5 MB allocated:
// a first ingestion allocates over a gigabyte and collected every ~15 ms, a tenth of its CPU.
// A larger GOGC saves that but multiplies the peak too (GOGC=200: 56 MB peak RSS instead of
// 47 MB). Collecting only when the runtime's memory reaches gcLimit does both: a first
// ingestion of 1,000 feeds took 10 % less CPU at the same peak RSS (46 MB; 28 MiB: 50 MB).
// But a fixed limit near the working set makes the collector run without end once the live
// heap grows to it (the stem cache and statistics of a server running for months), so once
// the live heap is large the runtime's default takes over again, and returns when it is small.
const gcLimit = 24 << 20

// gcTuner switches the collector between the two after every collection: limit mode (GOGC
// off, memory limit gcLimit) while the default's next goal, about twice the live heap, is
// under half the limit, and the default (GOGC=100, no limit) once it reaches three quarters
// of it; in between it stays as it is, so that it does not flap. It stays off when the user
// set GOGC or GOMEMLIMIT: their choice stands.
type gcTuner struct {
	limit   uint64
	limited atomic.Bool // in limit mode
	stopped atomic.Bool
	sample  []metrics.Sample
}

// tuneGC starts the tuner for this process; stop ends it and restores the default.
func tuneGC(limit uint64) (stop func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	t := &gcTuner{limit: limit, sample: []metrics.Sample{
		{Name: "/gc/heap/live:bytes"}, {Name: "/gc/scan/stack:bytes"}, {Name: "/gc/scan/globals:bytes"}}}
	t.set(true) // a process starts with a small heap
	t.arm()
	return func() {
		t.stopped.Store(true)
		t.set(false)
	}
}

func (t *gcTuner) set(limited bool) {
	t.limited.Store(limited)
	if limited {
		debug.SetMemoryLimit(int64(t.limit))
		debug.SetGCPercent(-1)
		return
	}
	debug.SetGCPercent(100)
	debug.SetMemoryLimit(math.MaxInt64)
}

// arm asks to be called after the next collection: a finalizer runs once the object it is
// set on has been found unreachable, which a collection does.
func (t *gcTuner) arm() {
	sentinel := new([16]byte) // not a tiny allocation, which may share a block and never be freed
	runtime.SetFinalizer(sentinel, func(*[16]byte) {
		if t.stopped.Load() {
			return
		}
		t.adjust()
		t.arm()
	})
}

// adjust picks the mode for the live heap the last collection found.
func (t *gcTuner) adjust() {
	metrics.Read(t.sample)
	var v [3]uint64
	for i, s := range t.sample {
		if s.Value.Kind() != metrics.KindUint64 {
			return
		}
		v[i] = s.Value.Uint64()
	}
	if limited := gcLimited(v[0], v[1]+v[2], t.limit, t.limited.Load()); limited != t.limited.Load() {
		t.set(limited)
	}
}

// gcLimited tells the mode for a live heap and the roots the collector scans (stacks and
// globals): the default's goal is live + (live + roots) at GOGC=100.
func gcLimited(live, roots, limit uint64, limited bool) bool {
	goal := 2*live + roots
	switch {
	case goal >= limit*3/4:
		return false
	case goal < limit/2:
		return true
	}
	return limited
}
