package enrich

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// Story is what story grouping compares: a title, the opening of the text, when it was
// published, and the outlet that published it.
type Story struct {
	Title  string
	Lead   string // the text or its summary; only its opening sentences are read
	At     time.Time
	Source string // the outlet's name, for AlsoCovered
}

// GroupOptions tune Group. The zero value is what a briefing wants.
type GroupOptions struct {
	// Window: two stories published further apart than this are never linked. 0: 72 hours;
	// negative: no limit. A story without a time is within any window.
	Window time.Duration
	// Threshold is the least similarity (a cosine of weighted terms, 0–1) that links two
	// stories. 0: DefaultGroupThreshold.
	Threshold float64
	// LeadWords: how many words of the lead's opening sentences count. 0: 40; negative: none.
	LeadWords int
	// Earlier are stories of past periods (say, the leads of the last days' reports). When
	// given, Grouping.Continues says which earlier story each group continues (the window
	// does not apply to them). They count in how rare words are, and are never grouped.
	Earlier []Story
}

// DefaultGroupThreshold is the least similarity that links two stories when
// GroupOptions.Threshold is 0.
const DefaultGroupThreshold = 0.15

// Grouping is the result of Group.
type Grouping struct {
	// Groups lists each group's members by index into the stories, in rank (input) order, so
	// the first is the group's lead; groups are in the order of their leads.
	Groups [][]int
	// LinkedTo is, per story, the member of its group it was linked to — its best match among
	// the stories ranked before it, or, for a story no later story had chosen, its best match
	// among all — or -1 when it is linked to none (a group's lead, a story alone); Similarity is
	// that link's similarity.
	LinkedTo   []int
	Similarity []float64
	// Links are the pairs of similar stories that joined groups: each pair shares at least
	// two words.
	Links [][2]int
	// Continues is, per group, the index into GroupOptions.Earlier of the earlier story it
	// continues, or -1; nil when no earlier stories were given.
	Continues []int
}

// Group groups reworded coverage of one event. Stories come in rank order (best first). Each
// story is compared, by its title and the opening sentences of its lead, with the stories
// ranked before it, and joins the group of its best match when the two are similar enough,
// published within the window, and share at least two informative words — one rare word in
// common ("rally", "unchanged") never merges two headlines; a shared multi-word name counts as
// two, but only between stories published within three hours of each other: further apart, a
// name needs another shared word (groupEnough) — and the story is also like the group as a
// whole (its centroid). A story still alone then gets a second look, at the stories ranked
// after it, under the same conditions. Then groups whose centroids are alike are merged (a
// story told in several bursts of wording), again only through two headlines sharing two words
// (or, hours apart, a name and a word). Last, a member that is not like the rest of its group
// leaves it: it came in through one member, the chaining that best-match linking is prone to.
// Names (capitalised words, multi-word names) and numbers weigh more than other words; how rare
// a word is comes from the stories themselves, so Group needs no collection statistics.
// Candidates come from an inverted index over the words (each word's nearest 64 stories), never
// from comparing all pairs: 20,000 stories take about a second of CPU. The result is
// deterministic.
func Group(stories []Story, o GroupOptions) Grouping {
	if o.Window == 0 {
		o.Window = 72 * time.Hour
	}
	if o.Threshold <= 0 {
		o.Threshold = DefaultGroupThreshold
	}
	if o.LeadWords == 0 {
		o.LeadWords = 40
	}
	all := stories
	if len(o.Earlier) > 0 {
		all = append(append(make([]Story, 0, len(stories)+len(o.Earlier)), stories...), o.Earlier...)
	}
	ix := newGroupIndex(all, o.LeadWords)
	n := len(stories)
	g := Grouping{LinkedTo: make([]int, n), Similarity: make([]float64, n)}
	parent := make([]int32, n)
	var find func(int32) int32
	find = func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	union := func(a, b int32) {
		ra, rb := find(a), find(b)
		if ra == rb {
			return
		}
		if ra < rb { // the root is the best-ranked member
			parent[rb] = ra
		} else {
			parent[ra] = rb
		}
	}
	// Publication times in seconds, 0 for none, for the window check in the hot loop.
	at := make([]int64, n)
	for i, st := range stories {
		if !st.At.IsZero() {
			at[i] = st.At.Unix()
			if at[i] == 0 {
				at[i] = 1
			}
		}
	}
	window := int64(o.Window / time.Second)
	// Per candidate j of story i (seen[j] == i+1): the words they share and their dot product,
	// accumulated through the inverted index — each word's latest groupMaxPostings stories —
	// so that no pair of stories is compared directly and a word common in a big batch costs
	// no more than a rare one.
	sh := newGroupShared(n)
	hits, nameHits, dots := sh.hits, sh.nameHits, sh.dots
	var matches []groupMatch
	centroids := map[int32]*groupCentroid{} // by root, for groups of two or more
	for i := 0; i < n; i++ {
		parent[i] = int32(i)
		sh.touched = sh.touched[:0]
		for _, e := range ix.vecs[i] {
			p := ix.postings[e.id]
			for k := len(p) - 1; k >= max(0, len(p)-groupMaxPostings); k-- {
				sh.add(p[k].doc, int32(i+1), e, p[k].w)
			}
		}
		matches = matches[:0]
		for _, j := range sh.touched {
			sim := dots[j]
			if hits[j] < 2 || sim < o.Threshold {
				continue
			}
			if o.Window > 0 && at[i] != 0 && at[j] != 0 && (at[i]-at[j] > window || at[j]-at[i] > window) {
				continue
			}
			if !groupEnough(at[i], at[j], int(hits[j]), int(nameHits[j])) {
				continue
			}
			matches = append(matches, groupMatch{j, sim})
		}
		slices.SortFunc(matches, func(a, b groupMatch) int {
			if a.sim != b.sim {
				return cmp.Compare(b.sim, a.sim)
			}
			return cmp.Compare(a.j, b.j)
		})
		// The best match whose group, as a whole, is also like the story: a headline that
		// bridges two stories ("Happy birthday: Twitter banned in Turkey") must not pull the
		// next story's coverage into the first's group.
		best, bestSim := -1, 0.0
		for _, m := range matches {
			r := find(m.j)
			if c := centroids[r]; c != nil && c.similarity(ix.vecs[i]) < groupCoherence {
				continue
			}
			best, bestSim = int(m.j), m.sim
			break
		}
		g.LinkedTo[i], g.Similarity[i] = best, bestSim
		if best >= 0 {
			r := find(int32(best))
			if centroids[r] == nil {
				centroids[r] = &groupCentroid{acc: map[int32]float64{}}
				centroids[r].add(ix.vecs[r])
			}
			centroids[r].add(ix.vecs[i])
			union(int32(i), int32(best))
			g.Links = append(g.Links, [2]int{i, best})
		}
		for _, e := range ix.vecs[i] {
			ix.postings[e.id] = append(ix.postings[e.id], groupPosting{doc: int32(i), w: e.w})
		}
	}
	// A story left alone was compared only with the stories ranked before it, and the stories
	// after it that are like it may have found a better match elsewhere ("High-Speed Trading
	// Gets Scrutiny Again" is alone when "FBI investigating high-speed trading outfits" links to
	// another headline of the story): it now joins the group of its best match among the
	// stories after it, under the same conditions.
	alone := make([]bool, n)
	for i := range n {
		alone[i] = true
	}
	for _, l := range g.Links {
		alone[l[0]], alone[l[1]] = false, false
	}
	next := make([]int32, len(ix.postings)) // per term: where the postings after story i start
	for i := 0; i < n; i++ {
		if !alone[i] || groupLoners == 0 {
			continue
		}
		sh.touched = sh.touched[:0]
		stamp := int32(-(i + 1))
		for _, e := range ix.vecs[i] {
			p := ix.postings[e.id]
			// The postings are in rank order: read the next groupMaxPostings after i (the ones
			// before it were weighed when i was placed, and nothing about them has changed).
			k := int(next[e.id])
			for k < len(p) && p[k].doc <= int32(i) {
				k++
			}
			next[e.id] = int32(k)
			for q := k; q < min(len(p), k+groupMaxPostings); q++ {
				sh.add(p[q].doc, stamp, e, p[q].w)
			}
		}
		matches = matches[:0]
		for _, j := range sh.touched {
			if hits[j] < 2 || dots[j] < o.Threshold {
				continue
			}
			if o.Window > 0 && at[i] != 0 && at[j] != 0 && (at[i]-at[j] > window || at[j]-at[i] > window) {
				continue
			}
			if !groupEnough(at[i], at[j], int(hits[j]), int(nameHits[j])) {
				continue
			}
			matches = append(matches, groupMatch{j, dots[j]})
		}
		slices.SortFunc(matches, func(a, b groupMatch) int {
			if a.sim != b.sim {
				return cmp.Compare(b.sim, a.sim)
			}
			return cmp.Compare(a.j, b.j)
		})
		for _, m := range matches {
			r := find(m.j)
			c := centroids[r]
			if c != nil && c.similarity(ix.vecs[i]) < groupCoherence {
				continue
			}
			if c == nil {
				c = &groupCentroid{acc: map[int32]float64{}}
				c.add(ix.vecs[r])
			}
			c.add(ix.vecs[i])
			delete(centroids, r)
			union(int32(i), m.j)
			centroids[find(int32(i))] = c
			alone[i], alone[m.j] = false, false
			g.LinkedTo[i], g.Similarity[i] = int(m.j), m.sim
			g.Links = append(g.Links, [2]int{i, int(m.j)})
			break
		}
	}
	if groupCentroidThreshold > 0 {
		g.Links = append(g.Links, groupMergeByCentroid(ix, stories, o, find, union)...)
	}
	rootGroup := map[int32]int{}
	for i := 0; i < n; i++ {
		r := find(int32(i))
		k, ok := rootGroup[r]
		if !ok {
			k = len(g.Groups)
			rootGroup[r] = k
			g.Groups = append(g.Groups, nil)
		}
		g.Groups[k] = append(g.Groups[k], i)
	}
	if groupOutlier > 0 {
		g.Groups = groupDetachOutliers(ix, g.Groups)
		groupRelink(ix, &g)
	}
	groupOf := make([]int, n)
	for k, members := range g.Groups {
		for _, i := range members {
			groupOf[i] = k
		}
	}
	if len(o.Earlier) > 0 {
		g.Continues = make([]int, len(g.Groups))
		bestSim := make([]float64, len(g.Groups))
		for k := range g.Continues {
			g.Continues[k] = -1
		}
		for e := range o.Earlier {
			v := ix.vecs[n+e]
			for _, en := range v {
				for _, p := range ix.postings[en.id] {
					j := p.doc
					sim, shared, nm := groupSimilarity(v, ix.vecs[j])
					k := groupOf[j]
					if shared >= 2 && sim >= o.Threshold && sim > bestSim[k] && groupEnough(groupUnix(o.Earlier[e].At), at[j], shared, nm) {
						g.Continues[k], bestSim[k] = e, sim
					}
				}
			}
		}
	}
	return g
}

// AlsoCovered picks, from a group's members (as Group returns them, the lead first), the
// other outlets' stories to show under the lead: the best-ranked story of each source other
// than the lead's, in rank order, at most limit of them (limit ≤ 0: all). Stories without a
// source each count as their own.
func AlsoCovered(stories []Story, members []int, limit int) []int {
	if len(members) < 2 {
		return nil
	}
	seen := map[string]bool{groupSourceKey(stories[members[0]].Source): true}
	var out []int
	for _, m := range members[1:] {
		if limit > 0 && len(out) == limit {
			break
		}
		src := groupSourceKey(stories[m].Source)
		if src != "" {
			if seen[src] {
				continue
			}
			seen[src] = true
		}
		out = append(out, m)
	}
	return out
}

func groupSourceKey(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// GroupStories groups stories with Group (its threshold is Group's own now: the old cosine's
// threshold is ignored, and the statistics are not used — Group takes document frequencies
// from the stories themselves).
//
// Deprecated: use Group, which also says which story each was linked to.
func (s *Stats) GroupStories(stories []Story, threshold float64, window time.Duration) [][]int {
	return Group(stories, GroupOptions{Window: window}).Groups
}

func groupWithin(a, b time.Time, window time.Duration) bool {
	if window < 0 || a.IsZero() || b.IsZero() {
		return true
	}
	d := a.Sub(b)
	if d < 0 {
		d = -d
	}
	return d <= window
}

// groupEnough says whether two stories published at a and b (Unix seconds, 0 for unknown),
// sharing words single words and names multi-word names (each two-word run of capitalised
// words), have enough in common to be linked, beyond the base test (the threshold and two
// shared words). Published more than groupFarHours apart, a multi-word name counts as one
// piece of evidence, not as its words: they must share a name and another word, or two words
// outside names (words − names ≥ 2).
//
// Why, for a reader: coverage of one event comes in a burst — outlets reword the same report
// within the hour — and in a burst two headlines sharing a rare two-word name ("Frankie
// Knuckles", "Mary Barra") are almost always the same story. Hours apart, a name alone means
// much less: "High School", "White House", a show or a team comes back all day in other
// events ("Shelby County High School student arrested" is not the "High School Musical"
// reunion). A story that really continues repeats something besides the name (what happened,
// where, a figure: "Frankie Knuckles dies at 59", "GM recalls … more cars"), so it is still
// recognised across the day and from the last days' reports. Asking more than that hours
// apart (three shared words, twice the similarity) was tried and rejected: it split
// follow-ups a reader counts as one story — the IPCC report morning and evening, the Ebola
// outbreak and the next hours' explainers — more often than it removed a wrong merge (see
// BENCHMARKS.md). Stories without a time are judged as if close.
func groupEnough(a, b int64, words, names int) bool {
	if groupFarHours <= 0 || a == 0 || b == 0 {
		return true
	}
	d := a - b
	if d < 0 {
		d = -d
	}
	return float64(d) <= groupFarHours*3600 || words-names >= 2
}

// groupUnix is t in Unix seconds, 0 for no time (and 1 for the epoch itself).
func groupUnix(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	if u := t.Unix(); u != 0 {
		return u
	}
	return 1
}

type groupMatch struct {
	j   int32
	sim float64
}

// groupCentroid is the sum of a group's vectors, grown as stories join.
type groupCentroid struct {
	acc   map[int32]float64
	norm2 float64
}

func (c *groupCentroid) add(v []groupEntry) {
	for _, e := range v {
		old := c.acc[e.id]
		w := old + float64(e.w)
		c.acc[e.id] = w
		c.norm2 += w*w - old*old
	}
}

// similarity is the cosine of v (normalized) and the centroid.
func (c *groupCentroid) similarity(v []groupEntry) float64 {
	if c.norm2 <= 0 {
		return 0
	}
	var dot float64
	for _, e := range v {
		dot += float64(e.w) * c.acc[e.id]
	}
	return dot / math.Sqrt(c.norm2)
}

// groupEntry is a term of a story's vector: its id and weight; word says it is a single word
// (not a multi-word name), for counting shared words.
type groupEntry struct {
	id   int32
	word bool
	w    float32
}

// groupSimilarity is the cosine of two normalized vectors sorted by id, how many single
// words they share, and how many multi-word names.
func groupSimilarity(a, b []groupEntry) (float64, int, int) {
	var dot float64
	shared, phrases := 0, 0
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i].id < b[j].id:
			i++
		case a[i].id > b[j].id:
			j++
		default:
			dot += float64(a[i].w) * float64(b[j].w)
			if a[i].word {
				shared++
			} else {
				phrases++
			}
			i++
			j++
		}
	}
	return dot, shared, phrases
}

// groupMaxPostings: a word finds candidates among the latest this many stories (or groups)
// that have it.
const groupMaxPostings = 64

// Weights of a term's kind, and of a lead's words against the title's.
var (
	// groupCentroidThreshold: the least similarity of two groups' centroids that merges them;
	// 0 turns the merging off.
	groupCentroidThreshold = 0.35
	// groupCoherence: the least similarity of a story to the group of its best match (when
	// that group has two members or more) for the story to join it.
	groupCoherence = 0.25
	// groupOutlier: the least similarity of a member to the rest of its group (their
	// centroid) for it to stay in the group; 0 turns the check off.
	groupOutlier = 0.15
	// groupLoners: 1 to look again at the stories left alone (against the stories ranked after
	// them too), 0 not to.
	groupLoners = 1.0
	// groupFarHours: stories published further apart than this many hours need more than a
	// shared multi-word name to be linked (groupEnough); 0 turns this off.
	groupFarHours = 3.0

	groupNameWeight   = 1.5
	groupNumberWeight = 1.3
	groupPhraseWeight = 1.5
	groupLeadWeight   = 0.5
)

// groupIndex holds the stories' weighted term vectors and the inverted index over them.
type groupIndex struct {
	vecs     [][]groupEntry
	df       []int32
	postings [][]groupPosting // by term: the stories placed so far that have it
	maxDF    int32            // terms in more stories than this are too common to count
}

// groupShared accumulates, per candidate story, what it shares with the story being placed
// (stamp marks the current story's candidates, so nothing is cleared between stories): its
// single words, its multi-word names and the dot product of the two vectors. touched lists
// the candidates of the current story.
type groupShared struct {
	seen, hits, nameHits []int32
	dots                 []float64
	touched              []int32
}

func newGroupShared(n int) *groupShared {
	return &groupShared{seen: make([]int32, n), hits: make([]int32, n), nameHits: make([]int32, n), dots: make([]float64, n)}
}

// add counts term e of the placed story, of weight w in candidate j's vector.
func (s *groupShared) add(j, stamp int32, e groupEntry, w float32) {
	if s.seen[j] != stamp {
		s.seen[j], s.hits[j], s.dots[j], s.nameHits[j] = stamp, 0, 0, 0
		s.touched = append(s.touched, j)
	}
	s.dots[j] += float64(e.w) * float64(w)
	if e.word {
		s.hits[j]++
	} else {
		s.nameHits[j]++
	}
}

type groupPosting struct {
	doc int32
	w   float32
}

func (ix *groupIndex) postable(id int32) bool { return ix.df[id] <= ix.maxDF }

type groupTerm struct {
	key    string
	id     int32
	weight float64 // title 1, lead groupLeadWeight, summed over occurrences
	name   bool
	number bool
	phrase bool
}

func newGroupIndex(stories []Story, leadWords int) *groupIndex {
	n := len(stories)
	words := make([][][]groupWord, n) // per story: title words, lead words
	// Splitting into words is most of the work and each story's is its own: share it out.
	workers := min(runtime.GOMAXPROCS(0), max(1, n/500))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				title := groupWords(stories[i].Title)
				var lead []groupWord
				if leadWords > 0 {
					lead = groupWords(groupOpening(stories[i].Lead, leadWords))
				}
				words[i] = [][]groupWord{title, lead}
			}
		})
	}
	wg.Wait()
	nameVotes := map[string]int{} // capitalised mid-sentence (+) or written in lower case (−)
	for i := range stories {
		for _, part := range words[i] {
			for _, w := range part {
				switch {
				case w.stop || w.number:
				case w.local:
					nameVotes[w.key]++
				case !w.capital:
					nameVotes[w.key]--
				}
			}
		}
	}
	isName := func(w groupWord) bool {
		return !w.stop && !w.number && (strings.HasPrefix(w.key, "#") || w.capital && nameVotes[w.key] > 0)
	}
	ids := map[string]int32{}
	var df []int32
	// per term id: the last story it was seen in (+1) and its place in that story's terms
	var lastStory, place []int32
	terms := make([][]groupTerm, n)
	for i := range stories {
		var ts []groupTerm
		add := func(t groupTerm) {
			id, ok := ids[t.key]
			if !ok {
				id = int32(len(df))
				ids[t.key] = id
				df = append(df, 0)
				lastStory = append(lastStory, 0)
				place = append(place, 0)
			}
			if lastStory[id] == int32(i+1) {
				k := place[id]
				ts[k].weight += t.weight
				ts[k].name = ts[k].name || t.name
				return
			}
			lastStory[id], place[id] = int32(i+1), int32(len(ts))
			df[id]++
			t.id = id
			ts = append(ts, t)
		}
		for p, part := range words[i] {
			weight := 1.0
			if p == 1 {
				weight = groupLeadWeight
			}
			for k, w := range part {
				if w.stop {
					continue
				}
				name := isName(w)
				add(groupTerm{key: w.key, weight: weight, name: name, number: w.number})
				if name && k > 0 && !w.brk && isName(part[k-1]) {
					add(groupTerm{key: part[k-1].key + " " + w.key, weight: weight, phrase: true})
				}
			}
		}
		terms[i] = ts
	}
	ix := &groupIndex{vecs: make([][]groupEntry, n), df: df, postings: make([][]groupPosting, len(df))}
	// Informative terms: those in at most 5% of a big batch's stories (200 of a small one).
	ix.maxDF = int32(max(200, n/20))
	for i, ts := range terms {
		v := make([]groupEntry, 0, len(ts))
		var norm float64
		for _, t := range ts {
			id := t.id
			if !ix.postable(id) {
				continue // in so many of a big batch's stories that it tells none apart
			}
			idf := math.Log(1 + float64(n)/float64(df[id]))
			// a word in the title counts 1, its repetition in the lead adds less
			w := math.Min(t.weight, 2) * idf
			switch {
			case t.phrase:
				w *= groupPhraseWeight
			case t.name:
				w *= groupNameWeight
			case t.number:
				w *= groupNumberWeight
			}
			norm += w * w
			// Multi-word names are not counted as shared words: their words are.
			v = append(v, groupEntry{id: id, word: !t.phrase, w: float32(w)})
		}
		norm = math.Sqrt(norm)
		for k := range v {
			v[k].w = float32(float64(v[k].w) / norm)
		}
		slices.SortFunc(v, func(a, b groupEntry) int { return cmp.Compare(a.id, b.id) })
		ix.vecs[i] = v
	}
	return ix
}

// groupOpening is the opening of a lead: its first two sentences, at most maxWords words.
func groupOpening(lead string, maxWords int) string {
	if limit := maxWords * 20; len(lead) > limit { // a whole article may come in: read only its start
		cut := limit
		for cut > 0 && !utf8.RuneStart(lead[cut]) {
			cut--
		}
		lead = lead[:cut]
	}
	f := strings.Fields(lead)
	if len(f) > maxWords {
		f = f[:maxWords]
	}
	sentencesSeen := 0
	for k, w := range f {
		if k+1 < len(f) && strings.ContainsAny(w[len(w)-1:], ".!?") && len(w) > 3 {
			next, _ := utf8.DecodeRuneInString(f[k+1])
			if unicode.IsUpper(next) || unicode.IsDigit(next) {
				sentencesSeen++
				if sentencesSeen == 2 {
					return strings.Join(f[:k+1], " ")
				}
			}
		}
	}
	return strings.Join(f, " ")
}

// groupMergeByCentroid merges groups that tell one story: a group's centroid (the sum of its
// members' vectors) holds the words its headlines keep repeating, so two groups of the same
// event resemble each other more than any two of their headlines do. Groups are taken in
// rank order; each joins the earlier group most like it when their centroids are similar
// enough and a member of each, published within the window, share at least two informative
// words. Lone stories are left alone: they were compared with every story already. It returns the pairs of members that justified each
// merge.
func groupMergeByCentroid(ix *groupIndex, stories []Story, o GroupOptions, find func(int32) int32, union func(a, b int32)) [][2]int {
	n := len(stories)
	members := map[int32][]int{}
	var roots []int32
	for i := 0; i < n; i++ {
		r := find(int32(i))
		if _, ok := members[r]; !ok {
			roots = append(roots, r)
		}
		members[r] = append(members[r], i)
	}
	// A lone story was compared with every story already: only groups are merged here.
	multi := roots[:0]
	for _, r := range roots {
		if len(members[r]) >= 2 {
			multi = append(multi, r)
		}
	}
	roots = multi
	centroid := make(map[int32][]groupEntry, len(roots))
	for _, r := range roots {
		acc := map[int32]float64{}
		word := map[int32]bool{}
		for _, m := range members[r] {
			for _, e := range ix.vecs[m] {
				acc[e.id] += float64(e.w)
				word[e.id] = e.word
			}
		}
		ids := make([]int32, 0, len(acc))
		for id := range acc {
			ids = append(ids, id)
		}
		slices.Sort(ids) // sum in a fixed order: the result must not depend on map order
		v := make([]groupEntry, len(ids))
		var norm float64
		for k, id := range ids {
			norm += acc[id] * acc[id]
			v[k] = groupEntry{id: id, word: word[id]}
		}
		norm = math.Sqrt(norm)
		for k, id := range ids {
			v[k].w = float32(acc[id] / norm)
		}
		centroid[r] = v
	}
	const maxPairs = 32 // members of each group tried when looking for two headlines sharing two words
	postings := map[int32][]groupPosting{}
	sh := newGroupShared(n) // by root
	hits, dots := sh.hits, sh.dots
	var links [][2]int
	for k, r := range roots {
		// Candidates and their similarity, accumulated through the index as in Group.
		sh.touched = sh.touched[:0]
		for _, e := range centroid[r] {
			p := postings[e.id]
			for q := len(p) - 1; q >= max(0, len(p)-groupMaxPostings); q-- {
				sh.add(p[q].doc, int32(k+1), e, p[q].w)
			}
		}
		for _, e := range centroid[r] {
			postings[e.id] = append(postings[e.id], groupPosting{doc: r, w: e.w})
		}
		var cands []int32
		for _, s := range sh.touched {
			if hits[s] >= 2 && dots[s] >= groupCentroidThreshold {
				cands = append(cands, s)
			}
		}
		slices.SortFunc(cands, func(a, b int32) int {
			if dots[a] != dots[b] {
				return cmp.Compare(dots[b], dots[a])
			}
			return cmp.Compare(a, b)
		})
		// The most similar group with two headlines, one of each, sharing two words.
		best, bestPair := int32(-1), [2]int{}
		for _, s := range cands {
			pair, pairSim := [2]int{-1, -1}, -1.0
			for _, a := range members[r][:min(len(members[r]), maxPairs)] {
				for _, b := range members[s][:min(len(members[s]), maxPairs)] {
					if !groupWithin(stories[a].At, stories[b].At, o.Window) {
						continue
					}
					ps, sh, sn := groupSimilarity(ix.vecs[a], ix.vecs[b])
					if sh >= 2 && ps > pairSim && groupEnough(groupUnix(stories[a].At), groupUnix(stories[b].At), sh, sn) {
						pair, pairSim = [2]int{a, b}, ps
					}
				}
			}
			if pair[0] >= 0 {
				best, bestPair = s, pair
				break
			}
		}
		if best >= 0 {
			union(r, best)
			links = append(links, bestPair)
		}
	}
	return links
}

// groupDetachOutliers takes out of each group of three or more the members that are not like
// the rest of it: a member whose similarity to the centroid of the other members is below
// groupOutlier joined through one member only (best-match linking chains: "Shelby County High
// School student arrested" joins a group about Zac Efron and "High School Musical" through one
// headline) and becomes a group of its own. A group is checked again without the members that
// left it, at most three times. Groups keep the order of their leads; a detached story's group
// comes where its rank puts it. The cost is that of reading each member's vector a few times.
func groupDetachOutliers(ix *groupIndex, groups [][]int) [][]int {
	var out [][]int
	var alone []int
	sum := make([]float64, len(ix.df)) // by term: the group's sum, cleared after each group
	for _, members := range groups {
		for round := 0; round < 3 && len(members) >= 3; round++ {
			var norm2 float64
			for _, m := range members {
				for _, e := range ix.vecs[m] {
					old := sum[e.id]
					sum[e.id] = old + float64(e.w)
					norm2 += sum[e.id]*sum[e.id] - old*old
				}
			}
			kept := members[:0:0]
			var left []int
			for _, m := range members {
				var dot, self float64
				for _, e := range ix.vecs[m] {
					dot += float64(e.w) * sum[e.id]
					self += float64(e.w) * float64(e.w)
				}
				// the cosine of the member and the sum of the other members
				sim := 0.0
				if rest := norm2 - 2*dot + self; rest > 1e-12 {
					sim = (dot - self) / math.Sqrt(rest)
				}
				if sim < groupOutlier {
					left = append(left, m)
				} else {
					kept = append(kept, m)
				}
			}
			for _, m := range members {
				for _, e := range ix.vecs[m] {
					sum[e.id] = 0
				}
			}
			if len(left) == 0 {
				break
			}
			if len(kept) == 0 { // no member is like the others: nothing holds the group together
				kept, left = left[:1], left[1:]
			}
			alone = append(alone, left...)
			members = kept
		}
		out = append(out, members)
	}
	for _, i := range alone {
		out = append(out, []int{i})
	}
	slices.SortFunc(out, func(a, b []int) int { return cmp.Compare(a[0], b[0]) })
	return out
}

// groupRelink makes LinkedTo, Similarity and Links agree with groups that lost members: a
// story whose link leads out of its group is linked to the member ranked before it that it is
// most like among those sharing two words with it (or to none, when it leads its group).
func groupRelink(ix *groupIndex, g *Grouping) {
	groupOf := make([]int, len(g.LinkedTo))
	for k, members := range g.Groups {
		for _, i := range members {
			groupOf[i] = k
		}
	}
	links := g.Links[:0]
	for _, l := range g.Links {
		if groupOf[l[0]] == groupOf[l[1]] {
			links = append(links, l)
		}
	}
	for k, members := range g.Groups {
		for _, i := range members {
			j := g.LinkedTo[i]
			if j < 0 || groupOf[j] == k {
				continue
			}
			best, bestSim := -1, 0.0
			for _, m := range members {
				if m >= i {
					break
				}
				if sim, shared, _ := groupSimilarity(ix.vecs[i], ix.vecs[m]); shared >= 2 && sim > bestSim {
					best, bestSim = m, sim
				}
			}
			g.LinkedTo[i], g.Similarity[i] = best, bestSim
			if best >= 0 {
				links = append(links, [2]int{i, best})
			}
		}
	}
	g.Links = links
}
