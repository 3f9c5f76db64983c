package app

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
)

// SourceStore keeps sources and their items. Each method is one transaction.
type SourceStore interface {
	// CreateSource inserts s (setting its ID) and calls then in the same transaction.
	CreateSource(ctx context.Context, s *Source, then TxFunc) error
	Source(ctx context.Context, userID, id int64) (*Source, error)
	Sources(ctx context.Context, userID int64) ([]*Source, error)
	// SourceList is a page of the user's sources; SourceSummary counts them; SourceNames lists
	// their ids and names, the address standing in for a missing name. (The pages use these: a
	// user may follow thousands of sources.)
	SourceList(ctx context.Context, f SourceFilter) ([]*Source, error)
	SourceSummary(ctx context.Context, userID int64) (SourceSummary, error)
	SourceNames(ctx context.Context, userID int64) ([]SourceName, error)
	UpdateSource(ctx context.Context, userID, id int64, u SourceUpdate) (*Source, error)
	DeleteSource(ctx context.Context, userID, id int64) error
	// QueueSources marks the user's IDLE, non-paused sources among ids (all when ids is nil) QUEUED
	// and calls enqueue for each in the same transaction. It returns how many were queued.
	QueueSources(ctx context.Context, userID int64, ids []int64, enqueue func(ctx context.Context, tx *sql.Tx, id int64) error) (int, error)
	Items(ctx context.Context, f ItemFilter) ([]*Item, error)
	FolderStore
	IconStore
}

// FetchQueue is where sources wait to be fetched. The goqite queue implements it;
// another backend only has to implement these methods.
type FetchQueue interface {
	// EnqueueTx adds a fetch of the source within the caller's transaction.
	EnqueueTx(ctx context.Context, tx *sql.Tx, sourceID int64, priority int) error
	// CanAccept reports whether the queue has room (backpressure).
	CanAccept(ctx context.Context) (bool, error)
	Size(ctx context.Context) (int, error)
	// Capacity is the most jobs the scheduler lets wait.
	Capacity() int
}

// Detection is what a URL turned out to be.
type Detection struct {
	Type  SourceType
	URL   string // the URL to follow: the feed, the page, the subreddit
	Title string
	Feeds []FeedLink // feeds an HTML page advertises
}

// FeedLink is a feed advertised by a page.
type FeedLink struct {
	URL   string
	Title string
	Type  string
}

// Detector finds out what a URL is.
type Detector interface {
	Detect(ctx context.Context, rawURL string) (*Detection, error)
}

// Sources is the service behind every way of adding and steering sources: web UI, API, CLI.
type Sources struct {
	Store    SourceStore
	Queue    FetchQueue
	Detector Detector
	Log      *slog.Logger
	Clock    Clock

	// Fetching: the store's fetch steps and the fetcher (nil where only sources are managed).
	Fetches FetchStore
	Fetcher FeedFetcher
	// NewItems, when set, runs in the transaction that stores a fetch's new items (not those of
	// a source's first import): the Enrichment service's Pend.
	NewItems func(ctx context.Context, tx *sql.Tx, itemIDs []int64) error
	// FirstImport, when set, runs in the transaction that stores a source's first import (its
	// items DONE, not enriched): queues their scoring by the embedded enricher.
	FirstImport func(ctx context.Context, tx *sql.Tx, sourceID int64) error
	// ScoreFirst, when set, enriches a first import's items before they are stored (the
	// Enrichment service's ScoreFirstImport); when it reports true, FirstImport is not run.
	ScoreFirst func(ctx context.Context, userID int64, items []Item) (bool, error)
	// Icons fetches the sources' favicons (nil: no icons, the initials stay).
	Icons IconFetcher
	// Limits bound each account's sources and folders and the OPML files it imports.
	Limits Limits
	// Mail sources (mailbox.go): the IMAP reader, the mailboxes' store and the box that seals
	// their passwords; without all three, mail folders cannot be added or fetched.
	Mail      MailFetcher
	Mailboxes MailboxStore
	Secrets   *SecretBox

	offline  offlineDetector
	fetching fetchingSet
}

// AddSource is the input of Sources.Add.
type AddSource struct {
	UserID                 int64
	URL                    string
	Name                   string
	Type                   SourceType // empty: detect
	RefreshIntervalMinutes *int       // nil: the default; an explicit 0 is refused
	Folder                 string     // a folder's name (made when new); "" for none
	// OfferChoice makes Add return a *FeedChoice when a page advertises several feeds,
	// instead of following the first.
	OfferChoice bool
	// Imported: from an OPML file, added as written without reading it first (a subreddit
	// is not checked; hundreds of entries must not wait for hundreds of requests).
	Imported bool
	// counted: the caller (ImportOPML) has checked the account's limits for this source.
	counted bool
}

// FeedChoice is returned by Add when the user should pick one of several feeds.
type FeedChoice struct {
	PageURL string
	Title   string
	Feeds   []FeedLink
}

func (c *FeedChoice) Error() string {
	return fmt.Sprintf("This page offers %d feeds — pick one.", len(c.Feeds))
}

// Priorities of fetch jobs: what a person is waiting for goes first.
const (
	PriorityScheduled = 0
	PriorityNew       = 10
	PriorityManual    = 20
)

// Add validates, detects the type when not given, stores the source and enqueues its first fetch
// in the same transaction.
func (s *Sources) Add(ctx context.Context, in AddSource) (*Source, error) {
	// A person waits on an add: reading the source takes one of the fetcher's bounded slots
	// for untrusted bodies, waited for briefly, then refused as Busy (issue 27).
	ctx = PersonWaiting(ctx)
	if in.UserID == 0 {
		in.UserID = DefaultUserID
	}
	interval, folder, err := addedPlace(in.RefreshIntervalMinutes, in.Folder)
	if err != nil {
		return nil, err
	}
	raw := strings.TrimSpace(in.URL)
	if raw == "" {
		return nil, Errorf(EINVALID, "Enter the address of a feed, a web page or a subreddit.")
	}
	if in.Type != "" && !in.Type.Valid() {
		return nil, Errorf(EINVALID, "Unknown source type %q: use rss, web or reddit.", in.Type)
	}
	if in.Type == SourceIMAP {
		return nil, Errorf(EINVALID, "A mail folder is added with its server, user and password (the form's “Newsletters from a mail folder”), not by an address.")
	}
	// The account's limits are checked once the input is known to be valid (a refusal of bad
	// input comes first) and before any request is made for it (a subreddit's check, detection).
	checked := in.counted
	room := func() error {
		if checked {
			return nil
		}
		checked = true
		if err := s.checkSourceRoom(ctx, in.UserID); err != nil {
			return err
		}
		if folder != "" {
			return s.checkFolderRoom(ctx, in.UserID, folder)
		}
		return nil
	}
	src := &Source{
		UserID:                 in.UserID,
		Type:                   in.Type,
		Name:                   strings.TrimSpace(in.Name),
		Status:                 SourceActive,
		FetchStatus:            FetchQueued,
		RefreshIntervalMinutes: interval,
		Folder:                 folder,
	}
	if in.Type == SourceReddit || in.Type == "" && LooksLikeSubreddit(raw) {
		u, err := Subreddit(raw)
		if err != nil {
			return nil, err
		}
		src.Type, src.URL = SourceReddit, u
		if src.Name == "" && in.Type == "" {
			src.Name = u[strings.Index(u, "/r/")+1:]
		}
		if err := room(); err != nil {
			return nil, err
		}
		if !in.Imported {
			if err := s.checkSubreddit(ctx, in.UserID, u); err != nil {
				return nil, err
			}
		}
	} else if in.Type != "" {
		u, err := NormalizeURL(raw)
		if err != nil {
			return nil, err
		}
		src.URL = u
	} else {
		if s.Detector == nil {
			return nil, Errorf(EINVALID, "Say which type this source is: rss, web or reddit.")
		}
		if err := room(); err != nil {
			return nil, err
		}
		d, err := s.Detector.Detect(ctx, raw)
		if err != nil {
			var ae *Error
			if errors.As(err, &ae) {
				return nil, err
			}
			return nil, Errorf(EINVALID, "Could not add %s: %v", raw, err)
		}
		src.Type, src.URL = d.Type, d.URL
		if src.Name == "" {
			src.Name = d.Title
		}
		if d.Type == SourceWeb && len(d.Feeds) > 0 {
			if len(d.Feeds) > 1 && in.OfferChoice {
				return nil, &FeedChoice{PageURL: d.URL, Title: d.Title, Feeds: d.Feeds}
			}
			// The page advertises a feed: follow the feed, which is what the page publishes.
			// Unless the user named it, the source is named by the feed's own title when it is
			// first fetched: the page's title or its <link title> ("RSS", "Comments on …", another
			// site's name) is not the feed's name.
			src.Type, src.URL = SourceRSS, d.Feeds[0].URL
			if strings.TrimSpace(in.Name) == "" {
				src.Name = ""
			}
			// A page may advertise a feed that is gone (a 404, a page that is not a feed): say
			// so now rather than "added" and a source that never brings anything.
			if s.Fetcher != nil {
				var fe *FetchError
				_, err := s.Fetcher.FetchSource(ctx, &Source{UserID: in.UserID, Type: SourceRSS, URL: src.URL})
				if errors.As(err, &fe) && !fe.Network && !fe.HostPaused {
					return nil, Errorf(EINVALID, "%s advertises the feed %s, but it cannot be read: %s Add the page with the type “web page” to follow its links instead.",
						d.URL, src.URL, strings.TrimSpace(fe.Message))
				}
				if ErrorCode(err) == ETOOMANY {
					return nil, err
				}
			}
		}
	}
	if err := room(); err != nil {
		return nil, err
	}
	err = s.Store.CreateSource(ctx, src, func(ctx context.Context, tx *sql.Tx) error {
		return s.Queue.EnqueueTx(ctx, tx, src.ID, PriorityNew)
	})
	if err != nil {
		return nil, err
	}
	s.log().Info("source added", "source", src.ID, "url", src.URL, "type", src.Type)
	return src, nil
}

// checkSubreddit reads a subreddit once, through the fetcher (and its guard against private
// addresses), before it is added: one that does not exist, is private, quarantined or banned,
// or lists no post at all (reddit lists nothing for a name that is no subreddit) is refused
// with reddit's answer, rather than added and failing at every fetch. A failure that says
// nothing about the subreddit (this machine offline, reddit asking to slow down, a host we are
// holding off) lets it be added: its first fetch, queued at once, retries and shows the error
// on the source. (Miniflux refuses anything it cannot fetch at that moment; here a source can
// be added offline, as an OPML import can, so only reddit's own "no" refuses one.)
func (s *Sources) checkSubreddit(ctx context.Context, userID int64, u string) error {
	if s.Fetcher == nil {
		return nil
	}
	name := u[strings.Index(u, "/r/")+1:]
	res, err := s.Fetcher.FetchSource(ctx, &Source{UserID: userID, Type: SourceReddit, URL: u})
	var fe *FetchError
	switch {
	case errors.As(err, &fe) && (fe.Network || fe.HostPaused || fe.RetryAfter > 0):
		s.log().Info("subreddit not checked: reddit could not be reached", "url", u, "err", fe.Message)
		return nil
	case errors.As(err, &fe):
		return Errorf(EINVALID, "%s cannot be read: %s It may not exist, or be private, quarantined or banned; check its name on reddit.",
			name, strings.TrimSpace(fe.Message))
	case err != nil:
		return err
	case res != nil && !res.NotModified && len(res.Items) == 0:
		return Errorf(EINVALID, "%s has no posts to read: check its name (reddit lists nothing for a subreddit that does not exist).", name)
	}
	return nil
}

// Refresh enqueues the given sources (all the user's when ids is empty) at once, ignoring their
// schedule. Sources already queued or fetching, and paused ones, are left as they are.
func (s *Sources) Refresh(ctx context.Context, userID int64, ids ...int64) (int, error) {
	if len(ids) == 0 {
		ids = nil
	}
	return s.Store.QueueSources(ctx, userID, ids, func(ctx context.Context, tx *sql.Tx, id int64) error {
		return s.Queue.EnqueueTx(ctx, tx, id, PriorityManual)
	})
}

// Update changes a source's name, interval or paused state.
func (s *Sources) Update(ctx context.Context, userID, id int64, u SourceUpdate) (*Source, error) {
	if u.RefreshIntervalMinutes != nil {
		if err := ValidateInterval(*u.RefreshIntervalMinutes); err != nil {
			return nil, err
		}
	}
	if u.Status != nil && *u.Status != SourceActive && *u.Status != SourcePaused {
		return nil, Errorf(EINVALID, "A source's status can be set to ACTIVE or PAUSED only.")
	}
	if u.Name != nil {
		n := strings.TrimSpace(*u.Name)
		if n == "" {
			return nil, Errorf(EINVALID, "A source needs a name.")
		}
		if len(n) > 200 {
			return nil, Errorf(EINVALID, "A name can be at most 200 characters.")
		}
		u.Name = &n
	}
	if u.Folder != nil {
		f := "" // blank: out of its folder
		if strings.TrimSpace(*u.Folder) != "" {
			var err error
			if f, err = CleanFolderName(*u.Folder); err != nil {
				return nil, err
			}
			if err := s.checkFolderRoom(ctx, userID, f); err != nil {
				return nil, err
			}
		}
		u.Folder = &f
	}
	return s.Store.UpdateSource(ctx, userID, id, u)
}

func (s *Sources) log() *slog.Logger { return logOrDiscard(s.Log) }

// NormalizeURL checks a user-given URL and adds https:// when it has no scheme.
func NormalizeURL(raw string) (string, error) {
	given := strings.TrimSpace(raw)
	raw = given
	if !strings.Contains(raw, "://") {
		raw = "https://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") || strings.ContainsAny(u.Host, " \t") {
		// Quoted as the user typed it, not with the https:// added for them.
		return "", Errorf(EINVALID, "%q is not a web address: give one like https://example.com/feed.xml (http or https).", given)
	}
	u.Fragment = ""
	return u.String(), nil
}

// Subreddit is the one rule for subreddit addresses, used when a source is added and (in
// app/feeds) when it is fetched: r/NAME, /r/NAME or a URL whose path starts with /r/NAME, on
// any host (reddit.com, old.reddit.com, a test server). NAME is 2 to 21 letters, digits or
// underscores. It returns scheme://host/r/NAME. A multireddit (r/golang+rust) is refused with
// a message that says what to do: the fetcher reads one subreddit per source.
func Subreddit(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if name, ok := strings.CutPrefix(strings.TrimPrefix(raw, "/"), "r/"); ok {
		name = strings.Trim(name, "/")
		if err := checkSubreddit(raw, name); err != nil {
			return "", err
		}
		return "https://www.reddit.com/r/" + name, nil
	}
	s := raw
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", Errorf(EINVALID, "%q is not a subreddit: use r/NAME or https://www.reddit.com/r/NAME.", raw)
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 2 || parts[0] != "r" {
		return "", Errorf(EINVALID, "%q is not a subreddit: use r/NAME or https://www.reddit.com/r/NAME.", raw)
	}
	if err := checkSubreddit(raw, parts[1]); err != nil {
		return "", err
	}
	if host := strings.ToLower(u.Hostname()); host == "reddit.com" || strings.HasSuffix(host, ".reddit.com") {
		// old., np., m. and bare reddit.com are one site: one address, so one source.
		return "https://www.reddit.com/r/" + parts[1], nil
	}
	return u.Scheme + "://" + u.Host + "/r/" + parts[1], nil
}

// LooksLikeSubreddit reports whether raw is written as a subreddit (r/NAME, /r/NAME, or an
// address on reddit.com), so that the subreddit rule, not detection, decides about it.
func LooksLikeSubreddit(raw string) bool {
	raw = strings.TrimSpace(raw)
	if strings.HasPrefix(raw, "r/") || strings.HasPrefix(raw, "/r/") {
		return true
	}
	s := raw
	if !strings.Contains(s, "://") {
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	return (host == "reddit.com" || strings.HasSuffix(host, ".reddit.com")) && strings.HasPrefix(u.Path, "/r/")
}

func checkSubreddit(raw, name string) error {
	if strings.Contains(name, "+") {
		return Errorf(EINVALID, "%q is a multireddit, which Morning Deck cannot follow: add each subreddit (%s) as a source of its own.",
			raw, "r/"+strings.Join(strings.Split(name, "+"), ", r/"))
	}
	if len(name) < 2 || len(name) > 21 {
		return Errorf(EINVALID, "%q is not a subreddit: a subreddit's name has 2 to 21 letters, digits or underscores.", raw)
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return Errorf(EINVALID, "%q is not a subreddit: a subreddit's name has 2 to 21 letters, digits or underscores.", raw)
		}
	}
	return nil
}

// List is every source of the user.
func (s *Sources) List(ctx context.Context, userID int64) ([]*Source, error) {
	srcs, err := s.Store.Sources(ctx, userID)
	s.fetching.mark(srcs...)
	return srcs, err
}

// Delete stops following a source and deletes its items.
func (s *Sources) Delete(ctx context.Context, userID, id int64) error {
	return s.Store.DeleteSource(ctx, userID, id)
}

// Get is one of the user's sources.
func (s *Sources) Get(ctx context.Context, userID, id int64) (*Source, error) {
	src, err := s.Store.Source(ctx, userID, id)
	if err == nil {
		s.fetching.mark(src)
	}
	return src, err
}

// Page is a page of the user's sources (the Sources page: a user may follow thousands).
func (s *Sources) Page(ctx context.Context, f SourceFilter) ([]*Source, error) {
	srcs, err := s.Store.SourceList(ctx, f)
	s.fetching.mark(srcs...)
	return srcs, err
}

// Summary counts the user's sources.
func (s *Sources) Summary(ctx context.Context, userID int64) (SourceSummary, error) {
	return s.Store.SourceSummary(ctx, userID)
}

// Names lists the ids and names of the user's sources, the address standing in for a missing name.
func (s *Sources) Names(ctx context.Context, userID int64) ([]SourceName, error) {
	return s.Store.SourceNames(ctx, userID)
}

// Items is a page of the items of the user's sources.
func (s *Sources) Items(ctx context.Context, f ItemFilter) ([]*Item, error) {
	return s.Store.Items(ctx, f)
}

// addedPlace checks the interval and folder a source is added with (the API, the form, the
// CLI, OPML, a mail folder): nil is the default interval, "" no folder.
func addedPlace(minutes *int, folder string) (int, string, error) {
	interval := DefaultRefreshInterval
	if minutes != nil {
		if err := ValidateInterval(*minutes); err != nil {
			return 0, "", err
		}
		interval = *minutes
	}
	if strings.TrimSpace(folder) == "" {
		return interval, "", nil
	}
	f, err := CleanFolderName(folder)
	if err != nil {
		return 0, "", err
	}
	return interval, f, nil
}
