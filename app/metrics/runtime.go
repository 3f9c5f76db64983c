package metrics

import (
	"bufio"
	"bytes"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	rm "runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"
)

// runtimeGauges are the Go runtime's figures served under client_golang's names (its Go
// collector's memstats set), read from runtime/metrics, which does not stop the world.
var runtimeGauges = []struct {
	name, help, typ string
	from            []string // summed
}{
	{"go_memstats_alloc_bytes", "Number of bytes allocated in heap and currently in use.", "gauge", []string{"/memory/classes/heap/objects:bytes"}},
	{"go_memstats_alloc_bytes_total", "Total number of bytes allocated in heap until now, even if released already.", "counter", []string{"/gc/heap/allocs:bytes"}},
	{"go_memstats_buck_hash_sys_bytes", "Number of bytes used by the profiling bucket hash table.", "gauge", []string{"/memory/classes/profiling/buckets:bytes"}},
	{"go_memstats_frees_total", "Total number of heap objects frees.", "counter", []string{"/gc/heap/frees:objects", "/gc/heap/tiny/allocs:objects"}},
	{"go_memstats_gc_sys_bytes", "Number of bytes used for garbage collection system metadata.", "gauge", []string{"/memory/classes/metadata/other:bytes"}},
	{"go_memstats_heap_alloc_bytes", "Number of heap bytes allocated and currently in use.", "gauge", []string{"/memory/classes/heap/objects:bytes"}},
	{"go_memstats_heap_idle_bytes", "Number of heap bytes waiting to be used.", "gauge", []string{"/memory/classes/heap/released:bytes", "/memory/classes/heap/free:bytes"}},
	{"go_memstats_heap_inuse_bytes", "Number of heap bytes that are in use.", "gauge", []string{"/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes"}},
	{"go_memstats_heap_objects", "Number of currently allocated objects.", "gauge", []string{"/gc/heap/objects:objects"}},
	{"go_memstats_heap_released_bytes", "Number of heap bytes released to OS.", "gauge", []string{"/memory/classes/heap/released:bytes"}},
	{"go_memstats_heap_sys_bytes", "Number of heap bytes obtained from system.", "gauge", []string{"/memory/classes/heap/objects:bytes", "/memory/classes/heap/unused:bytes", "/memory/classes/heap/free:bytes", "/memory/classes/heap/released:bytes"}},
	{"go_memstats_mallocs_total", "Total number of heap objects allocated.", "counter", []string{"/gc/heap/allocs:objects", "/gc/heap/tiny/allocs:objects"}},
	{"go_memstats_mcache_inuse_bytes", "Number of bytes in use by mcache structures.", "gauge", []string{"/memory/classes/metadata/mcache/inuse:bytes"}},
	{"go_memstats_mcache_sys_bytes", "Number of bytes used for mcache structures obtained from system.", "gauge", []string{"/memory/classes/metadata/mcache/inuse:bytes", "/memory/classes/metadata/mcache/free:bytes"}},
	{"go_memstats_mspan_inuse_bytes", "Number of bytes in use by mspan structures.", "gauge", []string{"/memory/classes/metadata/mspan/inuse:bytes"}},
	{"go_memstats_mspan_sys_bytes", "Number of bytes used for mspan structures obtained from system.", "gauge", []string{"/memory/classes/metadata/mspan/inuse:bytes", "/memory/classes/metadata/mspan/free:bytes"}},
	{"go_memstats_next_gc_bytes", "Number of heap bytes when next garbage collection will take place.", "gauge", []string{"/gc/heap/goal:bytes"}},
	{"go_memstats_other_sys_bytes", "Number of bytes used for other system allocations.", "gauge", []string{"/memory/classes/other:bytes"}},
	{"go_memstats_stack_inuse_bytes", "Number of bytes obtained from system for stack allocator in non-CGO environments.", "gauge", []string{"/memory/classes/heap/stacks:bytes"}},
	{"go_memstats_stack_sys_bytes", "Number of bytes obtained from system for stack allocator.", "gauge", []string{"/memory/classes/heap/stacks:bytes", "/memory/classes/os-stacks:bytes"}},
	{"go_memstats_sys_bytes", "Number of bytes obtained from system.", "gauge", []string{"/memory/classes/total:bytes"}},
	{"go_gc_gogc_percent", "Heap size target percentage configured by the user, otherwise 100.", "gauge", []string{"/gc/gogc:percent"}},
	{"go_gc_gomemlimit_bytes", "Go runtime memory limit configured by the user, otherwise math.MaxInt64.", "gauge", []string{"/gc/gomemlimit:bytes"}},
}

var runtimeSamples = sync.OnceValue(func() []rm.Sample {
	seen := map[string]bool{}
	var s []rm.Sample
	for _, g := range runtimeGauges {
		for _, n := range g.from {
			if !seen[n] {
				seen[n] = true
				s = append(s, rm.Sample{Name: n})
			}
		}
	}
	return s
})

var runtimeMu sync.Mutex // runtimeSamples is read into in place

// writeRuntime writes the Go runtime's metrics: goroutines, threads, GC pauses, memory.
func writeRuntime(e *expo) {
	e.header("go_gc_duration_seconds", "A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.", "summary")
	var gc debug.GCStats
	gc.PauseQuantiles = make([]time.Duration, 5)
	debug.ReadGCStats(&gc)
	for i, q := range []string{"0", "0.25", "0.5", "0.75", "1"} {
		v := 0.0
		if gc.NumGC > 0 {
			v = gc.PauseQuantiles[i].Seconds()
		}
		e.sample("go_gc_duration_seconds", []label{{"quantile", q}}, v)
	}
	e.sample("go_gc_duration_seconds_sum", nil, gc.PauseTotal.Seconds())
	e.sample("go_gc_duration_seconds_count", nil, float64(gc.NumGC))
	if !gc.LastGC.IsZero() {
		e.header("go_memstats_last_gc_time_seconds", "Number of seconds since 1970 of last garbage collection.", "gauge")
		e.sample("go_memstats_last_gc_time_seconds", nil, float64(gc.LastGC.UnixNano())/1e9)
	}
	e.header("go_goroutines", "Number of goroutines that currently exist.", "gauge")
	e.sample("go_goroutines", nil, float64(runtime.NumGoroutine()))
	e.header("go_info", "Information about the Go environment.", "gauge")
	e.sample("go_info", []label{{"version", runtime.Version()}}, 1)
	e.header("go_sched_gomaxprocs_threads", "The current runtime.GOMAXPROCS setting, or the number of operating system threads that can execute user-level Go code simultaneously.", "gauge")
	e.sample("go_sched_gomaxprocs_threads", nil, float64(runtime.GOMAXPROCS(0)))
	threads, _ := runtime.ThreadCreateProfile(nil)
	e.header("go_threads", "Number of OS threads created.", "gauge")
	e.sample("go_threads", nil, float64(threads))

	runtimeMu.Lock()
	defer runtimeMu.Unlock()
	samples := runtimeSamples()
	rm.Read(samples)
	value := map[string]float64{}
	for _, s := range samples {
		switch s.Value.Kind() {
		case rm.KindUint64:
			value[s.Name] = float64(s.Value.Uint64())
			if s.Name == "/gc/gogc:percent" && s.Value.Uint64() > math.MaxInt64 {
				value[s.Name] = -1 // GOGC=off (the GC tuner's limit mode) reads as -1, not 2^64−1
			}
		case rm.KindFloat64:
			value[s.Name] = s.Value.Float64()
		}
	}
	for _, g := range runtimeGauges {
		var v float64
		ok := true
		for _, n := range g.from {
			x, found := value[n]
			ok = ok && found
			v += x
		}
		if ok {
			e.header(g.name, g.help, g.typ)
			e.sample(g.name, nil, v)
		}
	}
}

// writeProcess writes the process's CPU time, memory, open files and start time, read from
// /proc (Linux; elsewhere they are left out, as client_golang leaves them out where it cannot
// read them).
func writeProcess(e *expo) {
	stat, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return
	}
	// The fields after the command's closing parenthesis, from the state (field 3) on.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return
	}
	f := strings.Fields(string(stat[i+1:]))
	field := func(n int) float64 { // n: the field's number in proc(5)
		if n-3 >= len(f) {
			return 0
		}
		v, _ := strconv.ParseFloat(f[n-3], 64)
		return v
	}
	const ticks = 100 // USER_HZ, which Linux fixes at 100 for /proc
	e.header("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", "counter")
	e.sample("process_cpu_seconds_total", nil, (field(14)+field(15))/ticks)
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		e.header("process_open_fds", "Number of open file descriptors.", "gauge")
		e.sample("process_open_fds", nil, float64(len(fds)))
	}
	if n, ok := maxFDs(); ok {
		e.header("process_max_fds", "Maximum number of open file descriptors.", "gauge")
		e.sample("process_max_fds", nil, n)
	}
	e.header("process_resident_memory_bytes", "Resident memory size in bytes.", "gauge")
	e.sample("process_resident_memory_bytes", nil, field(24)*float64(os.Getpagesize()))
	if boot, ok := bootTime(); ok {
		e.header("process_start_time_seconds", "Start time of the process since unix epoch in seconds.", "gauge")
		e.sample("process_start_time_seconds", nil, boot+field(22)/ticks)
	}
	e.header("process_virtual_memory_bytes", "Virtual memory size in bytes.", "gauge")
	e.sample("process_virtual_memory_bytes", nil, field(23))
}

// maxFDs is the soft limit of open files, from /proc/self/limits.
func maxFDs() (float64, bool) {
	b, err := os.ReadFile("/proc/self/limits")
	if err != nil {
		return 0, false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Max open files"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				if f[0] == "unlimited" {
					return 0, false
				}
				v, err := strconv.ParseFloat(f[0], 64)
				return v, err == nil
			}
		}
	}
	return 0, false
}

// bootTime is when the machine started, in Unix seconds (/proc/stat's btime).
var bootTime = sync.OnceValues(func() (float64, bool) {
	fh, err := os.Open("/proc/stat")
	if err != nil {
		return 0, false
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "btime "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			return v, err == nil
		}
	}
	return 0, false
})
