package app

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// EnrichingStore is what enriching items needs from the database. Each method is one
// transaction, except PendTx, which runs in the caller's.
type EnrichingStore interface {
	PendTx(ctx context.Context, tx *sql.Tx, ids []int64) ([]PendingItem, error)
	NewItems(ctx context.Context, limit int) ([]int64, error)
	PendAndEnqueue(ctx context.Context, ids []int64, enqueue func(ctx context.Context, tx *sql.Tx, it PendingItem) error) (int, error)
	StartProcessing(ctx context.Context, id int64, staleAfter time.Duration) (*ProcessInput, error)
	FinishProcessing(ctx context.Context, it *Item, r ProcessResult, then TxFunc) error
	FailProcessing(ctx context.Context, id int64, msg string, final bool, then TxFunc) error
	// AbandonProcessingTx marks an item still PENDING or PROCESSING ERROR with msg, in the
	// caller's transaction (its job is being dead-lettered), unless another job for it is
	// queued (a retry by hand made since its last failure).
	AbandonProcessingTx(ctx context.Context, tx *sql.Tx, id int64, msg string) error
	RefillCredits(ctx context.Context) (int, error)
	ResetStuckItems(ctx context.Context, cutoff time.Time) ([]int64, error)
	// RecentTexts are the texts of the latest items, to learn the collection's vocabulary from.
	RecentTexts(ctx context.Context, limit int) ([]string, error)
	Item(ctx context.Context, userID, id int64) (*Item, error)
	Settings(ctx context.Context, userID int64) (*Settings, error)
}

// EnricherChooser picks the enricher of a user's settings (their choice, else the configured
// default; an LLM only when a model is configured). enrich.Chooser is the real one.
type EnricherChooser interface {
	EnricherFor(s *Settings) Enricher
}

// ArticleFetcher gets the readable text of a linked page.
type ArticleFetcher interface {
	ArticleText(ctx context.Context, url string) (string, error)
}

// Observer learns from every enriched text (the embedded enricher's collection statistics:
// the Offline enricher's own, which its EnrichImport teaches directly).
type Observer interface{ Observe(doc string) }

// Outcome says how a job's work ended, for the metrics: By names who did it (an enricher),
// Result is one of ok, error, sent, skipped, failed, retry; empty when nothing was done.
type Outcome struct{ By, Result string }

// Enriching is the service that enriches items: filters, the linked article's text, the
// user's enricher with its fallback, and the stored result. (app.Enrichment is what an
// enricher found, hence the name.)
type Enriching struct {
	Store     EnrichingStore
	Queue     ProcessQueue
	Enrichers EnricherChooser
	// Fallback, when set, enriches an item after the last failed attempt of its enricher.
	Fallback Enricher
	Articles ArticleFetcher // nil: never fetch the page
	Observer Observer       // nil: learn nothing
	// Tastes gives each user's reading model (the Feedback service); nil: none.
	Tastes Tastes
	// Offline is the embedded enricher, for the back catalogue and re-scoring; Scoring is its
	// store. Either nil: neither happens.
	Offline OfflineEnricher
	Scoring ScoringStore
	Imports RescoreQueue // where the scoring of a back catalogue is queued
	// MinTextChars: shorter texts with a link get the linked page's article text (default 2000).
	MinTextChars int
	Log          *slog.Logger
	Clock        Clock

	firstOnce  sync.Once
	firstSlots Slots // a slot per first import being scored (FirstImportsScored)

	vocabMu sync.Mutex
	vocab   map[int64]vocabCache // per user: the last Vocabulary, while still true
}

// vocabCache is a user's learned vocabulary, kept while their interests and newest items are
// the ones it was learned from (and for at most vocabularyFor).
type vocabCache struct {
	key   string
	at    time.Time
	words []InterestWords
}

// FirstImportsScored bounds the first imports ScoreFirstImport scores at once, however many
// fetch workers there are: scoring is where a fetch holds the most memory.
const FirstImportsScored = 4

// Pend makes new items PENDING and enqueues them, in the caller's transaction (the one that
// stores them): Sources.NewItems.
func (e *Enriching) Pend(ctx context.Context, tx *sql.Tx, ids []int64) error {
	pend, err := e.Store.PendTx(ctx, tx, ids)
	if err != nil {
		return err
	}
	for _, it := range pend {
		if err := e.Queue.EnqueueTx(ctx, tx, it); err != nil {
			return err
		}
	}
	return nil
}

// QueueNew refills credits when due and enqueues up to batch NEW items (left after credits ran
// out and were refilled, or after a recovery), within the queue's capacity.
func (e *Enriching) QueueNew(ctx context.Context, batch int) (int, error) {
	log := e.log().With("component", "scheduler", "queue", "process")
	if n, err := e.Store.RefillCredits(ctx); err != nil {
		return 0, err
	} else if n > 0 {
		log.Info("daily credits refilled", "users", n)
	}
	size, err := e.Queue.Size(ctx)
	if err != nil {
		return 0, err
	}
	room := e.Queue.Capacity() - size
	if room <= 0 {
		log.Warn("process queue at capacity; skipping this cycle", "size", size)
		return 0, nil
	}
	if batch <= 0 {
		batch = 50
	}
	ids, err := e.Store.NewItems(ctx, min(batch, room))
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	n, err := e.Store.PendAndEnqueue(ctx, ids, e.Queue.EnqueueTx)
	if n > 0 {
		log.Info("items queued for processing", "count", n)
	}
	return n, err
}

// AbandonTx ends the processing of an item whose job goes to the dead letters, in that
// transaction: an item still PENDING or PROCESSING becomes ERROR with the reason (the person
// may retry it), so that no item waits in a transitional state without a job. ERROR, not NEW:
// an item whose processing killed the process must not be taken up again by itself.
func (e *Enriching) AbandonTx(ctx context.Context, tx *sql.Tx, itemID int64, reason string) error {
	return e.Store.AbandonProcessingTx(ctx, tx, itemID, "Processing stopped: "+Shorten(reason, 300))
}

// ResetStuck resets items PENDING or PROCESSING since before cutoff whose job is gone.
func (e *Enriching) ResetStuck(ctx context.Context, cutoff time.Time) ([]int64, error) {
	return e.Store.ResetStuckItems(ctx, cutoff)
}

// Process enriches one item; all of its result is stored in one transaction. A PROCESSING mark
// younger than staleAfter belongs to another running job and is left alone.
func (e *Enriching) Process(ctx context.Context, a Attempt, itemID int64, staleAfter time.Duration) (Outcome, error) {
	log := e.log().With("component", "process", "item", itemID)
	start := time.Now()
	in, err := e.Store.StartProcessing(ctx, itemID, staleAfter)
	if err != nil {
		return Outcome{}, err
	}
	if in == nil {
		log.Debug("nothing to process: item gone, done, or waiting for credits")
		return Outcome{}, nil
	}
	it := in.Item
	effect := ApplyFilters(in.Filters, it)
	if effect.Hide {
		log.Info("hidden by a filter", "filters", effect.Matched)
		return Outcome{}, e.Store.FinishProcessing(ctx, it, ProcessResult{Effect: effect}, a.complete())
	}
	var extracted, articleErr string
	text := it.Text
	minText := e.MinTextChars
	if minText <= 0 {
		minText = 2000
	}
	if e.Articles != nil && len(text) < minText && it.Link != "" {
		if t, err := e.Articles.ArticleText(ctx, it.Link); err != nil {
			log.Debug("article text not extracted; using the feed's text", "link", it.Link, "error", err)
			if ctx.Err() != nil {
				return Outcome{}, ctx.Err()
			}
			articleErr = err.Error()
		} else if len(t) > len(text) {
			text, extracted = t, t
		}
	}
	enrichIn := it.enrichInput()
	enrichIn.Text, enrichIn.Now = text, ClockOrSystem(e.Clock).Now()
	enrichIn.Interests, enrichIn.Topics = in.Settings.Interests, in.Settings.Topics
	enrichIn.SourceTopics, enrichIn.SourceAffinity = in.SourceTopics, in.SourceAffinity
	enrichIn.Taste, _ = e.tasteFor(ctx, it.UserID)
	enricher := e.Enrichers.EnricherFor(in.Settings)
	res, err := enricher.Enrich(ctx, enrichIn)
	if err != nil && a.Last && e.Fallback != nil && e.Fallback.Name() != enricher.Name() {
		log.Warn("enricher failed on the last attempt; using the fallback", "enricher", enricher.Name(), "error", err)
		res, err = e.Fallback.Enrich(ctx, enrichIn)
	}
	if err != nil {
		if ctx.Err() != nil {
			return Outcome{}, ctx.Err()
		}
		if ferr := e.Store.FailProcessing(ctx, it.ID, err.Error(), a.Last, nil); ferr != nil {
			return Outcome{By: enricher.Name(), Result: "error"}, errors.Join(err, ferr)
		}
		log.Warn("enrichment failed", "enricher", enricher.Name(), "error", err, "final", a.Last)
		return Outcome{By: enricher.Name(), Result: "error"}, err
	}
	// An LLM's score is its own: the reading model applies to it as to the embedded score, and
	// the LLM's score and reason are kept for re-scoring after later feedback.
	var base *Enrichment
	if res.EnrichedBy != EnricherEmbedded && e.Offline != nil && e.Scoring != nil {
		base = &Enrichment{Score: res.Score, Reasoning: res.Reasoning}
		res.Score, res.Reasoning = e.Offline.Personalize(enrichIn, res.Score, res.Reasoning, res.Topics)
	}
	// Tags and topics are known now: filters on them apply after enrichment (a filter on topics
	// also sees the source's usual topics of an item that matches none).
	it.Tags, it.Topics, it.UsualTopics = res.Tags, res.Topics, res.UsualTopics
	effect = ApplyFilters(in.Filters, it)
	if e.Observer != nil {
		e.Observer.Observe(it.Title + " " + text)
	}
	if err := e.Store.FinishProcessing(ctx, it, ProcessResult{Enrichment: res, Text: extracted, ArticleError: articleErr, Base: base, Effect: effect}, a.complete()); err != nil {
		return Outcome{}, err
	}
	log.Info("enriched", "enricher", res.EnrichedBy, "score", res.Score, "tags", res.Tags, "duration", time.Since(start))
	return Outcome{By: res.EnrichedBy, Result: "ok"}, nil
}

// Learn teaches the Observer (the embedded enricher's statistics) the collection's vocabulary
// from the latest items.
func (e *Enriching) Learn(ctx context.Context, limit int) {
	if e.Observer == nil {
		return
	}
	texts, err := e.Store.RecentTexts(ctx, limit)
	if err != nil {
		e.log().Warn("could not read recent items for the enricher's statistics", "error", err)
		return
	}
	for _, t := range texts {
		e.Observer.Observe(t)
	}
}

// Try enriches one of the user's items with their enricher and returns what it found,
// storing nothing (the CLI's enrich command).
func (e *Enriching) Try(ctx context.Context, userID, id int64) (*Item, *Enrichment, error) {
	it, err := e.Store.Item(ctx, userID, id)
	if err != nil {
		return nil, nil, err
	}
	s, err := e.Store.Settings(ctx, userID)
	if err != nil {
		return nil, nil, err
	}
	enricher := e.Enrichers.EnricherFor(s)
	in := it.enrichInput()
	in.Interests, in.Topics = s.Interests, s.Topics
	// The same input processing gives, so what this shows is what would be stored.
	if e.Scoring != nil {
		if in.SourceTopics, in.SourceAffinity, err = e.Scoring.SourceContext(ctx, it.SourceID, it.ID); err != nil {
			return it, nil, err
		}
	}
	in.Taste, _ = e.tasteFor(ctx, userID)
	res, err := enricher.Enrich(ctx, in)
	if err != nil {
		return it, nil, fmt.Errorf("%s: %w", enricher.Name(), err)
	}
	if res.EnrichedBy != EnricherEmbedded && e.Offline != nil && e.Scoring != nil {
		res.Score, res.Reasoning = e.Offline.Personalize(in, res.Score, res.Reasoning, res.Topics) // as processing stores it
	}
	return it, res, nil
}

func (e *Enriching) log() *slog.Logger { return logOrDiscard(e.Log) }

func logOrDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.DiscardHandler)
	}
	return l
}
