package views

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/morningdeck/morningdeck/app"
)

// The JSON API's source endpoints: /api/sources and a source's items.

// SourceJSON is a source as the API (and the CLI's --json) shows it.
type SourceJSON struct {
	ID                     int64   `json:"id"`
	URL                    string  `json:"url"`
	Name                   string  `json:"name"`
	Type                   string  `json:"type"`
	Status                 string  `json:"status"`
	FetchStatus            string  `json:"fetchStatus"`
	RefreshIntervalMinutes int     `json:"refreshIntervalMinutes"`
	AutoInterval           bool    `json:"autoInterval"`
	LastFetchedAt          *string `json:"lastFetchedAt"`
	NextFetchAt            *string `json:"nextFetchAt"`
	QueuedAt               *string `json:"queuedAt"`
	LastError              string  `json:"lastError"`
	ErrorCount             int     `json:"errorCount"`
	ItemCount              int     `json:"itemCount"`
	CreatedAt              *string `json:"createdAt"`
	Folder                 string  `json:"folder"`      // the folder's name; "" in no folder
	UnreadCount            int     `json:"unreadCount"` // unread, not hidden items
}

// NewSourceJSON makes the API form of a source.
func NewSourceJSON(s *app.Source) SourceJSON {
	created := s.CreatedAt
	return SourceJSON{
		ID: s.ID, URL: s.URL, Name: s.Name, Type: string(s.Type), Status: string(s.Status), FetchStatus: string(s.FetchStatus),
		RefreshIntervalMinutes: s.RefreshIntervalMinutes, AutoInterval: s.AutoInterval,
		LastFetchedAt: jsonTime(s.LastFetchedAt), NextFetchAt: jsonTime(s.NextFetchAt), QueuedAt: jsonTime(s.QueuedAt),
		LastError: s.LastError, ErrorCount: s.ErrorCount, ItemCount: s.ItemCount, CreatedAt: jsonTime(&created),
		Folder: s.Folder, UnreadCount: s.Unread,
	}
}

// apiSourcesMax is the largest page GET /api/sources gives.
const apiSourcesMax = 1000

// apiListSources lists the user's sources: all of them, or, with limit, offset, q or show, a
// page of them filtered as on the Sources page (a Link header gives the next page). The answer
// has an ETag: a client that polls sends If-None-Match and gets 304 Not Modified, without a
// body, while nothing changed (issue 14: 1,000 sources are ~375 KB).
func (s *Server) apiListSources(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var srcs []*app.Source
	var err error
	next := ""
	if q.Has("limit") || q.Has("offset") || q.Has("q") || q.Has("show") {
		f := app.SourceFilter{UserID: userID(r), Q: strings.TrimSpace(q.Get("q")), Show: q.Get("show"), Limit: 100}
		if v := q.Get("limit"); v != "" {
			if f.Limit, err = strconv.Atoi(v); err != nil || f.Limit < 1 || f.Limit > apiSourcesMax {
				s.apiError(w, r, app.Errorf(app.EINVALID, "limit must be a number from 1 to %d.", apiSourcesMax))
				return
			}
		}
		if v := q.Get("offset"); v != "" {
			if f.Offset, err = strconv.Atoi(v); err != nil || f.Offset < 0 {
				s.apiError(w, r, app.Errorf(app.EINVALID, "offset must be a number, 0 or more."))
				return
			}
		}
		if f.Show != "" && f.Show != "errors" && f.Show != "paused" {
			s.apiError(w, r, app.Errorf(app.EINVALID, "show must be errors or paused."))
			return
		}
		limit := f.Limit
		f.Limit++
		if srcs, err = s.opts.Sources.Page(r.Context(), f); err == nil && len(srcs) > limit {
			srcs = srcs[:limit]
			v := url.Values{"limit": {strconv.Itoa(limit)}, "offset": {strconv.Itoa(f.Offset + limit)}}
			if f.Q != "" {
				v.Set("q", f.Q)
			}
			if f.Show != "" {
				v.Set("show", f.Show)
			}
			next = "/api/sources?" + v.Encode()
		}
	} else {
		srcs, err = s.opts.Sources.List(r.Context(), userID(r))
	}
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	out := make([]SourceJSON, 0, len(srcs))
	for _, src := range srcs {
		out = append(out, NewSourceJSON(src))
	}
	if next != "" {
		w.Header().Set("Link", "<"+next+`>; rel="next"`)
	}
	writeJSONTagged(w, r, out)
}

type createSourceRequest struct {
	URL                    string `json:"url"`
	Name                   string `json:"name"`
	Type                   string `json:"type"`
	RefreshIntervalMinutes *int   `json:"refreshIntervalMinutes"`
	Folder                 string `json:"folder"`
}

func (s *Server) apiCreateSource(w http.ResponseWriter, r *http.Request) {
	var req createSourceRequest
	if err := decode(w, r, &req); err != nil {
		s.apiError(w, r, err)
		return
	}
	in := app.AddSource{UserID: userID(r), URL: req.URL, Name: req.Name, Type: app.SourceType(strings.ToLower(strings.TrimSpace(req.Type))), Folder: req.Folder}
	if req.Type == "auto" {
		in.Type = ""
	}
	// Leaving the field out gives the default; an explicit 0 is a mistake the service refuses.
	in.RefreshIntervalMinutes = req.RefreshIntervalMinutes
	src, err := s.opts.Sources.Add(r.Context(), in)
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	s.writeCreatedSource(w, r, src)
}

// writeCreatedSource answers 201 with a source just added, read back so the answer shows what
// is stored (item count, times).
func (s *Server) writeCreatedSource(w http.ResponseWriter, r *http.Request, src *app.Source) {
	if stored, err := s.opts.Sources.Get(r.Context(), userID(r), src.ID); err == nil {
		src = stored
	}
	w.Header().Set("Location", "/api/sources/"+strconv.FormatInt(src.ID, 10))
	writeJSON(w, http.StatusCreated, NewSourceJSON(src))
}

func (s *Server) apiGetSource(w http.ResponseWriter, r *http.Request) {
	id, ok := s.apiID(w, r)
	if !ok {
		return
	}
	src, err := s.opts.Sources.Get(r.Context(), userID(r), id)
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, NewSourceJSON(src))
}

type updateSourceRequest struct {
	Name                   *string `json:"name"`
	RefreshIntervalMinutes *int    `json:"refreshIntervalMinutes"`
	Status                 *string `json:"status"`
	AutoInterval           *bool   `json:"autoInterval"`
	Folder                 *string `json:"folder"`
}

func (s *Server) apiUpdateSource(w http.ResponseWriter, r *http.Request) {
	id, ok := s.apiID(w, r)
	if !ok {
		return
	}
	var req updateSourceRequest
	if err := decode(w, r, &req); err != nil {
		s.apiError(w, r, err)
		return
	}
	u := app.SourceUpdate{Name: req.Name, RefreshIntervalMinutes: req.RefreshIntervalMinutes, AutoInterval: req.AutoInterval, Folder: req.Folder}
	if req.Status != nil {
		st := app.SourceStatus(strings.ToUpper(strings.TrimSpace(*req.Status)))
		u.Status = &st
	}
	src, err := s.opts.Sources.Update(r.Context(), userID(r), id, u)
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, NewSourceJSON(src))
}

func (s *Server) apiDeleteSource(w http.ResponseWriter, r *http.Request) {
	id, ok := s.apiID(w, r)
	if !ok {
		return
	}
	if err := s.opts.Sources.Delete(r.Context(), userID(r), id); err != nil {
		s.apiError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) apiRefreshSource(w http.ResponseWriter, r *http.Request) {
	id, ok := s.apiID(w, r)
	if !ok {
		return
	}
	// Check it exists, so an unknown id is a 404 rather than "nothing queued".
	if _, err := s.opts.Sources.Get(r.Context(), userID(r), id); err != nil {
		s.apiError(w, r, err)
		return
	}
	n, err := s.opts.Sources.Refresh(r.Context(), userID(r), id)
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]int{"queued": n})
}

func (s *Server) apiRefreshAll(w http.ResponseWriter, r *http.Request) {
	n, err := s.opts.Sources.Refresh(r.Context(), userID(r))
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]int{"queued": n})
}

func (s *Server) apiItems(w http.ResponseWriter, r *http.Request) {
	id, ok := s.apiID(w, r)
	if !ok {
		return
	}
	f := app.ItemFilter{UserID: userID(r), SourceID: id, Limit: defaultItemLimit}
	q := r.URL.Query()
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxItemLimit {
			s.apiError(w, r, app.Errorf(app.EINVALID, "limit must be a number between 1 and %d.", maxItemLimit))
			return
		}
		f.Limit = n
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			s.apiError(w, r, app.Errorf(app.EINVALID, "offset must be a number of 0 or more."))
			return
		}
		f.Offset = n
	}
	if _, err := s.opts.Sources.Get(r.Context(), userID(r), id); err != nil {
		s.apiError(w, r, err)
		return
	}
	items, err := s.opts.Sources.Items(r.Context(), f)
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	out := make([]ItemJSON, 0, len(items))
	for _, it := range items {
		out = append(out, NewItemJSON(it, false))
	}
	writeJSON(w, http.StatusOK, out)
}
