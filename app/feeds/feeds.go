// Package feeds fetches and parses sources: RSS, Atom and JSON feeds, web pages
// whose article links become items, and subreddits. It holds the HTTP client with
// its limits (size, time, redirects, concurrency per host, Retry-After) and the
// HTML sanitizing that every item goes through once, at ingestion.
package feeds

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// Version goes into the default User-Agent. main may set it at start-up.
var Version = "dev"

// Defaults of Options.
const (
	DefaultConnectTimeout = 10 * time.Second
	DefaultTimeout        = 30 * time.Second
	DefaultMaxBodyBytes   = 10 << 20
	DefaultMaxRedirects   = 5
	DefaultPerHost        = 2

	// MaxItems caps the items of one fetch: the newest of a longer feed (see bounds.go), the
	// first links of a page. Every new item is stored and enriched, so a feed of thousands of
	// entries, or one that renames them all on every fetch, must not flood the queues.
	MaxItems = 1000
	// MaxContentBytes caps the RawContent and the CleanContent of one item.
	MaxContentBytes = 1 << 20
	// maxTitleRunes caps titles of items and sources; maxAuthorRunes the authors.
	maxTitleRunes  = 300
	maxAuthorRunes = 200
	// maxGUIDBytes: a longer GUID is stored as its SHA-256.
	maxGUIDBytes = 1024
	// maxURLBytes: a longer link is dropped.
	maxURLBytes = 8 << 10
	// maxCacheFloor caps CacheUntil, so a far-future Expires cannot silence a source.
	maxCacheFloor = 24 * time.Hour
	// maxRetryAfter caps how long a host is paused by Retry-After.
	maxRetryAfter = 24 * time.Hour
)

// DefaultUserAgent returns the User-Agent sent when Options.UserAgent is empty.
func DefaultUserAgent() string {
	return "MorningDeck/" + Version + " (+https://github.com/morningdeck/morningdeck; self-hosted news briefing)"
}

// Options configure a Fetcher. Zero values take the defaults.
type Options struct {
	UserAgent      string
	ConnectTimeout time.Duration // default 10s
	Timeout        time.Duration // total per request, including reading the body; default 30s
	MaxBodyBytes   int64         // after gzip decoding; default 10 MiB
	MaxRedirects   int           // default 5
	PerHost        int           // max concurrent requests per host; default 2
	// Parsers bounds the untrusted bodies of at most 256 KiB parsed at once, and LargeBodies
	// the larger ones read and parsed at once, whatever door they come through (a fetch,
	// adding a source and its detection, article text, icons), however many requests are in
	// flight: a body and its parse are where a request holds memory, a request waiting on the
	// network holds little (see getMax). Defaults DefaultParsers and DefaultLargeBodies.
	Parsers     int
	LargeBodies int
	// SlotWait is how long a request a person waits on (app.PersonWaiting) waits for one of
	// those slots before it is refused with app.Busy; background work waits while its context
	// lasts. Default DefaultSlotWait.
	SlotWait time.Duration
	Clock    app.Clock
	// Transport is for tests; nil means a tuned *http.Transport.
	Transport http.RoundTripper
}

// Fetcher fetches and parses sources. It is safe for concurrent use.
type Fetcher struct {
	opts    Options
	clock   app.Clock
	client  *http.Client
	hosts   hostLimiter
	pauses  pauses
	parsers app.Slots // a slot per small untrusted body being parsed (Options.Parsers)
	large   app.Slots // a slot per large untrusted body being read and parsed (Options.LargeBodies)
}

// DefaultParsers is how many small bodies are parsed at once by default, DefaultLargeBodies
// how many larger ones are read and parsed; DefaultSlotWait how long a person's request waits
// for a slot.
const (
	DefaultParsers     = 4
	DefaultLargeBodies = 1
	DefaultSlotWait    = 5 * time.Second
)

// New returns a Fetcher.
func New(opts Options) *Fetcher {
	if opts.UserAgent == "" {
		opts.UserAgent = DefaultUserAgent()
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = DefaultConnectTimeout
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.MaxRedirects <= 0 {
		opts.MaxRedirects = DefaultMaxRedirects
	}
	if opts.PerHost <= 0 {
		opts.PerHost = DefaultPerHost
	}
	if opts.Parsers <= 0 {
		opts.Parsers = DefaultParsers
	}
	if opts.LargeBodies <= 0 {
		opts.LargeBodies = DefaultLargeBodies
	}
	if opts.SlotWait <= 0 {
		opts.SlotWait = DefaultSlotWait
	}
	f := &Fetcher{
		opts:    opts,
		clock:   app.ClockOrSystem(opts.Clock),
		hosts:   hostLimiter{perHost: opts.PerHost},
		pauses:  pauses{until: map[string]time.Time{}},
		parsers: app.NewSlots(opts.Parsers),
		large:   app.NewSlots(opts.LargeBodies),
	}
	transport := opts.Transport
	if transport == nil {
		transport = newTransport(opts)
	}
	f.client = &http.Client{
		Transport: transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > opts.MaxRedirects {
				return errTooManyRedirects
			}
			if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
				return &redirectError{scheme: app.Shorten(req.URL.Scheme, 20)}
			}
			return nil
		},
	}
	return f
}

// Request says what to fetch.
type Request struct {
	URL          string
	Type         app.SourceType // empty means rss
	ETag         string
	LastModified string
}

// Result is what a fetch found.
type Result struct {
	NotModified  bool // 304: no body read, no parse
	Title        string
	SiteURL      string
	ETag         string
	LastModified string
	Items        []app.Item
	// Author is the feed's own author (Atom, JSON Feed, RSS/RDF dc:creator), "" if none. Items
	// that name no author of their own have it already.
	Author string
	// RepeatedGUIDs says the feed gave one GUID to items with different links. They are all in
	// Items with the GUID as given; app.IdentifyItems keys them by GUID and link.
	RepeatedGUIDs bool
	// CacheUntil is a floor on the next fetch, from Cache-Control max-age, Expires
	// and RSS <ttl> (the latest of them, at most a day ahead); nil if none.
	CacheUntil *time.Time
	FinalURL   string
}

// Fetch fetches req.URL and parses it as req.Type.
// Failures are *Error (see IsNetwork), or *app.Error for an invalid request.
func (f *Fetcher) Fetch(ctx context.Context, req Request) (res *Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, &Error{Kind: KindParse, Message: "The content is not a feed we can read: the parser failed.", Err: fmt.Errorf("panic: %v", r)}
		}
	}()
	switch req.Type {
	case "", app.SourceRSS:
		res, err = f.fetchFeed(ctx, req)
	case app.SourceWeb:
		res, err = f.fetchWeb(ctx, req)
	case app.SourceReddit:
		res, err = f.fetchReddit(ctx, req)
	default:
		return nil, app.Errorf(app.EINVALID, "Unknown source type %q.", req.Type)
	}
	if res != nil {
		for i := range res.Items {
			if it := &res.Items[i]; it.Text == "" {
				it.SetTextOfContent()
			}
		}
	}
	return res, err
}

// Error kinds.
const (
	KindHTTPStatus = "http_status"
	KindDNS        = "dns"
	KindConnect    = "connect"
	KindTimeout    = "timeout"
	KindTooLarge   = "too_large"
	KindRedirects  = "redirects"
	KindTLS        = "tls"
	KindParse      = "parse"
	KindHostPaused = "host_paused"
	KindNetwork    = "network"
)

// Error is a failed fetch. Message is meant for a person.
type Error struct {
	Kind       string
	Message    string
	StatusCode int           // for http_status
	RetryAfter time.Duration // from Retry-After, for http_status and host_paused
	Err        error
	// answered is set on a network error after the host had begun its response (cut short):
	// the host was reached.
	answered bool
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

var _ interface{ FetchFailure() app.FetchFailure } = (*Error)(nil)

// FetchFailure is the kind of failure the app stores with a source whose fetch failed so
// (app.FetchFailureOf reads it).
func (e *Error) FetchFailure() app.FetchFailure {
	switch e.Kind {
	case KindDNS:
		return app.FailureDNS
	case KindConnect:
		return app.FailureConnect
	case KindTimeout:
		return app.FailureTimeout
	case KindNetwork:
		if e.answered {
			return app.FailureCutShort
		}
		return app.FailureNetwork
	case KindTLS:
		return app.FailureTLS
	case KindHTTPStatus:
		return app.FailureHTTPStatus
	case KindTooLarge:
		return app.FailureTooLarge
	case KindParse:
		return app.FailureParse
	case KindRedirects:
		return app.FailureRedirects
	case KindBlocked:
		return app.FailureBlocked
	case KindHostPaused:
		return app.FailureHostPaused
	}
	return app.FailureOther
}

// IsNetwork reports whether err says the network failed (dns, connect, timeout,
// network) rather than the source: a sign that this machine may be offline.
func IsNetwork(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Kind {
	case KindDNS, KindConnect, KindTimeout, KindNetwork:
		return true
	}
	return false
}

func parseError(format string, args ...any) *Error {
	return &Error{Kind: KindParse, Message: "The content is not a feed we can read: " + fmt.Sprintf(format, args...)}
}
