package views

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// Page is what the layout needs on every page.
type Page struct {
	Title        string
	Current      string // today, items, sources, briefings, queues, settings
	Version      string
	Flashes      []Flash
	ErrorSources int           // sources in ERROR, shown as a count on Sources
	UnreadItems  int           // unread items, shown as a count on Items
	FailedJobs   int           // failed jobs of every queue, shown as a count on Queues
	Account      string        // the signed-in user's name, when sign-in is required
	Admin        bool          // whether the Queues page is theirs to see
	Folders      []*app.Folder // the user's folders with unread counts, listed under Items
	Trouble      []string      // why the app cannot work (disk full, damaged database, pinned workers): the banner
	// Reading options of Settings: the lists' density and marking items read as they scroll past.
	Compact          bool
	MarkReadOnScroll bool
}

// page builds the layout's data; it takes the pending flash.
func (s *Server) page(w http.ResponseWriter, r *http.Request, current, title string) Page {
	if _, signedIn := r.Context().Value(userKey{}).(*app.User); s.opts.RequireLogin && !signedIn {
		// A signed-out visitor (a public path such as a briefing's feed.xml answering 404)
		// sees nobody's counts, links or health: the bare frame.
		return s.barePage(w, r, title)
	}
	p := Page{Title: title, Current: current, Version: s.opts.Version, Admin: currentUser(r).Admin, Trouble: s.trouble(r.Context())}
	if !offlineCopy(r) { // the service worker's copy leaves a pending message to the reader's next page
		p.Flashes = takeFlash(w, r)
	}
	if s.opts.RequireLogin {
		p.Account = currentUser(r).Name
	}
	if s.opts.Sources != nil {
		if sum, err := s.sourceSummary(r); err == nil {
			p.ErrorSources = sum.Errors
		}
	}
	if s.opts.Reading != nil {
		if c, err := s.opts.Reading.Counts(r.Context(), userID(r), app.NavUnreadCap); err == nil {
			p.UnreadItems = c.Unread
		}
	}
	p.Folders = s.folders(r)
	if s.opts.Settings != nil {
		if st, err := s.opts.Settings.Get(r.Context(), userID(r)); err == nil {
			p.Compact, p.MarkReadOnScroll = st.Density == app.DensityCompact, st.MarkReadOnScroll
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
		s = countWords(int(d.Round(time.Minute)/time.Minute), "min", "min")
	case d < 24*time.Hour:
		s = countWords(int(d.Round(time.Hour)/time.Hour), "hour", "hours")
	case d < 30*24*time.Hour:
		s = countWords(int(d.Round(24*time.Hour)/(24*time.Hour)), "day", "days")
	case d < 365*24*time.Hour:
		s = countWords(int(d/(30*24*time.Hour)), "month", "months")
	default:
		s = countWords(int(d/(365*24*time.Hour)), "year", "years")
	}
	if future {
		return "in " + s
	}
	return s + " ago"
}

// countWords says "1 source", "3 sources".
func countWords(n int, one, many string) string {
	return fmt.Sprintf("%d %s", n, map[bool]string{true: one, false: many}[n == 1])
}

// unreadCount is the sidebar's unread number, capped so it fits the badge (the navigation
// counts up to app.NavUnreadCap).
func unreadCount(n int) string {
	if n >= app.NavUnreadCap {
		return strconv.Itoa(app.NavUnreadCap-1) + "+"
	}
	return strconv.Itoa(n)
}

// unreadTitle says the sidebar's unread number in words: "3 unread items", "more than 999
// unread items".
func unreadTitle(n int) string {
	if n >= app.NavUnreadCap {
		return fmt.Sprintf("more than %d unread items", app.NavUnreadCap-1)
	}
	return countWords(n, "unread item", "unread items")
}
