package enrich

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/morningdeck/morningdeck/app/wordvec"
)

// The first pass of a focus briefing: a period can hold tens of thousands of items, and the
// embedded scorer costs about a tenth of a millisecond per item (tokenizing, language detection,
// the document's term maps). The prefilter looks the focus's words up in each item's title and
// the opening of its text, without preparing a document, so that the scorer runs only on the
// items that mention the focus (and a few others). It is parsed like the scorer's interests
// (parseInterests: phrases, names, acronyms, aliases) and matches generously: a word of the
// item matches a word of the focus when it is that word, or that word's stem in any language
// followed by a short ending (market → markets, marketing; India → Indian); short words and
// acronyms (Go, US, AI) match by their case; words with symbols (C++, .NET) match as written.

// prefixSlack is how many bytes an item's word may have after a focus word's stem.
const prefixSlack = 4

// pfWord is one word of a term: how the prefilter finds it.
type pfWord struct {
	prefixes []string // lower-case, folded forms an item's word starts with (stems, the word itself)
	cased    []string // case-kept surfaces matched exactly (Go, GO, US)
	symbol   string   // lower-case text matched as a whole word (c++, .net)
}

// pfTerm is one term of one interest, with its weight in the interest's segment.
type pfTerm struct {
	words  []int // indexes into FocusMatcher.words, in order (a phrase when more than one)
	weight float64
	seg    int
	part   bool // a word of a phrase alone: adds to the segment, never to its total
	anchor bool // a name, acronym or phrase: the segment's subject
}

type pfSpec struct {
	terms   []pfTerm
	anchors []bool
}

// FocusMatcher is the prefilter of one focus. It is safe for concurrent use.
type FocusMatcher struct {
	words   []pfWord
	specs   []pfSpec
	prefix  map[string][]int32 // folded prefix → words
	cased   map[string][]int32 // case-kept surface → words
	symbols []int32            // words matched in the text
	maxStem int
}

// NewFocusMatcher prepares the prefilter of focus (what the user wrote, as for interests),
// weighing terms by the statistics of e (nil: every term weighs the same). It returns nil when
// the focus has nothing to look for.
func NewFocusMatcher(e *Embedded, focus string) *FocusMatcher {
	specs := parseInterests(focus)
	if len(specs) == 0 {
		return nil
	}
	m := &FocusMatcher{prefix: map[string][]int32{}, cased: map[string][]int32{}}
	wordIndex := map[string]int{}
	addWord := func(w *iword) int {
		if i, ok := wordIndex[w.surface]; ok {
			return i
		}
		var pw pfWord
		switch {
		case w.symbol:
			pw.symbol = w.lower
		case w.exact && (w.surface != w.lower || len(w.lower) <= 3):
			// As the scorer counts them: go → Go and GO (not the verb); US → US; Mac → Mac, MAC.
			if w.surface == w.lower {
				pw.cased = append(pw.cased, strings.ToUpper(w.lower[:1])+w.lower[1:], strings.ToUpper(w.lower))
			} else {
				pw.cased = append(pw.cased, w.surface, strings.ToUpper(w.surface))
			}
		default:
			seen := map[string]bool{}
			for _, k := range append(w.keys[:], fold(w.lower)) {
				if len(k) >= 3 && !seen[k] {
					seen[k] = true
					pw.prefixes = append(pw.prefixes, k)
				}
			}
			if len(pw.prefixes) == 0 {
				pw.cased = append(pw.cased, w.surface, strings.ToUpper(w.surface))
			}
		}
		for _, a := range w.aliases {
			switch {
			case strings.Contains(a, " "):
				// A phrase alias (Machine Learning for ML): its first word is a clue enough.
				if f := strings.Fields(a); len(f[0]) >= 3 {
					pw.prefixes = append(pw.prefixes, fold(strings.ToLower(f[0])))
				}
			case len(a) > 3:
				pw.prefixes = append(pw.prefixes, fold(strings.ToLower(a))) // Golang
			default:
				pw.cased = append(pw.cased, a, strings.ToUpper(a))
			}
		}
		i := len(m.words)
		m.words = append(m.words, pw)
		wordIndex[w.surface] = i
		for _, p := range pw.prefixes {
			m.prefix[p] = appendOnce(m.prefix[p], int32(i))
			m.maxStem = max(m.maxStem, len(p))
		}
		for _, c := range pw.cased {
			m.cased[c] = appendOnce(m.cased[c], int32(i))
		}
		if pw.symbol != "" {
			m.symbols = append(m.symbols, int32(i))
		}
		return i
	}
	for _, spec := range specs {
		ps := pfSpec{anchors: make([]bool, len(spec.anchors))}
		for ti := range spec.terms {
			t := &spec.terms[ti]
			pt := pfTerm{weight: t.weight, seg: t.seg, part: t.part, anchor: t.anchor || t.phrase}
			if e != nil {
				pt.weight *= e.termIDF(t, langEN)
			}
			for wi := range t.words {
				pt.words = append(pt.words, addWord(&t.words[wi]))
			}
			if pt.anchor && t.seg < len(ps.anchors) {
				ps.anchors[t.seg] = true
			}
			ps.terms = append(ps.terms, pt)
		}
		m.specs = append(m.specs, ps)
	}
	return m
}

func appendOnce(s []int32, v int32) []int32 {
	for _, x := range s {
		if x == v {
			return s
		}
	}
	return append(s, v)
}

// pfHit is where a word of the focus occurred in an item: its word positions.
type pfHit struct {
	word  int32
	pos   int32
	title bool
}

// Match is how well a title and the opening of a text match the focus, by its words alone: 0
// when none of its terms occurs, up to about 1.25 when the title says all of it. It only orders
// items for the real scorer; it is not a score.
func (m *FocusMatcher) Match(title, opening string) float64 {
	if m == nil {
		return 0
	}
	var buf [64]pfHit
	hits := buf[:0]
	pos := int32(0)
	hits, pos = m.scan(title, true, hits, pos)
	hits, _ = m.scan(opening, false, hits, pos+1)
	if len(m.symbols) > 0 {
		lt, lo := strings.ToLower(title), strings.ToLower(opening)
		for _, w := range m.symbols {
			s := m.words[w].symbol
			if countWord(lt, s) > 0 {
				hits = append(hits, pfHit{word: w, pos: -1, title: true})
			} else if countWord(lo, s) > 0 {
				hits = append(hits, pfHit{word: w, pos: -1})
			}
		}
	}
	if len(hits) == 0 {
		return 0
	}
	var best, rest float64
	for i := range m.specs {
		s := m.specScore(&m.specs[i], hits)
		if s > best {
			best, rest = s, rest+best
		} else {
			rest += s
		}
	}
	return math.Min(1, best) + 0.25*math.Min(1, rest)
}

// specScore mirrors interestScore roughly: each segment scores the weighted share of its terms
// found (a term in the title counting fully, one in the text's opening half), a segment that
// names something needs that name or a phrase or counts a quarter, and the interest is its
// best segment and a third of the others.
func (m *FocusMatcher) specScore(spec *pfSpec, hits []pfHit) float64 {
	n := len(spec.anchors)
	var totalBuf, gotBuf [8]float64
	var hitBuf [8]bool
	total, got, named := totalBuf[:0], gotBuf[:0], hitBuf[:0]
	if n > len(totalBuf) {
		total, got, named = make([]float64, 0, n), make([]float64, 0, n), make([]bool, 0, n)
	}
	total, got, named = total[:n], got[:n], named[:n]
	for i := range spec.terms {
		t := &spec.terms[i]
		if t.seg < 0 || t.seg >= n {
			continue
		}
		if !t.part {
			total[t.seg] += t.weight
		}
		place := termPlace(t, hits)
		if place == 0 {
			continue
		}
		got[t.seg] += t.weight * place
		if t.anchor {
			named[t.seg] = true
		}
	}
	var best, rest float64
	for i := range n {
		if total[i] == 0 || got[i] == 0 {
			continue
		}
		s := math.Min(1, got[i]/total[i])
		if spec.anchors[i] && !named[i] {
			s /= 4
		}
		if s > best {
			best, rest = s, rest+best
		} else {
			rest += s
		}
	}
	return math.Min(1, best+rest/3)
}

// termPlace is 1 when the term is in the title, ½ when only in the opening, else 0. A phrase's
// words must follow one another.
func termPlace(t *pfTerm, hits []pfHit) float64 {
	place := 0.0
	for _, h := range hits {
		if h.word != int32(t.words[0]) {
			continue
		}
		if len(t.words) > 1 && !followedBy(hits, h.pos, t.words[1:]) {
			continue
		}
		if h.title {
			return 1
		}
		place = 0.5
	}
	return place
}

func followedBy(hits []pfHit, pos int32, words []int) bool {
	if pos < 0 {
		return false
	}
	for k, w := range words {
		want := pos + int32(k) + 1
		ok := false
		for _, h := range hits {
			if h.pos == want && h.word == int32(w) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// scan finds the focus's words among the words of text, numbering them from pos.
func (m *FocusMatcher) scan(text string, title bool, hits []pfHit, pos int32) ([]pfHit, int32) {
	start := -1
	var low [64]byte
	check := func(w string) {
		if len(m.cased) > 0 {
			for _, i := range m.cased[w] {
				hits = append(hits, pfHit{word: i, pos: pos, title: title})
			}
		}
		if len(w) < 3 || len(m.prefix) == 0 {
			return
		}
		var l []byte
		ascii := len(w) <= len(low)
		for i := 0; i < len(w) && ascii; i++ {
			c := w[i]
			if c >= utf8.RuneSelf {
				ascii = false
				break
			}
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			low[i] = c
		}
		if ascii {
			l = low[:len(w)]
		} else {
			l = []byte(fold(w))
		}
		seen := int32(-1)
		for cut := min(len(l), m.maxStem); cut >= 3 && cut >= len(l)-prefixSlack; cut-- {
			for _, i := range m.prefix[string(l[:cut])] { // no allocation: a map index by string(bytes)
				if i != seen {
					hits = append(hits, pfHit{word: i, pos: pos, title: title})
					seen = i
				}
			}
		}
	}
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			check(text[start:i])
			pos++
			start = -1
		}
	}
	if start >= 0 {
		check(text[start:])
		pos++
	}
	return hits, pos
}

// Prefilter is the first pass of a focus briefing (app.FocusFilter): NewFocusMatcher's Match
// with the ranker's statistics, or nil when the focus has nothing to look for. A focus with a
// broad, one-word subject ("entertainment") also keeps the items whose title is about it
// (semantic.go), after every item that names it: the scorer reads them the same way.
func (r Ranker) Prefilter(focus string) func(title, opening string) float64 {
	m := NewFocusMatcher(r.Embedded, focus)
	if m == nil {
		return nil
	}
	var subjects []segVector
	for _, spec := range parseInterests(focus) {
		subjects = append(subjects, spec.vecs...)
	}
	if len(subjects) == 0 {
		return m.Match
	}
	return func(title, opening string) float64 {
		if s := m.Match(title, opening); s > 0 {
			return s
		}
		// Below any match by the focus's words (Match's least is far above this).
		return 1e-3 * titleAbout(subjects, title)
	}
}

// titleAbout is how much a title is about the closest of subjects, as semantic reads an item
// (0 below semFloor, 1 from semFull), from the title's words alone: looked up as written, in
// lower case, without the scorer's tokenizing (a first pass reads tens of thousands).
// A subject that names a news section ("sports") is also read by the title's words nearest the
// section's seeds, as the scorer reads it (seedReading): "Yankees beat Red Sox" is sports.
func titleAbout(subjects []segVector, title string) float64 {
	var v wordvec.Vector
	var n float32
	var ranks []int
	for _, w := range strings.FieldsFunc(title, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '-' }) {
		if len(w) < 3 {
			continue
		}
		if r := wordvec.Rank(strings.ToLower(w)); r >= 0 {
			wordvec.AddTo(&v, r, wordvec.Weight(r))
			ranks = append(ranks, r)
		}
		n++
	}
	var c float64
	if v.Subject(n) {
		c, _ = closest(subjects, &v)
	}
	for i := range subjects {
		if sv := &subjects[i]; sv.named && useNewsTopics {
			c = max(c, seedScale(seedTop2(ranks, sv.topic)))
		}
	}
	return c
}
