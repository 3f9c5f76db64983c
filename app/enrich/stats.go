package enrich

import (
	"hash/maphash"
	"math"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Stats are the collection's statistics for TF-IDF and BM25: document frequencies (of stems,
// and of short words and acronyms as written, "=Go"), the number of documents and their total
// length, kept incrementally as items arrive (the caller seeds them from stored items at start-up
// through Observe). Safe for concurrent use.
type Stats struct {
	mu       sync.RWMutex
	df       map[uint64]int32 // termKey → documents
	bigrams  map[uint64]int32 // pairKey of two keys → documents with the two words next to each other
	docs     int
	totalLen int64
	limit    int
}

// The statistics keep 64-bit hashes of the terms, not the terms: a term costs ~20 bytes instead
// of ~100 with its string and a pair no string at all (issue 14: they are most of the live heap
// of a long-running server). Two terms sharing a hash would share a count: at 64 bits, never in
// practice; nothing is stored, so the seed may change between runs.
var statsSeed = maphash.MakeSeed()

func termKey(k string) uint64 { return maphash.String(statsSeed, k) }

// pairKey combines the keys of two words, in order.
func pairKey(a, b uint64) uint64 {
	x := a ^ (b*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019)
	x ^= x >> 31
	x *= 0xbf58476d1ce4e5b9
	return x ^ x>>29
}

// NewStats returns empty statistics that keep at most vocabulary terms.
func NewStats(vocabulary int) *Stats {
	return &Stats{df: map[uint64]int32{}, bigrams: map[uint64]int32{}, limit: max(vocabulary, 1000)}
}

// Observe adds a document's terms.
func (s *Stats) Observe(doc string) {
	s.observe(tokenize(cleanText(cutText(doc, maxAnalysed))))
}

// termSets are observe's scratch sets, reused: two maps an item were 4 % of what a first
// ingestion allocated.
var termSets = sync.Pool{New: func() any { return &[2]map[uint64]struct{}{{}, {}} }}

// observe adds one document read as runs of tokens (an item's title and its text, as Enrich
// reads them): no pair of words spans two runs.
func (s *Stats) observe(runs ...[]token) {
	sets := termSets.Get().(*[2]map[uint64]struct{})
	seen, pairs := sets[0], sets[1]
	defer func() {
		clear(seen)
		clear(pairs)
		termSets.Put(sets)
	}()
	n := 0
	for _, toks := range runs {
		var prev uint64 // termKey of toks[i-1].key, when i-1 was a word and not a stop word
		prevOK := false
		for i, t := range toks {
			if t.surface == "" {
				prevOK = false
				continue
			}
			n++
			if !t.stop {
				k := termKey(t.key)
				seen[k] = struct{}{}
				if i > 0 && !toks[i-1].stop {
					if !prevOK {
						prev = termKey(toks[i-1].key)
					}
					pairs[pairKey(prev, k)] = struct{}{}
				}
				prev, prevOK = k, true
			} else {
				prevOK = false
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
	s.totalLen += int64(n)
	for k := range seen {
		s.df[k]++
	}
	for k := range pairs {
		s.bigrams[k]++
	}
	if len(s.bigrams) > s.limit {
		for k, n := range s.bigrams {
			if n <= 1 {
				delete(s.bigrams, k)
			}
		}
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

// avgLen is the average number of words of the observed documents (400 before there are 20).
func (s *Stats) avgLen() float64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.docs < 20 || s.totalLen == 0 {
		return 400
	}
	return float64(s.totalLen) / float64(s.docs)
}

// collocation reports whether the words a and b (keys) make a phrase: they stand next to each
// other in at least a tenth of the documents that have the rarer of them ("open source",
// "machine learning"), rather than being two keywords ("ruby rails"). With too few documents to
// tell, two words written together are taken as a phrase.
func (s *Stats) collocation(a, b string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.docs < 50 {
		return true
	}
	ka, kb := termKey(a), termKey(b)
	n := s.bigrams[pairKey(ka, kb)]
	return n >= 1 && float64(n) >= 0.1*float64(min(s.df[ka], s.df[kb]))
}

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
