package enrich

import (
	"math"
	"sort"
	"strings"
)

// tags picks up to maxTags keywords and two-word phrases by TF-IDF, title words weighing more.
// Stop words of the seven languages, words in a quarter of all documents (function words of any
// language), hashes and numbers are never tags.
//
// Tags are noun phrases: in English, a word or a phrase that ends with a word that is never a
// noun ("compared", "adds faster", "tables patched") is not a tag (notNoun, from WordNet).
func (e *Embedded) tags(title, body []token, lang int) []string {
	type cand struct {
		display string
		keys    []string
		score   float64
	}
	tf := make(map[string]float64, len(body)/3+len(title))
	add := func(toks []token, weight float64) {
		for _, t := range toks {
			if !t.stop {
				tf[t.key] += weight
			}
		}
	}
	add(title, 3)
	add(body, 1)
	// The surface forms of a key, counted only for the keys that can be tags (for speed).
	display := map[string]map[string]int{}
	forms := func(keep func(string) bool) {
		for _, toks := range [][]token{title, body} {
			for _, t := range toks {
				if t.stop || !keep(t.key) {
					continue
				}
				if display[t.key] == nil {
					display[t.key] = map[string]int{}
				}
				display[t.key][t.display]++
			}
		}
	}
	common := map[string]bool{}
	for k := range tf {
		if e.stats.common(k) {
			common[k] = true
		}
	}
	best := func(key string) string { // the most common surface form of a key
		var out string
		n := -1
		for d, c := range display[key] {
			if c > n || c == n && d < out {
				out, n = d, c
			}
		}
		return out
	}
	cands := map[string]*cand{}
	for k, f := range tf {
		if common[k] {
			continue
		}
		cands[k] = &cand{keys: []string{k}, score: (1 + math.Log(f)) * e.stats.idf(k)}
	}
	// Only the best-scoring words can be tags or begin a phrase that is one.
	if len(cands) > 60 {
		scores := make([]float64, 0, len(cands))
		for _, c := range cands {
			scores = append(scores, c.score)
		}
		sort.Float64s(scores)
		cut := scores[len(scores)-60]
		for k, c := range cands {
			if c.score < cut {
				delete(cands, k)
			}
		}
	}
	forms(func(k string) bool { return cands[k] != nil })
	for k, c := range cands {
		c.display = best(k)
	}
	// Two-word phrases: adjacent content words seen at least twice, or once in the title.
	phrases := map[string]float64{}
	phraseForm := map[string]string{}
	scan := func(toks []token, weight float64) {
		for i := 0; i+1 < len(toks); i++ {
			a, b := toks[i], toks[i+1]
			if a.stop || b.stop || a.key == b.key || common[a.key] || common[b.key] || cands[a.key] == nil && cands[b.key] == nil {
				continue
			}
			k := a.key + " " + b.key
			phrases[k] += weight
			if _, ok := phraseForm[k]; !ok {
				phraseForm[k] = a.display + " " + b.display
			}
		}
	}
	scan(title, 2)
	scan(body, 1)
	for k, f := range phrases {
		if f < 2 {
			continue
		}
		parts := strings.SplitN(k, " ", 2)
		s := (1 + math.Log(f)) * (e.stats.idf(parts[0]) + e.stats.idf(parts[1])) * 0.8
		cands[k] = &cand{display: phraseForm[k], keys: parts, score: s}
	}
	list := make([]*cand, 0, len(cands))
	for _, c := range cands {
		if len([]rune(c.display)) < 3 || len(c.display) > 40 || strings.Contains(c.display, "--") {
			continue
		}
		list = append(list, c)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].score != list[j].score {
			return list[i].score > list[j].score
		}
		return list[i].display < list[j].display
	})
	var out []string
	used := map[string]bool{}
	shown := map[string]bool{} // "git-bisect" and "git bisect" are one tag
	for _, c := range list {
		if len(out) == e.maxTags {
			break
		}
		// A candidate that is not a noun phrase is passed over here, not before the sort: only
		// those ahead of the last tag taken are looked up (issue 26: the look-ups of all of an
		// item's candidates were 6 % of a first import's enrichment).
		if lang == langEN && notNoun(lastWord(c.display)) {
			continue
		}
		form := strings.ReplaceAll(c.display, "-", " ")
		overlap := shown[form]
		shown[form] = true
		for _, k := range c.keys {
			if used[k] {
				overlap = true
			}
		}
		if overlap {
			continue
		}
		for _, k := range c.keys {
			used[k] = true
		}
		out = append(out, c.display)
	}
	return out
}

// lastWord is the last word of a tag, lower case.
func lastWord(s string) string {
	if i := strings.LastIndexByte(s, ' '); i >= 0 {
		s = s[i+1:]
	}
	return strings.ToLower(s)
}
