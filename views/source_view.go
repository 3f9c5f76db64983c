package views

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/morningdeck/morningdeck/app"
)

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
	NextDue      bool // the next fetch's time has come
	ItemCount    int
	LastError    string
	ErrorCount   int
	Hint         string // what to do about a source that brings nothing, "" when it is fine
	Folder       string // the folder's name; "" in no folder
	Unread       int
	IconHref     string // the stored favicon; "" when there is none (the initials stand in)
}

// nextFetchText is when the next fetch is due, relative ("in 12 min"), or "due now" once the
// time has passed (the scheduler takes it at its next round).
func (v SourceView) nextFetchText() string {
	if v.NextDue {
		return "due now"
	}
	return v.NextFetch.Relative
}

// Failing reports whether the last fetch failed (whether or not the source is in ERROR yet):
// such a source is never shown as a healthy one.
func (v SourceView) Failing() bool {
	return !v.Paused() && (v.Status == app.SourceError || v.LastError != "")
}

// fetchWords says what a fetch status means, for the dot beside the status badge.
func fetchWords(st app.FetchStatus) string {
	switch st {
	case app.FetchQueued:
		return "Waiting to be fetched"
	case app.FetchFetching:
		return "Fetching now"
	}
	return "Not fetching"
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

// intervalWords is "15 minutes", "2 hours", "day" (as in "every day").
func intervalWords(m int) string {
	n, one, many := m, "minute", "minutes"
	switch {
	case m%(24*60) == 0:
		n, one, many = m/(24*60), "day", "days"
	case m%60 == 0:
		n, one, many = m/60, "hour", "hours"
	}
	if n == 1 {
		return one
	}
	return countWords(n, one, many)
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
		NextDue:      src.NextFetchAt != nil && !src.NextFetchAt.After(s.clock.Now()),
		ItemCount:    src.ItemCount,
		LastError:    src.LastError,
		ErrorCount:   src.ErrorCount,
		Hint:         sourceHint(src),
		Folder:       src.Folder,
		Unread:       src.Unread,
		IconHref:     iconHref(src),
	}
}

// sourceHint explains a web page that was fetched fine but gave no items: it has no links
// that look like articles.
// Every source ends with items or a message: one read without error that brought nothing says
// why in words, whatever its type.
func sourceHint(src *app.Source) string {
	if src.ItemCount != 0 || src.LastFetchedAt == nil || src.LastError != "" {
		return ""
	}
	switch src.Type {
	case app.SourceWeb:
		return "This page shows no links that look like articles. Follow its feed if it has one, or a page that lists articles."
	case app.SourceReddit:
		return "This subreddit has no posts we can show yet (it may be empty, private or quarantined)."
	case app.SourceIMAP:
		return "The folder was read but holds no newsletters yet: they appear here as soon as mail arrives in it."
	}
	return "The feed was read but holds no items yet: they appear here as soon as it publishes some."
}

func typeLabel(t app.SourceType) string {
	switch t {
	case app.SourceRSS:
		return "Feed"
	case app.SourceWeb:
		return "Web page"
	case app.SourceReddit:
		return "Reddit"
	case app.SourceIMAP:
		return "Mail folder"
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

// lastFailure is the sentence about a failing source's last fetch: "Last fetch failed (3
// times in a row): The server answered 404 Not Found."
func lastFailure(s SourceView) string {
	head := "Last fetch failed"
	if s.ErrorCount > 1 {
		head += " (" + strconv.Itoa(s.ErrorCount) + " times in a row)"
	}
	return head + ": " + s.LastError
}
