package enrich

import (
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/morningdeck/morningdeck/app/wordvec"
)

// titleWeight: a word of the title counts as this many of the text, for topics and reasons.
const titleWeight = 3

// doc is an item prepared for matching.
type doc struct {
	lang       int
	langSure   bool // the language is certain (prepared.langSure), not a headline's guess
	script     bool // most of its letters are not Latin (latinScript): Cyrillic, Arabic, CJK …
	titleText  string
	bodyText   string
	dl         float64
	tf         [2]map[string]float64 // title, body: key → count
	surf       [2]map[string]float64 // title, body: surface as written → count (case kept)
	seq        []token               // title, a break, then body; hyphenated words split into parts
	seqTitleN  int
	capSurface []string           // the capitalised surfaces, for name forms
	folded     [2][]foldedSurface // the surfaces folded, for compounds (made on first use)
	vec        wordvec.Vector     // what the item is about (semantic.go; made on first use)
	semWords   []semWord          // its distinct words that have a vector
	vecDone    bool
	vecOK      bool
	readWords  []string                // the words the news-topic model reads (made on first use)
	topic      [newsTopicCount]float64 // the news-topic model's reading (newstopics.go; made on first use)
	topicDone  bool
	newsRank   []int // the vector ranks of readWords' distinct words (made on first use)
	seedDone   [newsTopicCount]bool
	seedE      [newsTopicCount]float64 // the item's closeness to each section's seeds (seedTop2)
	topicOK    bool
}

func newDoc(lang int, titleText, bodyText string, title, body []token) *doc {
	d := &doc{lang: lang, titleText: titleText, bodyText: bodyText, seq: make([]token, 0, len(title)+len(body)+len(body)/16+1)}
	d.tf[0], d.surf[0] = make(map[string]float64, len(title)), make(map[string]float64, len(title))
	d.tf[1], d.surf[1] = make(map[string]float64, len(body)/2), make(map[string]float64, len(body)/2)
	caps := map[string]bool{}
	add := func(toks []token, part int) {
		tf, surf := d.tf[part], d.surf[part]
		initial := true // at the start of a sentence, "Go" and "Us" are any word
		for _, t := range toks {
			if t.surface == "" {
				d.seq = append(d.seq, t)
				initial = t.display == "." || t.display == "!" || t.display == "?" || t.display == ":" && part == 1
				continue
			}
			d.dl++
			if initial {
				initial = false
				if len(t.surface) <= 3 && t.surface != strings.ToUpper(t.surface) {
					tf[t.key]++
					d.seq = append(d.seq, t)
					continue // counted as a word, not as a short name
				}
			}
			if r, _ := utf8.DecodeRuneInString(t.surface); unicode.IsUpper(r) || len(t.surface) > 1 && (t.surface[0] == 'i' || t.surface[0] == 'e') && t.surface[1] >= 'A' && t.surface[1] <= 'Z' {
				caps[t.surface] = true
			}
			tf[t.key]++
			surf[t.surface]++
			if !strings.ContainsRune(t.display, '-') {
				d.seq = append(d.seq, t)
				continue
			}
			for _, p := range strings.Split(t.surface, "-") {
				if p == "" {
					continue
				}
				pt := token{display: strings.ToLower(p), key: stemLang(lang, strings.ToLower(p)), surface: p}
				tf[pt.key]++
				surf[p]++
				if r, _ := utf8.DecodeRuneInString(p); unicode.IsUpper(r) {
					caps[p] = true
				}
				d.seq = append(d.seq, pt)
			}
		}
	}
	add(title, 0)
	d.seqTitleN = len(d.seq)
	d.seq = append(d.seq, token{stop: true})
	add(body, 1)
	for c := range caps {
		d.capSurface = append(d.capSurface, c)
	}
	return d
}

// nameSuffixes are the endings that make a word form of a name: India → Indian, Mac → Macs.
var nameSuffixes = map[string]bool{"s": true, "'s": true, "’s": true, "n": true, "ns": true, "an": true, "ans": true,
	"ian": true, "ians": true, "ese": true, "ish": true, "er": true, "ers": true, "e": true, "es": true, "en": true}

// nameForm reports whether surface s is a word form of name n (both as written): a known
// ending (Indian), a compound whose next part starts with a capital (MacBook), or an i/e
// prefix (iMac). Acronyms written in capitals (MAC) are not forms of a name (Mac).
func nameForm(s, n string) bool {
	if len(s) <= len(n) {
		return false
	}
	if (s[0] == 'i' || s[0] == 'e') && s[1:] == n {
		return true // iMac, ePub
	}
	if !strings.EqualFold(s[:len(n)], n) {
		return false
	}
	if strings.ToUpper(s) == s {
		return false
	}
	rest := s[len(n):]
	if nameSuffixes[strings.ToLower(rest)] {
		return true
	}
	r, _ := utf8.DecodeRuneInString(rest)
	return unicode.IsUpper(r) && len(rest) >= 3 // MacBook, PowerShell
}

// inflection reports whether long is short with a name ending (Elektroautos, Elektroauto).
func inflection(long, short string) bool {
	return len(long) > len(short) && strings.EqualFold(long[:len(short)], short) && nameSuffixes[strings.ToLower(long[len(short):])]
}

// count is how often word w occurs in d's title and in its text.
func (d *doc) count(w *iword) (title, body float64) {
	return d.countIn(w, 0, d.titleText), d.countIn(w, 1, d.bodyText)
}

func (d *doc) countIn(w *iword, part int, text string) float64 {
	tf, surf := d.tf[part], d.surf[part]
	var n float64
	switch {
	case w.symbol:
		n = float64(countWord(text, w.surface))
	case w.exact:
		if w.surface != w.lower || len(w.lower) <= 3 {
			// Go, go → Go and GO (not the verb "go"); US → US; AI → AI.
			n = surf[w.surface]
			if w.surface == w.lower {
				n = surf[strings.ToUpper(w.lower[:1])+w.lower[1:]] + surf[strings.ToUpper(w.lower)]
			} else if up := strings.ToUpper(w.surface); up != w.surface {
				n += surf[up]
			}
		} else {
			n = tf[w.keys[d.lang]]
		}
	default:
		n = tf[w.keys[d.lang]]
		if up := strings.ToUpper(w.surface); w.name && up != w.surface && len(w.surface) <= 4 {
			n = max(0, n-surf[up]) // MAC (an address) is not Mac
		}
		if w.name {
			for _, s := range d.capSurface {
				if surf[s] == 0 {
					continue
				}
				// Indian for India, MacBook for Mac; and Elektroauto for Elektroautos.
				if (nameForm(s, w.surface) || len(s) >= 4 && inflection(w.surface, s)) && stemLang(d.lang, strings.ToLower(s)) != w.keys[d.lang] {
					n += surf[s]
				}
			}
		}
	}
	return n + d.aliasCountIn(w, part, text)
}

// aliasCountIn is how often w's aliases (Golang for Go) occur in a part of d.
func (d *doc) aliasCountIn(w *iword, part int, text string) float64 {
	tf, surf := d.tf[part], d.surf[part]
	var n float64
	for _, a := range w.aliases {
		if strings.Contains(a, " ") {
			n += float64(countWord(text, a))
		} else if len(a) > 3 {
			n += tf[stemLang(d.lang, strings.ToLower(a))] // Golang, golang.org
		} else {
			n += surf[a] + surf[strings.ToUpper(a)]
		}
	}
	return n
}

// formCount is how often a form of the lexicon (a term standing for the user's in d's
// language) occurs in d's title and text.
func (d *doc) formCount(t *iterm) (title, body float64) {
	if t.phrase {
		return d.phraseCount(t)
	}
	w := &t.words[0]
	if langStops[d.lang][w.keys[d.lang]] {
		// The stemmer took the word to a function word (Sicherheit → sich): its written forms.
		return d.surfaceCount(w, true)
	}
	if t.proper {
		title, body = d.capitalCount(w)
	} else {
		title, body = d.count(w)
	}
	if d.lang == langDE || d.lang == langNL {
		ct, cb := d.surfaceCount(w, false)
		title, body = title+ct, body+cb
	}
	return title, body
}

// capitalCount is how often d writes w with a capital (a place's name: Того, not того).
func (d *doc) capitalCount(w *iword) (title, body float64) {
	var out [2]float64
	for part := range 2 {
		for s, n := range d.surf[part] {
			if r, _ := utf8.DecodeRuneInString(s); unicode.IsUpper(r) && stemLang(d.lang, strings.ToLower(s)) == w.keys[d.lang] {
				out[part] += n
			}
		}
	}
	return out[0], out[1]
}

// written is how d writes a form of the lexicon: its most frequent word of the form's stem, or
// the form with an ending (title words first); the form itself for a phrase, or when d has it
// only inside a compound (Breitband in Breitbandgesellschaft).
func (d *doc) written(t *iterm) string {
	form, _, _ := strings.Cut(t.display, " (")
	if t.phrase {
		return form
	}
	w := &t.words[0]
	prefix := fold(w.lower)
	for part := range 2 {
		best, n := "", 0.0
		for s, c := range d.surf[part] {
			f := fold(s)
			ok := stemLang(d.lang, f) == w.keys[d.lang] && !langStops[d.lang][w.keys[d.lang]] ||
				strings.HasPrefix(f, prefix) && (len(f) == len(prefix) || nameSuffixes[f[len(prefix):]])
			if ok && (c > n || c == n && s < best) {
				best, n = s, c
			}
		}
		if best != "" {
			return best
		}
	}
	return form
}

// surfaceCount is how often a word of a compounding language (German, Dutch) stands at the
// start of a longer word in d's title and text: Breitband in Breitbandausbau, Sicherheitslücke
// in Sicherheitslückenbericht. Forms of the word itself (its stem) are counted by count; with
// own, they are counted here too, by how they are written (the word, or it with an ending).
func (d *doc) surfaceCount(w *iword, own bool) (title, body float64) {
	if len([]rune(w.lower)) < 5 || w.exact {
		return 0, 0
	}
	prefix := fold(w.lower)
	compounds := d.lang == langDE || d.lang == langNL
	d.foldSurfaces()
	var out [2]float64
	for part := range 2 {
		for _, f := range d.folded[part] {
			if !strings.HasPrefix(f.folded, prefix) {
				continue
			}
			switch rest := f.folded[len(prefix):]; {
			case own && (rest == "" || nameSuffixes[rest]):
				out[part] += f.n
			case compounds && len(rest) >= 3 && (own || stemLang(d.lang, f.folded) != w.keys[d.lang]):
				out[part] += f.n
			}
		}
	}
	return out[0], out[1]
}

// foldSurfaces makes d.folded, once.
func (d *doc) foldSurfaces() {
	if d.folded[0] != nil {
		return
	}
	for part := range 2 {
		d.folded[part] = make([]foldedSurface, 0, len(d.surf[part]))
		for s, n := range d.surf[part] {
			d.folded[part] = append(d.folded[part], foldedSurface{fold(s), s, n})
		}
	}
}

// cognateCount is how often d, in another language of the lexicon than English, writes a
// cognate of the English word w: a word that shares all of w but its last letters or two
// ("psychologie", "Psychologie" for psychology; "technologie", "démocratie", "politique",
// "Politik"), for a word of seven letters or more. The languages of the lexicon took these words
// from the same Latin and Greek, and a word of the interest that the lexicon has no concept for
// is still found in an item in French or German. Not for names, acronyms or short words, whose
// look-alikes are other words.
func (d *doc) cognateCount(w *iword) (written string, title, body float64) {
	if w.exact || w.name || w.symbol || d.lang == langEN || d.lang == langOther {
		return "", 0, 0
	}
	folded := fold(w.lower)
	lw := []rune(folded)
	n := len(lw)
	if n < cognateMin {
		return "", 0, 0
	}
	need := max(cognateMin-1, n-2)
	var out [2]float64
	most := 0.0
	d.foldSurfaces()
	for part := range 2 {
		for _, f := range d.folded[part] {
			s, c := f.surface, f.n
			if len(f.folded) < need || f.folded[0] != folded[0] {
				continue // a cheap test before the runes
			}
			r := []rune(f.folded)
			if len(r) < need || len(r) > n+3 {
				continue
			}
			cp := 0
			for cp < len(r) && cp < n && r[cp] == lw[cp] {
				cp++
			}
			// An English word ("securities" for security, "internship" for internet) is no
			// cognate: the item's language may be a guess.
			if cp < need || wordvec.Rank(strings.ToLower(s)) >= 0 {
				continue
			}
			out[part] += c
			if c > most || c == most && s < written {
				written, most = s, c
			}
		}
	}
	return written, out[0], out[1]
}

// compoundWeight is how much the reader's own word counts where it only leads a compound of
// their language. Chosen on the development interests among 1, 0.5, 0.3 and 0.2 (specific
// development NDCG@10 0.6986, 0.6986, 0.7004, 0.7002; 0.6912 without): at 1 and 0.5 a
// compound ("Tesla-Solarschindeln") tied with the items that name the subject alone.
const compoundWeight = 0.3

// cognateMin is the shortest English word whose cognates are looked for.
const cognateMin = 7

// foldedSurface is a surface of a document, folded, and its count.
type foldedSurface struct {
	folded, surface string
	n               float64
}

// phraseCount is how often the words of t occur one after another in d's title and text.
func (d *doc) phraseCount(t *iterm) (title, body float64) {
	d.phraseAt(t, func(i int) {
		if i < d.seqTitleN {
			title++
		} else {
			body++
		}
	})
	return title, body
}

// phraseAt calls fn with the start of each occurrence of the phrase t in d.seq.
func (d *doc) phraseAt(t *iterm, fn func(i int)) {
	k := len(t.words)
	for i := 0; i+k <= len(d.seq); i++ {
		ok := true
		for j := range t.words {
			if d.seq[i+j].key != t.words[j].keys[d.lang] || d.seq[i+j].surface == "" {
				ok = false
				break
			}
		}
		if ok {
			fn(i)
		}
	}
}

// phraseTokens calls fn with each token of d that is part of an occurrence of the phrase t, and
// whether it is in the title.
func (d *doc) phraseTokens(t *iterm, fn func(tok token, title bool)) {
	d.phraseAt(t, func(i int) {
		for j := i; j < i+len(t.words); j++ {
			fn(d.seq[j], j < d.seqTitleN)
		}
	})
}

// countWord counts whole-word, case-insensitive occurrences of w in s.
func countWord(s, w string) int {
	if w == "" || len(s) < len(w) {
		return 0
	}
	ls, lw := strings.ToLower(s), strings.ToLower(w)
	n := 0
	for i := 0; ; {
		j := strings.Index(ls[i:], lw)
		if j < 0 {
			return n
		}
		a, b := i+j, i+j+len(lw)
		before, _ := utf8.DecodeLastRuneInString(ls[:a])
		after, _ := utf8.DecodeRuneInString(ls[b:])
		if (a == 0 || !isWordRune(before)) && (b == len(ls) || !isWordRune(after)) {
			n++
		}
		i = b
	}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// termMatch is how an item matched one term of an interest.
type termMatch struct {
	term  *iterm
	tf    float64
	shown string // for a lexicon form, as the item wrote it and the user's term: "Breitbandausbau (broadband)"
}

// interestScore is how well d matches one interest. Each segment of the interest ("AI" and
// "machine learning" in "AI and machine learning") scores the idf-weighted share of its terms
// found, a term counting for its presence in the title and, saturating with its frequency as in
// BM25 (b 0.75, the collection's real average length), in the text: items matching more of an
// interest score more, and items about it (in the title) more than items mentioning it. A
// segment that names something (Go, Apple, AI) needs that name or a phrase of it, or counts a
// quarter. The interest scores its best segment and a third of the others.
func (e *Embedded) interestScore(spec *interestSpec, d *doc) (float64, []termMatch, bool) {
	const k, b = 2.0, 0.75
	avgdl := refLen
	norm := k * (1 - b + b*d.dl/avgdl)
	nseg := len(spec.anchors)
	total := make([]float64, nseg)
	got := make([]float64, nseg)
	hit := make([]bool, nseg)
	qualifier := make([]bool, nseg) // a common acronym of the segment was found (see below)
	other := make([]bool, nseg)     // a word of the segment other than a name was found
	var matches []termMatch
	maxIDF := e.stats.maxIDF()
	// Two words written together, each of them rare enough in general English to name a
	// subject alone, are two keywords ("ruby rails"), not a phrase ("open source", "machine
	// learning", "hearing loss"). Decided from general English, not the collection, so that it
	// is the same whatever was seen before (issue 25).
	var split map[int]bool
	for i := range spec.terms {
		if t := &spec.terms[i]; t.guessed && keywords(t) {
			if split == nil {
				split = map[int]bool{}
			}
			split[t.seg] = true
		}
	}
	// A common acronym beside other words ("US" of "US politics"), or a short name that is a
	// common word ("Go" of "Go programming"), qualifies them (see below).
	qualifies := func(t *iterm, idf float64) bool {
		return t.anchor && !t.phrase && (isAcronym(t.words[0].surface) || shortName(&t.words[0])) && idf < informative*maxIDF && segWords(spec, t.seg) > 1
	}
	ws := make([]float64, len(spec.terms))      // each term's weight
	contrib := make([]float64, len(spec.terms)) // what it added, its lexicon forms included
	for i := range spec.terms {
		t := &spec.terms[i]
		if t.alt > 0 {
			continue
		}
		idf := e.termIDF(t, d.lang)
		w := t.weight * idf
		switch {
		case split[t.seg] && t.guessed:
			w = 0.3 * idf // a bonus when the keywords stand together
		case split[t.seg] && t.part:
			w = idf
			total[t.seg] += w
		case t.part:
			r := math.Min(1, idf/maxIDF)
			w = t.weight * idf * r * r // a rare word of a phrase means something alone; "open" does not
		default:
			total[t.seg] += w
		}
		var inTitle, inBody float64
		if t.phrase {
			inTitle, inBody = d.phraseCount(t)
		} else {
			inTitle, inBody = d.count(&t.words[0])
			if (d.lang == langDE || d.lang == langNL) && (spec.lang == d.lang || spec.lang == langOther && wordvec.Rank(t.words[0].lower) < 0) {
				// The reader's own word leading a compound of their language ("Datenschutz" in
				// "Datenschutzbehörde"): the compound is of it, its head is another thing.
				ct, cb := d.surfaceCount(&t.words[0], false)
				inTitle, inBody = inTitle+compoundWeight*ct, inBody+compoundWeight*cb
			}
		}
		ws[i] = w
		shown, scale := "", 1.0
		if inTitle+inBody == 0 && !t.phrase && !t.part && (spec.lang == langEN || spec.lang == langOther && wordvec.Rank(t.words[0].lower) >= 0) {
			var written string
			if written, inTitle, inBody = d.cognateCount(&t.words[0]); inTitle+inBody > 0 {
				shown, scale = written+" ("+t.display+")", translationWeight
			}
		}
		if inTitle+inBody == 0 {
			continue
		}
		contrib[i] = scale * w * (0.5*math.Min(1, inTitle) + 0.5*(inBody+inTitle)/(inBody+inTitle+norm))
		got[t.seg] += contrib[i]
		matches = append(matches, termMatch{term: t, tf: inTitle*titleWeight + inBody, shown: shown})
		if !t.anchor {
			other[t.seg] = true // a word beside the name, or a part of the phrase beside it
		}
		switch {
		case qualifies(t, idf):
			// A common acronym beside other words ("US" of "US politics") qualifies them: it
			// is the segment's name only with them (an item about US stocks is not about US
			// politics). So does a short name that is a common word ("Go" of "Go
			// programming"): "MOS Go USB-C battery pack" is not about the language. Its alias
			// (Golang) is the name whatever stands beside it.
			if w0 := &t.words[0]; len(w0.aliases) > 0 && d.aliasCountIn(w0, 0, d.titleText)+d.aliasCountIn(w0, 1, d.bodyText) > 0 {
				hit[t.seg] = true
			} else {
				qualifier[t.seg] = true
			}
		case t.anchor || t.phrase || split[t.seg] && t.part && t.words[0].name:
			hit[t.seg] = true // a name's words are names again when they are keywords
		}
	}
	// The lexicon's forms of a term in the item's language stand for it when they add more: a
	// little less than the user's word, and no more than their own idf allows.
	for i := range spec.terms {
		t := &spec.terms[i]
		if t.alt == 0 || t.lang != d.lang && !t.kind || ws[t.alt-1] == 0 {
			continue
		}
		o := t.alt - 1
		ot := &spec.terms[o]
		inTitle, inBody := d.formCount(t)
		if inTitle+inBody == 0 {
			continue
		}
		// A form standing for two keywords written together stands for all its words. It is
		// no rarer than the phrase's rarest word needs to be.
		base, had := ws[o], contrib[o]
		if split[ot.seg] && ot.guessed {
			for j := range spec.terms {
				if pt := &spec.terms[j]; pt.alt == 0 && pt.part && pt.seg == ot.seg {
					base += ws[j]
					had += contrib[j]
				}
			}
		}
		tw := translationWeight
		switch {
		case t.also:
			tw = alsoWeight
		case t.kind:
			tw = kindWeight
		}
		w := tw * base * math.Min(1, e.termIDF(t, d.lang)/e.rarestIDF(ot, d.lang))
		c := w * (0.5*math.Min(1, inTitle) + 0.5*(inBody+inTitle)/(inBody+inTitle+norm))
		if c <= had {
			continue
		}
		got[t.seg] += c - had
		contrib[o] += c - had
		matches = append(matches, termMatch{t, inTitle*titleWeight + inBody, d.written(t) + " (" + t.user + ")"})
		switch {
		case qualifies(ot, e.termIDF(ot, d.lang)):
			// "Britain" for "UK" of "UK housing" qualifies as "UK" does: alone, a mention.
			qualifier[t.seg] = true
		case ot.anchor || ot.phrase || split[t.seg] && ot.part && ot.words[0].name:
			hit[t.seg] = true
		}
	}
	if len(matches) == 0 {
		return 0, nil, false
	}
	var best, rest float64
	anchorHit := false
	for i := range nseg {
		if total[i] == 0 || got[i] == 0 {
			continue
		}
		s := math.Min(1, got[i]/total[i])
		if qualifier[i] && other[i] {
			hit[i] = true // the acronym with the words it qualifies
		}
		if !spec.anchors[i] {
			s *= math.Min(1, total[i]/(informative*maxIDF))
		}
		if spec.anchors[i] && !hit[i] || placeMissing(spec, i, matches) {
			s /= 4 // the name, or the place that qualifies the segment, is missing
		} else if hit[i] {
			anchorHit = true
		}
		if s > best {
			best, rest = s, rest+best
		} else {
			rest += s
		}
	}
	return math.Min(1, best+rest/3), matches, anchorHit
}

// shortName reports whether w is a short word the user capitalised, written as a name but not
// an acronym ("Go"; not "US", "C++" or "5G").
func shortName(w *iword) bool {
	return w.exact && !w.symbol && isName(*w) && strings.IndexFunc(w.surface, unicode.IsDigit) < 0
}

// standAlone is how rare, against the rarest word (idf/maxIDF), each word written beside
// another must be for the two to be read as keywords: ruby and rails are (0.74, 0.76); machine,
// learning, open, source, hearing, loss, power are not (0.33–0.56).
const standAlone = 0.6

// keywords reports whether the words of a guessed phrase are keywords (see standAlone), by
// their rarity in general English alone.
func keywords(t *iterm) bool {
	for i := range t.words {
		if shareIDF(t.words[i].share) < standAlone*rarestIDF() {
			return false
		}
	}
	return true
}

// termIDF is the inverse document frequency of a term (idfOf): of its case-kept form for exact
// words, of its stem otherwise, and for a phrase the sum of its words'.
func (e *Embedded) termIDF(t *iterm, lang int) float64 {
	var s float64
	for i := range t.words {
		w := &t.words[i]
		switch {
		case w.exact && (w.surface != w.lower || len(w.lower) <= 3):
			s += e.stats.idfOf(caseKey(w.surface), w.share)
		default:
			s += e.stats.idfOf(w.keys[lang], w.share)
		}
	}
	return math.Max(s, 0.5)
}

// rarestIDF is the idf of a term's rarest word (a phrase's meaning is carried by it).
func (e *Embedded) rarestIDF(t *iterm, lang int) float64 {
	var out float64
	for i := range t.words {
		out = math.Max(out, e.termIDF(&iterm{words: t.words[i : i+1]}, lang))
	}
	return out
}

// caseKey is the statistics key of a case-kept short word or acronym ("=Go", "=US").
func caseKey(surface string) string {
	if r, _ := utf8.DecodeRuneInString(surface); !unicode.IsUpper(r) {
		surface = strings.ToUpper(surface[:1]) + surface[1:]
	}
	return "=" + surface
}

// informative is how rare (idf against the rarest word's) the words of a segment must be in all
// for the segment to be matched in full by its words: a segment of common words ("world" of
// "world news", "US", "markets") is weaker evidence than one of rare words, however many of
// them an item has — its words match in proportion. Chosen on the development splits (broad
// and specific interests: 0.4, 0.5, 0.6, 0.7, 0.8 gave NDCG@10 0.742/0.875, 0.750/0.875,
// 0.752/0.876, 0.752/0.876, 0.752/0.869; 0.6 and 0.7 tie, the smaller change is kept). Held
// out: broad 0.825 → 0.826, specific 0.916 → 0.922.
const informative = 0.6

// segWords is how many words the user wrote in segment seg (phrases and words, not the
// lexicon's forms).
func segWords(spec *interestSpec, seg int) int {
	n := 0
	for _, t := range spec.terms {
		if t.seg == seg && t.alt == 0 && !t.part {
			n += len(t.words)
		}
	}
	return n
}

// placeMissing reports whether segment seg is qualified by a place (qualifyByPlace) that the
// item, as matched (m), does not name in any of its forms.
func placeMissing(spec *interestSpec, seg int, m []termMatch) bool {
	if seg >= len(spec.placeOf) || spec.placeOf[seg] < 0 {
		return false
	}
	q := spec.placeOf[seg]
	for _, x := range m {
		if x.term == &spec.terms[q] || x.term.alt == q+1 {
			return false
		}
	}
	return true
}
