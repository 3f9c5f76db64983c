package enrich

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// Stats are the collection's document frequencies, for TF-IDF and BM25. Safe for concurrent use.
type Stats struct {
	mu    sync.RWMutex
	df    map[string]int
	docs  int
	limit int
}

// NewStats returns empty statistics that keep at most vocabulary terms.
func NewStats(vocabulary int) *Stats {
	return &Stats{df: map[string]int{}, limit: max(vocabulary, 1000)}
}

// Observe adds a document's terms.
func (s *Stats) Observe(doc string) {
	seen := map[string]bool{}
	for _, t := range tokenize(doc) {
		if !t.stop {
			seen[t.key] = true
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.docs++
	for k := range seen {
		s.df[k]++
	}
	if len(s.df) > s.limit {
		// Forget the rarest terms; they weigh little and would grow the map without bound.
		for k, n := range s.df {
			if n <= 1 {
				delete(s.df, k)
			}
		}
	}
}

// Docs is the number of documents observed.
func (s *Stats) Docs() int { s.mu.RLock(); defer s.mu.RUnlock(); return s.docs }

// DocFreq is the number of observed documents that contain term (a matching key).
func (s *Stats) DocFreq(term string) int { s.mu.RLock(); defer s.mu.RUnlock(); return s.df[term] }

// idf is BM25's inverse document frequency, smoothed so that an empty collection weighs every
// term alike.
func (s *Stats) idf(term string) float64 {
	s.mu.RLock()
	n, df := float64(s.docs), float64(s.df[term])
	s.mu.RUnlock()
	if n < 20 {
		n, df = 20, min(df, 1) // too few documents to judge: treat terms as rare
	}
	return math.Log(1 + (n-df+0.5)/(df+0.5))
}

// EmbeddedOptions for NewEmbedded.
type EmbeddedOptions struct {
	Stats        *Stats // nil: new, empty statistics
	SummaryWords int    // default 60
	MaxTags      int    // default 5
}

// Embedded is the offline, deterministic enricher.
type Embedded struct {
	stats        *Stats
	summaryWords int
	maxTags      int
}

var _ app.Enricher = (*Embedded)(nil)

// NewEmbedded returns the embedded enricher.
func NewEmbedded(o EmbeddedOptions) *Embedded {
	if o.Stats == nil {
		o.Stats = NewStats(200_000)
	}
	if o.SummaryWords <= 0 {
		o.SummaryWords = 60
	}
	if o.MaxTags <= 0 {
		o.MaxTags = 5
	}
	return &Embedded{stats: o.Stats, summaryWords: o.SummaryWords, maxTags: o.MaxTags}
}

// Name is "embedded".
func (e *Embedded) Name() string { return app.EnricherEmbedded }

// Stats returns the collection statistics the enricher uses (to seed and to observe).
func (e *Embedded) Stats() *Stats { return e.stats }

// TopicThreshold and TopicLimit: topics scoring below the threshold are not given; at most
// TopicLimit are (the seeds' top_k=3, threshold 0.3).
const (
	TopicThreshold = 0.3
	TopicLimit     = 3
)

// Enrich summarizes, tags, classifies and scores an item.
func (e *Embedded) Enrich(ctx context.Context, in app.EnrichInput) (*app.Enrichment, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	text := in.Text
	if len(text) > 200_000 {
		text = text[:200_000]
	}
	title := tokenize(in.Title)
	body := tokenize(text)
	out := &app.Enrichment{EnrichedBy: app.EnricherEmbedded}
	out.Summary = Summarize(text, e.summaryWords)
	if out.Summary == "" {
		out.Summary = cutWords(in.Title, e.summaryWords)
	}
	out.Tags = e.tags(title, body)
	topics, topicKeys := e.topics(in, title, body)
	out.Topics = topics
	out.Score, out.Reasoning = e.score(in, title, body, topicKeys)
	return out, nil
}

// tags picks up to maxTags keywords and two-word phrases by TF-IDF, title words weighing more.
func (e *Embedded) tags(title, body []token) []string {
	type cand struct {
		display string
		keys    []string
		score   float64
	}
	tf := map[string]float64{}
	display := map[string]map[string]int{}
	add := func(toks []token, weight float64) {
		for _, t := range toks {
			if t.stop {
				continue
			}
			tf[t.key] += weight
			if display[t.key] == nil {
				display[t.key] = map[string]int{}
			}
			display[t.key][t.display]++
		}
	}
	add(title, 3)
	add(body, 1)
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
		cands[k] = &cand{display: best(k), keys: []string{k}, score: (1 + math.Log(f)) * e.stats.idf(k)}
	}
	// Two-word phrases: adjacent content words seen at least twice, or once in the title.
	phrases := map[string]float64{}
	phraseForm := map[string]string{}
	scan := func(toks []token, weight float64) {
		for i := 0; i+1 < len(toks); i++ {
			a, b := toks[i], toks[i+1]
			if a.stop || b.stop || a.key == b.key {
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
		if len([]rune(c.display)) < 3 || len(c.display) > 40 {
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

// topics scores the user's topics against the item: keyword hits (title hits weigh 3),
// normalized for length into [0,1]. It returns the names given and their keywords' keys.
func (e *Embedded) topics(in app.EnrichInput, title, body []token) ([]string, []string) {
	if len(in.Topics) == 0 {
		return limitStrings(in.SourceTopics, TopicLimit), nil
	}
	counts := map[string]float64{}
	for _, t := range title {
		if !t.stop {
			counts[t.key] += 3
		}
	}
	for _, t := range body {
		if !t.stop {
			counts[t.key]++
		}
	}
	folded := " " + fold(in.Title) + " " + fold(in.Text) + " "
	type scored struct {
		name  string
		score float64
		keys  []string
	}
	var all []scored
	for _, tp := range in.Topics {
		var hits float64
		var keys []string
		for _, kw := range append([]string{tp.Name}, tp.Keywords...) {
			toks := tokenize(kw)
			if len(toks) == 1 {
				hits += counts[toks[0].key]
				keys = append(keys, toks[0].key)
			} else if f := fold(strings.TrimSpace(kw)); f != "" {
				hits += float64(strings.Count(folded, " "+f+" ") + strings.Count(folded, " "+f+","))
			}
		}
		density := hits / (1 + float64(len(body))/400)
		if s := 1 - math.Exp(-density/2.5); s >= TopicThreshold {
			all = append(all, scored{tp.Name, s, keys})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].score > all[j].score })
	var names, keys []string
	for i, s := range all {
		if i == TopicLimit {
			break
		}
		names = append(names, s.name)
		keys = append(keys, s.keys...)
	}
	if len(names) == 0 {
		return limitStrings(in.SourceTopics, TopicLimit), nil
	}
	return names, keys
}

// score rates the item 0–100 for the user's interests: BM25 of the interest terms over title
// (weighing 2.5×) and text, plus recency and how much the user reads the source.
func (e *Embedded) score(in app.EnrichInput, title, body []token, topicKeys []string) (int, string) {
	type term struct {
		key, display string
		weight       float64
	}
	var terms []term
	seen := map[string]bool{}
	for _, t := range tokenize(in.Interests) {
		if !t.stop && !seen[t.key] {
			seen[t.key] = true
			terms = append(terms, term{t.key, t.display, 1})
		}
	}
	for _, k := range topicKeys {
		if !seen[k] {
			seen[k] = true
			terms = append(terms, term{k, k, 0.5})
		}
	}
	tf := map[string]float64{}
	for _, t := range title {
		tf[t.key] += 2.5
	}
	for _, t := range body {
		tf[t.key]++
	}
	const k1, b, avgdl = 1.2, 0.75, 400.0
	dl := float64(len(body) + len(title))
	var rel float64
	var matched []string
	for _, t := range terms {
		f := tf[t.key]
		if f == 0 {
			continue
		}
		rel += t.weight * e.stats.idf(t.key) * f * (k1 + 1) / (f + k1*(1-b+b*dl/avgdl))
		if t.weight == 1 {
			matched = append(matched, t.display)
		}
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
			recency, when = 10, "published today"
		case age < 72*time.Hour:
			recency, when = 5, fmt.Sprintf("published %d days ago", int(age.Hours()/24))
		case age < 7*24*time.Hour:
			recency, when = 2, fmt.Sprintf("published %d days ago", int(age.Hours()/24))
		default:
			when = "published " + in.PublishedAt.Format("2 Jan 2006")
		}
	} else {
		recency = 3
	}
	affinity := 8 * max(0, min(1, in.SourceAffinity))

	var score float64
	var parts []string
	switch {
	case len(terms) == 0:
		score = 45 + recency + affinity
		parts = append(parts, "No interests set yet")
	case rel == 0:
		score = 10 + recency + affinity
		parts = append(parts, "No match with your interests")
	default:
		score = 20 + 65*(1-math.Exp(-rel/4)) + recency + affinity
		if len(matched) > 0 {
			parts = append(parts, "Matches your interests: "+strings.Join(limitStrings(matched, 5), ", "))
		} else {
			parts = append(parts, "Matches your topics")
		}
	}
	if when != "" {
		parts = append(parts, when)
	}
	if in.SourceAffinity >= 0.3 {
		parts = append(parts, "from a source you read often")
	}
	return int(math.Round(max(0, min(100, score)))), strings.Join(parts, " · ")
}

func limitStrings(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// Score rates an item for interests (a briefing's own focus) without summarizing or tagging it.
func (e *Embedded) Score(in app.EnrichInput) (int, string) {
	title, body := tokenize(in.Title), tokenize(in.Text)
	_, keys := e.topics(in, title, body)
	return e.score(in, title, body, keys)
}
