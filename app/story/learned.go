package story

import (
	"cmp"
	"container/heap"
	"math"
	"slices"
	"time"

	"github.com/morningdeck/morningdeck/app/wordvec"
)

// NumLinkFeatures is the number of features a pair of stories is described by (LinkPair).
const NumLinkFeatures = 14

// LinkFeatureNames name the features of a pair, in order (the first is the constant 1).
var LinkFeatureNames = [NumLinkFeatures]string{
	"bias",       // 1
	"cosine",     // the weighted lexical cosine of the two stories' terms
	"shared",     // how many single words they share (at most 8)
	"names",      // shared single-word names
	"phrases",    // shared multi-word names (at most 4)
	"numbers",    // shared numbers
	"coverage",   // shared words over the shorter story's words
	"idfsum",     // the shared words' idf over log(1+stories), summed (at most 4)
	"idfmax",     // the rarest shared word's idf over log(1+stories)
	"meaning",    // the cosine of what their words mean (the embedded word vectors)
	"sameoutlet", // 1 when one outlet published both
	"hoursapart", // log(1 + hours) of the time between them beyond groupBurst (0 within it, or without a time)
	"shortlen",   // log(1 + the shorter story's words)
	"oneword",    // 1 when they share one single word only
}

// groupBurst: coverage of one event comes in a burst — outlets reword one report within hours —
// and within it how far apart two stories were published says nothing (hand-set, not learned:
// the corpus's times are those of an aggregator's crawls, all headlines of one of its stories
// within two minutes, which a finer feature would learn instead of the news). Beyond it, the
// hours apart are a feature: a story told again the next day is more often a follow-up.
const groupBurst = 3 * 3600

// LinkModel is what turns a pair's features into the probability that the two stories tell one
// event (a logistic regression), and how groups form from those probabilities: two groups
// merge while the sum of the probabilities of the pairs between them, over (|A|·|B|)^Alpha, is
// at least Threshold (average linkage when Alpha is 1).
type LinkModel struct {
	Weights   [NumLinkFeatures]float64
	Threshold float64
	Alpha     float64
	// MinProb: pairs less likely than this are not weighed at all (they add nothing to a group).
	MinProb float64
	// StrongThreshold: the least linkage of two groups counting only their pairs that share two
	// words or more. A pair sharing one word only adds to the linkage, but never merges two
	// groups by itself: groups joined by one common name ("Twitter": its birthday, Turkey's ban
	// of it) need pairs that share more.
	StrongThreshold float64
}

// Prob is the probability that a pair of features x is one story.
func (m *LinkModel) Prob(x *[NumLinkFeatures]float64) float64 {
	var z float64
	for k, w := range m.Weights {
		z += w * x[k]
	}
	return 1 / (1 + math.Exp(-z))
}

// LinkPair is a candidate pair of stories as Group weighs it: stories I and J (J ranked before
// I) share at least two words and are within the window. Features are those of LinkFeatureNames.
type LinkPair struct {
	I, J     int
	Features [NumLinkFeatures]float64
}

// LinkPairs lists the candidate pairs Group weighs for stories, with their features: what
// scripts/storylinks learns the link model from.
func LinkPairs(stories []Story, o GroupOptions) []LinkPair {
	o = o.withDefaults()
	ix := newGroupIndex(stories, o.LeadWords)
	var out []LinkPair
	groupCandidates(ix, stories, o, func(i, j int32, x *[NumLinkFeatures]float64) {
		out = append(out, LinkPair{I: int(i), J: int(j), Features: *x})
	})
	return out
}

func (o GroupOptions) withDefaults() GroupOptions {
	if o.Window == 0 {
		o.Window = 72 * time.Hour
	}
	if o.LeadWords == 0 {
		o.LeadWords = 40
	}
	return o
}

// groupCandidates calls pair for each candidate pair (i, j < i) of the stories: pairs that
// share at least two single words, found through the inverted index (each term's latest
// groupMaxPostings stories), published within the window.
func groupCandidates(ix *groupIndex, stories []Story, o GroupOptions, pair func(i, j int32, x *[NumLinkFeatures]float64)) {
	n := len(stories)
	at := make([]int64, n)
	src := make([]string, n)
	for i, st := range stories {
		at[i] = groupUnix(st.At)
		src[i] = groupSourceKey(st.Source)
	}
	window := int64(o.Window / time.Second)
	sh := newGroupShared(n)
	var x [NumLinkFeatures]float64
	var cands []int32
	for i := 0; i < n; i++ {
		sh.touched = sh.touched[:0]
		for _, e := range ix.vecs[i] {
			p := ix.postings[e.id]
			for k := len(p) - 1; k >= max(0, len(p)-groupMaxPostings); k-- {
				sh.add(p[k].doc, int32(i+1), e, p[k].w)
			}
		}
		cands = cands[:0]
		for _, j := range sh.touched {
			if sh.hits[j] < groupMinShared {
				continue
			}
			if o.Window > 0 && at[i] != 0 && at[j] != 0 && (at[i]-at[j] > window || at[j]-at[i] > window) {
				continue
			}
			cands = append(cands, j)
		}
		if len(cands) > groupMaxCandidates {
			// the most similar by their words: the model weighs no more than these
			slices.SortFunc(cands, func(a, b int32) int {
				if sh.dots[a] != sh.dots[b] {
					return cmp.Compare(sh.dots[b], sh.dots[a])
				}
				return cmp.Compare(a, b)
			})
			cands = cands[:groupMaxCandidates]
		}
		slices.Sort(cands)
		for _, j := range cands {
			shorter := min(ix.words[i], ix.words[j])
			x = [NumLinkFeatures]float64{
				1,
				sh.dots[j],
				float64(min(sh.hits[j], 8)),
				float64(sh.names[j]),
				float64(min(sh.nameHits[j], 4)),
				float64(sh.numbers[j]),
				float64(sh.hits[j]) / float64(max(shorter, 1)),
				math.Min(float64(sh.idfSum[j]), 4),
				float64(sh.idfMax[j]),
				float64(wordvec.Dot(&ix.sem[i], &ix.sem[j])),
				0,
				0,
				0, 0,
			}
			if sh.hits[j] == 1 {
				x[13] = 1
			}
			if src[i] != "" && src[i] == src[j] {
				x[10] = 1
			}
			x[12] = math.Log1p(float64(shorter))
			if at[i] != 0 && at[j] != 0 {
				if d := max(at[i]-at[j], at[j]-at[i]) - groupBurst; d > 0 {
					x[11] = math.Log1p(float64(d) / 3600)
				}
			}
			pair(int32(i), j, &x)
		}
		for _, e := range ix.vecs[i] {
			ix.postings[e.id] = append(ix.postings[e.id], groupPosting{doc: int32(i), w: e.w})
		}
	}
}

// groupMinShared: pairs sharing fewer words are not weighed.
const groupMinShared = 1

// groupMaxCandidates: a story is weighed against at most this many stories ranked before it,
// those most like it by their words (the cost of the model is per pair).
const groupMaxCandidates = 64

// groupEdge is a pair of stories (i > j) and the probability that they tell one event.
type groupEdge struct {
	i, j   int32
	p      float64
	strong bool // they share two words or more
}

// groupAgglomerate forms groups from the weighed pairs: each story starts alone, and the two
// groups of the highest linkage (the sum of their pairs' probabilities over
// (|A|·|B|)^alpha; a pair not weighed counts 0) merge while it is at least the threshold. A
// big running story is grouped through the many pairs of its headlines, and one headline that
// bridges two stories cannot merge them (chaining, the fault of linking by best matches): it
// is one pair among the many the two groups would need. It returns each story's group's root
// (the best-ranked member).
func groupAgglomerate(n int, edges []groupEdge, threshold, strongThreshold, alpha float64) []int32 {
	root := make([]int32, n)
	size := make([]float64, n)
	nb := make([]map[int32]groupLinkage, n)
	for i := range root {
		root[i] = int32(i)
		size[i] = 1
	}
	add := func(a, b int32, l groupLinkage) {
		if nb[a] == nil {
			nb[a] = map[int32]groupLinkage{}
		}
		old := nb[a][b]
		nb[a][b] = groupLinkage{old.sum + l.sum, old.strong + l.strong}
	}
	for _, e := range edges {
		l := groupLinkage{sum: e.p}
		if e.strong {
			l.strong = e.p
		}
		add(e.i, e.j, l)
		add(e.j, e.i, l)
	}
	// score is the linkage of a and b, or -1 when their pairs sharing two words are too few.
	score := func(a, b int32) float64 {
		l := nb[a][b]
		norm := size[a] * size[b]
		if alpha != 1 {
			norm = math.Pow(norm, alpha)
		}
		if l.strong == 0 || l.strong/norm < strongThreshold {
			return -1
		}
		return l.sum / norm
	}
	h := &linkHeap{}
	for a := range nb {
		for b := range nb[a] {
			if int32(a) < b {
				if s := score(int32(a), b); s >= threshold {
					h.items = append(h.items, linkItem{s, int32(a), b})
				}
			}
		}
	}
	heap.Init(h)
	var cs []int32
	for h.Len() > 0 {
		it := heap.Pop(h).(linkItem)
		a, b := it.a, it.b
		if root[a] != a || root[b] != b {
			continue // one of them has merged since
		}
		if s := score(a, b); s != it.s {
			continue // stale: their sizes or pairs changed
		}
		// b (ranked after a) joins a
		root[b] = a
		delete(nb[a], b)
		delete(nb[b], a)
		size[a] += size[b]
		// the neighbours of b become a's, in a fixed order so that sums are the same every run
		cs = cs[:0]
		for c := range nb[b] {
			cs = append(cs, c)
		}
		slices.Sort(cs)
		for _, c := range cs {
			l := nb[b][c]
			add(a, c, l)
			add(c, a, l)
			delete(nb[c], b)
		}
		nb[b] = nil
		cs = cs[:0]
		for c := range nb[a] {
			cs = append(cs, c)
		}
		slices.Sort(cs)
		for _, c := range cs {
			if s := score(min(a, c), max(a, c)); s >= threshold {
				heap.Push(h, linkItem{s, min(a, c), max(a, c)})
			}
		}
	}
	for i := range root {
		r := int32(i)
		for root[r] != r {
			r = root[r]
		}
		root[i] = r
	}
	return root
}

// groupLinkage is what joins two groups: the sum of their pairs' probabilities, and that of
// their pairs sharing two words or more (no merge without one).
type groupLinkage struct {
	sum, strong float64
}

type linkItem struct {
	s    float64
	a, b int32
}

// linkHeap pops the highest linkage first, ties by the best-ranked pair.
type linkHeap struct{ items []linkItem }

func (h *linkHeap) Len() int { return len(h.items) }
func (h *linkHeap) Less(x, y int) bool {
	p, q := h.items[x], h.items[y]
	if p.s != q.s {
		return p.s > q.s
	}
	if p.a != q.a {
		return p.a < q.a
	}
	return p.b < q.b
}
func (h *linkHeap) Swap(x, y int) { h.items[x], h.items[y] = h.items[y], h.items[x] }
func (h *linkHeap) Push(v any)    { h.items = append(h.items, v.(linkItem)) }
func (h *linkHeap) Pop() any {
	v := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return v
}
