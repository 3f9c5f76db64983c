package enrich

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app/wordvec"

	"github.com/morningdeck/morningdeck/app"
)

// relevance is how well the item matches the user's interests: the best interest's score plus a
// quarter of the others', the matched terms (best interest first) and whether the match is strong
// (see strongAt).
// strongAt is the interest score from which the reason says "Matches your interests" (half of
// it when a name or phrase of the interest matched); below, it says "Mentions … from your
// interests": a mention is not a match.
const strongAt = 0.5

func (e *Embedded) relevance(specs []interestSpec, d *doc) (float64, []termMatch, bool, string) {
	var best, rest float64
	var matches []termMatch
	strong := false
	var about *segVector // the subject of the largest semantic addition, for the reason
	aboutBy, aboutSem := 0.0, 0.0
	for i := range specs {
		s, m, anchor := e.interestScore(&specs[i], d)
		if tc, ok := topicalCloseness(&specs[i], d); ok {
			// An interest that is news topics as a whole ("world news", "sports", "US politics,
			// Congress and elections"): its words name the topic, and an item saying them is of
			// the interest as far as it is of the topic ("World Cup", "Girl Meets World" and
			// "social media" are not world news nor media).
			s *= topicalLexFloor + (1-topicalLexFloor)*tc
		}
		if (anchor && s >= strongAt/2) || s >= strongAt {
			strong = true // what it says, not what it is about, makes a match strong
		}
		// What the item is about adds to what it says: most where the interest's words are
		// missing (semantic.go).
		if sem, seg := semantic(&specs[i], d); sem > 0 {
			if placeMissing(&specs[i], specs[i].vecs[seg].seg, m) {
				sem /= 4 // "markets" of "Indian economy and markets": of India's, as the words are
			}
			add := semWeight * sem * (1 - min(1, s))
			s += add
			if add > aboutBy {
				about, aboutBy, aboutSem = &specs[i].vecs[seg], add, sem
			}
		}
		if s == 0 {
			continue
		}
		if s > best {
			rest += best
			best = s
			matches = append(m, matches...)
		} else {
			rest += s
			matches = append(matches, m...)
		}
	}
	reason := ""
	if about != nil {
		reason = aboutReason(about, aboutSem, d, len(matches) == 0)
	}
	return math.Min(1, best) + 0.25*math.Min(1, rest), matches, strong, reason
}

// aboutClaim is the semantic closeness from which the reason says the item is about a subject.
const aboutClaim = 0.6

// aboutReason says which of the user's subjects an item is about, and through which of its
// words (withWords: no matched term is shown). A weak closeness says so rather than claim the
// item is about the subject: on the development headlines (TestBroadInterestEval's), 63 % of the
// items at aboutClaim or more were of the subject's category, 44 % of those under it.
func aboutReason(sv *segVector, sem float64, d *doc, withWords bool) string {
	claim := "About "
	if sem < aboutClaim {
		claim = "Loosely related to "
	}
	if withWords {
		if ws := aboutWords(sv, d, 3); len(ws) > 0 {
			return claim + sv.label + ": " + strings.Join(ws, ", ")
		}
	}
	return claim + sv.label
}

// Features are what the per-user model (taste.Model) learns from and applies to: the item's most
// characteristic terms ("w:" and the stem), its meaning ("m:" and its subject vector,
// wordvec.Vector.Code), its source ("source:"), its topics ("topic:") and the terms of
// in.Interests it matched ("i:").
// Labels are the words as the item had them, for reasons and the Settings page. Train with the
// same enricher (the same statistics) that scores.
func (e *Embedded) Features(in app.EnrichInput, topics []string) (keys, labels []string) {
	return e.features(in, e.prepare(in), topics, nil)
}

// features lists up to 24 terms of the item (title words first, then the body's most frequent
// content words, weighed by idf), its source, its topics and the interest terms it matched (m,
// or found here when m is nil).
func (e *Embedded) features(in app.EnrichInput, p *prepared, topics []string, m *matched) (keys, labels []string) {
	type cand struct {
		key, label string
		w          float64
	}
	// The terms of the user's interests the item matched ("i:hacks"; a form of another language
	// as the user's term): which parts of an interest the reader cares for.
	if m == nil && in.Interests != "" {
		m = &matched{}
		_, m.terms, _, _ = e.relevance(parseInterests(in.Interests), p.doc())
	}
	tf := map[string]float64{}
	if m != nil {
		// A word the item has only inside a matched phrase of the interests ("open" of "open
		// source", "loss" of "hearing loss") is not a word of its own: the phrase is the
		// feature ("i:"), and a like must not teach the word alone (issue 25: likes of "open
		// source" items raised any item saying "open").
		for _, tm := range m.terms {
			if tm.term.phrase && !tm.term.part && tm.term.alt == 0 && len(tm.term.words) > 1 {
				p.doc().phraseTokens(tm.term, func(t token, title bool) {
					if title {
						tf[t.key] -= 3
					} else {
						tf[t.key]--
					}
				})
			}
		}
	}
	label := map[string]string{}
	for i, toks := range [][]token{p.title, p.body} {
		for _, t := range toks {
			if t.stop || len(t.key) < 3 {
				continue
			}
			if i == 0 {
				tf[t.key] += 3
			} else {
				tf[t.key]++
			}
			if _, ok := label[t.key]; !ok {
				label[t.key] = t.display
			}
		}
	}
	cands := make([]cand, 0, len(tf))
	for k, f := range tf {
		if f < 1 || e.stats.common(k) {
			continue
		}
		cands = append(cands, cand{k, label[k], (1 + math.Log(f)) * e.stats.idfOf(k, wordShare(strings.ToLower(label[k])))})
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].w != cands[j].w {
			return cands[i].w > cands[j].w
		}
		return cands[i].key < cands[j].key
	})
	// A word counts in the sense the item uses it: with the item's coarse subject ("loss" in an
	// item about hearing is not "loss" in one about a share price; issue 25: likes on
	// hearing-loss items promoted an IPO through "loss").
	sense, meaning := "", ""
	if v, ok := p.doc().vector(); ok {
		sense = "@" + strconv.Itoa(wordvec.NearestSubject(v))
		meaning = "m:" + v.Code()
	}
	for i, c := range cands {
		if i == 24 {
			break
		}
		keys = append(keys, "w:"+c.key+sense)
		labels = append(labels, c.label)
	}
	if meaning != "" {
		keys = append(keys, meaning)
		labels = append(labels, "")
	}
	if in.SourceName != "" {
		keys = append(keys, "source:"+in.SourceName)
		labels = append(labels, in.SourceName)
	}
	for _, tp := range topics {
		keys = append(keys, "topic:"+tp)
		labels = append(labels, tp)
	}
	if m != nil {
		seen := map[string]bool{}
		for _, tm := range m.terms {
			if tm.term.part {
				continue // a word of a phrase found alone ("open" of "open source") is not what the reader liked
			}
			label := tm.term.display
			if tm.term.alt > 0 {
				label = tm.term.user
			}
			if k := "i:" + strings.ToLower(label); !seen[k] {
				seen[k] = true
				keys = append(keys, k)
				labels = append(labels, label)
			}
		}
	}
	return keys, labels
}

// matched are the terms of the user's interests an item matched, when the caller knows them.
type matched struct{ terms []termMatch }

// score rates the item 0–100 for the user's interests. Items that match an interest score
// 34–90 by how much of it they match (BM25 over title and text, the real average length);
// items that match none are still ordered, 10–32, by what the user's feedback taught, how much
// they read the source, recency and substance. The reason names what is true of the item.
func (e *Embedded) score(in app.EnrichInput, p *prepared, topics []string) (int, string) {
	specs := parseInterests(in.Interests)
	var d *doc // relevance reads none for no interests
	if len(specs) > 0 {
		d = p.doc()
	}
	rel, matches, strong, about := e.relevance(specs, d)
	if len(specs) == 0 && len(topics) > 0 {
		rel, strong = 0.15*float64(len(topics)), true
	}

	now := in.Now
	if now.IsZero() {
		now = time.Now()
	}
	var recency float64
	var when string
	if in.PublishedAt != nil {
		age := now.Sub(*in.PublishedAt)
		switch {
		case age < 24*time.Hour:
			recency, when = 6, "published today"
		case age < 72*time.Hour:
			recency, when = 4, fmt.Sprintf("published %d days ago", int(age.Hours()/24))
		case age < 7*24*time.Hour:
			recency, when = 2, fmt.Sprintf("published %d days ago", int(age.Hours()/24))
		default:
			when = "published " + in.PublishedAt.Format("2 Jan 2006")
		}
	} else {
		recency = 1
	}
	affinity := 8 * max(0, min(1, in.SourceAffinity))
	var quality float64
	if n := len(p.body); n >= 150 {
		quality = 4
	} else if n >= 40 {
		quality = 2
	}
	var taste float64
	var liked, disliked []string
	if in.Taste != nil {
		keys, _ := e.features(in, p, topics, &matched{matches})
		taste, liked, disliked = in.Taste.Adjust(keys)
		taste = max(-25, min(25, taste))
	}

	var score float64
	var parts []string
	switch {
	case len(specs) == 0 && len(topics) == 0 && len(in.Topics) == 0:
		score = 45 + recency + affinity + quality/2 + taste
		parts = append(parts, "No interests set yet")
	case rel == 0:
		score = max(1, min(32, 10+recency+affinity+quality)+taste)
		parts = append(parts, "No match with your interests")
	default:
		score = withTaste(22+70*(1-math.Exp(-2*rel))/(1-math.Exp(-2))+recency/2+affinity/2+quality/4, taste)
		var shown []string
		seen := map[string]bool{}
		phraseHit := map[*iterm]bool{}
		for _, m := range matches {
			if m.term.phrase {
				phraseHit[m.term] = true
			}
		}
		for _, m := range matches {
			if m.term.part && partOfHit(m.term, phraseHit) {
				continue // "open source" is shown, not also "source"
			}
			display := m.term.display
			if m.shown != "" {
				display = m.shown
			}
			k := strings.ToLower(display)
			if m.term.alt > 0 {
				k, _, _ = strings.Cut(k, " (") // "Aktie (stock)" and "Aktie (shares)" are one
			}
			if !seen[k] {
				seen[k] = true
				shown = append(shown, display)
			}
		}
		switch {
		case len(shown) == 0 && about != "":
			parts = append(parts, about)
		case len(shown) == 0 && len(topics) > 0:
			parts = append(parts, "Matches your topics: "+strings.Join(limitStrings(topics, 3), ", "))
		case len(shown) == 0:
			parts = append(parts, "No match with your interests")
		case strong:
			parts = append(parts, "Matches your interests: "+strings.Join(limitStrings(shown, 4), ", "))
		default:
			parts = append(parts, "Mentions "+strings.Join(limitStrings(shown, 3), ", ")+" from your interests")
		}
	}
	if r := tasteReason(taste, liked, disliked); r != "" {
		parts = append(parts, r)
	}
	if when != "" {
		parts = append(parts, when)
	}
	if in.SourceAffinity >= 0.3 {
		parts = append(parts, "from a source you read often")
	}
	return int(math.Round(max(0, min(100, score)))), strings.Join(parts, " · ")
}

// tasteReason says what the reading model's points came from, or nothing when they are few:
// the words that weighed most, or, when none did but the item's meaning did (app.TasteSubject:
// it says what the liked or dismissed items said, in other words), that it is close to them.
func tasteReason(taste float64, liked, disliked []string) string {
	words := func(ls []string) ([]string, bool) {
		var out []string
		subject := false
		for _, l := range ls {
			if l == app.TasteSubject {
				subject = true
			} else {
				out = append(out, l)
			}
		}
		return out, subject
	}
	switch {
	case taste > 1:
		if ws, subject := words(liked); len(ws) > 0 {
			return "you liked similar items: " + strings.Join(limitStrings(ws, 3), ", ")
		} else if subject {
			return "close in subject to items you liked"
		}
	case taste < -1:
		if ws, subject := words(disliked); len(ws) > 0 {
			return "you showed less interest in similar items: " + strings.Join(limitStrings(ws, 3), ", ")
		} else if subject {
			return "close in subject to items you showed less interest in"
		}
	}
	return ""
}

// Personalize applies the reading model (in.Taste) to the score and reason another enricher (an
// LLM) gave an item: the model's points, as for an item that matches an interest here, and the
// reason says what weighed. Without a model it returns them unchanged.
func (e *Embedded) Personalize(in app.EnrichInput, score int, reasoning string, topics []string) (int, string) {
	if in.Taste == nil {
		return score, reasoning
	}
	keys, _ := e.features(in, e.prepare(in), topics, nil)
	taste, liked, disliked := in.Taste.Adjust(keys)
	taste = max(-25, min(25, taste))
	if r := tasteReason(taste, liked, disliked); r != "" {
		reasoning = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(reasoning), ".") + " · " + r)
		reasoning = strings.TrimPrefix(reasoning, "· ")
	}
	return int(math.Round(max(0, min(100, withTaste(float64(score), taste))))), reasoning
}

// withTaste combines the reading model's points (±25) with the score of an item that matches an
// interest in log-odds, as naive Bayes evidence on a prior: ±25 points move the score's logit by
// ±2, so an uncertain match (60) moves most (to 92 or 17), a strong one (92) keeps its lead among
// liked items instead of many stopping at 100 (to 99 or 61).
func withTaste(score, taste float64) float64 {
	if taste == 0 {
		return score
	}
	p := max(0.01, min(0.99, score/100))
	return 100 / (1 + math.Exp(-(math.Log(p/(1-p)) + taste/12.5)))
}

// partOfHit reports whether a part term belongs to a phrase that matched.
func partOfHit(part *iterm, hits map[*iterm]bool) bool {
	for t := range hits {
		if t.seg == part.seg {
			for _, w := range t.words {
				if w.lower == part.words[0].lower {
					return true
				}
			}
		}
	}
	return false
}

func limitStrings(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// Score rates an item for interests (a briefing's own focus) without summarizing or tagging it.
func (e *Embedded) Score(in app.EnrichInput) (int, string) {
	p := e.prepare(in)
	return e.score(in, p, e.topics(in, p.doc()))
}
