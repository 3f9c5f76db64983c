// Package story groups reworded coverage of one event (same-story grouping) for briefings:
// Group links the stories of a period by their titles and leads, AlsoCovered picks the other
// outlets to show under a group's lead. It has its own tokenizer (words.go) and needs no
// collection statistics: how rare a word is comes from the stories themselves.
package story

import (
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
	// Threshold is the least linkage (see LinkModel) that merges two groups. 0: the model's.
	Threshold float64
	// LeadWords: how many words of the lead's opening sentences count. 0: 40; negative: none.
	LeadWords int
	// Earlier are stories of past periods (say, the leads of the last days' reports). When
	// given, Grouping.Continues says which earlier story each group continues (the window
	// does not apply to them). They count in how rare words are, and are never grouped.
	Earlier []Story
	// Model weighs pairs of stories and forms groups; nil: the built-in one, learned from
	// news headlines by scripts/storylinks (linkmodel.go).
	Model *LinkModel
}

// DefaultGroupThreshold is the least similarity (a cosine of weighted terms) by which a group
// continues an earlier story (GroupOptions.Earlier).
const DefaultGroupThreshold = 0.15

// Grouping is the result of Group.
type Grouping struct {
	// Groups lists each group's members by index into the stories, in rank (input) order, so
	// the first is the group's lead; groups are in the order of their leads.
	Groups [][]int
	// LinkedTo is, per story, the member of its group it is likeliest one story with (by the
	// link model), among the members ranked before it sharing two words with it or, for a story
	// with none, among all members sharing two words with it — or -1 when there is none (a
	// group's lead, a story alone); Similarity is that link's probability.
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
// pair of stories that share a word, found through an inverted index over their titles' and
// leads' words (each word's latest 64 stories, never all pairs), is weighed by a learned link
// model (LinkModel, linkmodel.go: a logistic regression over the lexical cosine of weighted
// terms, the shared words, names, numbers and how rare they are, what the words mean by the
// embedded word vectors, the hours apart beyond a three-hour burst, and whether one outlet
// published both), trained on news headlines whose outlets a news aggregator grouped
// (scripts/storylinks). Groups then form by average linkage: each story starts alone, and the
// two groups whose pairs are likeliest on average merge, while that average is at least the
// model's threshold and their pairs sharing two words or more are enough by themselves (one
// rare word in common never merges two headlines: "rally", "unchanged"). A big running story is
// grouped through the many pairs of its headlines, and one headline that bridges two stories
// cannot chain them. Names (capitalised words, multi-word names) and numbers weigh more than
// other words in the cosine; how rare a word is comes from the stories themselves, so Group
// needs no collection statistics. 20,000 stories take about a second of CPU. The result is
// deterministic.
func Group(stories []Story, o GroupOptions) Grouping {
	o = o.withDefaults()
	m := o.Model
	if m == nil {
		m = &defaultLinkModel
	}
	threshold := m.Threshold
	if o.Threshold > 0 {
		threshold = o.Threshold
	}
	all := stories
	if len(o.Earlier) > 0 {
		all = append(append(make([]Story, 0, len(stories)+len(o.Earlier)), stories...), o.Earlier...)
	}
	ix := newGroupIndex(all, o.LeadWords)
	n := len(stories)
	g := Grouping{LinkedTo: make([]int, n), Similarity: make([]float64, n)}
	// The candidate pairs and how likely each is one story; the earlier stories are indexed
	// (they count in how rare words are) but not weighed here.
	var edges []groupEdge
	groupCandidates(ix, stories, o, func(i, j int32, x *[NumLinkFeatures]float64) {
		if p := m.Prob(x); p >= m.MinProb {
			edges = append(edges, groupEdge{i, j, p, x[13] == 0})
		}
	})
	root := groupAgglomerate(n, edges, threshold, m.StrongThreshold, m.Alpha)
	rootGroup := map[int32]int{}
	for i := 0; i < n; i++ {
		r := root[i]
		k, ok := rootGroup[r]
		if !ok {
			k = len(g.Groups)
			rootGroup[r] = k
			g.Groups = append(g.Groups, nil)
		}
		g.Groups[k] = append(g.Groups[k], i)
	}
	// Each member's link: its likeliest pair in its group with a story ranked before it, or,
	// for a member with none, with any story of its group.
	for i := range g.LinkedTo {
		g.LinkedTo[i] = -1
	}
	for _, e := range edges { // e.i > e.j
		if !e.strong || root[e.i] != root[e.j] {
			continue
		}
		if e.p > g.Similarity[e.i] || e.p == g.Similarity[e.i] && int(e.j) < g.LinkedTo[e.i] {
			g.LinkedTo[e.i], g.Similarity[e.i] = int(e.j), e.p
		}
	}
	for _, e := range edges {
		if !e.strong || root[e.i] != root[e.j] || e.j == root[e.j] {
			continue
		}
		if j := int(e.j); g.LinkedTo[j] < 0 || g.LinkedTo[j] > j && (e.p > g.Similarity[j] || e.p == g.Similarity[j] && int(e.i) < g.LinkedTo[j]) {
			g.LinkedTo[j], g.Similarity[j] = int(e.i), e.p
		}
	}
	for i, j := range g.LinkedTo {
		if j >= 0 {
			g.Links = append(g.Links, [2]int{i, j})
		}
	}
	at := make([]int64, n)
	for i, st := range stories {
		at[i] = groupUnix(st.At)
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
					if shared >= 2 && sim >= DefaultGroupThreshold && sim > bestSim[k] && groupEnough(groupUnix(o.Earlier[e].At), at[j], shared, nm) {
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
