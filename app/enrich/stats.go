package enrich

import (
	"github.com/morningdeck/morningdeck/app/wordvec"
	"hash/maphash"
	"math"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Stats are the collection's statistics for TF-IDF and BM25: document frequencies (of stems,
// and of short words and acronyms as written, "=Go") and the number of documents, kept incrementally as items arrive (the caller seeds them from stored items at start-up
// through Observe). Safe for concurrent use.
type Stats struct {
	mu    sync.RWMutex
	df    map[uint64]int32 // termKey → documents
	docs  int
	limit int
}

// The statistics keep 64-bit hashes of the terms, not the terms: a term costs ~20 bytes instead
// of ~100 with its string and a pair no string at all (issue 14: they are most of the live heap
// of a long-running server). Two terms sharing a hash would share a count: at 64 bits, never in
// practice; nothing is stored, so the seed may change between runs.
var statsSeed = maphash.MakeSeed()

func termKey(k string) uint64 { return maphash.String(statsSeed, k) }

// NewStats returns empty statistics that keep at most vocabulary terms.
func NewStats(vocabulary int) *Stats {
	return &Stats{df: map[uint64]int32{}, limit: max(vocabulary, 1000)}
}

// Observe adds a document's terms.
func (s *Stats) Observe(doc string) {
	s.observe(tokenize(cleanText(cutText(doc, maxAnalysed))))
}

// termSets are observe's scratch sets, reused: a map an item was 4 % of what a first ingestion
// allocated.
var termSets = sync.Pool{New: func() any { return map[uint64]struct{}{} }}

// observe adds one document read as runs of tokens (an item's title and its text, as Enrich
// reads them).
func (s *Stats) observe(runs ...[]token) {
	seen := termSets.Get().(map[uint64]struct{})
	defer func() {
		clear(seen)
		termSets.Put(seen)
	}()
	for _, toks := range runs {
		for _, t := range toks {
			if t.surface == "" {
				continue
			}
			if !t.stop {
				seen[termKey(t.key)] = struct{}{}
			}
			if caseSensitive(t.surface) {
				seen[termKey(caseKey(t.surface))] = struct{}{}
			}
			if strings.ContainsRune(t.surface, '-') {
				for _, p := range strings.Split(t.surface, "-") {
					if caseSensitive(p) {
						seen[termKey(caseKey(p))] = struct{}{}
					}
				}
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.docs++
	for k := range seen {
		s.df[k]++
	}
	if len(s.df) > s.limit {
		// Forget the rarest terms; they weigh little and would grow the map without bound.
		for k, n := range s.df {
			if n <= 1 {
				delete(s.df, k)
			}
		}
	}
}

// caseSensitive reports whether a word as written is kept by its case in the statistics: a
// short word or an acronym starting with a capital or a digit (Go, US, AI, 5G, AWS).
func caseSensitive(w string) bool {
	if w == "" || len(w) > 5 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(w)
	if !unicode.IsUpper(r) && !unicode.IsDigit(r) {
		return false
	}
	return len(w) <= 3 || strings.ToUpper(w) == w
}

// Docs is the number of documents observed.
func (s *Stats) Docs() int { s.mu.RLock(); defer s.mu.RUnlock(); return s.docs }

// refLen is the length, in words, against which BM25 weighs a text's length: a constant, not
// the collection's average, so that an item's score does not depend on which items were seen
// before it (issue 25: a first import's batch and the whole collection have different averages).
const refLen = 400.0

// common reports whether key is in so many documents that it is a function word of some
// language, whatever the stop lists say (language-independent filtering by document frequency).
func (s *Stats) common(key string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.docs >= 100 && float64(s.df[termKey(key)]) > 0.25*float64(s.docs)
}

// idf is BM25's inverse document frequency, smoothed so that an empty collection weighs every
// term alike.
func (s *Stats) idf(term string) float64 {
	k := termKey(term)
	s.mu.RLock()
	n, df := float64(s.docs), float64(s.df[k])
	s.mu.RUnlock()
	if n < 20 {
		n, df = 20, min(df, 1) // too few documents to judge: treat terms as rare
	}
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// wordShare is the share of documents of general English text that have a word (lower case):
// the word vectors are in frequency order, and by Zipf's law a word of rank r is in about
// 20/(r+100) of documents — 0.2 for the commonest, 1 in 50 at rank 1,000, 1 in 500 at 10,000,
// 1 in 3,000 at 60,000. A word without a vector (a name, a code, a word of another language)
// is taken as rarer than all of them.
func wordShare(lower string) float64 {
	r := wordvec.Rank(lower)
	if r < 0 {
		r = 2 * wordvec.Len()
	}
	return 20 / (float64(r) + 100)
}

// priorDocs is how many documents the general share of a word counts for against the
// collection's own count (see idfOf).
var priorDocs = 2000.0

// idfOf is the inverse document frequency of a word: its share of the collection's documents
// (key: its statistics key) as evidence on its share of general English (wordShare), so
// that a few documents cannot make a common word rare (issue 25: an item scored 32 in a first
// import and 66 through the queue, when every word of the first few documents counted as rare)
// and a large collection still says what is common in it (AWS in a feed about AWS). The scale is
// BM25's, log(1 + 1/p).
func (s *Stats) idfOf(key string, share float64) float64 {
	k := termKey(key)
	s.mu.RLock()
	n, df := float64(s.docs), float64(s.df[k])
	s.mu.RUnlock()
	return shareIDF((df + priorDocs*share) / (n + priorDocs))
}

// shareIDF is the inverse document frequency of a word in a share p of documents, on BM25's
// scale.
func shareIDF(p float64) float64 { return math.Log(1 + 1/p) }

// rarestIDF is shareIDF of a word of general English rarer than any with a vector.
var rarestIDF = sync.OnceValue(func() float64 { return shareIDF(wordShare("")) })

// maxIDF is the inverse document frequency of a word never seen, for the collection as it is.
func (s *Stats) maxIDF() float64 { return s.idfOf("\x00", wordShare("\x00")) }
