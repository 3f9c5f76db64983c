package app

import (
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"net/url"
	"sort"
	"sync"
	"time"
)

// FetchStore is what fetching sources needs from the database. Each method is one transaction,
// except StartFetchTx, which runs in the caller's (the queue's receiving transaction).
type FetchStore interface {
	DueSources(ctx context.Context, now time.Time, limit int) ([]int64, error)
	QueueDue(ctx context.Context, ids []int64, enqueue func(ctx context.Context, tx *sql.Tx, id int64) error) (int, error)
	// StartFetch reads a source to fetch; nil when it is gone or paused (a paused one that had
	// a fetch queued goes back to IDLE). It marks nothing: the sources being fetched are known
	// in memory (fetchingSet).
	StartFetch(ctx context.Context, id int64, staleAfter time.Duration) (*Source, error)
	StartFetchTx(ctx context.Context, tx *sql.Tx, id int64, staleAfter time.Duration) (*Source, error)
	FinishFetch(ctx context.Context, src *Source, r *FetchResult, then func(ctx context.Context, tx *sql.Tx, newItems []int64, first bool) error) (int, error)
	// FinishFetchLater is FinishFetch handed over to the database's writer: it returns at once
	// and done is told the outcome after the commit.
	FinishFetchLater(ctx context.Context, src *Source, r *FetchResult, then func(ctx context.Context, tx *sql.Tx, newItems []int64, first bool) error, done func(n int, err error))
	// FailFetch records a failed fetch: its kind (FetchFailureOf) and its message.
	FailFetch(ctx context.Context, src *Source, kind FetchFailure, msg string, blame bool, retryAfter time.Duration, then TxFunc) error
	ResetStuckSources(ctx context.Context, cutoff time.Time) ([]int64, error)
	IdentityStore
}

// FeedFetcher fetches and parses a source (conditional on its ETag and Last-Modified);
// feeds.Adapter is the real one. A failure of the source is a *FetchError.
type FeedFetcher interface {
	FetchSource(ctx context.Context, src *Source) (*FetchResult, error)
}

// FetchError is a fetch that failed because of the source or the network, not because of us.
type FetchError struct {
	Message    string        // for a person
	RetryAfter time.Duration // the server's Retry-After, if any
	Network    bool          // DNS, connect, timeout: this machine may be offline
	HostPaused bool          // we are holding off the host ourselves: not the source's fault
	Err        error
}

func (e *FetchError) Error() string { return e.Message }

// Unwrap returns the underlying error.
func (e *FetchError) Unwrap() error { return e.Err }

// FetchFailure is the kind of a failed fetch. It is stored with the source, next to the message,
// so that what is counted (SourceSummary.Unreachable) is read from it and not from the message's
// words. FetchFailureOf decides it.
type FetchFailure string

// Kinds of FetchFailure. The first four are Unreachable.
const (
	FailureDNS        FetchFailure = "dns"         // the host name could not be found
	FailureConnect    FetchFailure = "connect"     // the connection was refused or the host could not be reached
	FailureTimeout    FetchFailure = "timeout"     // no answer in time (the name lookup's included)
	FailureNetwork    FetchFailure = "network"     // the connection failed otherwise
	FailureCutShort   FetchFailure = "cut_short"   // the host answered, but its response was cut short or corrupted
	FailureTLS        FetchFailure = "tls"         // the secure connection failed
	FailureHTTPStatus FetchFailure = "http_status" // the server answered with an error status
	FailureTooLarge   FetchFailure = "too_large"   // the response is over the size limit
	FailureParse      FetchFailure = "parse"       // the content is not a feed or page we can read
	FailureRedirects  FetchFailure = "redirects"   // too many redirects, or to an address we do not follow
	FailureBlocked    FetchFailure = "blocked"     // a private or local address, not fetched
	FailureHostPaused FetchFailure = "host_paused" // we are holding off the host (its Retry-After)
	FailureOther      FetchFailure = "other"       // anything else: an invalid address, an error of ours
)

// Unreachable reports whether a fetch that failed so never reached its host: the name was not
// found, the connection was refused or failed, or nothing answered. When most sources fail so,
// the machine is likely offline (SourceSummary.Offline).
func (f FetchFailure) Unreachable() bool {
	switch f {
	case FailureDNS, FailureConnect, FailureTimeout, FailureNetwork:
		return true
	}
	return false
}

// FetchFailureOf is the kind of a fetch's failure: what the error says of itself (the fetcher's
// errors, feeds.Error, have a FetchFailure method), FailureOther when it says nothing.
func FetchFailureOf(err error) FetchFailure {
	var k interface{ FetchFailure() FetchFailure }
	if errors.As(err, &k) {
		if f := k.FetchFailure(); f != "" {
			return f
		}
	}
	return FailureOther
}

// StartFetch reads the source a fetch job is about, within tx when it is not nil (the queue's
// receiving transaction). It returns nil when there is nothing to fetch: the source is gone or
// paused. It writes nothing (issue 26): BeginFetch marks the source as being fetched, in memory.
func (s *Sources) StartFetch(ctx context.Context, tx *sql.Tx, id int64, staleAfter time.Duration) (*Source, error) {
	if tx != nil {
		return s.Fetches.StartFetchTx(ctx, tx, id, staleAfter)
	}
	return s.Fetches.StartFetch(ctx, id, staleAfter)
}

// BeginFetch marks src as being fetched by this process, unless it already is by a fetch that
// began less than staleAfter ago (a job delivered twice: the second has nothing to do); it
// reports whether the caller may fetch it. Fetch ends the mark once its outcome is stored.
//
// The mark lives in memory, not in the source's row (issue 26): writing FETCHING when a job was
// received and IDLE when it ended wrote each source's pages to the log once more per fetch
// (~110 of the ~690 pages an all-304 cycle of 1,000 sources wrote). The row stays QUEUED while
// the source is fetched, which is what the scheduler (it queues only IDLE sources) and the
// stuck-source recovery (it resets only sources with no live job) need; after a crash the
// marks are gone with the process, and the redelivered jobs fetch again. Only one process
// fetches (serve); the Sources page reads the marks through List, Page and Get.
func (s *Sources) BeginFetch(src *Source, staleAfter time.Duration) bool {
	now := ClockOrSystem(s.Clock).Now()
	if !s.fetching.begin(src.ID, now, staleAfter) {
		return false
	}
	src.FetchStatus, src.FetchStartedAt = FetchFetching, &now
	return true
}

// fetchingSet is the sources this process is fetching now, with when each fetch began.
type fetchingSet struct {
	mu sync.Mutex
	m  map[int64]time.Time
}

func (f *fetchingSet) begin(id int64, now time.Time, staleAfter time.Duration) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t, ok := f.m[id]; ok && now.Sub(t) < staleAfter {
		return false
	}
	if f.m == nil {
		f.m = map[int64]time.Time{}
	}
	f.m[id] = now
	return true
}

func (f *fetchingSet) end(id int64) {
	f.mu.Lock()
	delete(f.m, id)
	f.mu.Unlock()
}

// mark shows the sources being fetched as FETCHING (their rows say QUEUED).
func (f *fetchingSet) mark(srcs ...*Source) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.m) == 0 {
		return
	}
	for _, src := range srcs {
		if src == nil {
			continue
		}
		if t, ok := f.m[src.ID]; ok && src.FetchStatus != FetchIdle {
			src.FetchStatus, src.FetchStartedAt = FetchFetching, &t
		}
	}
}

// Fetch fetches a started source and stores what it found. Failures of the source (HTTP, parse,
// network) are recorded on the source and end the job; only failures of our own (the database)
// are returned, for the job to retry.
func (s *Sources) Fetch(ctx context.Context, a Attempt, src *Source) error {
	handedOff := false
	defer func() {
		if !handedOff {
			s.fetching.end(src.ID)
		}
	}()
	log := s.log().With("component", "fetch", "source", src.ID)
	start := ClockOrSystem(s.Clock).Now()
	var res *FetchResult
	var err error
	if src.Type == SourceIMAP {
		res, err = s.fetchMail(ctx, src)
	} else {
		res, err = s.Fetcher.FetchSource(ctx, src)
	}
	if err != nil {
		if ctx.Err() != nil {
			// Shutdown: leave the source to the redelivered job.
			return ctx.Err()
		}
		msg := ErrorMessage(err)
		var fe *FetchError
		var retryAfter time.Duration
		network, paused := false, false
		if errors.As(err, &fe) {
			msg, retryAfter, network, paused = fe.Message, fe.RetryAfter, fe.Network, fe.HostPaused
		}
		blame := !s.offline.failed(HostOf(src.URL), network, start) && !paused
		log.Warn("fetch failed", "url", src.URL, "error", err, "blamed", blame, "duration", time.Since(start))
		return s.Fetches.FailFetch(ctx, src, FetchFailureOf(err), msg, blame, retryAfter, a.complete())
	}
	s.offline.succeeded()
	if src.AutoInterval && !res.NotModified {
		if m, ok := AutoInterval(res.Items); ok {
			res.Interval = &m
		}
	}
	if !res.NotModified && len(res.Items) > 0 {
		// Feeds that give one GUID to different posts (identity.go): one read per fetch.
		var known []KnownItem
		if src.LastFetchedAt != nil {
			if known, err = s.Fetches.KnownItems(ctx, NewIdentityQuery(src.ID, res.Items)); err != nil {
				return err
			}
		}
		res.Items = IdentifyItems(res.Items, known)
	}
	// A first import is ranked from the first minute: scored here, before it is stored, or
	// (when nothing here can score it) by a background job queued with it.
	scored := false
	if s.ScoreFirst != nil && src.LastFetchedAt == nil && !res.NotModified && len(res.Items) > 0 {
		name := FirstNonEmpty(src.Name, res.Title, src.URL) // as the source will be shown
		for i := range res.Items {
			res.Items[i].SourceName = name
		}
		if scored, err = s.ScoreFirst(ctx, src.UserID, res.Items); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			// The items are stored all the same; the background job scores them.
			log.Warn("first import not scored in its fetch", "error", err)
			scored = false
		}
	}
	store := func(ctx context.Context, tx *sql.Tx, ids []int64, first bool) error {
		if s.NewItems != nil && !first && len(ids) > 0 {
			if err := s.NewItems(ctx, tx, ids); err != nil {
				return err
			}
		}
		// The back catalogue is ranked too: the embedded enricher scores it (never an LLM).
		if s.FirstImport != nil && first && len(ids) > 0 && !scored {
			if err := s.FirstImport(ctx, tx, src.ID); err != nil {
				return err
			}
		}
		return a.complete()(ctx, tx)
	}
	fetched := func(n int) {
		// A fetch that brought nothing new is said at debug level (issue 26): at info, an idle
		// cycle of 1,000 sources wrote 1,000 log lines (0.17 MB) to the disk, more than its
		// database writes are meant to be.
		level := slog.LevelInfo
		if n == 0 {
			level = slog.LevelDebug
		}
		log.Log(ctx, level, "fetched", "url", src.URL, "notModified", res.NotModified, "items", len(res.Items), "new", n, "duration", time.Since(start))
	}
	if a.Handoff != nil {
		// The job is acknowledged by the transaction that stores its result; the worker need
		// not wait for that commit, and more results share it.
		finished := a.Handoff()
		handedOff = true
		s.Fetches.FinishFetchLater(ctx, src, res, store, func(n int, err error) {
			// The source is no longer being fetched: stored, or (failed) left QUEUED to its
			// job's retry, which may begin it again at once.
			s.fetching.end(src.ID)
			if err == nil {
				fetched(n)
				finished(nil)
				return
			}
			// Off the writer's goroutine: the failure writes.
			go func() {
				log.Error("storing a fetch failed; the job will retry", "url", src.URL, "error", err)
				finished(err)
			}()
		})
		return nil
	}
	n, err := s.Fetches.FinishFetch(ctx, src, res, store)
	if err != nil {
		return err // the source stays QUEUED for the job's retry
	}
	fetched(n)
	return nil
}

// QueueDue enqueues the due sources, batch per transaction, until none is due or the queue is
// full: a large subscription list is not held to one batch a minute (10,000 hourly sources need
// 170 fetches a minute), and the queue's capacity still bounds what waits.
func (s *Sources) QueueDue(ctx context.Context, batch int) (int, error) {
	log := s.log().With("component", "scheduler", "queue", "fetch")
	size, err := s.Queue.Size(ctx)
	if err != nil {
		return 0, err
	}
	room := s.Queue.Capacity() - size
	if room <= 0 {
		log.Warn("fetch queue at capacity; skipping this cycle", "size", size, "capacity", s.Queue.Capacity())
		return 0, nil
	}
	if batch <= 0 {
		batch = 100
	}
	total := 0
	for room > 0 && ctx.Err() == nil {
		ids, err := s.Fetches.DueSources(ctx, ClockOrSystem(s.Clock).Now(), min(batch, room))
		if err != nil || len(ids) == 0 {
			return total, err
		}
		n, err := s.Fetches.QueueDue(ctx, ids, func(ctx context.Context, tx *sql.Tx, id int64) error {
			if room <= 0 {
				return ErrQueueFull
			}
			room--
			return s.Queue.EnqueueTx(ctx, tx, id, PriorityScheduled)
		})
		total += n
		if n > 0 {
			log.Info("sources queued", "count", n, "due", len(ids))
		}
		if err != nil {
			return total, err
		}
		if room <= 0 && n < len(ids) {
			log.Warn("fetch queue full; the remaining due sources wait for the next cycle", "queued", n, "due", len(ids))
		}
		// A short batch means nothing more is due; a batch of which none could be queued
		// (taken by another process meanwhile) must not spin.
		if len(ids) < min(batch, room+n) || n == 0 {
			return total, nil
		}
	}
	return total, nil
}

// ResetStuck resets sources QUEUED or FETCHING since before cutoff whose job is gone.
func (s *Sources) ResetStuck(ctx context.Context, cutoff time.Time) ([]int64, error) {
	return s.Fetches.ResetStuckSources(ctx, cutoff)
}

// AutoInterval adapts a refresh interval to how often a source publishes: the mean gap between
// its latest dated items, between MinAutoInterval and MaxAutoInterval minutes.
func AutoInterval(items []Item) (int, bool) {
	var dates []time.Time
	for _, it := range items {
		if it.PublishedAt != nil {
			dates = append(dates, *it.PublishedAt)
		}
	}
	if len(dates) < 2 {
		return 0, false
	}
	sort.Slice(dates, func(i, j int) bool { return dates[i].After(dates[j]) })
	dates = dates[:min(len(dates), 10)]
	gap := dates[0].Sub(dates[len(dates)-1]) / time.Duration(len(dates)-1)
	m := int(gap / time.Minute)
	return max(MinAutoInterval, min(m, MaxAutoInterval)), true
}

// HostOf is the host name of an address, or the address itself when it does not parse.
func HostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	return u.Hostname()
}

// offlineDetector tells a broken source from a machine that lost its network: when network
// failures hit several different hosts in a short window with no success between them,
// the sources are not blamed.
type offlineDetector struct {
	mu    sync.Mutex
	hosts map[string]time.Time
}

const (
	offlineHosts  = 3
	offlineWindow = 2 * time.Minute
)

// failed records a failure and reports whether the machine looks offline.
func (d *offlineDetector) failed(host string, network bool, now time.Time) bool {
	if !network {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.hosts == nil {
		d.hosts = map[string]time.Time{}
	}
	d.hosts[host] = now
	n := 0
	for h, t := range d.hosts {
		if now.Sub(t) > offlineWindow {
			delete(d.hosts, h)
			continue
		}
		n++
	}
	return n >= offlineHosts
}

func (d *offlineDetector) succeeded() {
	d.mu.Lock()
	clear(d.hosts)
	d.mu.Unlock()
}
