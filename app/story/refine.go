package story

import (
	"cmp"
	"math"
	"slices"
)

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
