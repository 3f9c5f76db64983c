package views

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/morningdeck/morningdeck/app"
)

// Page is what the layout needs on every page.
type Page struct {
	Title        string
	Current      string // today, items, sources, briefings, queues, settings
	Version      string
	Flashes      []Flash
	ErrorSources int    // sources in ERROR, shown as a count on Sources
	UnreadItems  int    // unread items, shown as a count on Items
	FailedJobs   int    // failed jobs of every queue, shown as a count on Queues
	Account      string // the signed-in user's name, when sign-in is required
	Admin        bool   // whether the Queues page is theirs to see
}

// page builds the layout's data; it takes the pending flash.
func (s *Server) page(w http.ResponseWriter, r *http.Request, current, title string) Page {
	p := Page{Title: title, Current: current, Version: s.opts.Version, Flashes: takeFlash(w, r), Admin: currentUser(r).Admin}
	if s.opts.RequireLogin {
		p.Account = currentUser(r).Name
	}
	if s.opts.Sources != nil {
		if sum, err := s.opts.Sources.Summary(r.Context(), userID(r)); err == nil {
			p.ErrorSources = sum.Errors
		}
	}
	if s.opts.Reading != nil {
		if c, err := s.opts.Reading.Counts(r.Context(), userID(r)); err == nil {
			p.UnreadItems = c.Unread
		}
	}
	if s.opts.Queues != nil && p.Admin {
		p.FailedJobs, _ = s.opts.Queues.FailedCount(r.Context())
	}
	return p
}

// barePage is page without asking the store: for error pages, which must render when the store fails.
func (s *Server) barePage(w http.ResponseWriter, r *http.Request, title string) Page {
	return Page{Title: title, Version: s.opts.Version, Flashes: takeFlash(w, r)}
}

// TimeView is a moment as the page shows it: relative text, absolute on hover, machine-readable.
type TimeView struct {
	Set      bool
	ISO      string // RFC 3339, for <time datetime>
	Relative string // "5 min ago", "in 12 min"
	Absolute string // "2 Jan 2026 15:04 UTC"
}

func (s *Server) timeView(t *time.Time) TimeView {
	if t == nil || t.IsZero() {
		return TimeView{}
	}
	return TimeView{
		Set:      true,
		ISO:      t.UTC().Format(time.RFC3339),
		Relative: relativeTime(*t, s.clock.Now()),
		Absolute: t.UTC().Format("2 Jan 2006 15:04 MST"),
	}
}

// relativeTime says how far t is from now in words a person uses.
func relativeTime(t, now time.Time) string {
	d := now.Sub(t)
	future := d < 0
	if future {
		d = -d
	}
	var s string
	switch {
	case d < 45*time.Second:
		if future {
			return "in a moment"
		}
		return "just now"
	case d < time.Hour:
		s = app.Plural(int(d.Round(time.Minute)/time.Minute), "min", "min")
	case d < 24*time.Hour:
		s = app.Plural(int(d.Round(time.Hour)/time.Hour), "hour", "hours")
	case d < 30*24*time.Hour:
		s = app.Plural(int(d.Round(24*time.Hour)/(24*time.Hour)), "day", "days")
	case d < 365*24*time.Hour:
		s = app.Plural(int(d/(30*24*time.Hour)), "month", "months")
	default:
		s = app.Plural(int(d/(365*24*time.Hour)), "year", "years")
	}
	if future {
		return "in " + s
	}
	return s + " ago"
}

// SourceView is a source made for display.
type SourceView struct {
	ID           int64
	Name         string
	Initials     string
	URL          string
	Type         string
	TypeLabel    string
	Status       app.SourceStatus
	FetchStatus  app.FetchStatus
	Interval     int
	AutoInterval bool
	LastFetched  TimeView
	NextFetch    TimeView
	ItemCount    int
	LastError    string
	ErrorCount   int
}

// Paused reports whether the user paused the source.
func (v SourceView) Paused() bool { return v.Status == app.SourcePaused }

// Busy reports whether a fetch is waiting or running.
func (v SourceView) Busy() bool {
	return v.FetchStatus == app.FetchQueued || v.FetchStatus == app.FetchFetching
}

// Href is the source's page.
func (v SourceView) Href() string { return "/sources/" + strconv.FormatInt(v.ID, 10) }

// Action is the URL of one of the source's form posts.
func (v SourceView) Action(name string) string { return v.Href() + "/" + name }

// IntervalLabel says how often the source is fetched.
func (v SourceView) IntervalLabel() string {
	s := "every " + intervalWords(v.Interval)
	if v.AutoInterval {
		s += " (adjusted automatically)"
	}
	return s
}

func intervalWords(m int) string {
	switch {
	case m%(24*60) == 0:
		return app.Plural(m/(24*60), "day", "days")
	case m%60 == 0:
		return app.Plural(m/60, "hour", "hours")
	default:
		return app.Plural(m, "minute", "minutes")
	}
}

func (s *Server) sourceView(src *app.Source) SourceView {
	name := src.Name
	if name == "" {
		name = hostOf(src.URL)
	}
	return SourceView{
		ID:           src.ID,
		Name:         name,
		Initials:     initials(name),
		URL:          src.URL,
		Type:         string(src.Type),
		TypeLabel:    typeLabel(src.Type),
		Status:       src.Status,
		FetchStatus:  src.FetchStatus,
		Interval:     src.RefreshIntervalMinutes,
		AutoInterval: src.AutoInterval,
		LastFetched:  s.timeView(src.LastFetchedAt),
		NextFetch:    s.timeView(src.NextFetchAt),
		ItemCount:    src.ItemCount,
		LastError:    src.LastError,
		ErrorCount:   src.ErrorCount,
	}
}

func typeLabel(t app.SourceType) string {
	switch t {
	case app.SourceRSS:
		return "Feed"
	case app.SourceWeb:
		return "Web page"
	case app.SourceReddit:
		return "Reddit"
	}
	return string(t)
}

func hostOf(u string) string { return strings.TrimPrefix(app.HostOf(u), "www.") }

// initials are up to two letters standing for a name, in place of a favicon.
func initials(name string) string {
	var out []rune
	for _, w := range strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		r, _ := utf8.DecodeRuneInString(w)
		out = append(out, unicode.ToUpper(r))
		if len(out) == 2 {
			break
		}
	}
	if len(out) == 0 {
		return "?"
	}
	return string(out)
}

// ItemView is an item made for display.
type ItemView struct {
	ID         int64
	Title      string
	Link       string
	Author     string
	SourceID   int64
	SourceName string
	Published  TimeView
	Excerpt    string // plain text, safe to render escaped
	Truncated  bool   // the excerpt is shorter than the article
	Content    string // CleanContent: sanitized at ingestion, the only HTML rendered raw

	Summary   string
	Tags      []string
	Topics    []string
	Score     *int
	Reason    string
	Status    app.ItemStatus
	LastError string
	Attempts  int
	Read      bool
	Starred   bool
	Hidden    bool
	Snippet   []SnippetPart // search matches, when the list is a search
}

// SnippetPart is a piece of a search snippet; Match pieces are highlighted.
type SnippetPart struct {
	Text  string
	Match bool
}

// Href is the item's page in the app.
func (v ItemView) Href() string { return "/items/" + strconv.FormatInt(v.ID, 10) }

// Action is the URL of a form post on the item.
func (v ItemView) Action(name string) string { return v.Href() + "/" + name }

// ScoreClass buckets the score for its badge colour (the number is always shown too).
func (v ItemView) ScoreClass() string {
	switch {
	case v.Score == nil:
		return "score-none"
	case *v.Score >= 70:
		return "score-high"
	case *v.Score >= 40:
		return "score-mid"
	}
	return "score-low"
}

// ScoreText is the score as shown.
func (v ItemView) ScoreText() string {
	if v.Score == nil {
		return "–"
	}
	return strconv.Itoa(*v.Score)
}

func snippetParts(s string) []SnippetPart {
	var out []SnippetPart
	for s != "" {
		i := strings.IndexByte(s, '\x01')
		if i < 0 {
			out = append(out, SnippetPart{Text: s})
			break
		}
		if i > 0 {
			out = append(out, SnippetPart{Text: s[:i]})
		}
		s = s[i+1:]
		j := strings.IndexByte(s, '\x02')
		if j < 0 {
			j = len(s)
		}
		out = append(out, SnippetPart{Text: s[:j], Match: true})
		s = s[min(j+1, len(s)):]
	}
	return out
}

// SourceHref is the page of the item's source.
func (v ItemView) SourceHref() string { return "/sources/" + strconv.FormatInt(v.SourceID, 10) }

func (s *Server) itemView(it *app.Item, sourceName string) ItemView {
	pub := it.PublishedAt
	if pub == nil {
		pub = &it.CreatedAt
	}
	title := strings.TrimSpace(it.Title)
	if title == "" {
		title = "(untitled)"
	}
	if it.SourceName != "" {
		sourceName = it.SourceName
	}
	ex, cut := excerpt(it.Text, 320)
	return ItemView{
		ID:         it.ID,
		Title:      title,
		Link:       app.SafeLink(it.Link),
		Author:     it.Author,
		SourceID:   it.SourceID,
		SourceName: sourceName,
		Published:  s.timeView(pub),
		Excerpt:    ex,
		Truncated:  cut,
		Content:    it.CleanContent,
		Summary:    it.Summary,
		Tags:       it.Tags,
		Topics:     it.Topics,
		Score:      it.Score,
		Reason:     it.ScoreReasoning,
		Status:     it.Status,
		LastError:  it.LastError,
		Attempts:   it.Attempts,
		Read:       it.ReadAt != nil,
		Starred:    it.Starred,
		Hidden:     it.Hidden,
		Snippet:    snippetParts(it.Snippet),
	}
}

// excerpt cuts plain text to at most n runes at a word boundary; truncated tells whether it was cut.
func excerpt(text string, n int) (string, bool) {
	if utf8.RuneCountInString(text) <= n {
		return text, false
	}
	r := []rune(text)[:n]
	cut := string(r)
	if i := strings.LastIndex(cut, " "); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,.;:—-") + "…", true
}

// countWords says "1 source", "3 sources".
func countWords(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, map[bool]string{true: one, false: many}[n == 1])
}

// unreadCount is the sidebar's unread number, capped so it fits the badge.
func unreadCount(n int) string {
	if n > 999 {
		return "999+"
	}
	return strconv.Itoa(n)
}
