package views

import (
	"net/http"

	"github.com/morningdeck/morningdeck/app"
)

// navCountsJSON is the sidebar's counts as GET /fragments/counts answers them: app.js asks for
// them after a mark, while sources are fetched (an OPML import's) and every half minute, and
// updates the badges in place, so that they are never stale until the next page load. The
// texts are the badges' own ("999+", "3 unread items").
type navCountsJSON struct {
	Unread       int               `json:"unread"`
	UnreadText   string            `json:"unreadText"`
	UnreadTitle  string            `json:"unreadTitle"`
	ErrorSources int               `json:"errorSources"`
	ErrorTitle   string            `json:"errorTitle"`
	FailedJobs   int               `json:"failedJobs"`
	FailedTitle  string            `json:"failedTitle"`
	Folders      []folderCountJSON `json:"folders"`
}

type folderCountJSON struct {
	ID     int64  `json:"id"`
	Unread int    `json:"unread"`
	Text   string `json:"text"`
	Title  string `json:"title"`
}

func (s *Server) navCounts(w http.ResponseWriter, r *http.Request) {
	var c navCountsJSON
	if s.opts.Reading != nil {
		n, err := s.opts.Reading.Counts(r.Context(), userID(r), app.NavUnreadCap)
		if err != nil {
			s.apiError(w, r, err)
			return
		}
		c.Unread = n.Unread
	}
	c.UnreadText, c.UnreadTitle = unreadCount(c.Unread), unreadTitle(c.Unread)
	if s.opts.Sources != nil {
		sum, err := s.sourceSummary(r)
		if err != nil {
			s.apiError(w, r, err)
			return
		}
		c.ErrorSources = sum.Errors
	}
	c.ErrorTitle = countWords(c.ErrorSources, "source", "sources") + " in error"
	if s.opts.Queues != nil && currentUser(r).Admin {
		c.FailedJobs, _ = s.opts.Queues.FailedCount(r.Context())
	}
	c.FailedTitle = countWords(c.FailedJobs, "failed job", "failed jobs")
	c.Folders = []folderCountJSON{}
	for _, f := range s.folders(r) {
		c.Folders = append(c.Folders, folderCountJSON{ID: f.ID, Unread: f.Unread, Text: unreadCount(f.Unread), Title: f.Name + ": " + unreadTitle(f.Unread)})
	}
	writeJSONTagged(w, r, c)
}
