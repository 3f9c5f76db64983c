package app

import (
	"context"
	"database/sql"
)

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

// FilterStore keeps filter rules.
type FilterStore interface {
	Filters(ctx context.Context, userID int64) ([]*Filter, error)
	CreateFilter(ctx context.Context, f *Filter) error
	DeleteFilter(ctx context.Context, userID, id int64) error
}

// ProcessQueue is where items wait to be enriched.
type ProcessQueue interface {
	EnqueueTx(ctx context.Context, tx *sql.Tx, it PendingItem) error
	Size(ctx context.Context) (int, error)
	// Capacity is the most jobs the scheduler lets wait.
	Capacity() int
}

// Reading is the service behind reading, triaging and filtering items: web UI, API, CLI.
type Reading struct {
	Items    ItemStore
	Filters  FilterStore
	Settings SettingsStore
	Queue    ProcessQueue
}

// Retry enqueues an item's enrichment again (the retry button of an ERROR item).
func (r *Reading) Retry(ctx context.Context, userID, id int64) error {
	return r.Items.RetryItem(ctx, userID, id, r.Queue.EnqueueTx)
}

// Open returns an item and marks it read.
func (r *Reading) Open(ctx context.Context, userID, id int64) (*Item, error) {
	read := true
	return r.Items.UpdateItem(ctx, userID, id, ItemUpdate{Read: &read})
}

// PreviewFilter says how many of the user's latest 500 items a rule would match, with up to 10 of them.
func (r *Reading) PreviewFilter(ctx context.Context, userID int64, f *Filter) (int, []*Item, error) {
	if err := f.Validate(); err != nil {
		return 0, nil, err
	}
	f.Enabled = true
	var matched []*Item
	n := 0
	for _, hidden := range []bool{false, true} {
		items, err := r.Items.Items(ctx, ItemFilter{UserID: userID, Hidden: hidden, Limit: 500})
		if err != nil {
			return 0, nil, err
		}
		for _, it := range items {
			if f.Matches(it) {
				n++
				if len(matched) < 10 {
					matched = append(matched, it)
				}
			}
		}
	}
	return n, matched, nil
}

// AddFilter validates and stores a rule for the user.
func (r *Reading) AddFilter(ctx context.Context, userID int64, f *Filter) error {
	f.UserID = userID
	return r.Filters.CreateFilter(ctx, f)
}

// List is a page of the user's items.
func (r *Reading) List(ctx context.Context, f ItemFilter) ([]*Item, error) {
	return r.Items.Items(ctx, f)
}

// Item is one of the user's items, as it is (Open marks it read).
func (r *Reading) Item(ctx context.Context, userID, id int64) (*Item, error) {
	return r.Items.Item(ctx, userID, id)
}
