package cli

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
// 22 MiB since issue 26 (24 before): with gcPercent, the first ingestion's peak RSS went from
// 51–52 MB to 48.4 MB, with a tenth more collections (228–233 against 207–209 in a round) and
// the collector's CPU about the same (1.4–1.6 s against 1.4–1.5): its fetch path allocates less.
const gcLimit = 22 << 20

// gcPercent is GOGC in default mode: collect when the heap has grown by 80 % of the live heap
// since the last collection, not 100 %. A first ingestion's peak came in default mode (its
// live heap, 6–7 MB while it fetches and scores, left the limit too little room), at twice
// the live heap; with 80 % and a lower gcLimit the tuner keeps to one heap goal of ~11–13 MB
// whichever mode it is in (issue 26).
const gcPercent = 80

// gcTuner switches the collector between the two after every collection. The limit counts all
// the runtime's memory, not only the heap: stacks, the collector's metadata and fragmentation
// take ~8–11 MB of it, so limit mode lets the heap grow further than the default only while the
// live heap is small. The tuner estimates both heap goals from the runtime's metrics — the
// default's, live + (live + roots) × gcPercent/100; limit mode's, the limit less the memory
// that is not heap objects — and takes limit mode while its goal is at least 1.25 times the
// default's (leaving it below 1.1 times, so that it does not flap). A heap near the limit in
// limit mode would make every allocation help the collector (the pages of a large server would
// wait on it): the margin keeps it from there. It stays off when the user set GOGC or
// GOMEMLIMIT.
type gcTuner struct {
	limit   uint64
	limited atomic.Bool // in limit mode
	stopped atomic.Bool
	sample  []metrics.Sample
}

// gcMetrics are what adjust reads, in this order.
var gcMetrics = []string{
	"/gc/heap/live:bytes", "/gc/scan/stack:bytes", "/gc/scan/globals:bytes",
	"/memory/classes/total:bytes", "/memory/classes/heap/released:bytes",
	"/memory/classes/heap/objects:bytes", "/memory/classes/heap/free:bytes", "/memory/classes/heap/unused:bytes",
}

// tuneGC starts the tuner for this process; stop ends it and restores the default.
func tuneGC(limit uint64) (stop func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	t := &gcTuner{limit: limit}
	for _, name := range gcMetrics {
		t.sample = append(t.sample, metrics.Sample{Name: name})
	}
	t.set(true) // a process starts with a small heap
	t.arm()
	return func() {
		t.stopped.Store(true)
		t.set(false)
		debug.SetGCPercent(100) // the runtime's own default
	}
}

func (t *gcTuner) set(limited bool) {
	t.limited.Store(limited)
	if limited {
		debug.SetMemoryLimit(int64(t.limit))
		debug.SetGCPercent(-1)
		return
	}
	debug.SetGCPercent(gcPercent)
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
	var v [8]uint64
	for i, s := range t.sample {
		if s.Value.Kind() != metrics.KindUint64 {
			return
		}
		v[i] = s.Value.Uint64()
	}
	live, roots := v[0], v[1]+v[2]
	total, released, objects, free, unused := v[3], v[4], v[5], v[6], v[7]
	var nonHeap uint64 // stacks, metadata and the rest: what the limit holds besides the heap
	if held := objects + free + unused + released; total > held {
		nonHeap = total - held
	}
	if limited := gcLimited(live, roots, nonHeap+unused, t.limit, t.limited.Load()); limited != t.limited.Load() {
		t.set(limited)
	}
}

// gcLimited tells the mode: the default's heap goal is live + (live + roots) × gcPercent/100;
// limit mode's, the limit less the memory that is not heap objects (other, fragmentation
// included).
func gcLimited(live, roots, other, limit uint64, limited bool) bool {
	if other >= limit {
		return false
	}
	limitGoal, defaultGoal := limit-other, live+(live+roots)*gcPercent/100
	if limited {
		return limitGoal*10 >= defaultGoal*11
	}
	return limitGoal*4 >= defaultGoal*5
}
