package enrich

import (
	"math"
	"time"
)

// Story is what story grouping compares: a title, the opening of the text, and when it was published.
type Story struct {
	Title string
	Lead  string
	At    time.Time
}

// GroupStories groups reworded coverage of one event: items whose title and lead are close by
// TF-IDF cosine (at least threshold, e.g. 0.25) and published within window of each other. Items
// come in rank order; each group lists its members' indexes, the best ranked first, and groups
// are in the order of their best member. Word overlap of reworded headlines is small, so the
// lead (the first ~60 words) carries most of the signal; near-verbatim copies score close to 1.
func (s *Stats) GroupStories(stories []Story, threshold float64, window time.Duration) [][]int {
	vecs := make([]map[string]float64, len(stories))
	for i, st := range stories {
		vecs[i] = s.vector(st.Title, cutWords(st.Lead, 60))
	}
	var groups [][]int
	for i := range stories {
		placed := false
		for g, members := range groups {
			head := members[0]
			if window > 0 && absDuration(stories[i].At.Sub(stories[head].At)) > window {
				continue
			}
			if cosine(vecs[i], vecs[head]) >= threshold {
				groups[g] = append(groups[g], i)
				placed = true
				break
			}
		}
		if !placed {
			groups = append(groups, []int{i})
		}
	}
	return groups
}

// vector is the TF-IDF vector of a title (weighing double) and a lead, normalized to length 1.
func (s *Stats) vector(title, lead string) map[string]float64 {
	v := map[string]float64{}
	for _, t := range tokenize(title) {
		if !t.stop {
			v[t.key] += 2
		}
	}
	for _, t := range tokenize(lead) {
		if !t.stop {
			v[t.key]++
		}
	}
	var norm float64
	for k, tf := range v {
		w := (1 + math.Log(tf)) * s.idf(k)
		v[k] = w
		norm += w * w
	}
	norm = math.Sqrt(norm)
	if norm > 0 {
		for k := range v {
			v[k] /= norm
		}
	}
	return v
}

func cosine(a, b map[string]float64) float64 {
	if len(a) > len(b) {
		a, b = b, a
	}
	var dot float64
	for k, x := range a {
		dot += x * b[k]
	}
	return dot
}

func absDuration(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}
