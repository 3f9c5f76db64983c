package story

import (
	"math"
	"time"
)

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
