package enrich

import (
	"context"
	"fmt"
	"hash/maphash"
	"math"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/morningdeck/morningdeck/app"
)

// Stats are the collection's statistics for TF-IDF and BM25: document frequencies (of stems,
// and of short words and acronyms as written, "=Go"), the number of documents and their total
// length, kept incrementally as items arrive (the caller seeds them from stored items at start-up
// through Observe). Safe for concurrent use.
type Stats struct {
	mu       sync.RWMutex
	df       map[uint64]int32 // termKey → documents
	bigrams  map[uint64]int32 // pairKey of two keys → documents with the two words next to each other
	docs     int
	totalLen int64
	limit    int
}

// The statistics keep 64-bit hashes of the terms, not the terms: a term costs ~20 bytes instead
// of ~100 with its string and a pair no string at all (issue 14: they are most of the live heap
// of a long-running server). Two terms sharing a hash would share a count: at 64 bits, never in
// practice; nothing is stored, so the seed may change between runs.
var statsSeed = maphash.MakeSeed()

func termKey(k string) uint64 { return maphash.String(statsSeed, k) }

// pairKey combines the keys of two words, in order.
func pairKey(a, b uint64) uint64 {
	x := a ^ (b*0x9e3779b97f4a7c15 + 0x632be59bd9b4e019)
	x ^= x >> 31
	x *= 0xbf58476d1ce4e5b9
	return x ^ x>>29
}

// NewStats returns empty statistics that keep at most vocabulary terms.
func NewStats(vocabulary int) *Stats {
	return &Stats{df: map[uint64]int32{}, bigrams: map[uint64]int32{}, limit: max(vocabulary, 1000)}
}

// Observe adds a document's terms.
func (s *Stats) Observe(doc string) {
	s.observe(tokenize(cleanText(cutText(doc, maxAnalysed))))
}

// termSets are observe's scratch sets, reused: two maps an item were 4 % of what a first
// ingestion allocated.
var termSets = sync.Pool{New: func() any { return &[2]map[uint64]struct{}{{}, {}} }}

// observe adds one document read as runs of tokens (an item's title and its text, as Enrich
// reads them): no pair of words spans two runs.
func (s *Stats) observe(runs ...[]token) {
	sets := termSets.Get().(*[2]map[uint64]struct{})
	seen, pairs := sets[0], sets[1]
	defer func() {
		clear(seen)
		clear(pairs)
		termSets.Put(sets)
	}()
	n := 0
	for _, toks := range runs {
		var prev uint64 // termKey of toks[i-1].key, when i-1 was a word and not a stop word
		prevOK := false
		for i, t := range toks {
			if t.surface == "" {
				prevOK = false
				continue
			}
			n++
			if !t.stop {
				k := termKey(t.key)
				seen[k] = struct{}{}
				if i > 0 && !toks[i-1].stop {
					if !prevOK {
						prev = termKey(toks[i-1].key)
					}
					pairs[pairKey(prev, k)] = struct{}{}
				}
				prev, prevOK = k, true
			} else {
				prevOK = false
			}
			if caseSensitive(t.surface) {
				seen[termKey(caseKey(t.surface))] = struct{}{}
			}
			if strings.ContainsRune(t.surface, '-') {
				for _, p := range strings.Split(t.surface, "-") {
					if caseSensitive(p) {
						seen[termKey(caseKey(p))] = struct{}{}
					}
				}
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.docs++
	s.totalLen += int64(n)
	for k := range seen {
		s.df[k]++
	}
	for k := range pairs {
		s.bigrams[k]++
	}
	if len(s.bigrams) > s.limit {
		for k, n := range s.bigrams {
			if n <= 1 {
				delete(s.bigrams, k)
			}
		}
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

// caseSensitive reports whether a word as written is kept by its case in the statistics: a
// short word or an acronym starting with a capital or a digit (Go, US, AI, 5G, AWS).
func caseSensitive(w string) bool {
	if w == "" || len(w) > 5 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(w)
	if !unicode.IsUpper(r) && !unicode.IsDigit(r) {
		return false
	}
	return len(w) <= 3 || strings.ToUpper(w) == w
}

// Docs is the number of documents observed.
func (s *Stats) Docs() int { s.mu.RLock(); defer s.mu.RUnlock(); return s.docs }

// AverageLength is the average number of words of the observed documents (400 before any).
func (s *Stats) AverageLength() float64 { return s.avgLen() }

func (s *Stats) avgLen() float64 {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.docs < 20 || s.totalLen == 0 {
		return 400
	}
	return float64(s.totalLen) / float64(s.docs)
}

// collocation reports whether the words a and b (keys) make a phrase: they stand next to each
// other in at least a tenth of the documents that have the rarer of them ("open source",
// "machine learning"), rather than being two keywords ("ruby rails"). With too few documents to
// tell, two words written together are taken as a phrase.
func (s *Stats) collocation(a, b string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.docs < 50 {
		return true
	}
	ka, kb := termKey(a), termKey(b)
	n := s.bigrams[pairKey(ka, kb)]
	return n >= 1 && float64(n) >= 0.1*float64(min(s.df[ka], s.df[kb]))
}

// common reports whether key is in so many documents that it is a function word of some
// language, whatever the stop lists say (language-independent filtering by document frequency).
func (s *Stats) common(key string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.docs >= 100 && float64(s.df[termKey(key)]) > 0.25*float64(s.docs)
}

// idf is BM25's inverse document frequency, smoothed so that an empty collection weighs every
// term alike.
func (s *Stats) idf(term string) float64 {
	k := termKey(term)
	s.mu.RLock()
	n, df := float64(s.docs), float64(s.df[k])
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

// statsVocabulary bounds the collection's statistics: past it, the terms (and the pairs of
// words) met in one document only are forgotten. A term costs about 50 bytes of heap and a pair
// about 60 in each map, so 60,000 keep them under ~7 MB for a server that runs for months; the
// words that decide a ranking are met more than once (issue 14: 200,000 let them reach ~20 MB).
const statsVocabulary = 60_000

// NewEmbedded returns the embedded enricher.
func NewEmbedded(o EmbeddedOptions) *Embedded {
	if o.Stats == nil {
		o.Stats = NewStats(statsVocabulary)
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

// maxAnalysed is how much of an item's text is read for its summary, tags, topics and score: the
// first 5,000 characters or so (about 800 words) carry what it is about. Reading 8,000 made long
// articles slow (about 330 items per CPU-second) and ranked worse: a long post's later
// paragraphs mention many things it is not about.
const maxAnalysed = 5_000

// cutText cuts s to at most n bytes, at a space when there is one near the end.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	if i := strings.LastIndexByte(s[:n], ' '); i > n-200 {
		cut = i
	}
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}

// prepared is an item read once for everything the enricher does with it.
type prepared struct {
	text  string // without boilerplate
	lang  int
	title []token
	body  []token
	doc   *doc
}

func (e *Embedded) prepare(in app.EnrichInput) *prepared {
	text := cleanText(cutText(in.Text, maxAnalysed))
	p := &prepared{text: text}
	sample := text
	if len(sample) > 3000 {
		sample = sample[:3000]
	}
	p.lang = detectLang(in.Title + " . " + sample)
	p.title = tokenizeLang(in.Title, p.lang)
	p.body = tokenizeLang(text, p.lang)
	p.doc = newDoc(p.lang, in.Title, text, p.title, p.body)
	return p
}

// Enrich summarizes, tags, classifies and scores an item.
func (e *Embedded) Enrich(ctx context.Context, in app.EnrichInput) (*app.Enrichment, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return e.enrich(in, e.prepare(in)), nil
}

// importKeep bounds the analysed texts EnrichImport keeps from its first pass to its second
// (bytes of text): a batch's analyses past it are made again rather than held all at once.
const importKeep = 64 << 10

// EnrichImport enriches a batch of items — a source's first import. With observe, the
// statistics first learn every item's title and text (as Observe does), then each item is
// enriched, so that the batch's own vocabulary weighs in its scores; each text is analysed
// once for both (up to importKeep bytes of text a batch).
func (e *Embedded) EnrichImport(ctx context.Context, ins []app.EnrichInput, observe bool) ([]*app.Enrichment, error) {
	ps := make([]*prepared, len(ins))
	kept := 0
	for i := range ins {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !observe {
			break
		}
		p := e.prepare(ins[i])
		e.stats.observe(p.title, p.body)
		if kept += len(p.text) + len(ins[i].Title); kept <= importKeep {
			ps[i] = p
		}
	}
	out := make([]*app.Enrichment, len(ins))
	for i := range ins {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		p := ps[i]
		if p == nil {
			p = e.prepare(ins[i])
		}
		ps[i] = nil
		out[i] = e.enrich(ins[i], p)
	}
	return out, nil
}

// enrich is Enrich of an analysed item.
func (e *Embedded) enrich(in app.EnrichInput, p *prepared) *app.Enrichment {
	out := &app.Enrichment{EnrichedBy: app.EnricherEmbedded}
	out.Summary = summarizeLang(p.text, e.summaryWords, p.lang)
	if out.Summary == "" {
		out.Summary = cutWords(in.Title, e.summaryWords)
	}
	out.Tags = e.tags(p.title, p.body)
	out.Topics = e.topics(in, p.doc)
	if len(out.Topics) == 0 {
		out.UsualTopics = limitStrings(in.SourceTopics, TopicLimit)
	}
	out.Score, out.Reasoning = e.score(in, p, out.Topics)
	return out
}

// tags picks up to maxTags keywords and two-word phrases by TF-IDF, title words weighing more.
// Stop words of the seven languages, words in a quarter of all documents (function words of any
// language), hashes and numbers are never tags.
func (e *Embedded) tags(title, body []token) []string {
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
	avg := e.stats.avgLen()
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
			case t.lang == d.lang && own[t.alt-1] == 0:
				// A keyword's form in the item's language counts when the keyword did not.
				inTitle, inBody = d.formCount(t)
				inTitle, inBody = translationWeight*inTitle, translationWeight*inBody
			}
			own[j] = inTitle*titleWeight + inBody
			hits += own[j]
		}
		density := hits / (1 + d.dl/avg)
		if s := 1 - math.Exp(-density/1.25); s >= TopicThreshold {
			all = append(all, scored{in.Topics[i].Name, s})
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

// relevance is how well the item matches the user's interests: the best interest's score plus a
// quarter of the others', the matched terms (best interest first) and whether the match is strong
// (see strongAt).
// strongAt is the interest score from which the reason says "Matches your interests" (half of
// it when a name or phrase of the interest matched); below, it says "Mentions … from your
// interests": a mention is not a match.
const strongAt = 0.5

func (e *Embedded) relevance(specs []interestSpec, d *doc) (float64, []termMatch, bool) {
	var best, rest float64
	var matches []termMatch
	strong := false
	for i := range specs {
		s, m, anchor := e.interestScore(&specs[i], d)
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
		if (anchor && s >= strongAt/2) || s >= strongAt {
			strong = true
		}
	}
	return math.Min(1, best) + 0.25*math.Min(1, rest), matches, strong
}

// Features are what the per-user model (taste.Model) learns from and applies to: the item's most
// characteristic terms ("w:" and the stem), its source ("source:"), its topics ("topic:") and
// the terms of in.Interests it matched ("i:").
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
	tf := map[string]float64{}
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
		if e.stats.common(k) {
			continue
		}
		cands = append(cands, cand{k, label[k], (1 + math.Log(f)) * e.stats.idf(k)})
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].w != cands[j].w {
			return cands[i].w > cands[j].w
		}
		return cands[i].key < cands[j].key
	})
	for i, c := range cands {
		if i == 24 {
			break
		}
		keys = append(keys, "w:"+c.key)
		labels = append(labels, c.label)
	}
	if in.SourceName != "" {
		keys = append(keys, "source:"+in.SourceName)
		labels = append(labels, in.SourceName)
	}
	for _, tp := range topics {
		keys = append(keys, "topic:"+tp)
		labels = append(labels, tp)
	}
	// The terms of the user's interests the item matched ("i:hacks"; a form of another language
	// as the user's term): which parts of an interest the reader cares for.
	if m == nil && in.Interests != "" {
		m = &matched{}
		_, m.terms, _ = e.relevance(parseInterests(in.Interests), p.doc)
	}
	if m != nil {
		seen := map[string]bool{}
		for _, tm := range m.terms {
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
	rel, matches, strong := e.relevance(specs, p.doc)
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

// tasteReason says what the reading model's points came from, or nothing when they are few.
func tasteReason(taste float64, liked, disliked []string) string {
	switch {
	case len(liked) > 0 && taste > 1:
		return "you liked similar items: " + strings.Join(limitStrings(liked, 3), ", ")
	case len(disliked) > 0 && taste < -1:
		return "you showed less interest in similar items: " + strings.Join(limitStrings(disliked, 3), ", ")
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
	return e.score(in, p, e.topics(in, p.doc))
}
