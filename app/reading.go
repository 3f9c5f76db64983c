package app

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strconv"
	"strings"
)

// ProcessQueue is where items wait to be enriched.
type ProcessQueue interface {
	EnqueueTx(ctx context.Context, tx *sql.Tx, it PendingItem) error
	Size(ctx context.Context) (int, error)
	// Capacity is the most jobs the scheduler lets wait.
	Capacity() int
}

// ReadingStore keeps items and filter rules, and says which sources and folders are a user's.
type ReadingStore interface {
	ItemStore
	FilterStore
	Source(ctx context.Context, userID, id int64) (*Source, error)
	Folders(ctx context.Context, userID int64, unreadCap int) ([]*Folder, error)
	// SetFullText stores the linked page's article as an item's content (sanitized HTML) and
	// marks it ExtraFullText; the item's text stays the feed's.
	SetFullText(ctx context.Context, userID, id int64, html string) (*Item, error)
}

// ArticleReader reads the main text of a web page (readability), with the limits of any fetch:
// its sanitized HTML and its plain text.
type ArticleReader interface {
	ArticleHTML(ctx context.Context, url string) (html, text string, err error)
}

// Reading is the service behind reading, triaging and filtering items: web UI, API, CLI.
type Reading struct {
	Store ReadingStore
	Queue ProcessQueue
	// Feedback, when set, learns from reading: opened, starred, hidden, marked read unopened.
	Feedback *Feedback
	// Articles reads a linked page's full text on demand (FullText); nil: not offered.
	Articles ArticleReader
}

// FullText fetches the page an item links to, reads its article (readability, sanitized) and
// stores it as the item's content, for the reader who wants the whole text where the feed
// gave a summary. It answers the item as stored.
func (r *Reading) FullText(ctx context.Context, userID, id int64) (*Item, error) {
	it, err := r.Store.Item(ctx, userID, id)
	if err != nil {
		return nil, err
	}
	if r.Articles == nil {
		return nil, Errorf(EINVALID, "Reading the full text is not available in this installation.")
	}
	if it.Link == "" {
		return nil, Errorf(EINVALID, "This item links to no page to read.")
	}
	html, text, err := r.Articles.ArticleHTML(ctx, it.Link)
	if err != nil {
		var fe *FetchError
		if errors.As(err, &fe) && fe.Message != "" {
			return nil, Errorf(EINVALID, "The page could not be read: %s", fe.Message)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, Errorf(EINVALID, "The page could not be read: %s", ErrorMessage(err))
	}
	if strings.TrimSpace(text) == "" || strings.TrimSpace(html) == "" {
		return nil, Errorf(EINVALID, "The page has no article text to show.")
	}
	return r.Store.SetFullText(ctx, userID, id, html)
}

// Items is a page of the user's items.
func (r *Reading) Items(ctx context.Context, f ItemFilter) ([]*Item, error) {
	return r.Store.Items(ctx, f)
}

// Item is one of the user's items, as it is (Open marks it read).
func (r *Reading) Item(ctx context.Context, userID, id int64) (*Item, error) {
	return r.Store.Item(ctx, userID, id)
}

// Update changes an item's reading state (read, starred, hidden).
func (r *Reading) Update(ctx context.Context, userID, id int64, u ItemUpdate) (*Item, error) {
	it, err := r.Store.UpdateItem(ctx, userID, id, u)
	if err != nil {
		return nil, err
	}
	switch {
	case u.Starred != nil && *u.Starred:
		r.Feedback.Signal(ctx, userID, id, SignalStarred)
	case u.Hidden != nil && *u.Hidden:
		r.Feedback.Signal(ctx, userID, id, SignalHidden)
	case u.Read != nil && *u.Read:
		r.Feedback.Signal(ctx, userID, id, SignalReadUnopened)
	}
	return it, nil
}

// MarkAllRead marks the user's unread items read: every one, or those of one source or one
// folder (scope), which the caller has checked are the user's (MarkScopeRead checks a
// request's); it returns how many.
func (r *Reading) MarkAllRead(ctx context.Context, userID int64, scope ReadScope) (int, error) {
	return r.Store.MarkRead(ctx, userID, scope)
}

// ScopeID is one id of a mark-read scope as a request wrote it: Name is what the request calls
// it (the message that refuses it says it back), Text its value, "" for none.
type ScopeID struct{ Name, Text string }

// MarkScopeRead marks the user's unread items read: every one, or those of one of the user's
// sources or folders, named by their ids as a request wrote them (the web form's and the API's
// mark-all-read). It refuses an id that is not a whole number of at least 1 (EINVALID: "source
// must be an id (a whole number, at least 1), not "abc".") and a source or folder that is not
// the user's (ENOTFOUND); refused, it marks nothing. It returns how many it marked.
func (r *Reading) MarkScopeRead(ctx context.Context, userID int64, source, folder ScopeID) (int, error) {
	var scope ReadScope
	for _, p := range []struct {
		id  ScopeID
		dst *int64
	}{{source, &scope.SourceID}, {folder, &scope.FolderID}} {
		if p.id.Text == "" {
			continue
		}
		n, err := strconv.ParseInt(p.id.Text, 10, 64)
		if err != nil || n < 1 {
			return 0, Errorf(EINVALID, "%s must be an id (a whole number, at least 1), not %q.", p.id.Name, p.id.Text)
		}
		*p.dst = n
	}
	if scope.SourceID != 0 {
		if _, err := r.Store.Source(ctx, userID, scope.SourceID); err != nil {
			return 0, err
		}
	}
	if scope.FolderID != 0 {
		fs, err := r.Store.Folders(ctx, userID, FolderLookupCap)
		if err != nil {
			return 0, err
		}
		if !slices.ContainsFunc(fs, func(f *Folder) bool { return f.ID == scope.FolderID }) {
			return 0, Errorf(ENOTFOUND, "No folder has the id %d.", scope.FolderID)
		}
	}
	return r.MarkAllRead(ctx, userID, scope)
}

// Counts are the user's unread, starred and other counts, the unread one up to unreadCap when
// it is above 0.
func (r *Reading) Counts(ctx context.Context, userID int64, unreadCap int) (ItemCounts, error) {
	return r.Store.Counts(ctx, userID, unreadCap)
}

// Retry enqueues an item's enrichment again (the retry button of an ERROR item).
func (r *Reading) Retry(ctx context.Context, userID, id int64) error {
	return r.Store.RetryItem(ctx, userID, id, r.Queue.EnqueueTx)
}

// Open returns an item and marks it read.
func (r *Reading) Open(ctx context.Context, userID, id int64) (*Item, error) {
	read := true
	it, err := r.Store.UpdateItem(ctx, userID, id, ItemUpdate{Read: &read})
	if err != nil {
		return nil, err
	}
	r.Feedback.Signal(ctx, userID, id, SignalOpened)
	return it, nil
}

// Filters are the user's filter rules.
func (r *Reading) Filters(ctx context.Context, userID int64) ([]*Filter, error) {
	return r.Store.Filters(ctx, userID)
}

// DeleteFilter deletes one of the user's rules.
func (r *Reading) DeleteFilter(ctx context.Context, userID, id int64) error {
	return r.Store.DeleteFilter(ctx, userID, id)
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
		items, err := r.Store.Items(ctx, ItemFilter{UserID: userID, Hidden: hidden, Limit: 500})
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
	if err := f.Validate(); err != nil {
		return err
	}
	return r.Store.CreateFilter(ctx, f)
}
