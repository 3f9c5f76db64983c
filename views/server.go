// Package views is Morning Deck's web layer: routes, HTML handlers, the JSON API and
// the templ components they render. It talks to the domain through package app only.
package views

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"mime"
	"net/http"
	"net/netip"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode"

	"github.com/a-h/templ"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/greader"
	"github.com/morningdeck/morningdeck/static"
)

// Options for New. Sources and Store are required; the rest may be zero.
type Options struct {
	Sources *app.Sources
	Log     *slog.Logger
	Version string
	Clock   app.Clock // for relative times rendered on the server; nil is the system clock
	// ImportOPML adds the sources of an OPML document; nil hides import.
	ImportOPML func(ctx context.Context, userID int64, r io.Reader) (added, skipped int, errs []string, err error)
	// ExportOPML writes the user's sources as OPML; nil makes export answer 404.
	ExportOPML func(ctx context.Context, userID int64, w io.Writer) error

	// Reading serves the items pages, the item API and filters; nil hides them.
	Reading *app.Reading
	// Saving sends items to the user's webhook and Wallabag ("Save", Settings → Save items
	// elsewhere); nil hides both.
	Saving *app.Saving
	// Feedback learns from the reader ("More like this", Settings → What Morning Deck learned);
	// nil hides it.
	Feedback *app.Feedback
	// Settings are each user's settings (the settings page and API, interests for briefings).
	Settings *app.UserSettings
	// Reader serves the Google Reader API (greader.go); nil turns the API off.
	Reader *greader.Reader
	// Enricher describes the configured enrichers for the settings page (never an API key).
	Enricher EnricherInfo
	// Briefings keeps, runs and previews briefings and their reports; nil shows the page as coming soon.
	Briefings *app.Briefings
	// Deliveries lists, resends and tests report emails; nil hides them.
	Deliveries *app.Deliveries
	// Unsubscribes checks report emails' signed unsubscribe links; nil: no unsubscribe page.
	Unsubscribes *app.Unsubscribes
	// Vocabulary learns the words that go with the user's interests in their items (Settings →
	// Words that go with your interests); nil hides the page.
	Vocabulary func(ctx context.Context, userID int64) ([]app.InterestWords, error)
	// TestLLM checks the user's LLM connection; nil hides the button.
	TestLLM func(ctx context.Context, userID int64) error
	// Queues sees and steers the background queues (the Queues page, /admin/queue-stats,
	// /healthz); nil shows the page as coming soon and /healthz always healthy.
	Queues app.QueueAdmin
	// Metrics serves /metrics (Prometheus); nil answers 404.
	Metrics http.Handler
	// Accounts signs people in; with RequireLogin every page but the sign-in page needs a
	// session or an API token, and each user sees only their own data. Without it (local
	// mode, on loopback) every request is the default user's.
	Accounts     *app.Accounts
	RequireLogin bool
	// TrustedProxies are the reverse proxies (--trusted-proxy) whose X-Forwarded-For names the
	// client for the sign-in limit; from any other peer the header is ignored. None by default.
	TrustedProxies []netip.Prefix
	// DataCare describes retention and backups for the settings page.
	DataCare DataCareInfo
	// LogRequests logs every request at info level (method, path, status, duration, user;
	// never a credential): --log-requests, or --log-level debug.
	LogRequests bool
}

// DataCareInfo is how the database is kept: set by flags or the configuration file.
type DataCareInfo struct {
	RetentionDays int
	BackupDir     string
	BackupKeep    int
	DBPath        string
}

// EnricherInfo describes the configured enrichers.
type EnricherInfo struct {
	Default       string // embedded or llm
	LLMConfigured bool
	LLMModel      string
	LLMBaseURL    string
}

// Server is the web UI and the JSON API.
type Server struct {
	opts       Options
	loginLimit *limiter // sign-in attempts per client address
	apiLimit   *limiter // API requests per user
	log        *slog.Logger
	clock      app.Clock
	handler    http.Handler
	health     healthCache // the layout's health banner
}

// ContentSecurityPolicy is sent with every response: no inline scripts or styles, nothing from elsewhere
// but images.
const ContentSecurityPolicy = "default-src 'self'; img-src 'self' https: data:; media-src 'self' https: http:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// New returns the server with all its routes.
func New(opts Options) *Server {
	if opts.Log == nil {
		opts.Log = slog.New(slog.DiscardHandler)
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{opts: opts, log: opts.Log.With("component", "web"), clock: app.ClockOrSystem(opts.Clock),
		loginLimit: newLimiter(5.0/60, 10), apiLimit: newLimiter(20, 100)}
	mux := http.NewServeMux()
	s.routes(mux)
	// The Google Reader API (greader.go) signs its requests in itself, ahead of authenticate.
	s.handler = s.requestLog(compress(s.secure(s.recoverer(s.greaderRoute(s.authenticate(s.formBodies(mux)))))))
	return s
}

func (s *Server) routes(mux *http.ServeMux) {
	mux.Handle("GET /static/", static.Handler())
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, static.Path("icon.svg"), http.StatusMovedPermanently)
	})

	// The installable app: its manifest, its service worker and the pages it keeps offline.
	mux.HandleFunc("GET /manifest.webmanifest", s.webManifest)
	mux.HandleFunc("GET /sw.js", s.serviceWorker)
	mux.HandleFunc("GET /offline/pages", s.offlinePages)
	mux.HandleFunc("GET /app-icon-192.png", s.appIcon(192))
	mux.HandleFunc("GET /app-icon-512.png", s.appIcon(512))

	// Pages.
	mux.HandleFunc("GET /{$}", s.today)
	mux.HandleFunc("GET /items", s.items)
	mux.HandleFunc("GET /sources", s.sourcesPage)
	mux.HandleFunc("GET /sources/{id}", s.sourcePage)
	mux.HandleFunc("GET /sources/export.opml", s.exportOPML)
	mux.HandleFunc("GET /briefings", s.briefingsPage)
	mux.HandleFunc("POST /briefings", s.createBriefing)
	mux.HandleFunc("POST /briefings/{id}/run", s.briefingAction("run"))
	mux.HandleFunc("GET /briefings/{id}/edit", s.editBriefing)
	mux.HandleFunc("POST /briefings/{id}/edit", s.saveBriefing)
	mux.HandleFunc("POST /briefings/{id}/pause", s.briefingAction("pause"))
	mux.HandleFunc("POST /briefings/{id}/resume", s.briefingAction("resume"))
	mux.HandleFunc("POST /briefings/{id}/delete", s.briefingAction("delete"))
	mux.HandleFunc("GET /reports/{id}", s.reportPage)
	mux.HandleFunc("GET /reports/{id}/markdown", s.reportMarkdown)
	mux.HandleFunc("POST /deliveries/{id}/resend", s.resendDelivery)
	mux.HandleFunc("POST /settings/test-email", s.testEmail)
	mux.HandleFunc("POST /settings/email", s.saveEmail)
	mux.HandleFunc("POST /settings/reading", s.saveReading)
	mux.HandleFunc("POST /settings/saving", s.saveSaving)
	mux.HandleFunc("GET /briefings/{id}/feed.xml", s.briefingFeed)
	mux.HandleFunc("GET /unsubscribe", s.unsubscribe)
	mux.HandleFunc("POST /unsubscribe", s.unsubscribe)
	mux.HandleFunc("GET /queues", s.queuesPage)
	mux.HandleFunc("GET /fragments/queues", s.queuesFragment)
	mux.HandleFunc("POST /queues/{queue}/pause", s.queueAction("pause"))
	mux.HandleFunc("POST /queues/{queue}/resume", s.queueAction("resume"))
	mux.HandleFunc("POST /queues/{queue}/retry-all", s.queueAction("retry-all"))
	mux.HandleFunc("POST /queues/{queue}/failed/{id}/retry", s.queueAction("retry"))
	mux.HandleFunc("POST /queues/{queue}/failed/{id}/discard", s.queueAction("discard"))
	mux.HandleFunc("GET /healthz", s.healthz)
	mux.HandleFunc("GET /login", s.loginPage)
	mux.HandleFunc("POST /login", s.login)
	mux.HandleFunc("POST /logout", s.logout)
	mux.HandleFunc("GET /account", s.accountPage)
	mux.HandleFunc("POST /account/password", s.changePassword)
	mux.HandleFunc("POST /account/tokens", s.createToken)
	mux.HandleFunc("POST /account/tokens/{id}/delete", s.deleteToken)
	mux.HandleFunc("GET /admin/queue-stats", s.apiQueueStats)
	if s.opts.Metrics != nil {
		mux.Handle("GET /metrics", s.opts.Metrics)
	}
	mux.HandleFunc("GET /settings", s.settingsPage)
	mux.HandleFunc("POST /settings", s.saveSettings)
	mux.HandleFunc("POST /settings/interests", s.saveInterests)
	mux.HandleFunc("GET /settings/vocabulary", s.vocabularyPage)
	mux.HandleFunc("POST /settings/vocabulary", s.addVocabulary)
	mux.HandleFunc("POST /settings/vocabulary/remove", s.removeKind)
	mux.HandleFunc("POST /settings/test-llm", s.testLLM)
	mux.HandleFunc("POST /settings/filters", s.addFilter)
	mux.HandleFunc("POST /settings/filters/preview", s.previewFilter)
	mux.HandleFunc("POST /settings/filters/{id}/delete", s.deleteFilter)
	mux.HandleFunc("GET /items/{id}", s.itemPage)
	mux.HandleFunc("POST /items/{id}/star", s.toggleItem("star"))
	mux.HandleFunc("POST /items/{id}/read", s.toggleItem("read"))
	mux.HandleFunc("POST /items/{id}/hide", s.toggleItem("hide"))
	mux.HandleFunc("POST /items/{id}/retry", s.retryItem)
	mux.HandleFunc("POST /items/{id}/fulltext", s.fullText)
	mux.HandleFunc("POST /items/{id}/save", s.saveItem)
	mux.HandleFunc("POST /items/read", s.markAllRead)
	mux.HandleFunc("POST /items/{id}/feedback", s.itemFeedback)
	mux.HandleFunc("POST /settings/taste/reset", s.resetTaste)

	// Fragments that htmx polls.
	mux.HandleFunc("GET /fragments/sources", s.sourcesFragment)
	mux.HandleFunc("GET /fragments/sources/{id}", s.sourceFragment)
	mux.HandleFunc("GET /fragments/counts", s.navCounts)

	// Form posts: each redirects (post/redirect/get) or re-renders its form with the problem.
	mux.HandleFunc("POST /sources", s.addSource)
	mux.HandleFunc("POST /sources/refresh", s.refreshAll)
	mux.HandleFunc("POST /sources/import", s.importOPML)
	mux.HandleFunc("POST /sources/mail", s.addMail)
	mux.HandleFunc("POST /sources/{id}/mail", s.editMail)
	mux.HandleFunc("POST /sources/{id}/senders", s.followSender)
	mux.HandleFunc("POST /sources/{id}/refresh", s.refreshSource)
	mux.HandleFunc("POST /sources/{id}/pause", s.setPaused(true))
	mux.HandleFunc("POST /sources/{id}/resume", s.setPaused(false))
	mux.HandleFunc("POST /sources/{id}/edit", s.editSource)
	mux.HandleFunc("POST /sources/{id}/delete", s.deleteSource)

	// JSON API.
	mux.HandleFunc("GET /api/sources", s.apiListSources)
	mux.HandleFunc("POST /api/sources", s.apiCreateSource)
	mux.HandleFunc("POST /api/sources/mail", s.apiCreateMail)
	mux.HandleFunc("POST /api/sources/refresh", s.apiRefreshAll)
	mux.HandleFunc("GET /api/sources/{id}", s.apiGetSource)
	mux.HandleFunc("PATCH /api/sources/{id}", s.apiUpdateSource)
	mux.HandleFunc("DELETE /api/sources/{id}", s.apiDeleteSource)
	mux.HandleFunc("POST /api/sources/{id}/refresh", s.apiRefreshSource)
	mux.HandleFunc("GET /api/sources/{id}/items", s.apiItems)
	mux.HandleFunc("GET /icons/{id}", s.sourceIcon)
	mux.HandleFunc("GET /api/folders", s.apiListFolders)
	mux.HandleFunc("POST /api/folders", s.apiCreateFolder)
	mux.HandleFunc("PATCH /api/folders/{id}", s.apiRenameFolder)
	mux.HandleFunc("DELETE /api/folders/{id}", s.apiDeleteFolder)
	mux.HandleFunc("GET /api/items", s.apiListItems)
	mux.HandleFunc("POST /api/items/read", s.apiMarkRead)
	mux.HandleFunc("GET /api/items/{id}", s.apiGetItem)
	mux.HandleFunc("PATCH /api/items/{id}", s.apiPatchItem)
	mux.HandleFunc("POST /api/items/{id}/retry", s.apiRetryItem)
	mux.HandleFunc("POST /api/items/{id}/save", s.apiSaveItem)
	mux.HandleFunc("POST /api/items/{id}/feedback", s.apiItemFeedback)
	mux.HandleFunc("GET /api/taste", s.apiLearned)
	mux.HandleFunc("DELETE /api/taste", s.apiResetTaste)
	mux.HandleFunc("GET /api/settings", s.apiGetSettings)
	mux.HandleFunc("PATCH /api/settings", s.apiPatchSettings)
	mux.HandleFunc("GET /api/filters", s.apiListFilters)
	mux.HandleFunc("POST /api/filters", s.apiCreateFilter)
	mux.HandleFunc("POST /api/filters/preview", s.apiPreviewFilter)
	mux.HandleFunc("DELETE /api/filters/{id}", s.apiDeleteFilter)
	mux.HandleFunc("GET /api/briefings", s.apiListBriefings)
	mux.HandleFunc("POST /api/briefings", s.apiCreateBriefing)
	mux.HandleFunc("GET /api/briefings/{id}", s.apiGetBriefing)
	mux.HandleFunc("PATCH /api/briefings/{id}", s.apiUpdateBriefing)
	mux.HandleFunc("DELETE /api/briefings/{id}", s.apiDeleteBriefing)
	mux.HandleFunc("POST /api/briefings/{id}/run", s.apiRunBriefing)
	mux.HandleFunc("GET /api/briefings/{id}/reports", s.apiBriefingReports)
	mux.HandleFunc("GET /api/reports/{id}", s.apiGetReport)
	mux.HandleFunc("POST /api/deliveries/{id}/resend", s.apiResendDelivery)
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		s.apiError(w, r, app.Errorf(app.ENOTFOUND, "No such API endpoint: %s %s.", r.Method, r.URL.Path))
	})

	mux.HandleFunc("/", s.notFound)
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.handler.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), memoKey{}, &requestMemo{})))
}

// requestMemo keeps what more than one part of a page asks the store for, once a request: the
// source summary serves the page's own counts and the navigation's.
type requestMemo struct {
	summary    app.SourceSummary
	summaryErr error
	summarized bool
}

type memoKey struct{}

// sourceSummary counts the user's sources, once a request.
func (s *Server) sourceSummary(r *http.Request) (app.SourceSummary, error) {
	m, ok := r.Context().Value(memoKey{}).(*requestMemo)
	if !ok {
		return s.opts.Sources.Summary(r.Context(), userID(r))
	}
	if !m.summarized {
		m.summary, m.summaryErr = s.opts.Sources.Summary(r.Context(), userID(r))
		m.summarized = true
	}
	return m.summary, m.summaryErr
}

// secure sets the security headers of every response and refuses cross-origin requests that
// change state (CSRF): a page elsewhere cannot post to this app, not even on localhost, where
// no sign-in stands in the way. Browsers say where a request comes from (Sec-Fetch-Site,
// Origin); clients that say nothing (curl, the CLI with an API token) are not browsers.
func (s *Server) secure(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		if err := cop.Check(r); err != nil {
			http.Error(w, "Cross-origin requests that change something are not allowed.", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// maxFormBytes bounds a page's form: the largest, a briefing's sources at 10,000 followed
// sources, is about 150 KB.
const maxFormBytes = 2 << 20

// formBodies reads the form of every page's POST before its handler does, so that a body that
// is too large or not valid form encoding is refused with a message and nothing is saved: a
// handler reading fields with PostFormValue would otherwise see them all empty (and a settings
// form save them empty). The JSON API, the Reader API (greaderRoute, ahead of this) and file
// uploads (multipart, read with their own bounds) read their own bodies.
func (s *Server) formBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if r.Method != http.MethodPost || isAPI(r) || ct != "application/x-www-form-urlencoded" {
			next.ServeHTTP(w, r)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
		if err := r.ParseForm(); err != nil {
			status, msg := http.StatusBadRequest, "The form could not be read (it is not valid form encoding), so nothing was saved. Reload the page and try again."
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				status, msg = http.StatusRequestEntityTooLarge, "The form is too large to read (at most 2 MiB), so nothing was saved."
			}
			s.renderStatus(w, r, status, errorPage(s.barePage(w, r, "The form could not be read"), "The form could not be read", msg))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// recoverer turns a panic in a handler into a logged 500, so the server keeps running.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("panic in handler", "method", r.Method, "path", r.URL.Path, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			if isAPI(r) {
				writeJSON(w, http.StatusInternalServerError, apiErrorBody{Error: "Internal error."})
				return
			}
			s.renderStatus(w, r, http.StatusInternalServerError, errorPage(s.barePage(w, r, "Something went wrong"), "Something went wrong",
				"The server hit an unexpected problem and has logged it. Try again, or go back to the previous page."))
		}()
		next.ServeHTTP(w, r)
	})
}

func isAPI(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/api/") }

// pathID parses the {id} wildcard; ok is false for anything but a positive integer.
func pathID(r *http.Request) (int64, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	return id, err == nil && id > 0
}

// render writes a component with status 200.
func (s *Server) render(w http.ResponseWriter, r *http.Request, c templ.Component) {
	s.renderStatus(w, r, http.StatusOK, c)
}

// renderStatus renders c into memory first, so a failure can still become a clean 500.
func (s *Server) renderStatus(w http.ResponseWriter, r *http.Request, status int, c templ.Component) {
	buf := renderBuffer()
	defer releaseRenderBuffer(buf)
	if err := c.Render(r.Context(), buf); err != nil {
		s.logFailure(r, "render", err)
		http.Error(w, "Internal error.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// renderBuffers hold pages while they render (whole, so that a failure is a clean 500). A page
// of 250 KB rendered into a fresh buffer allocated five times its size as the buffer grew
// (1.1 MB of the Sources page's 2 MB a request); a used buffer starts at the size it reached.
var renderBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

func renderBuffer() *bytes.Buffer { return renderBuffers.Get().(*bytes.Buffer) }

// releaseRenderBuffer returns buf to the pool, unless it grew past 4 MiB (a rare huge page
// should not stay in memory).
func releaseRenderBuffer(buf *bytes.Buffer) {
	if buf.Cap() > 4<<20 {
		return
	}
	buf.Reset()
	renderBuffers.Put(buf)
}

// renderTagged renders c like render, with an ETag (answerTagged): for fragments that the
// pages poll, an unchanged one costs no bytes.
func (s *Server) renderTagged(w http.ResponseWriter, r *http.Request, c templ.Component) {
	buf := renderBuffer()
	defer releaseRenderBuffer(buf)
	if err := c.Render(r.Context(), buf); err != nil {
		s.logFailure(r, "render", err)
		http.Error(w, "Internal error.", http.StatusInternalServerError)
		return
	}
	answerTagged(w, r, "text/html; charset=utf-8", buf.Bytes())
}

// logFailure logs a request's failure as an ERROR, or at DEBUG when the client went away
// (context canceled, broken pipe, connection reset): that is the client's doing, not a fault.
func (s *Server) logFailure(r *http.Request, msg string, err error) {
	level := slog.LevelError
	if clientGone(r, err) {
		level = slog.LevelDebug
		msg += " (the client went away)"
	}
	s.log.Log(r.Context(), level, msg, "method", r.Method, "path", r.URL.Path, "error", err)
}

// clientGone reports whether err comes from the client disconnecting.
func clientGone(r *http.Request, err error) bool {
	return r.Context().Err() != nil || errors.Is(err, context.Canceled) || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)
}

// serverError logs err and shows the error page.
func (s *Server) serverError(w http.ResponseWriter, r *http.Request, err error) {
	s.logFailure(r, "request failed", err)
	s.renderStatus(w, r, http.StatusInternalServerError, errorPage(s.barePage(w, r, "Something went wrong"), "Something went wrong",
		"The server hit an unexpected problem and has logged it. Try again in a moment."))
}

// failure is the one mapping of an error to an answer, for pages and the JSON API alike: the
// HTTP status of its domain code, the message for a person, and whether it is an internal
// error (logged, never shown: the person gets a generic message).
func failure(err error) (status int, msg string, internal bool) {
	switch app.ErrorCode(err) {
	case app.EINVALID:
		status = http.StatusBadRequest
	case app.ENOTFOUND:
		status = http.StatusNotFound
	case app.ECONFLICT:
		status = http.StatusConflict
	case app.EUNAUTHORIZED:
		status = http.StatusUnauthorized
	case app.EFORBIDDEN:
		status = http.StatusForbidden
	case app.ETOOMANY:
		status = http.StatusTooManyRequests
	default:
		return http.StatusInternalServerError, app.ErrorMessage(err), true
	}
	return status, app.ErrorMessage(err), false
}

// setRetryAfter sets Retry-After when err says how long to wait (app.Busy: the fetcher's slots
// for untrusted bodies are taken).
func setRetryAfter(w http.ResponseWriter, err error) {
	if d := app.RetryAfterOf(err); d > 0 {
		retryAfter(w, d)
	}
}

// retryAfter sets Retry-After to wait, in whole seconds rounded up, and returns them.
func retryAfter(w http.ResponseWriter, wait time.Duration) int {
	secs := int(math.Ceil(wait.Seconds()))
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	return secs
}

// appError shows an error as a page with its status (see failure); internal errors get the
// error page and are logged.
func (s *Server) appError(w http.ResponseWriter, r *http.Request, err error) {
	status, msg, internal := failure(err)
	if internal {
		s.serverError(w, r, err)
		return
	}
	setRetryAfter(w, err)
	title := http.StatusText(status)
	if status == http.StatusNotFound {
		title = "Not found"
	}
	s.renderStatus(w, r, status, errorPage(s.page(w, r, "", title), title, msg))
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.renderStatus(w, r, http.StatusNotFound, errorPage(s.page(w, r, "", "Page not found"), "Page not found",
		"There is no page at this address. The links on the left lead to everything Morning Deck has."))
}

// redirect ends a form post (post/redirect/get) with a flash for the next page.
func (s *Server) redirect(w http.ResponseWriter, r *http.Request, to string, f Flash) {
	if f.Message != "" {
		setFlash(w, f)
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// back is where a form post returns to: its "return" field when it is a path on this site
// (sitePath), else fallback.
func back(r *http.Request, fallback string) string {
	if to := r.PostFormValue("return"); sitePath(to) {
		return to
	}
	return fallback
}

// sitePath reports whether p, from a form or a query, may be a redirect's target: a path on this
// site that starts with one "/", with no backslash and no control or invisible character. A
// browser drops a tab or a line break from a Location ("/\t/evil.example/" becomes
// "//evil.example/", another site) and reads "/\evil.example" as "//evil.example", so these
// are refused, not cleaned.
func sitePath(p string) bool {
	if !strings.HasPrefix(p, "/") || strings.HasPrefix(p, "//") || strings.ContainsRune(p, '\\') {
		return false
	}
	return !strings.ContainsFunc(p, func(c rune) bool {
		return c < 0x20 || c == 0x7f || unicode.IsSpace(c) || unicode.Is(unicode.Cf, c) || unicode.IsControl(c)
	})
}

func (s *Server) comingSoon(key string) http.HandlerFunc {
	v := comingSoonPages[key]
	return func(w http.ResponseWriter, r *http.Request) {
		s.render(w, r, comingSoonPage(s.page(w, r, key, v.Title), v))
	}
}

// actionFailed ends a form post that could not be done: an error flash for what the user can fix,
// the error page for the rest.
func (s *Server) actionFailed(w http.ResponseWriter, r *http.Request, fallback string, err error) {
	switch app.ErrorCode(err) {
	case app.EINVALID, app.ECONFLICT:
		s.redirect(w, r, back(r, fallback), flashError(app.ErrorMessage(err)))
	default:
		s.appError(w, r, err)
	}
}
