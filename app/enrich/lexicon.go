package enrich

import (
	_ "embed"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Interests match across languages through a small concept lexicon (lexicon.txt): an interest
// term that is a form of a concept ("broadband") also looks for the concept's other forms
// ("Breitband", "haut débit", "banda ancha"), each in items of its own language, counting a
// little less than the user's own word, and the reason names the form the item used with the
// user's word: "Breitband (broadband)".

//go:embed lexicon.txt
var lexiconText string

// The names of the world's countries and territories (regions.txt) are concepts of the lexicon
// too, written by scripts/regionnames from the Unicode CLDR names: an interest in "Pakistan"
// also looks for "پاکستان", "Пакистан" and "पाकिस्तान" in items of any language (their
// script tells the language) and for "Paquistão" in Portuguese ones. An interest written in
// another script ("Пакистан") finds the English and other forms the same way.
//
//go:embed regions.txt
var regionsText string

// translationWeight is how much a form of the lexicon counts against the user's own word.
const translationWeight = 0.85

// A concept's kinds ("kinds: CVE, zero-day, remote code execution" of "vulnerability") are its
// narrower terms and best-known instances: an item that names one is about the concept though
// it never says the user's word (issue 25: "CVE-2026-1234: remote code execution in libxml2"
// for "security vulnerabilities"). They are matched in items of any language (most are names
// or terms of art), stand for the user's term as its translations do, only downward (an
// interest in CVEs is not one in every vulnerability), and count kindWeight of the user's word.
// Chosen on the development splits (BENCHMARKS.md, session 20), the mean of the four figures:
// 0.8192 without kinds; 0.8293, 0.8335, 0.8298, 0.8276 at 0.2, 0.3, 0.4, 0.5 (all-language
// stemming of the kinds, dropped for memory: 0.8280–0.8347, same peak). Held out, read after:
// specific 0.675 → 0.689, fine subjects 0.664 → 0.697, broad 0.920 and news 0.726 unchanged.
var kindWeight = 0.3

// alsoWeight is how much a word the reader added from an interest's vocabulary counts against
// the interest's main term, which it stands for. Added as an interest of its own (", HTML5"),
// every learned word accepted took the development interests 0.798 → 0.793 and the held-out
// ones 0.689 → 0.619 (HTML5 items ranked over browser news for "web browsers"); standing for
// the interest: development 0.7980 → 0.7980 / 0.7984 / 0.7982 / 0.7976 at 0.3 / 0.5 / 0.7 / 1
// (TestVocabularyEval), held out → 0.641 at 0.5.
var alsoWeight = 0.5

// dropKinds removes the lexicon's kinds and forms the reader took out of an interest ("(not:
// Facebook)", "(not: Türkei)").
func dropKinds(spec *interestSpec, not []string) {
	if len(not) == 0 {
		return
	}
	out := spec.terms[:0]
	for _, t := range spec.terms {
		k, _, _ := strings.Cut(t.display, " (")
		if t.alt > 0 && !t.also && slices.ContainsFunc(not, func(n string) bool { return strings.EqualFold(n, k) }) {
			continue
		}
		out = append(out, t)
	}
	spec.terms = out
}

// addAlso appends the words the reader added to an interest ("(also: CVE, exploit)") as terms
// standing for its main term: the user's term that says most (a name or a phrase before a
// common word, by its weight and how rare it is in general English), looked for in items of any
// language. A word added so finds its items as a kind does, under the interest it was learned
// for, rather than as an interest of its own that its other items would rank under.
func addAlso(spec *interestSpec, words []string) {
	if len(words) == 0 || len(spec.terms) == 0 {
		return
	}
	main, best := -1, 0.0
	for i, t := range spec.terms {
		if t.alt > 0 || t.part {
			continue
		}
		idf := 0.0
		for _, w := range t.words {
			idf = max(idf, shareIDF(w.share))
		}
		if s := t.weight * idf; s > best {
			main, best = i, s
		}
	}
	if main < 0 {
		return
	}
	for _, w := range words {
		if a, ok := standIn(spec.terms[main], main, w, -1, langOther); ok {
			a.part, a.kind, a.also = false, true, true
			spec.terms = append(spec.terms, a)
		}
	}
}

// standIn is a term of the words text standing for term t (the o-th of its interest): a form of
// the lexicon, a kind, a word the reader added. Its words are stemmed for language stem (-1:
// every language); it is looked for in items of language lang (langOther: any). ok is false
// when text has no words.
func standIn(t iterm, o int, text string, stem, lang int) (iterm, bool) {
	ws := interestWordsIn(text, false, stem)
	if len(ws) == 0 {
		return iterm{}, false
	}
	for k := range ws {
		ws[k].aliases = nil
	}
	return iterm{
		display: text + " (" + t.display + ")",
		words:   ws,
		phrase:  len(ws) > 1,
		part:    t.part,
		weight:  t.weight,
		seg:     t.seg,
		alt:     o + 1,
		user:    t.display,
		lang:    lang,
	}, true
}

// lexForm is one form of a concept: its language and its text (a substring of lexiconText).
type lexForm struct {
	lang uint8
	text string
}

// lexKey indexes a form: its look-up key (lexKeyOf) and its concept.
type lexKey struct {
	key     string
	concept uint16
	lang    uint8
	capital bool // the form is written with a capital (a name: Germany, Olympics, KI)
}

// conceptLexicon is the parsed lexicon: every concept's forms, and the forms' keys sorted for
// binary search. About 380 concepts and 4,000 forms; parsed on the first interest that needs
// it, about 0.4 MB of heap with the regions' index (TestLexiconIsSmall). The regions' 256
// lines (8,000 forms) are kept as lines of the embedded text, indexed by a hash of each form's
// key (8 bytes a form) and read again on a hit: indexed as the concepts are, they held 0.7 MB.
type conceptLexicon struct {
	concepts   [][]lexForm
	kinds      [][]string // per concept, its kinds (English or names), not looked up
	keys       []lexKey
	regions    []string // lines of regionsText; concept len(concepts)+i is regions[i]
	regionKeys []regionKey
}

// regionKey indexes a form of a region in 8 bytes: the hash of its key, its line, its place in
// the line, and its language with, in the top bit, its case.
type regionKey struct {
	hash uint32
	line uint16
	form uint8
	meta uint8 // lang | 0x80 when written with a capital (or in a script without capitals)
}

func (k regionKey) lang() int     { return int(k.meta &^ 0x80) }
func (k regionKey) capital() bool { return k.meta&0x80 != 0 }

// keyHash is the 32-bit FNV-1a hash of a look-up key.
func keyHash(key string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(key); i++ {
		h = (h ^ uint32(key[i])) * 16777619
	}
	return h
}

var (
	lexOnce sync.Once
	lex     *conceptLexicon
)

// lexLangs are the lexicon's language codes; "any" lists forms in other scripts, looked for in
// items of every language.
var lexLangs = map[string]int{"en": langEN, "de": langDE, "fr": langFR, "es": langES, "nl": langNL, "it": langIT, "pt": langPT, "any": langOther}

func theLexicon() *conceptLexicon {
	lexOnce.Do(func() { lex = parseLexicon(lexiconText, regionsText) })
	return lex
}

// parseLexicon reads the concepts of text, lines "en: form, form | de: form | …" (lines
// starting with # are comments), and keeps the lines of regions to be read on look-up.
func parseLexicon(text, regions string) *conceptLexicon {
	l := &conceptLexicon{}
	for _, line := range strings.Split(text, "\n") {
		forms, kinds := parseLexLine(line)
		if len(forms) < 2 && len(kinds) == 0 || len(forms) == 0 {
			continue
		}
		c := uint16(len(l.concepts))
		l.concepts = append(l.concepts, forms)
		l.kinds = append(l.kinds, kinds)
		for _, f := range forms {
			l.keys = append(l.keys, lexKey{lexKeyOf(f.text), c, f.lang, f.capital()})
		}
	}
	sort.Slice(l.keys, func(i, j int) bool {
		if l.keys[i].key != l.keys[j].key {
			return l.keys[i].key < l.keys[j].key
		}
		return l.keys[i].concept < l.keys[j].concept
	})
	for _, line := range strings.Split(regions, "\n") {
		forms, _ := parseLexLine(line)
		if len(forms) == 0 {
			continue
		}
		for i, f := range forms[:min(len(forms), 256)] {
			meta := f.lang
			if f.capital() || f.lang == langOther {
				meta |= 0x80
			}
			l.regionKeys = append(l.regionKeys, regionKey{keyHash(lexKeyOf(f.text)), uint16(len(l.regions)), uint8(i), meta})
		}
		l.regions = append(l.regions, strings.TrimSpace(line))
	}
	sort.Slice(l.regionKeys, func(i, j int) bool { return l.regionKeys[i].hash < l.regionKeys[j].hash })
	return l
}

// parseLexLine reads one line of the lexicon: its forms and kinds.
func parseLexLine(line string) (forms []lexForm, kinds []string) {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' {
		return nil, nil
	}
	for _, part := range strings.Split(line, "|") {
		code, list, ok := strings.Cut(part, ":")
		if ok && strings.TrimSpace(code) == "kinds" {
			for _, f := range strings.Split(list, ",") {
				if f = strings.TrimSpace(f); f != "" {
					kinds = append(kinds, f)
				}
			}
			continue
		}
		lang, known := lexLangs[strings.TrimSpace(code)]
		if !ok || !known {
			continue
		}
		for _, f := range strings.Split(list, ",") {
			if f = strings.TrimSpace(f); f != "" {
				forms = append(forms, lexForm{uint8(lang), f})
			}
		}
	}
	return forms, kinds
}

// capital: the form is written with a capital (a name: Germany, Olympics, KI).
func (f lexForm) capital() bool {
	r, _ := utf8.DecodeRuneInString(f.text)
	return unicode.IsUpper(r)
}

// forms returns concept c's forms and kinds.
func (l *conceptLexicon) forms(c uint16) ([]lexForm, []string) {
	if int(c) < len(l.concepts) {
		return l.concepts[c], l.kinds[c]
	}
	return parseLexLine(l.regions[int(c)-len(l.concepts)])
}

// lexKeyOf is the look-up key of a form or of an interest term: an acronym as written ("=AI"),
// otherwise its words folded and singular (the light plural stemmer, not a Snowball stemmer, so
// "training" is not "train").
func lexKeyOf(s string) string {
	fields := strings.Fields(s)
	if len(fields) == 1 && isAcronym(fields[0]) {
		return "=" + fields[0]
	}
	for i, f := range fields {
		fields[i] = stem(fold(strings.Trim(f, ".,;:!?\"'’")))
	}
	return strings.Join(fields, " ")
}

// isAcronym: two to five letters or digits, every letter a capital (AI, EU, 5G, CO2, LLM).
func isAcronym(w string) bool {
	if len(w) < 2 || len(w) > 5 {
		return false
	}
	letters := 0
	for _, r := range w {
		switch {
		case unicode.IsUpper(r):
			letters++
		case unicode.IsDigit(r):
		default:
			return false
		}
	}
	return letters > 0
}

// lookup returns the concepts that have a form with the given key in language lang, or in
// any language when lang is langOther; with name, only forms written with a capital (a form in
// a script without capitals counts as written so).
func (l *conceptLexicon) lookup(key string, lang int, name bool) []uint16 {
	want := func(fl int, capital bool) bool {
		return (lang == langOther || fl == lang) && (!name || capital)
	}
	i := sort.Search(len(l.keys), func(i int) bool { return l.keys[i].key >= key })
	var out []uint16
	for ; i < len(l.keys) && l.keys[i].key == key; i++ {
		if !want(int(l.keys[i].lang), l.keys[i].capital) {
			continue
		}
		if len(out) == 0 || out[len(out)-1] != l.keys[i].concept {
			out = append(out, l.keys[i].concept)
		}
	}
	h := keyHash(key)
	for i := sort.Search(len(l.regionKeys), func(i int) bool { return l.regionKeys[i].hash >= h }); i < len(l.regionKeys) && l.regionKeys[i].hash == h; i++ {
		rk := l.regionKeys[i]
		c := uint16(len(l.concepts) + int(rk.line))
		if !want(rk.lang(), rk.capital()) || slices.Contains(out, c) {
			continue
		}
		// The hash's form itself has the key (another's would be a collision).
		if forms, _ := parseLexLine(l.regions[rk.line]); int(rk.form) < len(forms) && lexKeyOf(forms[rk.form].text) == key {
			out = append(out, c)
		}
	}
	return out
}

// addTranslations appends to spec, for each term that is a form of a concept of the lexicon,
// the concept's other forms as terms that stand for it (alt), each matched only in items of its
// own language. lang is the language the interest is written in (langOther when its words do
// not tell): the term is looked up among that language's forms, then among English ones; an
// interest whose language is unknown is looked up in the other languages too for words of six
// letters or more (short words are shared by languages with other meanings: "chat").
func addTranslations(spec *interestSpec, lang int) {
	l := theLexicon()
	n := len(spec.terms)
	for i := 0; i < n; i++ {
		t := spec.terms[i]
		var raw []string
		for _, w := range t.words {
			raw = append(raw, w.surface)
		}
		key := lexKeyOf(strings.Join(raw, " "))
		// A word the user capitalised inside the interest is a name (Rails, Windows, Apple):
		// it is the concept only if the lexicon writes the concept so (Germany, Olympics).
		r, _ := utf8.DecodeRuneInString(raw[0])
		name := unicode.IsUpper(r) && !t.words[0].exact && !strings.HasPrefix(strings.TrimLeft(spec.text, "\"“«„'‘ "), raw[0])
		var cs []uint16
		found := lang // the language cs was found among
		if lang != langOther {
			cs = l.lookup(key, lang, name)
		}
		if len(cs) == 0 && lang != langEN {
			cs, found = l.lookup(key, langEN, name), langEN // English words are common in other languages' interests
		}
		if len(cs) == 0 && lang == langOther && len([]rune(key)) >= 6 {
			cs, found = l.lookup(key, langOther, name), langOther
		}
		// The user chose their words: other words of the same language are not added ("share"
		// for "stock" brings "market share"), except what an acronym stands for (AI) and a
		// country's other names and adjective ("Indian" brings "India", "Burma" "Myanmar"): a
		// place has one meaning whatever its name. An interest in another script ("Пакистан") is
		// in none of the lexicon's languages.
		same := lang
		if same == langOther {
			same = langEN
			if !latinScript(spec.text) {
				same = -1
			}
		}
		acronym := strings.HasPrefix(key, "=")
		seen := map[string]bool{key: true}
		for _, c := range cs {
			forms, kinds := l.forms(c)
			region := int(c) >= len(l.concepts)
			if region && (t.part || found == langOther && latinScript(key) && !unicode.IsUpper(r)) {
				// A word of a longer name ("Mexico" of "New Mexico", "Jordan" of "Michael
				// Jordan"), or a lower-case word found only among other languages' names
				// ("islands": German's "Island" is Iceland), is not the country.
				continue
			}
			if region {
				spec.terms[i].place = true
			}
			for _, f := range forms {
				if int(f.lang) == same && !acronym && !region {
					continue
				}
				fk := lexKeyOf(f.text)
				if seen[string(rune(f.lang))+fk] || fk == key {
					continue
				}
				seen[string(rune(f.lang))+fk] = true
				if a, ok := standIn(t, i, f.text, int(f.lang), int(f.lang)); ok {
					// A place's name in a script with capitals is a name only so written: "Того"
					// (Togo) and "того" (of that), "Мали" and "мало".
					a.proper = region && len(a.words) == 1 && f.capital()
					spec.terms = append(spec.terms, a)
				}
			}
			for _, k := range kinds {
				fk := "kind:" + lexKeyOf(k)
				if seen[fk] {
					continue
				}
				seen[fk] = true
				// Kinds are English terms and names, looked for in items of any language.
				if a, ok := standIn(t, i, k, langEN, langOther); ok {
					a.kind = true
					spec.terms = append(spec.terms, a)
				}
			}
		}
	}
}
