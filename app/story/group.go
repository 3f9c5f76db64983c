// Package story groups reworded coverage of one event (same-story grouping) for briefings:
// Group links the stories of a period by their titles and leads, AlsoCovered picks the other
// outlets to show under a group's lead. It has its own tokenizer (words.go) and needs no
// collection statistics: how rare a word is comes from the stories themselves.
package story

import (
	"cmp"
	"slices"
	"strings"
	"time"
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
