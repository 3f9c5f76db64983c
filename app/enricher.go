package app

import (
	"context"
	"time"
)

// Topic is one of the user's topics: a name and a few keywords that signal it.
type Topic struct {
	Name     string   `json:"name"`
	Keywords []string `json:"keywords"`
}

// EnrichInput is what an enricher knows about an item.
type EnrichInput struct {
	Title       string
	Text        string // plain text of the article (extracted page text or the feed content)
	Link        string
	Author      string
	SourceName  string
	PublishedAt *time.Time
	Now         time.Time // for recency; zero means time.Now()
	// Interests is what the user (or a briefing) said they care about, free text.
	Interests string
	// Topics is the user's topic list; enrichment picks from it only.
	Topics []Topic
	// SourceTopics are the topics the user's other items of this source got, the fallback
	// when nothing in the item matches a topic.
	SourceTopics []string
	// SourceAffinity in [0,1]: how much the user reads this source (read/starred share).
	SourceAffinity float64
	// Taste is what the user's feedback taught (a per-user model, taste.Model); nil: nothing yet.
	Taste Taste
	// Audio: the item carries an audio file (an enclosure of type audio/…): a podcast episode,
	// which seldom says so (Item.Audio).
	Audio bool
}

// Taste adjusts a score by what a user's feedback taught. Features are an item's terms
// ("w:KEY"), source ("source:NAME") and topics ("topic:NAME"); Adjust returns the points to add
// (negative to take off) and, for the reason, the words that weighed most, as the items had them.
// Among liked or disliked, TasteSubject stands for the item's meaning when it weighed as a
// word would (the item is close in subject to the liked or dismissed items, in other words).
type Taste interface {
	Adjust(features []string) (points float64, liked, disliked []string)
}

// TasteSubject is the label Taste.Adjust gives the item's meaning among the liked or disliked.
const TasteSubject = "\x00subject"

// Enrichment is what an enricher found.
type Enrichment struct {
	Summary          string
	Tags             []string
	Topics           []string
	Score            int // 0–100
	Reasoning        string
	EnrichedBy       string // "embedded" or "llm:MODEL"
	PromptTokens     int
	CompletionTokens int
	// UsualTopics are the topics this source's items usually have, given when the item matches
	// none of the user's topics: for a briefing or filter that needs a topic, and for the UI to
	// show as "usually …". Never the item's own topics.
	UsualTopics []string
}

// Enricher summarizes, tags, classifies and scores an item.
type Enricher interface {
	Enrich(ctx context.Context, in EnrichInput) (*Enrichment, error)
	Name() string
}

// PendingItem is an item handed to the processing queue.
type PendingItem struct {
	ID          int64
	PublishedAt *time.Time
}

// ProcessInput is what the processing worker needs to enrich an item.
type ProcessInput struct {
	Item           *Item
	Settings       *Settings
	Filters        []*Filter
	SourceTopics   []string
	SourceAffinity float64
}

// ProcessResult is what processing found for an item.
type ProcessResult struct {
	Enrichment *Enrichment // nil when a filter hid the item before enrichment
	Text       string      // extracted article text, when fetched ("" keeps the stored text)
	// ArticleError: why the linked page's text could not be read ("" when it was or was not
	// needed); kept with the item so its page can say the feed's text was used instead.
	ArticleError string
	// Base: the score and reason an LLM gave, before the reading model adjusted them (kept so
	// a re-score after feedback starts from them); nil when the embedded enricher scored it.
	Base   *Enrichment
	Effect FilterEffect
}
