package enrich

import (
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/morningdeck/morningdeck/app"
)

// topicSpecs parses the user's topics: each a name and keywords, read like interests (a keyword
// of several words is a phrase; short words and acronyms match by case), with the keywords'
// forms of other languages from the lexicon. Parsed once per set of topics (a bounded cache).
func topicSpecs(topics []app.Topic) []interestSpec {
	var key strings.Builder
	for _, tp := range topics {
		key.WriteString(tp.Name)
		for _, kw := range tp.Keywords {
			key.WriteString("\x00" + kw)
		}
		key.WriteString("\n")
	}
	return topicCache.get(key.String(), func() []interestSpec { return parseTopics(topics) })
}

func parseTopics(topics []app.Topic) []interestSpec {
	out := make([]interestSpec, len(topics))
	for i, tp := range topics {
		spec := interestSpec{text: tp.Name, anchors: []bool{false}}
		for _, kw := range append([]string{tp.Name}, tp.Keywords...) {
			ws := interestWords(kw, false)
			for k := range ws {
				ws[k].aliases = nil // a topic lists its own keywords
			}
			var t iterm
			switch {
			case len(ws) == 1:
				t = wordTerm(ws[0])
			case len(ws) > 1:
				t = iterm{display: strings.TrimSpace(kw), words: ws, phrase: true, weight: 1}
			default:
				continue
			}
			// Each keyword is read as a line of its own for its translations (the language it
			// is written in; a capitalised keyword may be a name).
			one := interestSpec{text: strings.TrimSpace(kw), terms: []iterm{t}, anchors: []bool{false}}
			addTranslations(&one, detectLang(kw))
			n := len(spec.terms)
			for _, tt := range one.terms {
				if tt.alt > 0 {
					tt.alt = n + 1 // the keyword's own term, just appended
				}
				spec.terms = append(spec.terms, tt)
			}
		}
		// What the topic's name is about (word vectors, the news-topic model), as an interest
		// of that name would be read: an item of the subject gets the topic without its words.
		if names := parseInterests(labelCase(tp.Name)); len(names) == 1 {
			spec.vecs = names[0].vecs
		}
		out[i] = spec
	}
	return out
}

// topics gives the user's topics that the item matches: keyword hits (title hits weigh 3),
// normalized for length into [0,1], at least TopicThreshold, at most TopicLimit. An item that
// matches none gets none (the source's usual topics are returned apart, as UsualTopics).
func (e *Embedded) topics(in app.EnrichInput, d *doc) []string {
	if len(in.Topics) == 0 {
		return nil
	}
	avg := refLen
	type scored struct {
		name  string
		score float64
	}
	var all []scored
	for i, spec := range topicSpecs(in.Topics) {
		var hits float64
		own := make([]float64, len(spec.terms))
		for j := range spec.terms {
			t := &spec.terms[j]
			var inTitle, inBody float64
			switch {
			case t.alt == 0 && t.phrase:
				inTitle, inBody = d.phraseCount(t)
			case t.alt == 0:
				inTitle, inBody = d.count(&t.words[0])
			case t.lang == d.lang && !t.kind && own[t.alt-1] == 0:
				// A keyword's form in the item's language counts when the keyword did not.
				inTitle, inBody = d.formCount(t)
				inTitle, inBody = translationWeight*inTitle, translationWeight*inBody
			}
			own[j] = inTitle*titleWeight + inBody
			hits += own[j]
		}
		density := hits / (1 + d.dl/avg)
		s := 1 - math.Exp(-density/1.25)
		order := s
		// What the news-topic model reads of the item counts where the topic's name is one of
		// its topics ("Entertainment", "Health"): the word vectors' closeness alone is too loose
		// to file an item (gardening is close to cooking).
		for k := range spec.vecs {
			if sem := newsTopicGain * topicCloseness(&spec.vecs[k], d); sem > s {
				s, order = min(1, sem), sem // the surer reading of the subject goes first
			}
		}
		if s >= TopicThreshold {
			all = append(all, scored{in.Topics[i].Name, order})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].score > all[j].score })
	var names []string
	for i, s := range all {
		if i == TopicLimit {
			break
		}
		names = append(names, s.name)
	}
	return names
}

// labelCase writes a topic's name as a phrase of its words: a label's capitals ("Business",
// "Health and Fitness") are not a name's, so its words are read as words. A name written with
// inner capitals or in capitals ("SQLite", "iPhone", "AWS") is kept as written.
func labelCase(name string) string {
	for _, w := range strings.Fields(name) {
		for i, r := range w {
			if i > 0 && unicode.IsUpper(r) {
				return name
			}
		}
		if r := []rune(w); len(r) == 1 && unicode.IsUpper(r[0]) {
			return name
		}
	}
	return strings.ToLower(name)
}
