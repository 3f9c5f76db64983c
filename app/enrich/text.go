// Package enrich holds the enrichers, which summarize, tag, classify and score items: the
// embedded, offline enricher (extractive summary, TF-IDF tags, keyword topics, BM25 relevance to
// the user's interests, with the reading model's points), the OpenAI-compatible LLM enricher,
// and the Chooser that picks each user's; with what they read items with (text cleaning,
// language detection and stemming, the concept lexicon) and the focus prefilter. Same-story
// grouping is in app/story, the reader's taste model in app/taste.
package enrich

import (
	"math"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// fold lower-cases s and strips its accents, for matching ("Café" → "cafe").
func fold(s string) string {
	s = strings.ToLower(s)
	isASCII := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			isASCII = false
			break
		}
	}
	if isASCII {
		return s
	}
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		switch r {
		case 'ß':
			b.WriteString("ss")
			continue
		case '’':
			r = '\''
		}
		b.WriteRune(r)
	}
	return b.String()
}

// stem is a light, language-neutral stemmer: plural endings only, so "databases" matches
// "database" and "queues" matches "queue".
func stem(w string) string {
	n := len(w)
	switch {
	case n > 5 && strings.HasSuffix(w, "ies"):
		return w[:n-3] + "y"
	case n > 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:n-1]
	}
	return w
}

// token is a word of a text: its display form (lower case, accents kept), its matching key
// (folded and stemmed), its surface form as written (case kept, for acronyms and names), and
// whether it is a stop word.
type token struct {
	display string
	key     string
	stop    bool
	surface string
}

// tokenize splits text into words, stemmed for the language the text is in. Numbers, one- and
// two-letter words, hashes and URL pieces are stop tokens, so phrases never span them.
func tokenize(text string) []token { return tokenizeLang(text, detectLang(text)) }

// seenWord is what tokenizeLang knows of a word it has read before in the same text.
type seenWord struct {
	key  string
	stop bool
}

// tokenizeLang is tokenize for a text whose language is known.
func tokenizeLang(text string, lang int) []token {
	out := make([]token, 0, len(text)/4+1)          // a word and its space are rarely shorter than four bytes
	seen := make(map[string]seenWord, len(text)/16) // words repeat: a plain map before the shared cache
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		raw := strings.Trim(text[start:end], "'’-")
		start = -1
		if raw == "" {
			return
		}
		lower := strings.ToLower(raw)
		surface := raw
		if i := strings.IndexAny(lower[:min(len(lower), 6)], "'’"); i > 0 && i <= 3 {
			// l'homme, d’accord, qu'il: the elided article is a stop word
			_, size := utf8.DecodeRuneInString(lower[i:])
			lower = lower[i+size:]
			surface = surface[min(len(surface), i+size):]
		}
		if w, ok := seen[lower]; ok { // words repeat: their key and stop flag are known
			out = append(out, token{display: lower, key: w.key, surface: surface, stop: w.stop})
			return
		}
		digits, letters, hex := 0, 0, true
		for _, r := range lower {
			if unicode.IsDigit(r) {
				digits++
			} else if unicode.IsLetter(r) {
				letters++
				if r > 'f' {
					hex = false
				}
			} else {
				hex = false
			}
		}
		key := stemLang(lang, lower)
		t := token{display: lower, key: key, surface: surface}
		t.stop = letters < 3 || digits > 0 && letters <= 2*digits || stopWords[key] ||
			hex && digits > 0 && len(lower) >= 7 // a commit hash or a checksum
		if !t.stop {
			folded := fold(lower)
			t.stop = stopWords[folded] || strings.HasPrefix(folded, "http") || strings.Contains(folded, "'")
		}
		seen[lower] = seenWord{key, t.stop}
		out = append(out, t)
	}
	for i, r := range text {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || (start >= 0 && (r == '\'' || r == '’' || r == '-')) {
			if start < 0 {
				start = i
			}
			continue
		}
		flush(i)
		if r == '.' || r == ',' || r == ';' || r == ':' || r == '!' || r == '?' || r == '(' || r == ')' || r == '"' || r == '“' || r == '”' {
			out = append(out, token{stop: true, display: string(r)}) // punctuation breaks phrases
		}
	}
	flush(len(text))
	return out
}

// singleSpaced is strings.Join(strings.Fields(s), " "): s with its white space runs made one
// space and trimmed; s itself, unallocated, when it is that already (as text from a feed, whose
// white space was collapsed when it was read, usually is).
func singleSpaced(s string) string {
	space := true // a space here would be leading
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case ' ':
				if space {
					return strings.Join(strings.Fields(s), " ")
				}
				space = true
			case '\t', '\n', '\v', '\f', '\r':
				return strings.Join(strings.Fields(s), " ")
			default:
				space = false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			return strings.Join(strings.Fields(s), " ")
		}
		space = false
		i += size
	}
	if space && s != "" { // trailing
		return strings.Join(strings.Fields(s), " ")
	}
	return s
}

// sentences splits text into sentences, keeping abbreviations and decimals together.
func sentences(text string) []string {
	var out []string
	text = singleSpaced(text)
	start := 0
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		// The end of a sentence: punctuation, then a space and an upper-case letter, a quote or a digit, or the end.
		j := i + 1
		for j < len(text) && (text[j] == '"' || text[j] == ')' || text[j] == '.' || text[j] == '!' || text[j] == '?') {
			j++
		}
		if j < len(text) && text[j] != ' ' {
			continue // 3.14, e.g, example.com
		}
		if c == '.' && isAbbreviation(text[start:i]) {
			continue
		}
		if j+1 < len(text) {
			next := []rune(text[j+1 : min(len(text), j+5)])
			if len(next) > 0 && !(unicode.IsUpper(next[0]) || unicode.IsDigit(next[0]) || strings.ContainsRune("\"“‘'(¿¡", next[0])) {
				continue
			}
		}
		if s := strings.TrimSpace(text[start:j]); s != "" {
			out = append(out, s)
		}
		start = j
		i = j - 1
	}
	if s := strings.TrimSpace(text[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

var abbreviations = map[string]bool{"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "sr": true, "jr": true,
	"st": true, "vs": true, "etc": true, "inc": true, "ltd": true, "co": true, "corp": true, "no": true, "fig": true,
	"e.g": true, "i.e": true, "u.s": true, "u.k": true, "a.m": true, "p.m": true, "jan": true, "feb": true, "mar": true,
	"apr": true, "jun": true, "jul": true, "aug": true, "sep": true, "sept": true, "oct": true, "nov": true, "dec": true,
	"mme": true, "mlle": true, "bzw": true, "usw": true, "z.b": true, "sra": true, "srta": true}

func isAbbreviation(before string) bool {
	i := strings.LastIndexByte(before, ' ')
	w := strings.ToLower(before[i+1:])
	return abbreviations[w] || len(w) == 1 && w[0] >= 'a' && w[0] <= 'z'
}

// words counts the words of s.
func words(s string) int { return len(strings.Fields(s)) }

// cutWords cuts s to at most n words, ending with "…" when it cut.
func cutWords(s string, n int) string {
	f := strings.Fields(s)
	if len(f) <= n {
		return s
	}
	return strings.TrimRight(strings.Join(f[:n], " "), ",;:—-") + "…"
}

// textRank scores sentences by their centrality: how much of each sentence's vocabulary the
// other sentences share, normalized for length as TextRank's word-overlap similarity is (its
// degree centrality, in time linear in the text rather than quadratic), with a small lead bias.
func textRank(sents []string, lang int) []float64 {
	n := len(sents)
	keys := make([][]string, n)
	sdf := map[string]int{}
	_ = lang // centrality needs shared words, not stems: no stemming here, for speed
	seen := map[string]bool{}
	for i, s := range sents {
		clear(seen)
		for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if len(w) < 4 {
				continue
			}
			k := fold(w)
			if stopWords[k] || seen[k] {
				continue
			}
			seen[k] = true
			keys[i] = append(keys[i], k)
			sdf[k]++
		}
	}
	out := make([]float64, n)
	for i := range out {
		if len(keys[i]) < 2 {
			out[i] = 0.15
			continue
		}
		var shared float64
		for _, k := range keys[i] {
			shared += float64(sdf[k] - 1)
		}
		out[i] = 0.15 + shared/(2*math.Log(float64(len(keys[i])))+1)/float64(max(1, n-1))
	}
	// A small lead bias: news puts the point first.
	for i := range out {
		out[i] *= 1 + 0.3/float64(i+1)
	}
	return out
}

// Summarize returns the most central sentences of text, in their order, at most maxWords words,
// after taking out boilerplate (sponsor reads, "Continue reading", bylines, share lines…).
func Summarize(text string, maxWords int) string {
	text = cleanText(cutText(text, maxAnalysed))
	return summarizeLang(text, maxWords, detectLang(text))
}

// summarizeLang is Summarize for a text already cleaned, in a known language.
func summarizeLang(text string, maxWords int, lang int) string {
	sents := sentences(text)
	if len(sents) == 0 {
		return ""
	}
	if len(sents) > 300 {
		sents = sents[:300] // the lead of a very long text carries its point
	}
	if len(sents) <= 3 && words(strings.Join(sents, " ")) <= maxWords {
		return strings.Join(sents, " ")
	}
	counts := make(map[string]int, len(sents))
	count := func(s string) int {
		n, ok := counts[s]
		if !ok {
			n = words(s)
			counts[s] = n
		}
		return n
	}
	return pick(sents, textRank(sents, lang), func(chosen []string, s string) bool {
		if len(chosen) >= 3 || len(s) > 12*maxWords {
			return false // at least one word per 12 bytes: too long to fit
		}
		n := count(s)
		for _, c := range chosen {
			n += count(c)
		}
		return n <= maxWords
	}, func(s string) string { return cutWords(s, maxWords) })
}

// CentralSentences returns the most central sentences of text, in their order, within maxChars.
func CentralSentences(text string, maxChars int) string {
	if len(text) <= maxChars {
		return text
	}
	sents := sentences(text)
	if len(sents) > 400 {
		sents = sents[:400]
	}
	return pick(sents, textRank(sents, detectLang(text)), func(chosen []string, s string) bool {
		return len(strings.Join(chosen, " "))+len(s)+1 <= maxChars
	}, func(s string) string {
		if len(s) > maxChars {
			return cutWords(s[:maxChars], max(1, words(s[:maxChars])-1))
		}
		return s
	})
}

// pick chooses sentences by rank while fits allows, and returns them in text order. When not
// even the best fits, it returns the best one shortened by cut.
func pick(sents []string, rank []float64, fits func(chosen []string, s string) bool, cut func(string) string) string {
	order := make([]int, len(sents))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return rank[order[a]] > rank[order[b]] })
	var chosen []int
	var texts []string
	for _, i := range order {
		if fits(texts, sents[i]) {
			chosen = append(chosen, i)
			texts = append(texts, sents[i])
		}
	}
	if len(chosen) == 0 {
		return cut(sents[order[0]])
	}
	sort.Ints(chosen)
	out := make([]string, len(chosen))
	for k, i := range chosen {
		out[k] = sents[i]
	}
	return strings.Join(out, " ")
}
