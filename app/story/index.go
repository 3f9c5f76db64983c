package story

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/morningdeck/morningdeck/app/wordvec"
)

// groupIndex holds the stories' weighted term vectors and the inverted index over them.
type groupIndex struct {
	vecs     [][]groupEntry
	sem      []wordvec.Vector // per story: what its words mean (the embedded word vectors), unit length or zero
	words    []int32          // per story: how many single words its vector holds
	logN     float64          // log(1 + stories): an idf over it is in 0–1
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
	names, numbers       []int32   // shared single-word names, shared numbers
	dots                 []float64 // the dot product of the two vectors
	idfSum, idfMax       []float32 // the shared single words' idf (over log(1+stories)): sum and largest
	touched              []int32
}

func newGroupShared(n int) *groupShared {
	return &groupShared{seen: make([]int32, n), hits: make([]int32, n), nameHits: make([]int32, n),
		names: make([]int32, n), numbers: make([]int32, n), dots: make([]float64, n),
		idfSum: make([]float32, n), idfMax: make([]float32, n)}
}

// add counts term e of the placed story, of weight w in candidate j's vector.
func (s *groupShared) add(j, stamp int32, e groupEntry, w float32) {
	if s.seen[j] != stamp {
		s.seen[j], s.hits[j], s.dots[j], s.nameHits[j] = stamp, 0, 0, 0
		s.names[j], s.numbers[j], s.idfSum[j], s.idfMax[j] = 0, 0, 0, 0
		s.touched = append(s.touched, j)
	}
	s.dots[j] += float64(e.w) * float64(w)
	if !e.word() {
		s.nameHits[j]++
		return
	}
	s.hits[j]++
	s.idfSum[j] += e.idf
	s.idfMax[j] = max(s.idfMax[j], e.idf)
	switch e.kind {
	case groupKindName:
		s.names[j]++
	case groupKindNumber:
		s.numbers[j]++
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
	sem := make([]wordvec.Vector, n)
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
				sem[i] = groupMeaning(title, lead)
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
	ix := &groupIndex{vecs: make([][]groupEntry, n), df: df, postings: make([][]groupPosting, len(df)),
		sem: sem, words: make([]int32, n), logN: math.Log(1 + float64(n))}
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
			kind := groupKindWord
			switch {
			case t.phrase:
				w *= groupPhraseWeight
				kind = groupKindPhrase
			case t.name:
				w *= groupNameWeight
				kind = groupKindName
			case t.number:
				w *= groupNumberWeight
				kind = groupKindNumber
			}
			norm += w * w
			if kind != groupKindPhrase {
				ix.words[i]++
			}
			// Multi-word names are not counted as shared words: their words are.
			v = append(v, groupEntry{id: id, kind: kind, w: float32(w), idf: float32(idf / ix.logN)})
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

// groupMeaning is what a story's words mean together: the sum of the embedded vectors of its
// title's words and, counting half, its lead's (each weighed by how rare the word is in
// English), less what any text looks like, of unit length — zero when no word is known. Two
// rewordings of one event ("dies" and "passes away", "buys" and "acquisition") are close by
// it where they share few words.
func groupMeaning(title, lead []groupWord) wordvec.Vector {
	var v wordvec.Vector
	var total float32
	for p, part := range [2][]groupWord{title, lead} {
		weight := float32(1)
		if p == 1 {
			weight = float32(groupLeadWeight)
		}
		for _, w := range part {
			if w.stop || w.number || w.lower == "" {
				continue
			}
			r := wordvec.Rank(w.lower)
			if r < 0 {
				continue
			}
			k := weight * wordvec.Weight(r)
			wordvec.AddTo(&v, r, k)
			total += k
		}
	}
	if !v.Subject(total) {
		return wordvec.Vector{}
	}
	return v
}
