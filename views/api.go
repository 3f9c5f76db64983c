package views

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

const (
	maxJSONBytes     = 1 << 20
	defaultItemLimit = 50
	maxItemLimit     = 500
)

type apiErrorBody struct {
	Error string `json:"error"`
}

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
		PublishedAt: jsonTime(it.PublishedAt), Status: string(it.Status), Summary: it.Summary, Tags: nonNil(it.Tags), Topics: nonNil(it.Topics),
		Score: it.Score, ScoreReasoning: it.ScoreReasoning, EnrichedBy: it.EnrichedBy, Attempts: it.Attempts, LastError: it.LastError,
		Read: it.ReadAt != nil, Starred: it.Starred, Hidden: it.Hidden, Content: it.CleanContent, CreatedAt: jsonTime(&created),
	}
	if withSnippet {
		out.Snippet = strings.NewReplacer("\x01", "«", "\x02", "»").Replace(it.Snippet)
	}
	return out
}

func jsonTime(t *time.Time) *string {
	if t == nil || t.IsZero() {
		return nil
	}
	s := t.UTC().Format(time.RFC3339)
	return &s
}

// NewSourceJSON makes the API form of a source.
func NewSourceJSON(s *app.Source) SourceJSON {
	created := s.CreatedAt
	return SourceJSON{
		ID: s.ID, URL: s.URL, Name: s.Name, Type: string(s.Type), Status: string(s.Status), FetchStatus: string(s.FetchStatus),
		RefreshIntervalMinutes: s.RefreshIntervalMinutes, AutoInterval: s.AutoInterval,
		LastFetchedAt: jsonTime(s.LastFetchedAt), NextFetchAt: jsonTime(s.NextFetchAt), QueuedAt: jsonTime(s.QueuedAt),
		LastError: s.LastError, ErrorCount: s.ErrorCount, ItemCount: s.ItemCount, CreatedAt: jsonTime(&created),
	}
}

func nonNil(l []string) []string {
	if l == nil {
		return []string{}
	}
	return l
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(true)
	_ = enc.Encode(v)
}

// apiError answers a JSON request that failed (see failure); internal errors are logged and not shown.
func (s *Server) apiError(w http.ResponseWriter, r *http.Request, err error) {
	status, msg, internal := failure(err)
	if internal {
		s.log.Error("api request failed", "method", r.Method, "path", r.URL.Path, "error", err)
	}
	writeJSON(w, status, apiErrorBody{Error: msg})
}

// decode reads one JSON object into v: at most 1 MiB, no unknown fields, nothing after it.
// Its errors are *app.Error with a message that says what to fix.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxJSONBytes))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if dec.More() {
			return app.Errorf(app.EINVALID, "The request body must hold a single JSON object.")
		}
		if _, err := dec.Token(); err != io.EOF {
			return app.Errorf(app.EINVALID, "The request body must hold a single JSON object.")
		}
		return nil
	}
	var (
		syntax    *json.SyntaxError
		typ       *json.UnmarshalTypeError
		tooBig    *http.MaxBytesError
		fieldName string
	)
	switch {
	case errors.As(err, &tooBig):
		return app.Errorf(app.EINVALID, "The request body is too large: at most 1 MiB.")
	case errors.As(err, &syntax):
		return app.Errorf(app.EINVALID, "The request body is not valid JSON (at byte %d).", syntax.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return app.Errorf(app.EINVALID, "The request body is not valid JSON: it ends too early.")
	case errors.Is(err, io.EOF):
		return app.Errorf(app.EINVALID, "The request body is empty: send a JSON object.")
	case errors.As(err, &typ):
		if typ.Field == "" {
			return app.Errorf(app.EINVALID, "The request body must be a JSON object.")
		}
		return app.Errorf(app.EINVALID, "Field %q must be %s, not %s.", typ.Field, jsonKind(typ.Type.Kind().String()), jsonValue(typ.Value))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		fieldName = strings.TrimPrefix(err.Error(), "json: unknown field ")
		if len(fieldName) > 60 {
			fieldName = strings.ToValidUTF8(fieldName[:60], "") + "…"
		}
		return app.Errorf(app.EINVALID, "Unknown field %s.", fieldName)
	case errors.As(err, new(*time.ParseError)):
		return app.Errorf(app.EINVALID, "A date and time must be written like 2026-03-14T07:00:00Z.")
	}
	// An error of a field's own decoding: its text names Go types, so it is not shown.
	return app.Errorf(app.EINVALID, "The request body holds a value of the wrong form: check the fields' types.")
}

// jsonKind says what JSON a Go kind takes.
func jsonKind(k string) string {
	switch k {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "a whole number"
	case "float32", "float64":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "slice", "array":
		return "a list"
	case "map", "struct":
		return "an object"
	}
	return "of another type"
}

// jsonValue says what an UnmarshalTypeError's Value ("string", "number 1.5", "array"…) was.
func jsonValue(v string) string {
	switch v {
	case "string":
		return "a string"
	case "number":
		return "a number"
	case "bool":
		return "true or false"
	case "array":
		return "a list"
	case "object":
		return "an object"
	}
	if n, ok := strings.CutPrefix(v, "number "); ok {
		if len(n) > 30 {
			n = n[:30] + "…"
		}
		return n
	}
	return "a value of another type"
}

func (s *Server) apiID(w http.ResponseWriter, r *http.Request) (int64, bool) {
	id, ok := pathID(r)
	if !ok {
		writeJSON(w, http.StatusNotFound, apiErrorBody{Error: fmt.Sprintf("Source %q not found.", r.PathValue("id"))})
	}
	return id, ok
}

func (s *Server) apiListSources(w http.ResponseWriter, r *http.Request) {
	srcs, err := s.opts.Sources.List(r.Context(), userID(r))
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	out := make([]SourceJSON, 0, len(srcs))
	for _, src := range srcs {
		out = append(out, NewSourceJSON(src))
	}
	writeJSON(w, http.StatusOK, out)
}

type createSourceRequest struct {
	URL                    string `json:"url"`
	Name                   string `json:"name"`
	Type                   string `json:"type"`
	RefreshIntervalMinutes *int   `json:"refreshIntervalMinutes"`
}

func (s *Server) apiCreateSource(w http.ResponseWriter, r *http.Request) {
	var req createSourceRequest
	if err := decode(w, r, &req); err != nil {
		s.apiError(w, r, err)
		return
	}
	in := app.AddSource{UserID: userID(r), URL: req.URL, Name: req.Name, Type: app.SourceType(strings.ToLower(strings.TrimSpace(req.Type)))}
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
	// Read it back so the answer shows what is stored (item count, times).
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
	u := app.SourceUpdate{Name: req.Name, RefreshIntervalMinutes: req.RefreshIntervalMinutes, AutoInterval: req.AutoInterval}
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
