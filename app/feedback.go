package app

import (
	"context"
	"database/sql"
	"log/slog"
	"sync"
	"time"
)

// Feedback signals (issue 12): explicit ones ("more like this", "less like this") and the
// implicit ones reading gives. taste.SignalWeights says how much each counts.
const (
	SignalMore          = "more"
	SignalLess          = "less"
	SignalStarred       = "starred"
	SignalReadToEnd     = "read_to_end"
	SignalOpened        = "opened"
	SignalHidden        = "hidden"
	SignalReadUnopened  = "read_unopened"
	feedbackEventsKept  = 2000 // the model is retrained from the latest events, at most this many
	learnedTermsShown   = 10
	rescoreDebounce     = 2 * time.Second  // after "more" or "less": the reader looks for the effect
	rescoreImplicit     = 60 * time.Second // after reading: a minute of opening items is one re-score
	KindScoreImport     = "score_import"
	KindRescoreUser     = "rescore_user"
	PriorityScoreImport = -10 // behind every new item (0–10)
	PriorityRescore     = -5
)

// ValidSignal reports whether s is a feedback signal.
func ValidSignal(s string) bool {
	switch s {
	case SignalMore, SignalLess, SignalStarred, SignalReadToEnd, SignalOpened, SignalHidden, SignalReadUnopened:
		return true
	}
	return false
}

// FeedbackEvent is one thing a reader told about an item, with the item's features (as
// enrich.Embedded.Features gives them) when it happened.
type FeedbackEvent struct {
	ItemID int64
	Signal string
	Keys   []string
	Labels []string
}

// LearnedTerm is a word, source or topic the reading model weighs, for the Settings page.
type LearnedTerm struct {
	Label  string  `json:"label"`
	Weight float64 `json:"weight"`
}

// Learned is what the reading model learned, for Settings → "What Morning Deck learned".
type Learned struct {
	Signals  int           `json:"signals"`
	Positive []LearnedTerm `json:"positive"`
	Negative []LearnedTerm `json:"negative"`
}

// InterestWords are words that go with one of the user's interests in their own items (the
// embedded enricher's Vocabulary), offered on the Settings page to add to the interest.
type InterestWords struct {
	Interest string   `json:"interest"`
	Words    []string `json:"words"`
	// Section is the news section the interest names ("sports"), read by the built-in model
	// of news sections and by SectionWords through the word vectors; empty for none.
	Section      string   `json:"section,omitempty"`
	SectionWords []string `json:"section_words,omitempty"`
	// Kinds are what the built-in lexicon knows as kinds of the interest's words ("CVE",
	// "zero-day" of "vulnerabilities"): items that name one count for the interest.
	Kinds []string `json:"kinds,omitempty"`
	// Translations are the interest's words as other languages and scripts write them, from
	// the built-in lexicon ("Deutschland", "Германия" of "Germany"): items in those languages
	// that write one count for the interest. Like a kind, one the reader removes goes to the
	// interest's "(not: …)" list.
	Translations []string `json:"translations,omitempty"`
	// Place and Qualified: the place the interest's first subject is of ("Indian" of "Indian
	// economy and markets") and the later subjects it qualifies ("markets"): they count fully
	// only in items that name the place.
	Place     string   `json:"place,omitempty"`
	Qualified []string `json:"qualified,omitempty"`
}

// LearnedTaste is a trained reading model.
type LearnedTaste interface {
	Taste
	Top(n int) (positive, negative []LearnedTerm)
}

// TasteTrainer turns feedback events into a reading model (taste.Trainer is the real one; it
// uses the embedded enricher's statistics, the same that score).
type TasteTrainer interface {
	Features(in EnrichInput, topics []string) (keys, labels []string)
	Train(events []FeedbackEvent) ([]byte, error)
	Parse(model []byte) (LearnedTaste, error)
}

// FeedbackStore keeps feedback events and the users' reading models.
type FeedbackStore interface {
	Item(ctx context.Context, userID, id int64) (*Item, error)
	// RecordFeedback stores an event unless the same signal on the item is there already, and
	// removes the item's events of the signals in cancels ("more" cancels "less"). It reports
	// whether anything changed.
	RecordFeedback(ctx context.Context, userID int64, e FeedbackEvent, cancels []string) (bool, error)
	HasFeedback(ctx context.Context, userID, itemID int64, signal string) (bool, error)
	FeedbackEvents(ctx context.Context, userID int64, limit int) ([]FeedbackEvent, error)
	FeedbackCount(ctx context.Context, userID int64) (int, error)
	// SaveReadingModel stores a user's model and returns its new version.
	SaveReadingModel(ctx context.Context, userID int64, model []byte) (int64, error)
	// ReadingModel is the user's stored model and version (nil, 0 when none).
	ReadingModel(ctx context.Context, userID int64) ([]byte, int64, error)
	ResetFeedback(ctx context.Context, userID int64) (int64, error)
	// Settings are the user's settings: their interests, which an item's features include
	// (the interest terms it matched).
	Settings(ctx context.Context, userID int64) (*Settings, error)
	// UsualTopics are the source's usual topics stored with an item that matched none.
	UsualTopics(ctx context.Context, userID, itemID int64) ([]string, error)
}

// RescoreQueue runs re-scoring in the background: a user's unread items after their model
// changed, the back catalogue of a source's first import.
type RescoreQueue interface {
	EnqueueRescore(ctx context.Context, userID, version int64, delay time.Duration) error
	EnqueueImportTx(ctx context.Context, tx *sql.Tx, sourceID int64) error
	EnqueueImport(ctx context.Context, sourceID int64) error
}

// RescoreJob re-scores a user's unread items with the model of this version (an older job,
// after a newer retrain, does nothing).
type RescoreJob struct {
	UserID  int64 `json:"userId"`
	Version int64 `json:"version"`
}

// Valid reports whether the job names a user.
func (j RescoreJob) Valid() bool { return j.UserID != 0 }

// ScoreImportJob enriches the back catalogue of a source's first import with the embedded
// enricher.
type ScoreImportJob struct {
	SourceID int64 `json:"sourceId"`
}

// Valid reports whether the job names a source.
func (j ScoreImportJob) Valid() bool { return j.SourceID != 0 }

// Feedback is the service that learns from the reader: it records signals, retrains the
// user's reading model from the stored events (milliseconds: the features were computed when
// each event was recorded), has the user's unread items re-scored in the background, shows
// what it learned and forgets it on request. It is the Enriching service's Tastes.
type Feedback struct {
	Store   FeedbackStore
	Trainer TasteTrainer
	Queue   RescoreQueue // nil: nothing is re-scored
	Log     *slog.Logger

	mu    sync.Mutex
	cache map[int64]cachedTaste
}

// NewFeedback builds the Feedback service: its store, the trainer of reading models, and the
// queue where re-scores go (nil: nothing is re-scored).
func NewFeedback(store FeedbackStore, trainer TasteTrainer, queue RescoreQueue, log *slog.Logger) *Feedback {
	return &Feedback{Store: store, Trainer: trainer, Queue: queue, Log: log}
}

type cachedTaste struct {
	version int64
	taste   LearnedTaste
}

// Record records one signal on one of the user's items, retrains the user's model and has
// their unread items re-scored. "more" and "less" cancel each other.
func (f *Feedback) Record(ctx context.Context, userID, itemID int64, signal string) error {
	if !ValidSignal(signal) {
		return Errorf(EINVALID, "Feedback is one of more, less, starred, read_to_end, opened, hidden or read_unopened; not %q.", signal)
	}
	it, err := f.Store.Item(ctx, userID, itemID)
	if err != nil {
		return err
	}
	topics := it.Topics
	settings, err := f.Store.Settings(ctx, userID)
	if err != nil {
		return err
	}
	in := it.enrichInput()
	in.Interests = settings.Interests
	keys, labels := f.Trainer.Features(in, topics)
	var cancels []string
	switch signal {
	case SignalMore:
		cancels = []string{SignalLess}
	case SignalLess:
		cancels = []string{SignalMore}
	}
	changed, err := f.Store.RecordFeedback(ctx, userID, FeedbackEvent{ItemID: itemID, Signal: signal, Keys: keys, Labels: labels}, cancels)
	if err != nil || !changed {
		return err
	}
	delay := rescoreImplicit
	if signal == SignalMore || signal == SignalLess {
		delay = rescoreDebounce
	}
	return f.retrain(ctx, userID, delay)
}

// Signal records an implicit signal (reading), logging rather than failing: reading an item
// must not fail because the model could not learn from it.
func (f *Feedback) Signal(ctx context.Context, userID, itemID int64, signal string) {
	if f == nil {
		return
	}
	if signal == SignalReadUnopened {
		if opened, err := f.Store.HasFeedback(ctx, userID, itemID, SignalOpened); err != nil || opened {
			return
		}
	}
	if err := f.Record(ctx, userID, itemID, signal); err != nil {
		f.log().Warn("feedback not recorded", "user", userID, "item", itemID, "signal", signal, "error", err)
	}
}

// Retrain rebuilds the user's model from their latest events, stores it and has their unread
// items re-scored.
func (f *Feedback) Retrain(ctx context.Context, userID int64) error {
	return f.retrain(ctx, userID, rescoreDebounce)
}

func (f *Feedback) retrain(ctx context.Context, userID int64, delay time.Duration) error {
	events, err := f.Store.FeedbackEvents(ctx, userID, feedbackEventsKept)
	if err != nil {
		return err
	}
	model, err := f.Trainer.Train(events)
	if err != nil {
		return err
	}
	version, err := f.Store.SaveReadingModel(ctx, userID, model)
	if err != nil {
		return err
	}
	f.rescore(ctx, userID, version, delay)
	return nil
}

func (f *Feedback) rescore(ctx context.Context, userID, version int64, delay time.Duration) {
	if f.Queue == nil {
		return
	}
	if err := f.Queue.EnqueueRescore(ctx, userID, version, delay); err != nil {
		f.log().Warn("re-scoring not queued", "user", userID, "error", err)
	}
}

// Reset forgets everything the user's feedback taught and re-scores their unread items.
func (f *Feedback) Reset(ctx context.Context, userID int64) error {
	version, err := f.Store.ResetFeedback(ctx, userID)
	if err != nil {
		return err
	}
	f.rescore(ctx, userID, version, rescoreDebounce)
	return nil
}

// Learned is what the user's model learned: how many signals, the terms that count most for
// and against an item.
func (f *Feedback) Learned(ctx context.Context, userID int64) (*Learned, error) {
	n, err := f.Store.FeedbackCount(ctx, userID)
	if err != nil {
		return nil, err
	}
	l := &Learned{Signals: n}
	t, _, err := f.taste(ctx, userID)
	if err != nil || t == nil {
		return l, err
	}
	l.Positive, l.Negative = t.Top(learnedTermsShown)
	return l, nil
}

// TasteFor is the user's reading model (nil when it learned nothing), for scoring.
func (f *Feedback) TasteFor(ctx context.Context, userID int64) (Taste, int64, error) {
	if f == nil {
		return nil, 0, nil
	}
	t, v, err := f.taste(ctx, userID)
	if t == nil {
		return nil, v, err
	}
	return t, v, err
}

func (f *Feedback) taste(ctx context.Context, userID int64) (LearnedTaste, int64, error) {
	b, version, err := f.Store.ReadingModel(ctx, userID)
	if err != nil || len(b) == 0 {
		return nil, version, err
	}
	f.mu.Lock()
	c, ok := f.cache[userID]
	f.mu.Unlock()
	if ok && c.version == version {
		return c.taste, version, nil
	}
	t, err := f.Trainer.Parse(b)
	if err != nil {
		return nil, version, err
	}
	f.mu.Lock()
	if f.cache == nil {
		f.cache = map[int64]cachedTaste{}
	}
	f.cache[userID] = cachedTaste{version, t}
	f.mu.Unlock()
	return t, version, nil
}

// UsualTopics are the source's usual topics stored with an item that matched none of the
// user's topics (shown as "usually …").
func (f *Feedback) UsualTopics(ctx context.Context, userID int64, it *Item) []string {
	if f == nil || len(it.Topics) > 0 {
		return nil
	}
	t, err := f.Store.UsualTopics(ctx, userID, it.ID)
	if err != nil {
		f.log().Warn("usual topics not read", "item", it.ID, "error", err)
	}
	return t
}

func (f *Feedback) log() *slog.Logger { return logOrDiscard(f.Log) }
