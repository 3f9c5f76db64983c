package app

import (
	"context"
	"math"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Scoring with the embedded enricher in the background (issue 12): the back catalogue of a
// source's first import, and a user's unread items when their reading model changed. Never an
// LLM: the back catalogue costs no credits, and a re-score must be cheap.

// OfflineEnricher is the embedded enricher: it enriches and scores without the network.
type OfflineEnricher interface {
	Enricher
	// EnrichImport enriches a batch (a source's back catalogue); with observe, its own
	// statistics (the Enriching's Observer) first learn the batch's texts.
	EnrichImport(ctx context.Context, ins []EnrichInput, observe bool) ([]*Enrichment, error)
	Score(in EnrichInput) (int, string)
	// Personalize applies the reading model (in.Taste) to the score and reason another
	// enricher (an LLM) gave the item.
	Personalize(in EnrichInput, score int, reasoning string, topics []string) (int, string)
	// Vocabulary learns the words that go with each interest in the given items (at most
	// perInterest each).
	Vocabulary(interests string, items []EnrichInput, perInterest int) []InterestWords
}

// BaseScored is an item an LLM enriched, with the score and reason it gave (before the model).
type BaseScored struct {
	Item      *Item
	Score     int
	Reasoning string
}

// Tastes gives a user's reading model (the Feedback service).
type Tastes interface {
	TasteFor(ctx context.Context, userID int64) (Taste, int64, error)
}

// ScoreUpdate is one item's new score, with the rest of its enrichment when Enrichment is set.
type ScoreUpdate struct {
	ItemID     int64
	Enrichment *Enrichment // nil: only Score and Reasoning change
	Score      int
	Reasoning  string
	Effect     FilterEffect
	FromBase   bool // a re-score of an item an LLM enriched, from its own score
	// Text is the item's text as the enricher read it, with Enrichment: a summary that is the
	// whole text is stored once (the stores mark it instead of storing it again).
	Text string
	// Published is the item's publication time: the reasoning's date is not stored again
	// (StoredReasoning).
	Published *time.Time
}

// ScoringStore is what background scoring needs from the database.
type ScoringStore interface {
	// ImportItems are up to limit items of a source's first import not enriched yet (fewer when
	// their texts are long: the store bounds what one batch holds; the rest come in later calls).
	ImportItems(ctx context.Context, sourceID int64, limit int) ([]*Item, error)
	// UnscoredImportSources are the sources with items of a first import not enriched yet.
	UnscoredImportSources(ctx context.Context) ([]int64, error)
	// RescoreItems are up to limit of the user's unread, visible items scored by the embedded
	// enricher, with an id below beforeID, newest (highest id) first.
	RescoreItems(ctx context.Context, userID, beforeID int64, limit int) ([]*Item, error)
	// RescoreLLMItems are likewise the unread, visible items an LLM enriched whose own score is
	// kept, with it.
	RescoreLLMItems(ctx context.Context, userID, beforeID int64, limit int) ([]BaseScored, error)
	SourceAffinities(ctx context.Context, userID int64) (map[int64]float64, error)
	// SaveScores stores the updates in one transaction; an import update only applies to an
	// item still not enriched.
	SaveScores(ctx context.Context, ups []ScoreUpdate) error
	// StartRescore reports whether the user's items still need re-scoring for this version and
	// marks the current model's version re-scored.
	StartRescore(ctx context.Context, userID, version int64) (bool, error)
	// SourceContext is what enrichment knows of an item's source: its usual topics (of its
	// enriched items other than this one) and how much the user reads it.
	SourceContext(ctx context.Context, sourceID, exceptItemID int64) (topics []string, affinity float64, err error)
	Settings(ctx context.Context, userID int64) (*Settings, error)
	Filters(ctx context.Context, userID int64) ([]*Filter, error)
}

// scoreBatch is how many items one transaction stores.
const scoreBatch = 250

// vocabularyItems is how many of the user's newest unread items Vocabulary learns from, and
// vocabularyWords how many words it offers an interest.
const (
	vocabularyItems = 3000
	vocabularyWords = 6
	// vocabularyFor is how long a user's learned vocabulary is reused while their interests
	// and newest items are unchanged (learning it reads up to 6,000 items: about a second).
	vocabularyFor = 30 * time.Minute
)

// Vocabulary is what the user's own items say goes with each of their interests: words the
// Settings page offers to add to an interest (issue 25). Learned from the newest unread items
// (enriched; at most vocabularyItems of each enricher), with the embedded enricher; none without
// interests or without it.
func (e *Enriching) Vocabulary(ctx context.Context, userID int64) ([]InterestWords, error) {
	if e == nil || e.Offline == nil || e.Scoring == nil {
		return nil, nil
	}
	st, err := e.Scoring.Settings(ctx, userID)
	if err != nil || strings.TrimSpace(st.Interests) == "" {
		return nil, err
	}
	items, err := e.Scoring.RescoreItems(ctx, userID, math.MaxInt64, vocabularyItems)
	if err != nil {
		return nil, err
	}
	llm, err := e.Scoring.RescoreLLMItems(ctx, userID, math.MaxInt64, vocabularyItems)
	if err != nil {
		return nil, err
	}
	for _, b := range llm {
		items = append(items, b.Item)
	}
	// The same interests over the same newest items learn the same words: reuse them.
	key := st.Interests + "\x00" + strconv.Itoa(len(items))
	if len(items) > 0 {
		key += "\x00" + strconv.FormatInt(items[0].ID, 10)
	}
	if len(llm) > 0 {
		key += "\x00" + strconv.FormatInt(llm[0].Item.ID, 10)
	}
	now := e.now()
	e.vocabMu.Lock()
	c, ok := e.vocab[userID]
	e.vocabMu.Unlock()
	if ok && c.key == key && now.Sub(c.at) < vocabularyFor {
		return c.words, nil
	}
	ins := make([]EnrichInput, len(items))
	for i, it := range items {
		ins[i] = it.enrichInput()
		ins[i].SourceName = strconv.FormatInt(it.SourceID, 10) // the source, whatever its name
	}
	words := e.Offline.Vocabulary(st.Interests, ins, vocabularyWords)
	e.vocabMu.Lock()
	if e.vocab == nil {
		e.vocab = map[int64]vocabCache{}
	}
	e.vocab[userID] = vocabCache{key: key, at: now, words: words}
	e.vocabMu.Unlock()
	return words, nil
}

// AddToInterest adds a word to one of the user's interests (the line whose text is interest, as
// Vocabulary named it), in the interest's list of added words: "security vulnerabilities"
// becomes "security vulnerabilities (also: CVE)", then "security vulnerabilities (also: CVE,
// exploit)". A word added so stands for the interest (it finds its items as part of it), not
// for an interest of its own.
func AddToInterest(interests, interest, word string) (string, bool) {
	return addToList(interests, interest, "also", word)
}

// RemoveKind takes one of the lexicon's kinds out of an interest (Vocabulary's Kinds): "social
// media" becomes "social media (not: Facebook)", and items that name it no longer count for
// the interest through it.
func RemoveKind(interests, interest, kind string) (string, bool) {
	return addToList(interests, interest, "not", kind)
}

// addToList adds word to the interest's list name ("(also: …)", "(not: …)"), making the list
// at the end of the interest when it has none.
func addToList(interests, interest, name, word string) (string, bool) {
	word = strings.TrimSpace(word)
	if word == "" || strings.ContainsAny(word, ",;\n()") {
		return interests, false
	}
	lines := strings.Split(interests, "\n")
	for i, line := range lines {
		for j, part := range strings.Split(line, ";") {
			if strings.TrimSpace(part) != strings.TrimSpace(interest) {
				continue
			}
			parts := strings.Split(line, ";")
			part = strings.TrimRight(part, " \t\r")
			open := "(" + name + ":"
			if k := strings.LastIndex(strings.ToLower(part), open); k >= 0 {
				end := strings.Index(part[k:], ")")
				if end < 0 {
					return interests, false
				}
				end += k
				parts[j] = strings.TrimRight(part[:end], " ") + ", " + word + part[end:]
			} else {
				parts[j] = part + " " + open + " " + word + ")"
			}
			lines[i] = strings.Join(parts, ";")
			return strings.Join(lines, "\n"), true
		}
	}
	return interests, false
}

// rescoreMax bounds a re-score to the newest unread items (about 3 ms each): older ones keep
// their score until read or re-enriched.
const rescoreMax = 3000

func (e *Enriching) tasteFor(ctx context.Context, userID int64) (Taste, int64) {
	if e.Tastes == nil {
		return nil, 0
	}
	t, v, err := e.Tastes.TasteFor(ctx, userID)
	if err != nil {
		e.log().Warn("reading model not loaded; scoring without it", "user", userID, "error", err)
		return nil, v
	}
	return t, v
}

// importContext is what scoring a user's first import needs: their settings, filters and
// reading model.
type importContext struct {
	userID   int64
	settings *Settings
	filters  []*Filter
	taste    Taste
	now      time.Time
}

func (e *Enriching) importContext(ctx context.Context, userID int64) (*importContext, error) {
	c := &importContext{userID: userID, now: ClockOrSystem(e.Clock).Now()}
	var err error
	if c.settings, err = e.Scoring.Settings(ctx, userID); err != nil {
		return nil, err
	}
	if c.filters, err = e.Scoring.Filters(ctx, userID); err != nil {
		return nil, err
	}
	c.taste, _ = e.tasteFor(ctx, userID)
	return c, nil
}

// enrichImport enriches items of a first import with the embedded enricher: their texts are
// first taught to the enricher's statistics (a new collection's vocabulary), then each item is
// enriched; an item that matches none of the user's topics gets the batch's usual topics, and
// the user's filters are applied. It sets the items' tags and topics and returns their updates.
func (e *Enriching) enrichImport(ctx context.Context, c *importContext, items []*Item) ([]ScoreUpdate, error) {
	ins := make([]EnrichInput, len(items))
	for i, it := range items {
		ins[i] = it.enrichInput()
		ins[i].Now, ins[i].Interests, ins[i].Topics, ins[i].Taste = c.now, c.settings.Interests, c.settings.Topics, c.taste
	}
	res, err := e.Offline.EnrichImport(ctx, ins, e.Observer != nil)
	if err != nil {
		return nil, err
	}
	ups := make([]ScoreUpdate, len(items))
	for i, it := range items {
		ups[i] = ScoreUpdate{ItemID: it.ID, Enrichment: res[i], Score: res[i].Score, Reasoning: res[i].Reasoning, Text: it.Text, Published: it.PublishedAt}
	}
	// The source's usual topics are those its items got, as processing finds them later.
	usual := usualTopics(ups)
	for i, it := range items {
		res := ups[i].Enrichment
		if len(res.Topics) == 0 {
			res.UsualTopics = usual
		}
		it.Tags, it.Topics, it.UsualTopics = res.Tags, res.Topics, res.UsualTopics
		ups[i].Effect = ApplyFilters(c.filters, it)
	}
	return ups, nil
}

// ScoreImport enriches the back catalogue of a source's first import with the embedded
// enricher, so the first screen is ranked, in batches. It is the background job for the
// imports the fetch did not score itself (ScoreFirstImport): stored by an older version, or
// by a fetch without it. It returns how many items it scored.
func (e *Enriching) ScoreImport(ctx context.Context, sourceID int64) (int, error) {
	if e.Offline == nil || e.Scoring == nil {
		return 0, nil
	}
	total := 0
	var c *importContext
	for {
		items, err := e.Scoring.ImportItems(ctx, sourceID, 1000)
		if err != nil || len(items) == 0 {
			if total > 0 {
				e.log().Info("first import scored", "source", sourceID, "items", total)
			}
			return total, err
		}
		if c == nil || items[0].UserID != c.userID {
			if c, err = e.importContext(ctx, items[0].UserID); err != nil {
				return total, err
			}
		}
		ups, err := e.enrichImport(ctx, c, items)
		if err != nil {
			return total, err
		}
		for len(ups) > 0 {
			n := min(len(ups), scoreBatch)
			if err := e.Scoring.SaveScores(ctx, ups[:n]); err != nil {
				return total, err
			}
			total += n
			ups = ups[n:]
		}
	}
}

// ScoreFirstImport enriches the items of a source's first import before they are stored, in
// the fetch that found them (issue 14): they are inserted with their summary, tags, topics and
// score, so nothing is read back, rewritten or queued (a fetch has at most feeds.MaxItems,
// 1,000 items: about 1.5 s of one core). It reports false, leaving the items as they are for
// the background job (ScoreImport), when there is no embedded enricher.
//
// Ranking must never keep a source's items from being stored: a panic in the enricher is logged
// and reported as false, so the fetch stores the items and queues the background job.
func (e *Enriching) ScoreFirstImport(ctx context.Context, userID int64, items []Item) (ok bool, err error) {
	if e.Offline == nil || e.Scoring == nil || len(items) == 0 {
		return false, nil
	}
	defer func() {
		if r := recover(); r != nil {
			e.log().Error("scoring a first import failed; it is stored and scored in the background", "panic", r, "stack", string(debug.Stack()))
			ok, err = false, nil
		}
	}()
	e.firstOnce.Do(func() { e.firstSlots = NewSlots(FirstImportsScored) })
	release, err := e.firstSlots.Take(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	c, err := e.importContext(ctx, userID)
	if err != nil {
		return false, err
	}
	ptrs := make([]*Item, len(items))
	for i := range items {
		ptrs[i] = &items[i]
	}
	ups, err := e.enrichImport(ctx, c, ptrs)
	if err != nil {
		return false, err
	}
	for i, u := range ups {
		it, res := &items[i], u.Enrichment
		score, reasoning := u.Effect.Score(u.Score, u.Reasoning)
		it.Summary, it.Score, it.ScoreReasoning, it.EnrichedBy = res.Summary, &score, reasoning, res.EnrichedBy
		it.Starred, it.Hidden = u.Effect.Star, u.Effect.Hide
		if u.Effect.Read {
			it.ReadAt = &c.now
		}
	}
	return true, nil
}

// QueueUnscoredImports queues the scoring of every source's back catalogue left unscored: the
// first imports stored before this version, or whose job was dead-lettered. Run at start; the
// jobs are idempotent.
func (e *Enriching) QueueUnscoredImports(ctx context.Context) (int, error) {
	if e.Offline == nil || e.Scoring == nil || e.Imports == nil {
		return 0, nil
	}
	ids, err := e.Scoring.UnscoredImportSources(ctx)
	if err != nil {
		return 0, err
	}
	for i, id := range ids {
		if err := e.Imports.EnqueueImport(ctx, id); err != nil {
			return i, err
		}
	}
	if len(ids) > 0 {
		e.log().Info("back catalogues queued for scoring", "sources", len(ids))
	}
	return len(ids), nil
}

// usualTopics are the three topics most of the items got (ties by name), as
// ScoringStore.SourceContext counts them.
func usualTopics(ups []ScoreUpdate) []string {
	n := map[string]int{}
	for _, u := range ups {
		for _, t := range u.Enrichment.Topics {
			n[t]++
		}
	}
	all := make([]string, 0, len(n))
	for t := range n {
		all = append(all, t)
	}
	sort.Slice(all, func(i, j int) bool {
		if n[all[i]] != n[all[j]] {
			return n[all[i]] > n[all[j]]
		}
		return all[i] < all[j]
	})
	return all[:min(len(all), 3)]
}

// Rescore scores the user's unread items again with the embedded scorer and the reading model
// of this version (after feedback), so "less like this" moves similar items down. A job for an
// older version than the last re-scored does nothing. Items an LLM enriched keep the LLM's own
// score, and the model's adjustment is applied to it again.
func (e *Enriching) Rescore(ctx context.Context, userID, version int64) (int, error) {
	if e.Offline == nil || e.Scoring == nil {
		return 0, nil
	}
	if ok, err := e.Scoring.StartRescore(ctx, userID, version); err != nil || !ok {
		return 0, err
	}
	settings, err := e.Scoring.Settings(ctx, userID)
	if err != nil {
		return 0, err
	}
	filters, err := e.Scoring.Filters(ctx, userID)
	if err != nil {
		return 0, err
	}
	affinity, err := e.Scoring.SourceAffinities(ctx, userID)
	if err != nil {
		return 0, err
	}
	taste, _ := e.tasteFor(ctx, userID)
	now := ClockOrSystem(e.Clock).Now()
	start := time.Now()
	total := 0
	before := int64(math.MaxInt64)
	for {
		var items []*Item
		if total < rescoreMax {
			items, err = e.Scoring.RescoreItems(ctx, userID, before, min(scoreBatch, rescoreMax-total))
		}
		if err != nil || len(items) == 0 {
			if err == nil {
				var n int
				n, err = e.rescoreLLMItems(ctx, userID, settings, filters, affinity, taste, now, rescoreMax-total)
				total += n
			}
			e.log().Info("unread items re-scored", "user", userID, "items", total, "duration", time.Since(start))
			return total, err
		}
		ups := make([]ScoreUpdate, 0, len(items))
		for _, it := range items {
			if err := ctx.Err(); err != nil {
				return total, err
			}
			before = it.ID
			score, why := e.Offline.Score(rescoreInput(it, settings, affinity, taste, now))
			ups = append(ups, ScoreUpdate{ItemID: it.ID, Score: score, Reasoning: why, Effect: ApplyFilters(filters, it), Published: it.PublishedAt})
		}
		if err := e.Scoring.SaveScores(ctx, ups); err != nil {
			return total, err
		}
		total += len(ups)
	}
}

// rescoreInput is what re-scoring tells the enricher of an item.
func rescoreInput(it *Item, settings *Settings, affinity map[int64]float64, taste Taste, now time.Time) EnrichInput {
	in := it.enrichInput()
	in.Now, in.Interests, in.Topics = now, settings.Interests, settings.Topics
	in.SourceAffinity, in.Taste = affinity[it.SourceID], taste
	return in
}

// rescoreLLMItems applies the reading model again to up to limit of the user's unread items an
// LLM enriched, from the LLM's own score and reason.
func (e *Enriching) rescoreLLMItems(ctx context.Context, userID int64, settings *Settings, filters []*Filter,
	affinity map[int64]float64, taste Taste, now time.Time, limit int) (int, error) {
	total := 0
	before := int64(math.MaxInt64)
	for total < limit {
		items, err := e.Scoring.RescoreLLMItems(ctx, userID, before, min(scoreBatch, limit-total))
		if err != nil || len(items) == 0 {
			return total, err
		}
		ups := make([]ScoreUpdate, 0, len(items))
		for _, b := range items {
			if err := ctx.Err(); err != nil {
				return total, err
			}
			it := b.Item
			before = it.ID
			score, why := e.Offline.Personalize(rescoreInput(it, settings, affinity, taste, now), b.Score, b.Reasoning, it.Topics)
			ups = append(ups, ScoreUpdate{ItemID: it.ID, Score: score, Reasoning: why, Effect: ApplyFilters(filters, it), FromBase: true, Published: it.PublishedAt})
		}
		if err := e.Scoring.SaveScores(ctx, ups); err != nil {
			return total, err
		}
		total += len(ups)
	}
	return total, nil
}

func (e *Enriching) now() time.Time {
	if e.Clock != nil {
		return e.Clock.Now()
	}
	return time.Now()
}
