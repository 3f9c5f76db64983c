package enrich

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// The user's interests and topic keywords are parsed apart from article text: short words and
// acronyms are kept (Go, AI, US, 5G, C++) and matched by their case, phrases are matched as
// phrases, names match their word forms (India → Indian, Mac → MacBook, iMac), words are
// stemmed for the language of each item, and the article stop list never applies.

// iword is one word of an interest as the user wrote it.
type iword struct {
	surface string           // as written
	lower   string           // lower case
	exact   bool             // a short word or an acronym: matched by case (Go, US, AI, 5G)
	symbol  bool             // has symbols a tokenizer drops (C++, C#, .NET): matched in the raw text
	name    bool             // a capitalised name: its word forms match by prefix
	keys    [numLangs]string // stemmed key per language
	aliases []string         // surfaces that mean the same (Golang for Go)
	share   float64          // its share of documents of general English (wordShare)
}

// iterm is a thing to look for: a word, or a phrase of consecutive words.
type iterm struct {
	display string // as the user wrote it, for reasons
	words   []iword
	anchor  bool    // a name or an acronym: the specific subject of its interest
	phrase  bool    // matched as consecutive words
	part    bool    // a word of a phrase on its own: counts a little, never alone an anchor
	weight  float64 // multiplier of its idf
	seg     int     // the segment of the interest it belongs to
	guessed bool    // a phrase guessed from two words written together (not quoted)
	alt     int     // a form of the lexicon standing for term alt-1 in another language (0: the user's own)
	lang    int     // for such a form, the language of the items it is looked for in
	user    string  // for such a form, the user's term it stands for, as written
	kind    bool    // a kind of the term's concept (lexicon.go), looked for in items of any language
	also    bool    // a word the reader added to the interest from its vocabulary ("(also: CVE)")
	proper  bool    // a place's name (regions.txt): found only where the item writes it with a capital
	place   bool    // the user's word names a place (a region of the lexicon: India, Indian, US)
}

// interestSpec is one interest: one line (or ;-separated part) of what the user wrote.
type interestSpec struct {
	text    string
	lang    int // the language it is written in (detectLang)
	terms   []iterm
	anchors []bool // per segment: whether it names something (then it needs that name or a phrase)
	// placeOf is, per segment, the term of the place that qualifies it (-1: none): in "Indian
	// economy and markets" the markets are India's (see qualifyByPlace).
	placeOf []int
	vecs    []segVector // per segment with words that have one: what it is about (semantic.go)
}

// possessives start a segment that depends on the one before ("the Go language and its
// toolchain": a toolchain of Go's, not any toolchain).
var possessives = map[string]bool{"its": true, "their": true, "his": true, "her": true, "sein": true, "seine": true,
	"ihr": true, "ihre": true, "son": true, "sa": true, "ses": true, "leur": true, "leurs": true, "su": true, "sus": true,
	"zijn": true, "haar": true, "hun": true, "suo": true, "sua": true, "suoi": true, "seu": true}

// interestFiller are the words of a request that say nothing about its subject ("news about the
// …"). It is not the article stop list: privacy, video, home, source, big or data are kept.
var interestFiller = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an the its it's their our my your his her this that these those of in on at to for from with
		about into by as is are be any all some anything everything something things stuff news articles article posts post
		related relating regarding especially mainly mostly also more less new latest i me we you like love want interested
		le la les l un une des du de d et ou en au aux sur pour avec dans par
		der die das den dem des ein eine einer einem einen und oder von vom zu zum zur im in mit über für auf
		el los las un una unos unas del al y o en con sobre para por de
		het een van en of op voor met over
		il lo gli i uno una dei delle della degli e o con su per di da
		os as um uma dos das e ou em com sobre para por`) {
		m[w] = true
	}
	return m
}()

// connectors split an interest into segments; "and" joins things, it is not part of a phrase.
var connectors = map[string]bool{"and": true, "or": true, "und": true, "oder": true, "et": true, "ou": true, "y": true,
	"o": true, "e": true, "en": true, "&": true, "+": true, "/": true, "vs": true, "versus": true}

// aliases are other names of the same thing, both ways where the short form is an acronym.
var aliases = map[string][]string{
	"Go": {"Golang"}, "go": {"Golang"}, "golang": {"Go"}, "Golang": {"Go"},
	"AI": {"KI", "IA"}, "KI": {"AI"}, "ML": {"Machine Learning"},
	"JS": {"JavaScript"}, "k8s": {"Kubernetes"}, "K8s": {"Kubernetes"},
}

// specCache keeps what was parsed of the last texts seen (a user's interests, topics, a
// briefing's focus), so that enriching an item does not parse them again. A parsed interest with
// its forms in other languages is ~15 KB; the cache starts over when it holds max texts, so a
// server whose users edit their interests or try many focuses keeps a few MB at most (the first
// 2,000 interests and 1,000 sets of topics were kept for good: tens of MB were possible).
type specCache struct {
	mu  sync.RWMutex
	m   map[string][]interestSpec
	max int
}

// get is the specs parsed from key, parsing them with parse when they are not kept.
func (c *specCache) get(key string, parse func() []interestSpec) []interestSpec {
	c.mu.RLock()
	out, ok := c.m[key]
	c.mu.RUnlock()
	if ok {
		return out
	}
	out = parse()
	c.mu.Lock()
	if c.m == nil || len(c.m) >= c.max {
		c.m = make(map[string][]interestSpec, c.max)
	}
	c.m[strings.Clone(key)] = out
	c.mu.Unlock()
	return out
}

var interestCache, topicCache = &specCache{max: 64}, &specCache{max: 64}

// parseInterests splits what the user wrote into interests (lines, or parts separated by ';')
// and each interest into terms.
func parseInterests(s string) []interestSpec {
	return interestCache.get(s, func() []interestSpec {
		var out []interestSpec
		for _, line := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == ';' || r == '\r' }) {
			if spec := parseInterest(line); len(spec.terms) > 0 {
				spec.vecs = segmentVectors(&spec)
				out = append(out, spec)
			}
		}
		return out
	})
}

// parseInterest reads one interest: quoted text is a phrase; the rest is cut into segments at
// punctuation and at "and"/"or"; a segment of two lower-case words ("open source", "machine
// learning") is a phrase, whose words count a little on their own.
func parseInterest(line string) interestSpec {
	spec := interestSpec{text: strings.TrimSpace(line)}
	seen := map[string]bool{}
	seg := -1
	newSeg := func() {
		seg++
		spec.anchors = append(spec.anchors, false)
	}
	add := func(t iterm) {
		k := fmt.Sprint(seg, " ", strings.ToLower(t.display)) // a word may serve two segments (pet care, pet products)
		if seen[k] || len(t.words) == 0 {
			return
		}
		seen[k] = true
		t.seg = seg
		spec.terms = append(spec.terms, t)
		if t.anchor {
			spec.anchors[seg] = true
		}
	}
	// Words the reader added from the interest's vocabulary: "security vulnerabilities (also:
	// CVE, exploit)". They stand for the interest's main term (vocabulary.go), not for a
	// subject of their own.
	rest, also := cutList(line, "also")
	rest, not := cutList(rest, "not")
	// Quoted phrases first.
	for _, q := range [][2]string{{`"`, `"`}, {"“", "”"}, {"«", "»"}, {"„", "“"}} {
		for {
			i := strings.Index(rest, q[0])
			if i < 0 {
				break
			}
			j := strings.Index(rest[i+len(q[0]):], q[1])
			if j < 0 {
				break
			}
			inner := rest[i+len(q[0]) : i+len(q[0])+j]
			rest = rest[:i] + " , " + rest[i+len(q[0])+j+len(q[1]):]
			newSeg()
			if ws := interestWords(inner, false); len(ws) > 1 {
				add(iterm{display: strings.TrimSpace(inner), words: ws, phrase: true, weight: 1.2})
			} else if len(ws) == 1 {
				add(wordTerm(ws[0]))
			}
		}
	}
	for _, c := range []string{",", ":", "(", ")", "[", "]", "!", "?", "|", "—", "–", "/"} {
		rest = strings.ReplaceAll(rest, c, " , ")
	}
	var segments [][]string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			segments = append(segments, cur)
		}
		cur = nil
	}
	for _, f := range strings.Fields(rest) {
		if f == "," || connectors[strings.ToLower(f)] {
			flush()
			continue
		}
		cur = append(cur, f)
		if strings.HasSuffix(f, ".") && len(f) > 2 && !strings.ContainsAny(f[:len(f)-1], ".") {
			flush() // the end of a sentence
		}
	}
	flush()
	for i, words := range segments {
		if i == 0 || !possessives[strings.ToLower(words[0])] || seg < 0 {
			newSeg()
		}
		ws := interestWords(strings.Join(words, " "), true)
		if len(ws) >= 2 && len(ws) <= 4 && allNames(ws) {
			// A name of several capitalised words ("Amazon Web Services", "Red Hat") is a phrase;
			// its rare words still count alone, its common ones ("Web") hardly.
			display := make([]string, len(ws))
			for i, w := range ws {
				display[i] = w.surface
			}
			add(iterm{display: strings.Join(display, " "), words: ws, phrase: true, weight: 1.2, guessed: true, anchor: true})
			for _, w := range ws {
				t := wordTerm(w)
				t.part, t.weight, t.anchor = true, 0.5, false
				add(t)
			}
			continue
		}
		// Two common words written together are a phrase ("hearing loss"), and so are the last
		// two of three or more, their head ("GPS sports watches", "cycling power meters"), the
		// words before it qualifying it. After a name the two are its kind, not the subject
		// ("Go programming language", "Rust web framework"): the name is.
		common := func(w iword) bool { return w.surface == w.lower && !w.exact }
		if n := len(ws); n >= 2 && common(ws[n-2]) && common(ws[n-1]) && !slices.ContainsFunc(ws[:n-2], isName) {
			for _, w := range ws[:n-2] {
				add(wordTerm(w))
			}
			add(iterm{display: ws[n-2].surface + " " + ws[n-1].surface, words: ws[n-2:], phrase: true, weight: 1.2, guessed: true})
			for _, w := range ws[n-2:] {
				t := wordTerm(w)
				t.part, t.weight, t.anchor = true, 0.5, false
				add(t)
			}
			continue
		}
		for _, w := range ws {
			add(wordTerm(w))
		}
	}
	spec.lang = detectLang(spec.text)
	addTranslations(&spec, spec.lang)
	qualifyByPlace(&spec)
	dropKinds(&spec, not)
	addAlso(&spec, also)
	return spec
}

// cutList takes a list the reader keeps in an interest out of it: "(also: CVE, exploit)", the
// words added from its vocabulary, or "(not: Facebook)", the lexicon's kinds they removed. It
// returns the rest of the line and the list's words.
func cutList(line, name string) (string, []string) {
	i := strings.LastIndex(strings.ToLower(line), "("+name+":")
	if i < 0 {
		return line, nil
	}
	j := strings.Index(line[i:], ")")
	if j < 0 {
		j = len(line) - i
	}
	var words []string
	for _, w := range strings.Split(line[i+len(name)+2:i+j], ",") {
		if w = strings.TrimSpace(w); w != "" {
			words = append(words, w)
		}
	}
	return line[:i] + " " + line[min(len(line), i+j+1):], words
}

// isName reports whether w is a name the user capitalised that is not an acronym (Go, Rust,
// Apple; not GPS).
func isName(w iword) bool {
	return w.surface != w.lower && !isAcronym(w.surface)
}

// allNames reports whether every word is a capitalised name (not an acronym or a short word).
func allNames(ws []iword) bool {
	for _, w := range ws {
		if !w.name || w.exact {
			return false
		}
	}
	return true
}

// wordTerm is a term of one word. Names and acronyms weigh double: they are what an interest
// is about ("the Go programming language": Go).
func wordTerm(w iword) iterm {
	t := iterm{display: w.surface, words: []iword{w}, anchor: w.exact || w.name, weight: 1}
	if t.anchor {
		t.weight = 2
	}
	return t
}

// interestWords reads the words of a piece of an interest. With dropFiller, filler words ("the",
// "its", "news") are left out; quoted phrases keep every word.
func interestWords(s string, dropFiller bool) []iword { return interestWordsIn(s, dropFiller, -1) }

// interestWordsIn is interestWords stemming for one language only (all when lang is -1): a form
// of the lexicon is looked for only in items of its language, and stemming it for the others
// filled the stem cache (about 30 KB an interest).
func interestWordsIn(s string, dropFiller bool, lang int) []iword {
	var out []iword
	for _, f := range strings.Fields(s) {
		w := strings.TrimFunc(f, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '+' && r != '#'
		})
		w = strings.TrimLeft(w, "+#")
		if strings.HasPrefix(f, ".") && len(w) > 0 && strings.ToUpper(w) == w {
			w = "." + w // .NET
		}
		if w == "" {
			continue
		}
		lower := strings.ToLower(w)
		if dropFiller && interestFiller[lower] && !(len(w) <= 3 && w != lower) {
			continue // "the", but not "US" or "IT"
		}
		iw := iword{surface: w, lower: lower, share: wordShare(lower)}
		letters, upper := 0, 0
		for _, r := range w {
			if unicode.IsLetter(r) {
				letters++
				if unicode.IsUpper(r) {
					upper++
				}
			}
		}
		first, _ := utf8.DecodeRuneInString(w)
		iw.symbol = strings.ContainsAny(w, "+#.")
		digits := strings.IndexFunc(w, unicode.IsDigit) >= 0
		iw.exact = letters <= 2 || upper >= 2 && upper == letters || iw.symbol || digits
		iw.name = !iw.exact && upper > 0 // Apple, iPhone, macOS
		_ = first
		for l := range iw.keys {
			switch {
			case lang < 0 || l == lang:
				iw.keys[l] = stemLang(l, lower)
			case l > 0:
				iw.keys[l] = iw.keys[0]
			default:
				iw.keys[l] = stemLang(lang, lower)
			}
		}
		iw.aliases = aliases[w]
		out = append(out, iw)
	}
	return out
}

// qualifyByPlace marks the segments a place qualifies. A place written before the first
// segment's subject ("Indian economy and markets", "UK housing and jobs") qualifies the
// segments of common words that follow it: the reader means India's markets, not any market
// ("iPad 2018 rumors" that mention "emerging markets" are not about them). A segment that
// names something of its own ("Congress"), or a first segment that is the place alone
// ("India, markets"), is not qualified.
func qualifyByPlace(spec *interestSpec) {
	spec.placeOf = make([]int, len(spec.anchors))
	for i := range spec.placeOf {
		spec.placeOf[i] = -1
	}
	place := -1
	var rest bool // the first segment has words beside the place
	for i, t := range spec.terms {
		if t.seg != 0 || t.alt > 0 || t.part {
			continue
		}
		switch {
		case t.place && place < 0 && !t.phrase:
			place = i
		case place >= 0 && !t.anchor:
			rest = true
		default:
			return // a name, or a word before the place: not "Place subject"
		}
	}
	if place < 0 || !rest {
		return
	}
	for seg := 1; seg < len(spec.anchors); seg++ {
		if spec.anchors[seg] {
			continue
		}
		common := true
		for _, t := range spec.terms {
			if t.seg == seg && t.alt == 0 && slices.ContainsFunc(t.words, func(w iword) bool { return w.surface != w.lower }) {
				common = false
			}
		}
		if common {
			spec.placeOf[seg] = place
		}
	}
}
