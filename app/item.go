package app

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app/htmltext"
)

// ItemStatus is where an item is in the processing pipeline.
type ItemStatus string

const (
	ItemNew        ItemStatus = "NEW"
	ItemPending    ItemStatus = "PENDING"
	ItemProcessing ItemStatus = "PROCESSING"
	ItemDone       ItemStatus = "DONE"
	ItemError      ItemStatus = "ERROR"
)

// Item is one entry of a source: an article, a post, a link on a page.
type Item struct {
	ID           int64
	SourceID     int64
	UserID       int64
	GUID         string
	Title        string
	Link         string
	Author       string
	PublishedAt  *time.Time
	RawContent   string
	CleanContent string // sanitized HTML, safe to render
	Text         string // plain text of the content, for search and enrichment
	Extra        map[string]any
	Status       ItemStatus
	CreatedAt    time.Time
	SourceName   string // filled by queries that join the source

	// Enrichment (the processing pipeline).
	Summary string
	Tags    []string
	Topics  []string
	// UsualTopics are the source's usual topics, for an item that matches none of the user's
	// topics: a briefing or filter by topic may include it; the UI shows "usually …".
	UsualTopics    []string
	Score          *int // nil until scored
	ScoreReasoning string
	EnrichedBy     string
	Attempts       int
	LastError      string

	// Reading state.
	ReadAt  *time.Time
	Starred bool
	Hidden  bool
	Snippet string // search result snippet: plain text with the matches marked by \x01 … \x02

	// derived is the sanitized HTML that SetTextOfContent made Text from, and that text.
	derived struct{ clean, text string }
}

// SetTextOfContent sets Text to the plain text of CleanContent (htmltext.Text) and remembers
// which text of which HTML it is, so that StoredText need not make it again while neither
// changed (issue 26: the store made every fetched item's text a second time).
func (it *Item) SetTextOfContent() {
	it.Text = htmltext.Text(it.CleanContent)
	it.derived.clean, it.derived.text = it.CleanContent, it.Text
}

// StoredText is htmltext.Stored(it.Text, it.CleanContent), the text a store keeps: "" when it
// is CleanContent's own. A text SetTextOfContent made, of HTML that has not changed since, is.
func (it *Item) StoredText() string {
	// Strings that are the same string compare without reading their bytes.
	if it.Text == it.derived.text && it.CleanContent == it.derived.clean {
		return "" // it.derived is a text and its HTML: the zero pair too (htmltext.Text("") is "")
	}
	return htmltext.Stored(it.Text, it.CleanContent)
}

// ItemUpdate changes an item's reading state; nil leaves a field as it is.
type ItemUpdate struct {
	Read    *bool
	Starred *bool
	Hidden  *bool
}

// ItemCounts are the numbers the navigation shows.
type ItemCounts struct {
	Unread, Starred, Errors, Hidden int
}

// NavUnreadCap is where the navigation stops counting unread items (it shows "999+" past 999):
// counting reads one index entry an item, and a reader who follows thousands of sources may
// leave 100,000 unread, which every page would count again.
const NavUnreadCap = 1000

// ItemFilter selects items.
type ItemFilter struct {
	UserID   int64
	SourceID int64
	FolderID int64 // only the items of this folder's sources; -1 for sources in no folder
	// ReadSince, with Unread, keeps the items read since then too: the list as it was when it
	// was shown, so that the item page's next and previous do not shift as items are read.
	ReadSince time.Time
	Q         string     // full-text search
	Status    ItemStatus // "" for any
	Unread    bool
	Starred   bool
	Hidden    bool // the "flagged" view: only hidden items; otherwise hidden items are left out
	MinScore  int
	Topic     string
	Tag       string
	Sort      string // "date" (default) or "score"; a search sorts by relevance
	Limit     int
	Offset    int
}

// ItemStore keeps items for reading.
type ItemStore interface {
	Items(ctx context.Context, f ItemFilter) ([]*Item, error)
	Item(ctx context.Context, userID, id int64) (*Item, error)
	UpdateItem(ctx context.Context, userID, id int64, u ItemUpdate) (*Item, error)
	// MarkRead marks the user's unread, not hidden items in scope read and says how many.
	MarkRead(ctx context.Context, userID int64, scope ReadScope) (int, error)
	// Counts counts the user's items, the unread ones up to unreadCap when it is above 0.
	Counts(ctx context.Context, userID int64, unreadCap int) (ItemCounts, error)
	// RetryItem puts an ERROR (or DONE) item back to PENDING and calls enqueue in the same transaction.
	RetryItem(ctx context.Context, userID, id int64, enqueue func(ctx context.Context, tx *sql.Tx, it PendingItem) error) error
}

// What a feed item carries besides its text is kept in Item.Extra under these keys (the store
// keeps Extra as JSON, so they come back as JSON values: read them with Enclosures, Thumbnail
// and DateMissing).
const (
	// ExtraEnclosures: []Enclosure, the audio, video and images attached to the item (RSS
	// enclosures, Atom rel="enclosure" links, Media RSS content, JSON Feed attachments).
	ExtraEnclosures = "enclosures"
	// ExtraThumbnail: string, the URL of the item's picture (media:thumbnail, itunes:image, a
	// JSON Feed image, an image enclosure).
	ExtraThumbnail = "thumbnail"
	// ExtraDateMissing: true when the feed gave the item no date we could read; PublishedAt is
	// then nil and the item is dated by when it was first seen.
	ExtraDateMissing = "date_missing"
	// ExtraDateUnread: string, the date as the feed wrote it when we could not read it.
	ExtraDateUnread = "date_unread"
	// ExtraArticleError: string, why the linked page's article text could not be read when
	// the item was enriched (its summary and score then come from the feed's own text).
	ExtraArticleError = "article_error"
	// ExtraFullText: true when the item's content is the linked page's article, read on the
	// reader's demand (Reading.FullText), not the feed's own text.
	ExtraFullText = "full_text"
	// ExtraSender: string, the address a newsletter came from (a mail source's item; its
	// "site"): the Sources page lists a folder's newsletters by it.
	ExtraSender = "sender"
	// ExtraUnsubscribe: string, the newsletter's List-Unsubscribe link (https, or mailto when
	// it offers no web link), offered on the item's page.
	ExtraUnsubscribe = "unsubscribe"
)

// FullText reports whether the item's content is the linked page's article, read on demand.
func (it Item) FullText() bool {
	b, _ := it.Extra[ExtraFullText].(bool)
	return b
}

// Enclosure is a media file attached to an item: a podcast episode, a video, an image.
type Enclosure struct {
	URL    string `json:"url"`
	Type   string `json:"type,omitempty"`   // MIME type, e.g. audio/mpeg
	Length int64  `json:"length,omitempty"` // bytes, 0 if unknown
	Medium string `json:"medium,omitempty"` // audio, video or image (from the type or Media RSS)
}

// Enclosures returns the item's enclosures, as the parser gave them or as the store read them
// back from JSON.
func (it Item) Enclosures() []Enclosure {
	switch v := it.Extra[ExtraEnclosures].(type) {
	case []Enclosure:
		return v
	case []any:
		var out []Enclosure
		for _, e := range v {
			m, _ := e.(map[string]any)
			u, _ := m["url"].(string)
			if u == "" {
				continue
			}
			enc := Enclosure{URL: u}
			enc.Type, _ = m["type"].(string)
			enc.Medium, _ = m["medium"].(string)
			if n, ok := m["length"].(float64); ok {
				enc.Length = int64(n)
			}
			out = append(out, enc)
		}
		return out
	}
	return nil
}

// Audio reports whether the item carries an audio file: an episode of a podcast.
func (it Item) Audio() bool {
	for _, e := range it.Enclosures() {
		if e.Medium == "audio" || strings.HasPrefix(e.Type, "audio/") {
			return true
		}
	}
	return false
}

// ReadEnclosures sets Extra from the JSON a store keeps (its extra column) when it has
// enclosures: what scoring reads of Extra (Audio), without decoding every row's.
func (it *Item) ReadEnclosures(extra string) {
	if strings.Contains(extra, `"`+ExtraEnclosures+`"`) {
		_ = json.Unmarshal([]byte(extra), &it.Extra)
	}
}

// enrichInput is what an enricher is told of the item itself; the caller adds the reader's
// side (interests, topics, taste, the time). Every path that scores an item starts from it, so
// that one text gets one score whichever path scored it (issue 25).
func (it *Item) enrichInput() EnrichInput {
	return EnrichInput{Title: it.Title, Text: it.Text, Link: it.Link, Author: it.Author, SourceName: it.SourceName,
		PublishedAt: it.PublishedAt, Audio: it.Audio()}
}

// Thumbnail returns the URL of the item's picture, "" if none.
func (it Item) Thumbnail() string {
	s, _ := it.Extra[ExtraThumbnail].(string)
	return s
}

// ArticleError says why the linked page's article text could not be read, "" if it was read
// or never needed.
func (it Item) ArticleError() string {
	s, _ := it.Extra[ExtraArticleError].(string)
	return s
}

// DateMissing reports whether the feed gave the item no date we could read.
func (it Item) DateMissing() bool {
	b, _ := it.Extra[ExtraDateMissing].(bool)
	return b
}

// Score bands: an item scoring at least HighScore is a top story (the high badge, the Reader
// API's Top stories label), at least MediumScore the medium badge, below it the low one.
const (
	HighScore   = 70
	MediumScore = 40
)

// ScoreClass is the class of a score's badge, which colours it by band: score-high, score-mid
// or score-low (the number is always shown too).
func ScoreClass(score int) string {
	switch {
	case score >= HighScore:
		return "score-high"
	case score >= MediumScore:
		return "score-mid"
	}
	return "score-low"
}

// ReadScope says which unread items "mark all read" marks: of one source, of one folder's
// sources, scoring at least MinScore, starred only, fetched no later than Before (zero: any).
type ReadScope struct {
	SourceID    int64
	FolderID    int64
	MinScore    int
	StarredOnly bool
	Before      time.Time
}
