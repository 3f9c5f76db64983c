package enrich

import (
	"context"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/morningdeck/morningdeck/app"
)

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
	text      string // without boilerplate
	titleText string
	lang      int
	langSure  bool // the stop words leave no doubt of lang (langEvidence)
	audio     bool // the item is an episode (app.EnrichInput.Audio)
	title     []token
	body      []token
	d         *doc // made on first use (doc)
}

// doc is the item read for matching interests and topics, made when first asked for: an item
// scored for no interests and no topics needs none (issue 26: building it was a quarter of a
// first import's enrichment for a user with neither).
func (p *prepared) doc() *doc {
	if p.d == nil {
		title := p.title
		if p.audio {
			// An episode is read as saying what it is: a podcast ("podcasts" finds the
			// episodes of a podcast feed, whose titles are their subjects). For matching only:
			// tags and summaries are the item's own words.
			title = append(append(slices.Clip(title), token{stop: true, display: "."}), tokenizeLang("podcast", p.lang)...)
		}
		p.d = newDoc(p.lang, p.titleText, p.text, title, p.body)
		p.d.langSure = p.langSure
		// Only matching reads it: an item scored for no interests is not scanned for it.
		p.d.script = !latinScript(p.titleText + " " + p.text[:min(len(p.text), 3000)])
	}
	return p.d
}

func (e *Embedded) prepare(in app.EnrichInput) *prepared {
	text := cleanText(cutText(in.Text, maxAnalysed))
	p := &prepared{text: text, titleText: in.Title, audio: in.Audio}
	sample := text
	if len(sample) > 3000 {
		sample = sample[:3000]
	}
	var hits int
	p.lang, hits = langEvidence(in.Title + " . " + sample)
	p.langSure = hits > 0
	p.title = tokenizeLang(in.Title, p.lang)
	p.body = tokenizeLang(text, p.lang)
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
	out.Tags = e.tags(p.title, p.body, p.lang)
	if len(in.Topics) > 0 {
		out.Topics = e.topics(in, p.doc())
	}
	if len(out.Topics) == 0 {
		out.UsualTopics = limitStrings(in.SourceTopics, TopicLimit)
	}
	out.Score, out.Reasoning = e.score(in, p, out.Topics)
	return out
}

// latinScript reports whether most of s's letters are Latin. The news-topic model and the word
// vectors know English words only: an item in Cyrillic or Arabic script read by them is read by
// the few Latin words it quotes (a Russian joke with "Pasta" in it was "about elections" at 88).
func latinScript(s string) bool {
	var latin, other int
	for _, r := range s {
		switch {
		case r < 0x80:
			if 'a' <= r|0x20 && r|0x20 <= 'z' {
				latin++
			}
		case unicode.Is(unicode.Latin, r):
			latin++
		case unicode.IsLetter(r):
			other++
		}
	}
	return latin >= other
}
