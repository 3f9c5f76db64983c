package app

import (
	"context"
	"database/sql"
	"time"
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
	Summary        string
	Tags           []string
	Topics         []string
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
	MarkAllRead(ctx context.Context, userID, sourceID int64) (int, error)
	Counts(ctx context.Context, userID int64) (ItemCounts, error)
	// RetryItem puts an ERROR (or DONE) item back to PENDING and calls enqueue in the same transaction.
	RetryItem(ctx context.Context, userID, id int64, enqueue func(ctx context.Context, tx *sql.Tx, it PendingItem) error) error
}
