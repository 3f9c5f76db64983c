package enrich

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	snowball "github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/dutch"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/italian"
	"github.com/blevesearch/snowballstem/portuguese"
	"github.com/blevesearch/snowballstem/spanish"
)

// The languages with a Snowball stemmer and a stop list. Other languages get the light
// plural stemmer and the language-independent filtering by document frequency.
const (
	langOther = iota
	langEN
	langFR
	langDE
	langES
	langNL
	langIT
	langPT
	numLangs
)

var stemmers = [numLangs]func(*snowball.Env) bool{
	langEN: english.Stem, langFR: french.Stem, langDE: german.Stem, langES: spanish.Stem,
	langNL: dutch.Stem, langIT: italian.Stem, langPT: portuguese.Stem,
}

// langStops are each language's own stop words, for telling the language of a text.
var langStops = func() [numLangs]map[string]bool {
	var out [numLangs]map[string]bool
	for l, list := range map[int]string{langEN: stopEN, langFR: stopFR, langDE: stopDE, langES: stopES, langNL: stopNL, langIT: stopIT, langPT: stopPT} {
		out[l] = map[string]bool{}
		for _, w := range strings.Fields(list) {
			if len(w) > 1 { // one-letter words are shared by too many languages to tell them apart
				out[l][fold(w)] = true
			}
		}
	}
	return out
}()

// stopLangs maps a stop word (folded) to the languages whose stop list has it, one bit per
// language: one look-up per word when telling a text's language.
var stopLangs = func() map[string]uint16 {
	out := map[string]uint16{}
	for l := langEN; l < numLangs; l++ {
		for w := range langStops[l] {
			out[w] |= 1 << l
		}
	}
	return out
}()

// detectLang tells the language of text by which language's stop words it uses most, looking
// at the first 400 words. It returns langOther when no language has at least 3 hits and 5 % of
// the words.
func detectLang(text string) int {
	l, _ := langEvidence(text)
	return l
}

// langEvidence is detectLang's language and how many of text's words are stop words of that
// language only when it is sure of it: at least langSureHits of them, twice as many as any
// other language has (0 otherwise). A headline's one or two stop words ("dies", "a") are a
// guess; a sentence's are not.
func langEvidence(text string) (int, int) {
	var hits [numLangs]int
	n := 0
	start := -1
	check := func(w string) {
		n++
		if len(w) > 12 {
			return
		}
		bits := stopLangs[fold(w)]
		for l := langEN; bits != 0 && l < numLangs; l++ {
			if bits&(1<<l) != 0 {
				hits[l]++
			}
		}
	}
	for i, r := range text {
		letter := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= 0xC0 && r < 0x250 || r == '\''
		if letter {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			check(text[start:i])
			start = -1
			if n >= 400 {
				break
			}
		}
	}
	if start >= 0 && n < 400 {
		check(text[start:])
	}
	best := langOther
	for l := langEN; l < numLangs; l++ {
		if hits[l] > hits[best] || best == langOther && hits[l] > 0 {
			best = l
		}
	}
	if best == langOther || hits[best] < 3 && hits[best]*4 < n || float64(hits[best]) < 0.05*float64(n) {
		if best != langOther && n <= 12 && hits[best] >= 1 {
			return best, 0 // a title: one stop word is all there is
		}
		return langOther, 0
	}
	for l := langEN; l < numLangs; l++ {
		if l != best && 2*hits[l] > hits[best] || hits[best] < langSureHits {
			return best, 0
		}
	}
	return best, hits[best]
}

// langSureHits is how many stop words of one language make langEvidence sure of it.
const langSureHits = 3

// stemCache remembers stems; words repeat across items, and the Snowball stemmers are the
// costliest step of tokenizing. It stops growing at stemCacheLimit entries, and the words met
// first — the common ones — are the ones kept. A plain map under a lock costs about 90 bytes an
// entry (sync.Map cost 156), so 40,000 are ~3.5 MB at most for a server that runs for months on
// a small machine. The cache keeps copies of the words: a word is often a piece of the text it
// was read from, and keeping that piece kept the whole text (issue 14: the first 40,000 new words
// pinned up to as many documents).
var (
	stemCache      [numLangs]map[string]string
	stemCacheMu    sync.RWMutex
	stemCacheSize  int
	stemEnvs       = sync.Pool{New: func() any { return snowball.NewEnv("") }}
	stemCacheLimit = 40_000
)

// stemLang stems a lower-case word with the stemmer of lang (a word in Cyrillic by its case
// endings whatever lang, cyrillicStem; other languages' words by the light plural stemmer) and
// folds the result: the matching key of the word.
func stemLang(lang int, w string) string {
	stemCacheMu.RLock()
	out, ok := stemCache[lang][w]
	stemCacheMu.RUnlock()
	if ok {
		return out
	}
	if cyrillic(w) {
		// A word in Cyrillic has its noun case ending stripped, whatever the item's language (a
		// Russian name quoted in a German item is the same word): "в Пакистане", "Турции".
		out = fold(cyrillicStem(w))
	} else if f := stemmers[lang]; f != nil && len(w) > 2 {
		env := stemEnvs.Get().(*snowball.Env)
		env.SetCurrent(w)
		f(env)
		out = fold(env.Current())
		stemEnvs.Put(env)
	} else {
		out = stem(fold(w))
	}
	// A word with a digit (a number, a version, a date, an id or hash) is rarely met twice:
	// it would fill the cache and keep out the words that repeat.
	if strings.IndexAny(w, "0123456789") >= 0 {
		return out
	}
	stemCacheMu.Lock()
	if stemCacheSize < stemCacheLimit {
		if stemCache[lang] == nil {
			stemCache[lang] = map[string]string{}
		}
		if _, ok := stemCache[lang][w]; !ok {
			key := strings.Clone(w)
			if out == w {
				out = key
			} else {
				out = strings.Clone(out)
			}
			stemCache[lang][key] = out
			stemCacheSize++
		}
	}
	stemCacheMu.Unlock()
	return out
}

// cyrillic reports whether w's first letter is Cyrillic.
func cyrillic(w string) bool {
	for _, r := range w {
		if unicode.IsLetter(r) {
			return unicode.Is(unicode.Cyrillic, r)
		}
	}
	return false
}

// cyrillicEndings are the noun case endings of Russian, Ukrainian and their neighbours, longest
// first. A full Snowball stemmer was tried first: it also strips verb endings, so "Пакистан" lost
// its "-ан" while "Пакистане" kept it, and the two no longer matched.
var cyrillicEndings = []string{"ией", "ами", "ями", "ого", "его", "ому", "ему", "ах", "ях", "ам", "ям", "ом", "ем", "ой", "ей", "ою", "ею", "ов", "ев", "ию", "ия", "ии", "іі", "ія", "ію", "а", "я", "у", "ю", "е", "ы", "и", "і", "о", "ь", "й"}

// cyrillicStem strips one noun case ending from a Cyrillic word of five letters or more,
// leaving at least four: Пакистан, Пакистана, Пакистане, Пакистаном → пакистан; Турция,
// Турции, Турцию → турц.
func cyrillicStem(w string) string {
	n := utf8.RuneCountInString(w)
	if n < 5 {
		return w
	}
	for _, e := range cyrillicEndings {
		if strings.HasSuffix(w, e) && n-utf8.RuneCountInString(e) >= 4 {
			return strings.TrimSuffix(w, e)
		}
	}
	return w
}
