package story

import "time"

// groupEnough says, for a group continuing an earlier story, whether two stories published at
// a and b (Unix seconds, 0 for unknown),
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
	if a == 0 || b == 0 {
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

// groupEntry is a term of a story's vector: its id, kind and weight, and its idf over
// log(1 + stories) (0–1).
type groupEntry struct {
	id   int32
	kind uint8
	w    float32
	idf  float32
}

// Kinds of terms: a plain word, a name (capitalised where capitals mean something), a number,
// a multi-word name (two names in a row; not counted as a shared word: its words are).
const (
	groupKindWord uint8 = iota
	groupKindName
	groupKindNumber
	groupKindPhrase
)

// word says the term is a single word, not a multi-word name.
func (e groupEntry) word() bool { return e.kind != groupKindPhrase }

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
			if a[i].word() {
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

// groupFarHours: a group continues an earlier story (GroupOptions.Earlier) published further
// apart than this many hours only when they share more than a multi-word name (groupEnough).
const groupFarHours = 3.0

// Weights of a term's kind, and of a lead's words against the title's, in a story's vector: the
// lexical cosine the link model weighs (hand-set before the model was learned; the model learned
// how much the cosine counts).
var (
	groupNameWeight   = 1.5
	groupNumberWeight = 1.3
	groupPhraseWeight = 1.5
	groupLeadWeight   = 0.5
)
