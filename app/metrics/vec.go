package metrics

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// family is a metric and its series, which write themselves in the exposition format.
type family interface{ write(e *expo) }

// vec is the series of one metric by their label values.
type vec[T any] struct {
	name, help string
	labels     []string
	mu         sync.Mutex
	series     map[string]*series[T]
	make       func() *T
}

type series[T any] struct {
	values []string
	m      *T
}

// get is the series of these label values, made on first use. It panics when their number
// is not the metric's, which is a programming error (as client_golang's WithLabelValues).
func (v *vec[T]) get(values []string) *T {
	if len(values) != len(v.labels) {
		panic("metrics: " + v.name + " takes " + strconv.Itoa(len(v.labels)) + " label values, got " + strconv.Itoa(len(values)))
	}
	key := strings.Join(values, "\xff")
	v.mu.Lock()
	defer v.mu.Unlock()
	s := v.series[key]
	if s == nil {
		s = &series[T]{values: slices.Clone(values), m: v.make()}
		v.series[key] = s
	}
	return s.m
}

// empty says there is no series yet.
func (v *vec[T]) empty() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return len(v.series) == 0
}

// each calls fn for every series, in the order of their label values.
func (v *vec[T]) each(fn func(labels []label, m *T)) {
	v.mu.Lock()
	all := make([]*series[T], 0, len(v.series))
	for _, s := range v.series {
		all = append(all, s)
	}
	v.mu.Unlock()
	slices.SortFunc(all, func(a, b *series[T]) int { return slices.Compare(a.values, b.values) })
	for _, s := range all {
		ls := make([]label, len(v.labels))
		for i, n := range v.labels {
			ls[i] = label{n, s.values[i]}
		}
		fn(ls, s.m)
	}
}

// Counter is a value that only goes up.
type Counter struct{ bits atomic.Uint64 }

// Inc adds one.
func (c *Counter) Inc() { c.Add(1) }

// Add adds d, which must not be negative (ignored if it is).
func (c *Counter) Add(d float64) {
	if !(d >= 0) {
		return
	}
	for {
		old := c.bits.Load()
		if c.bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+d)) {
			return
		}
	}
}

// Value is the count.
func (c *Counter) Value() float64 { return math.Float64frombits(c.bits.Load()) }

// CounterVec is a counter by label values.
type CounterVec struct{ v *vec[Counter] }

func newCounterVec(name, help string, labels ...string) *CounterVec {
	return &CounterVec{&vec[Counter]{name: name, help: help, labels: labels, series: map[string]*series[Counter]{}, make: func() *Counter { return &Counter{} }}}
}

// WithLabelValues is the counter of these label values, in the order of the metric's labels.
func (c *CounterVec) WithLabelValues(values ...string) *Counter { return c.v.get(values) }

func (c *CounterVec) write(e *expo) {
	if c.v.empty() {
		return // as client_golang, a metric with no series yet is not written
	}
	e.header(c.v.name, c.v.help, "counter")
	c.v.each(func(ls []label, m *Counter) { e.sample(c.v.name, ls, m.Value()) })
}

// Histogram counts observations in buckets (cumulative when written), with their sum.
type Histogram struct {
	upper  []float64 // the buckets' upper bounds, ascending, without +Inf
	mu     sync.Mutex
	counts []uint64 // per bucket, not cumulative; the last is above every bound
	sum    float64
	n      uint64
}

// Observe counts one value.
func (h *Histogram) Observe(x float64) {
	i, _ := slices.BinarySearch(h.upper, x) // the first bound ≥ x: le is inclusive
	h.mu.Lock()
	h.counts[i]++
	h.sum += x
	h.n++
	h.mu.Unlock()
}

// HistogramVec is a histogram by label values.
type HistogramVec struct {
	v     *vec[Histogram]
	upper []float64
}

func newHistogramVec(name, help string, upper []float64, labels ...string) *HistogramVec {
	upper = slices.Clone(upper)
	slices.Sort(upper)
	return &HistogramVec{upper: upper, v: &vec[Histogram]{name: name, help: help, labels: labels, series: map[string]*series[Histogram]{},
		make: func() *Histogram { return &Histogram{upper: upper, counts: make([]uint64, len(upper)+1)} }}}
}

// WithLabelValues is the histogram of these label values, in the order of the metric's labels.
func (h *HistogramVec) WithLabelValues(values ...string) *Histogram { return h.v.get(values) }

func (h *HistogramVec) write(e *expo) {
	if h.v.empty() {
		return
	}
	e.header(h.v.name, h.v.help, "histogram")
	h.v.each(func(ls []label, m *Histogram) {
		m.mu.Lock()
		counts, sum, n := slices.Clone(m.counts), m.sum, m.n
		m.mu.Unlock()
		var cum uint64
		for i, c := range counts {
			cum += c
			le := math.Inf(1)
			if i < len(m.upper) {
				le = m.upper[i]
			}
			e.line(h.v.name+"_bucket", append(sortLabels(ls), label{"le", formatFloat(le)}), float64(cum)) // le last, as client_golang wrote it
		}
		e.sample(h.v.name+"_sum", ls, sum)
		e.sample(h.v.name+"_count", ls, float64(n))
	})
}

// label is a label's name and value.
type label struct{ name, value string }

// expo is a response in the text exposition format being written.
type expo struct{ b []byte }

// header writes a metric's HELP and TYPE lines.
func (e *expo) header(name, help, typ string) {
	e.b = append(e.b, "# HELP "...)
	e.b = append(e.b, name...)
	e.b = append(e.b, ' ')
	e.b = append(e.b, helpEscaper.Replace(help)...)
	e.b = append(e.b, "\n# TYPE "...)
	e.b = append(e.b, name...)
	e.b = append(e.b, ' ')
	e.b = append(e.b, typ...)
	e.b = append(e.b, '\n')
}

// sample writes one line: the name, the labels sorted by name, the value.
func (e *expo) sample(name string, labels []label, v float64) {
	e.line(name, sortLabels(labels), v)
}

// sortLabels is a copy of labels sorted by name.
func sortLabels(labels []label) []label {
	labels = slices.Clone(labels)
	slices.SortFunc(labels, func(a, b label) int { return strings.Compare(a.name, b.name) })
	return labels
}

// line writes one line: the name, the labels in their order, the value.
func (e *expo) line(name string, labels []label, v float64) {
	e.b = append(e.b, name...)
	if len(labels) > 0 {
		e.b = append(e.b, '{')
		for i, l := range labels {
			if i > 0 {
				e.b = append(e.b, ',')
			}
			e.b = append(e.b, l.name...)
			e.b = append(e.b, `="`...)
			e.b = append(e.b, valueEscaper.Replace(l.value)...)
			e.b = append(e.b, '"')
		}
		e.b = append(e.b, '}')
	}
	e.b = append(e.b, ' ')
	e.b = append(e.b, formatFloat(v)...)
	e.b = append(e.b, '\n')
}

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	valueEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

// formatFloat writes a value as the format wants it: +Inf, -Inf, NaN, or the shortest decimal.
func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
