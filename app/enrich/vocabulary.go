package enrich

import (
	"github.com/morningdeck/morningdeck/app/wordvec"
	"math"
	"net/url"
	"sort"
	"strings"
	"unicode"

	"github.com/morningdeck/morningdeck/app"
)

// Vocabulary learns, for each of the user's interests, the words that go with it in the reader's
// own items (issue 25: "security vulnerabilities — also: CVE, exploit, patch"): the words and
// two-word phrases most over-represented in the items that match the interest best (the
// vocabTop best), against all the items given — pseudo-relevance
// feedback, learned from the reader's sources rather than from a word list. At most
// perInterest words an interest, none of its own words; an interest with fewer than
// vocabMinMatches such matches learns nothing yet. The reader adds a word to the interest
// (Settings), and from then on it counts as the reader's own; nothing is added behind their
// back, so a text's score stays a function of the text and the interests. What the interest
// is read as (its news section, the lexicon's kinds and forms, the place that qualifies it) is
// given before any item has come.
func (e *Embedded) Vocabulary(interests string, items []app.EnrichInput, perInterest int) []app.InterestWords {
	specs := parseInterests(interests)
	if len(specs) == 0 || perInterest <= 0 {
		return nil
	}
	var df [numLangs]map[string]int // by the items' language
	var inLang [numLangs]float64
	shown := map[string]map[string]int{} // key → its forms as written → count
	docs := make([][]string, len(items))
	scores := make([][]float64, len(items))
	sources := make([]string, len(items))
	langs := make([]int, len(items))
	for i, in := range items {
		p := e.prepare(in)
		keys := vocabTerms(p, shown)
		if df[p.lang] == nil {
			df[p.lang] = map[string]int{}
		}
		for _, k := range keys {
			df[p.lang][k]++
		}
		docs[i] = keys
		langs[i] = p.lang
		inLang[p.lang]++
		sources[i] = in.SourceName
		if sources[i] == "" {
			sources[i] = linkHost(in.Link)
		}
		scores[i] = make([]float64, len(specs))
		for j := range specs {
			scores[i][j], _, _ = e.interestScore(&specs[j], p.doc())
		}
	}
	var out []app.InterestWords
	for j := range specs {
		own := ownKeys(&specs[j])
		// The items that match the interest best: the vocabTop with the highest scores.
		// Only items in the interest's language teach it words (when a few words do not tell
		// it, the language of most of its matches).
		lang := specs[j].lang
		if lang == langOther {
			var weight [numLangs]float64
			for i := range docs {
				weight[langs[i]] += scores[i][j]
			}
			for l := range weight {
				if weight[l] > weight[lang] {
					lang = l
				}
			}
		}
		var best []int
		for i := range docs {
			if scores[i][j] > 0 && langs[i] == lang {
				best = append(best, i)
			}
		}
		sort.SliceStable(best, func(a, b int) bool { return scores[best[a]][j] > scores[best[b]][j] })
		if len(best) > vocabTop {
			best = best[:vocabTop]
		}
		dfm := map[string]int{}
		from := map[string]map[string]bool{} // the sources of the matches that have a term
		m := 0
		for _, i := range best {
			m++
			for _, k := range docs[i] {
				dfm[k]++
				if from[k] == nil {
					from[k] = map[string]bool{}
				}
				from[k][sources[i]] = true
			}
		}
		related := relatedTo(&specs[j])
		section, sectionWords := namedSection(&specs[j])
		kinds, translations := interestKinds(&specs[j]), interestTranslations(&specs[j])
		place, qualified := placeQualified(&specs[j])
		if m < vocabMinMatches {
			if section != "" || len(kinds) > 0 || len(translations) > 0 || place != "" {
				out = append(out, app.InterestWords{Interest: specs[j].text, Section: section, SectionWords: sectionWords, Kinds: kinds, Translations: translations, Place: place, Qualified: qualified})
			}
			continue
		}
		type cand struct {
			key   string
			score float64
		}
		var cands []cand
		for k, c := range dfm {
			if c < max(vocabMinMatches, m/10) || own[k] || vocabOwn(k, own) || len(from[k]) < 2 {
				continue // a word of one source is that source's (a host's name, a show's)
			}
			if !related(mostWritten(shown[k])) {
				continue
			}
			share := float64(c) / float64(m)
			lift := share / ((float64(df[lang][k]-c) + 0.5) / (inLang[lang] - float64(m) + 1)) // against the other items of the language
			if lift < vocabLift {
				continue
			}
			cands = append(cands, cand{k, share * math.Log(lift)})
		}
		sort.Slice(cands, func(a, b int) bool {
			if cands[a].score != cands[b].score {
				return cands[a].score > cands[b].score
			}
			return cands[a].key < cands[b].key
		})
		// A phrase taken stands for its words: "code execution", not also "execution".
		var words []string
		taken := map[string]bool{}
		for _, c := range cands {
			if len(words) == perInterest {
				break
			}
			parts := strings.Fields(c.key)
			if len(parts) == 1 && taken[c.key] {
				continue
			}
			if len(parts) == 2 && (taken[parts[0]] && taken[parts[1]]) {
				continue
			}
			for _, p := range parts {
				taken[p] = true
			}
			taken[c.key] = true
			words = append(words, mostWritten(shown[c.key]))
		}
		if len(words) > 0 || section != "" || len(kinds) > 0 || len(translations) > 0 || place != "" {
			out = append(out, app.InterestWords{Interest: specs[j].text, Words: words, Section: section, SectionWords: sectionWords, Kinds: kinds, Translations: translations, Place: place, Qualified: qualified})
		}
	}
	return out
}

// placeQualified is the place that qualifies later segments of an interest (qualifyByPlace) as
// the reader wrote it, and those segments; "" when none.
func placeQualified(spec *interestSpec) (place string, qualified []string) {
	for seg, q := range spec.placeOf {
		if q < 0 {
			continue
		}
		place = spec.terms[q].display
		var ws []string
		for _, t := range spec.terms {
			if t.seg == seg && t.alt == 0 && !t.part && !t.also {
				ws = append(ws, t.display)
			}
		}
		if len(ws) > 0 {
			qualified = append(qualified, strings.Join(ws, " "))
		}
	}
	return place, qualified
}

// interestKinds are the lexicon's kinds an interest looks for (lexicon.go), each once, in the
// order the lexicon gives them.
func interestKinds(spec *interestSpec) []string {
	return standInsOf(spec, func(t *iterm) bool { return t.kind && !t.also })
}

// interestTranslations are the lexicon's forms of an interest's words in other languages and
// scripts (lexicon.go, regions.txt), each once.
func interestTranslations(spec *interestSpec) []string {
	return standInsOf(spec, func(t *iterm) bool { return t.alt > 0 && !t.kind && !t.also })
}

// standInsOf lists, each once and as written, the terms of spec that stand for the user's
// (their display without the user's term) and that keep says to list.
func standInsOf(spec *interestSpec, keep func(*iterm) bool) []string {
	var out []string
	seen := map[string]bool{}
	for i := range spec.terms {
		t := &spec.terms[i]
		if !keep(t) {
			continue
		}
		k, _, _ := strings.Cut(t.display, " (")
		if !seen[strings.ToLower(k)] {
			seen[strings.ToLower(k)] = true
			out = append(out, k)
		}
	}
	return out
}

// namedSection is the news section an interest names by its name (newstopics.go) and the
// section's first one-word seeds, which say what it is read as; empty for none.
func namedSection(spec *interestSpec) (string, []string) {
	for _, sv := range spec.vecs {
		if sv.named && useNewsTopics {
			return newsTopicNames[sv.topic], sectionSeedWords(sv.topic, 8)
		}
	}
	return "", nil
}

// Vocabulary's thresholds: an interest learns from its best vocabMinMatches to vocabTop matches,
// a word must be in vocabMinMatches of them (and a tenth), and vocabLift times more common among
// them than among the other items (chosen on the development interests, every learned word added:
// 5, 8, 12 gave NDCG@10 0.733, 0.755, 0.822, against 0.875 without them; the held-out ones went
// from 0.916 to 0.941, 0.941, 0.966). vocabRead is how many words of an item's text it reads (its title and opening).
const (
	vocabMinMatches = 3
	vocabTop        = 30
	vocabLift       = 12.0
	vocabRead       = 200
	vocabCommon     = 3000
)

// vocabClose is the least closeness (cosine of word vectors) of a learned word to one of the
// interest's words. Chosen on the development interests of the ranking evaluation, all words
// added (0.45, 0.55, 0.65: NDCG@10 0.620, 0.683, 0.682).
var vocabClose = float32(0.55)

// vocabTerms are an item's distinct candidate terms: its content words (stems), its two-word
// runs of them, and the letter parts of codes ("CVE" of CVE-2026-1234), each noted with the form
// it was written in.
func vocabTerms(p *prepared, shown map[string]map[string]int) []string {
	seen := map[string]bool{}
	var keys []string
	note := func(k, written string) {
		if f := shown[k]; f == nil {
			shown[k] = map[string]int{written: 1}
		} else {
			f[written]++
		}
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	for part, toks := range [][]token{p.title, p.body} {
		for i, t := range toks {
			if part == 1 && i >= vocabRead {
				break
			}
			if t.surface == "" {
				continue
			}
			if t.stop {
				if strings.ContainsRune(t.surface, '-') {
					for _, piece := range strings.Split(t.surface, "-") {
						if isAcronym(piece) && strings.IndexFunc(piece, unicode.IsDigit) < 0 {
							note("="+strings.ToLower(piece), piece)
						}
					}
				}
				continue
			}
			if len(t.key) < 3 {
				continue
			}
			note(t.key, t.surface)
			if i > 0 && !toks[i-1].stop && toks[i-1].surface != "" && len(toks[i-1].key) >= 3 {
				note(toks[i-1].key+" "+t.key, toks[i-1].surface+" "+t.surface)
			}
		}
	}
	return keys
}

// relatedTo says whether a word or phrase goes with the interest in general English: each of its
// words with a vector is no commoner than rank vocabCommon and close (vocabClose) to one of
// the interest's words; words without a vector (codes, names: CVE, Nokogiri) are judged by the
// items alone.
func relatedTo(spec *interestSpec) func(string) bool {
	var vs []wordvec.Vector
	for _, t := range spec.terms {
		if t.alt > 0 {
			continue
		}
		for _, w := range t.words {
			if r := wordvec.Rank(w.lower); r >= 0 {
				if v := wordvec.Of(r); v.Unit() {
					vs = append(vs, v)
				}
			}
		}
	}
	return func(term string) bool {
		for _, w := range strings.Fields(strings.ToLower(term)) {
			r := wordvec.Rank(w)
			if r < 0 {
				continue
			}
			if r < vocabCommon {
				return false
			}
			v := wordvec.Of(r)
			if !v.Unit() {
				return false
			}
			close := false
			for i := range vs {
				if wordvec.Dot(&v, &vs[i]) >= vocabClose {
					close = true
					break
				}
			}
			if !close {
				return false
			}
		}
		return true
	}
}

// linkHost is the host of a link, for telling sources apart when an item has no source name.
func linkHost(link string) string {
	if u, err := url.Parse(link); err == nil {
		return u.Host
	}
	return ""
}

// ownKeys are the keys of an interest's words (every language's stem, and as written), which it
// does not learn again.
func ownKeys(spec *interestSpec) map[string]bool {
	own := map[string]bool{}
	for _, t := range spec.terms {
		if t.kind && len(t.words) > 1 {
			// A kind of several words ("remote code execution") is the interest's as a
			// whole: its words alone ("code", "day" of "zero-day") may still be learned.
			for l := range numLangs {
				var ks []string
				for _, w := range t.words {
					ks = append(ks, w.keys[l])
				}
				for i := 0; i+1 < len(ks); i++ {
					own[ks[i]+" "+ks[i+1]] = true
				}
			}
			continue
		}
		for _, w := range t.words {
			for _, k := range w.keys {
				own[k] = true
			}
			own["="+w.lower] = true
		}
	}
	return own
}

// vocabOwn reports whether a phrase key has one of the interest's own words.
func vocabOwn(k string, own map[string]bool) bool {
	a, b, ok := strings.Cut(k, " ")
	return ok && (own[a] || own[b])
}

// mostWritten is the form a term was most often written in; lower case when it was written so
// as often as not (a capital at the start of a title is not a name).
func mostWritten(forms map[string]int) string {
	best, bestN, lower := "", 0, 0
	for f, c := range forms {
		if c > bestN || c == bestN && f < best {
			best, bestN = f, c
		}
		if f == strings.ToLower(f) {
			lower += c
		}
	}
	total := 0
	for _, c := range forms {
		total += c
	}
	if 2*lower >= total {
		return strings.ToLower(best)
	}
	return best
}
