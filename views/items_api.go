package views

import (
	"net/http"
	"strings"

	"github.com/morningdeck/morningdeck/app"
)

// The JSON API's item endpoints: /api/items, one item, marking read.

func (s *Server) reading(w http.ResponseWriter, r *http.Request) bool {
	if s.opts.Reading == nil {
		s.apiError(w, r, app.Errorf(app.ENOTFOUND, "Reading is not enabled on this server."))
		return false
	}
	return true
}

func (s *Server) apiListItems(w http.ResponseWriter, r *http.Request) {
	if !s.reading(w, r) {
		return
	}
	f, err := itemFilter(r, r.URL.Query())
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	items, err := s.opts.Reading.Items(r.Context(), f)
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	out := make([]ItemJSON, 0, len(items))
	for _, it := range items {
		out = append(out, NewItemJSON(it, f.Q != ""))
	}
	writeJSON(w, http.StatusOK, out)
}

// apiMarkRead is POST /api/items/read: the user's unread items read, every one or those of
// sourceId or folderId (in the query or a form); it answers {"marked": N}.
func (s *Server) apiMarkRead(w http.ResponseWriter, r *http.Request) {
	if !s.reading(w, r) {
		return
	}
	n, err := s.opts.Reading.MarkScopeRead(r.Context(), userID(r),
		app.ScopeID{Name: "sourceId", Text: r.FormValue("sourceId")}, app.ScopeID{Name: "folderId", Text: r.FormValue("folderId")})
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]int{"marked": n})
}

func (s *Server) apiItemID(w http.ResponseWriter, r *http.Request) (int64, bool) {
	id, ok := pathID(r)
	if !ok {
		s.apiError(w, r, app.Errorf(app.ENOTFOUND, "Item %q not found.", r.PathValue("id")))
	}
	return id, ok && s.reading(w, r)
}

func (s *Server) apiGetItem(w http.ResponseWriter, r *http.Request) {
	id, ok := s.apiItemID(w, r)
	if !ok {
		return
	}
	it, err := s.opts.Reading.Item(r.Context(), userID(r), id)
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, NewItemJSON(it, false))
}

type patchItemRequest struct {
	Read    *bool `json:"read"`
	Starred *bool `json:"starred"`
	Hidden  *bool `json:"hidden"`
}

func (s *Server) apiPatchItem(w http.ResponseWriter, r *http.Request) {
	id, ok := s.apiItemID(w, r)
	if !ok {
		return
	}
	var req patchItemRequest
	if err := decode(w, r, &req); err != nil {
		s.apiError(w, r, err)
		return
	}
	it, err := s.opts.Reading.Update(r.Context(), userID(r), id, app.ItemUpdate{Read: req.Read, Starred: req.Starred, Hidden: req.Hidden})
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, NewItemJSON(it, false))
}

func (s *Server) apiRetryItem(w http.ResponseWriter, r *http.Request) {
	id, ok := s.apiItemID(w, r)
	if !ok {
		return
	}
	if err := s.opts.Reading.Retry(r.Context(), userID(r), id); err != nil {
		s.apiError(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"id": id, "status": app.ItemPending})
}

// apiSaveItem sends the item to the user's webhook and Wallabag: 200 with what was done, or
// 400 with what failed.
func (s *Server) apiSaveItem(w http.ResponseWriter, r *http.Request) {
	if s.opts.Saving == nil {
		s.apiError(w, r, app.Errorf(app.ENOTFOUND, "Saving items elsewhere is not available in this installation."))
		return
	}
	id, ok := s.apiItemID(w, r)
	if !ok {
		return
	}
	done, err := s.opts.Saving.Save(r.Context(), userID(r), id)
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "saved": done})
}

// ItemJSON is an item as the API (and `items list --json`) shows it; content is the sanitized HTML.
type ItemJSON struct {
	ID             int64    `json:"id"`
	SourceID       int64    `json:"sourceId"`
	SourceName     string   `json:"sourceName"`
	GUID           string   `json:"guid"`
	Title          string   `json:"title"`
	Link           string   `json:"link"`
	Author         string   `json:"author"`
	PublishedAt    *string  `json:"publishedAt"`
	Status         string   `json:"status"`
	Summary        string   `json:"summary"`
	Tags           []string `json:"tags"`
	Topics         []string `json:"topics"`
	UsualTopics    []string `json:"usualTopics,omitempty"` // the source's usual topics, when the item matched none
	Score          *int     `json:"score"`
	ScoreReasoning string   `json:"scoreReasoning"`
	EnrichedBy     string   `json:"enrichedBy"`
	Attempts       int      `json:"attempts"`
	LastError      string   `json:"lastError"`
	Read           bool     `json:"read"`
	Starred        bool     `json:"starred"`
	Hidden         bool     `json:"hidden"`
	Snippet        string   `json:"snippet,omitempty"`
	Content        string   `json:"content"`
	CreatedAt      *string  `json:"createdAt"`
}

// NewItemJSON returns the API form of an item; withSnippet adds the search snippet, its
// matches marked with « ».
func NewItemJSON(it *app.Item, withSnippet bool) ItemJSON {
	created := it.CreatedAt
	out := ItemJSON{
		ID: it.ID, SourceID: it.SourceID, SourceName: it.SourceName, GUID: it.GUID, Title: it.Title, Link: it.Link, Author: it.Author,
		PublishedAt: jsonTime(it.PublishedAt), Status: string(it.Status), Summary: it.Summary, Tags: nonNil(it.Tags), Topics: nonNil(it.Topics), UsualTopics: it.UsualTopics,
		Score: it.Score, ScoreReasoning: it.ScoreReasoning, EnrichedBy: it.EnrichedBy, Attempts: it.Attempts, LastError: it.LastError,
		Read: it.ReadAt != nil, Starred: it.Starred, Hidden: it.Hidden, Content: it.CleanContent, CreatedAt: jsonTime(&created),
	}
	if withSnippet {
		out.Snippet = strings.NewReplacer("\x01", "«", "\x02", "»").Replace(it.Snippet)
	}
	return out
}
