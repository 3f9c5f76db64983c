package app

import (
	"time"
)

// SourceType says how a source is fetched.
type SourceType string

const (
	SourceRSS    SourceType = "rss"
	SourceWeb    SourceType = "web"
	SourceReddit SourceType = "reddit"
	// SourceIMAP is a mail folder read over IMAP: each newsletter in it is an item (mailbox.go).
	SourceIMAP SourceType = "imap"
)

// Valid reports whether t is a known type.
func (t SourceType) Valid() bool {
	return t == SourceRSS || t == SourceWeb || t == SourceReddit || t == SourceIMAP
}

// SourceStatus is the health of a source as the user sees it.
type SourceStatus string

const (
	SourceActive SourceStatus = "ACTIVE"
	SourcePaused SourceStatus = "PAUSED"
	SourceError  SourceStatus = "ERROR"
)

// FetchStatus is where a source is in the fetch pipeline.
type FetchStatus string

const (
	FetchIdle     FetchStatus = "IDLE"
	FetchQueued   FetchStatus = "QUEUED"
	FetchFetching FetchStatus = "FETCHING"
)

// Limits and defaults of sources.
const (
	DefaultRefreshInterval = 15
	MinRefreshInterval     = 1
	MaxRefreshInterval     = 10080
	// ErrorThreshold is the number of consecutive failures after which a source shows ERROR.
	ErrorThreshold = 5
	// MaxBackoff caps the retry pace of a failing source.
	MaxBackoff = 24 * time.Hour
	// Auto interval bounds.
	MinAutoInterval = 5
	MaxAutoInterval = 24 * 60
)

// Source is something the user follows: a feed, a web page, a subreddit or a mail folder.
type Source struct {
	ID                     int64
	UserID                 int64
	Type                   SourceType
	URL                    string
	Name                   string
	Status                 SourceStatus
	FetchStatus            FetchStatus
	RefreshIntervalMinutes int
	AutoInterval           bool
	LastFetchedAt          *time.Time
	QueuedAt               *time.Time
	FetchStartedAt         *time.Time
	NextFetchAt            *time.Time // earliest next scheduled fetch (backoff, Cache-Control, ttl, Retry-After)
	LastError              string
	ErrorCount             int
	ETag                   string
	LastModified           string
	CreatedAt              time.Time
	ItemCount              int
	FolderID               int64  // 0: in no folder
	Folder                 string // the folder's name; "" in no folder
	Unread                 int    // unread, not hidden items
	HasIcon                bool   // a favicon is stored for it
}

// ValidateInterval checks a refresh interval in minutes.
func ValidateInterval(m int) error {
	if m < MinRefreshInterval || m > MaxRefreshInterval {
		return Errorf(EINVALID, "Refresh interval must be between %d and %d minutes (one week); got %d.", MinRefreshInterval, MaxRefreshInterval, m)
	}
	return nil
}

// Backoff returns how long to wait before retrying a source after errors consecutive failures:
// interval × 2^errors, capped at MaxBackoff.
func Backoff(interval time.Duration, errors int) time.Duration {
	d := interval
	for i := 0; i < errors && d < MaxBackoff; i++ {
		d *= 2
	}
	return min(d, MaxBackoff)
}

// SourceUpdate holds the user-editable fields of a source; nil leaves a field as it is.
type SourceUpdate struct {
	Name                   *string
	RefreshIntervalMinutes *int
	AutoInterval           *bool
	Status                 *SourceStatus // ACTIVE or PAUSED
	Folder                 *string       // a folder's name (made when new); "" takes it out of its folder
}

// FetchResult is what a fetch worker stores for a source after a fetch.
type FetchResult struct {
	NotModified  bool
	Title        string // the feed's title, used when the source has no name
	ETag         string
	LastModified string
	Items        []Item
	NextFetchAt  *time.Time // floor from Cache-Control, Expires, ttl
	Interval     *int       // new interval for auto-interval sources
}

// SourceFilter selects a page of a user's sources, ordered by name.
type SourceFilter struct {
	UserID   int64
	Q        string // part of the name or the address, any case
	Show     string // "" all, "errors" (failing or in ERROR), "paused"
	FolderID int64  // only the sources of this folder, when not 0
	Limit    int
	Offset   int
}

// SourceSummary counts a user's sources.
type SourceSummary struct {
	Total, Errors, Paused, Busy int
	// Unreachable: sources (not paused) whose last fetch did not reach the host at all (name
	// not found, connection refused or unreachable, no answer). When they are most of the
	// sources, the machine is likely offline.
	Unreachable int
}

// Offline reports whether most of the sources that are fetched failed to connect on their
// last fetch: the network, not the sources, is likely at fault.
func (s SourceSummary) Offline() bool {
	active := s.Total - s.Paused
	return s.Unreachable > 0 && s.Unreachable*2 > active
}

// SourceName is a source's id and name, for pickers.
type SourceName struct {
	ID   int64
	Name string
}

// ErrQueueFull is returned by a queue that has no room; the work waits for a later cycle.
var ErrQueueFull = Errorf(EINTERNAL, "The queue is full; the work will be picked up later.")
