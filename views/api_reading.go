package views

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/morningdeck/morningdeck/app"
)

// itemFilter reads the item filters of a query string; the API and the items page share it.
func itemFilter(r *http.Request, q url.Values) (app.ItemFilter, error) {
	f := app.ItemFilter{UserID: userID(r), Q: strings.TrimSpace(q.Get("q")), Topic: q.Get("topic"), Tag: q.Get("tag"), Limit: defaultItemLimit}
	intParam := func(name string, lo, hi int, dst *int) error {
		v := q.Get(name)
		if v == "" {
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < lo || n > hi {
			return app.Errorf(app.EINVALID, "%s must be a number between %d and %d.", name, lo, hi)
		}
		*dst = n
		return nil
	}
	boolParam := func(name string, dst *bool) error {
		switch q.Get(name) {
		case "":
		case "1", "true", "yes", "on":
			*dst = true
		case "0", "false", "no", "off":
			*dst = false
		default:
			return app.Errorf(app.EINVALID, "%s must be true or false.", name)
		}
		return nil
	}
	for _, err := range []error{
		intParam("limit", 1, maxItemLimit, &f.Limit), intParam("offset", 0, 1_000_000, &f.Offset), intParam("minScore", 0, 100, &f.MinScore),
		boolParam("unread", &f.Unread), boolParam("starred", &f.Starred), boolParam("hidden", &f.Hidden),
	} {
		if err != nil {
			return f, err
		}
	}
	if v := q.Get("sourceId"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id < 1 {
			return f, app.Errorf(app.EINVALID, "sourceId must be a source's id.")
		}
		f.SourceID = id
	}
	switch st := app.ItemStatus(strings.ToUpper(q.Get("status"))); st {
	case "", app.ItemNew, app.ItemPending, app.ItemProcessing, app.ItemDone, app.ItemError:
		f.Status = st
	default:
		return f, app.Errorf(app.EINVALID, "status must be NEW, PENDING, PROCESSING, DONE or ERROR.")
	}
	switch f.Sort = q.Get("sort"); f.Sort {
	case "", "date", "score", "relevance":
	default:
		return f, app.Errorf(app.EINVALID, "sort must be date, score or relevance.")
	}
	return f, nil
}

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

// SettingsJSON is the settings as the API shows them.
type SettingsJSON struct {
	Interests    string      `json:"interests"`
	Topics       []app.Topic `json:"topics"`
	Enricher     string      `json:"enricher"`
	Credits      int         `json:"credits"`
	DailyCredits int         `json:"dailyCredits"`
	Timezone     string      `json:"timezone"`
	LLMBaseURL   string      `json:"llmBaseUrl"`
	LLMModel     string      `json:"llmModel"`
	LLMAPIKeySet bool        `json:"llmApiKeySet"` // the key itself is never sent back
	SMTPHost     string      `json:"smtpHost"`
	SMTPPort     int         `json:"smtpPort"`
	SMTPUsername string      `json:"smtpUsername"`
	SMTPPassSet  bool        `json:"smtpPasswordSet"` // the password itself is never sent back
	SMTPFrom     string      `json:"smtpFrom"`
	SMTPTLS      string      `json:"smtpTls"`
}

func (s *Server) settingsJSON(st *app.Settings) SettingsJSON {
	topics := st.Topics
	if topics == nil {
		topics = []app.Topic{}
	}
	enricher := st.Enricher
	if enricher == "" {
		enricher = s.opts.Enricher.Default
	}
	return SettingsJSON{Interests: st.Interests, Topics: topics, Enricher: enricher, Credits: st.Credits, DailyCredits: st.DailyCredits, Timezone: st.Timezone,
		LLMBaseURL: st.LLMBaseURL, LLMModel: st.LLMModel, LLMAPIKeySet: st.LLMAPIKey != "",
		SMTPHost: st.SMTPHost, SMTPPort: st.SMTPPort, SMTPUsername: st.SMTPUsername, SMTPPassSet: st.SMTPPassword != "", SMTPFrom: st.SMTPFrom, SMTPTLS: st.SMTPTLS}
}

func (s *Server) apiGetSettings(w http.ResponseWriter, r *http.Request) {
	if s.opts.Settings == nil {
		s.apiError(w, r, app.Errorf(app.ENOTFOUND, "Settings are not enabled on this server."))
		return
	}
	st, err := s.opts.Settings.Get(r.Context(), userID(r))
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, s.settingsJSON(st))
}

type patchSettingsRequest struct {
	Interests    *string      `json:"interests"`
	Topics       *[]app.Topic `json:"topics"`
	Enricher     *string      `json:"enricher"`
	DailyCredits *int         `json:"dailyCredits"`
	Timezone     *string      `json:"timezone"`
	LLMBaseURL   *string      `json:"llmBaseUrl"`
	LLMModel     *string      `json:"llmModel"`
	LLMAPIKey    *string      `json:"llmApiKey"`
	SMTPHost     *string      `json:"smtpHost"`
	SMTPPort     *int         `json:"smtpPort"`
	SMTPUsername *string      `json:"smtpUsername"`
	SMTPPassword *string      `json:"smtpPassword"`
	SMTPFrom     *string      `json:"smtpFrom"`
	SMTPTLS      *string      `json:"smtpTls"`
}

func (s *Server) apiPatchSettings(w http.ResponseWriter, r *http.Request) {
	if s.opts.Settings == nil {
		s.apiError(w, r, app.Errorf(app.ENOTFOUND, "Settings are not enabled on this server."))
		return
	}
	var req patchSettingsRequest
	if err := decode(w, r, &req); err != nil {
		s.apiError(w, r, err)
		return
	}
	st, err := s.opts.Settings.Update(r.Context(), userID(r), app.SettingsUpdate{
		Interests: req.Interests, Topics: req.Topics, Enricher: req.Enricher, DailyCredits: req.DailyCredits, Timezone: req.Timezone,
		LLMBaseURL: req.LLMBaseURL, LLMModel: req.LLMModel, LLMAPIKey: req.LLMAPIKey,
		SMTPHost: req.SMTPHost, SMTPPort: req.SMTPPort, SMTPUsername: req.SMTPUsername, SMTPPassword: req.SMTPPassword, SMTPFrom: req.SMTPFrom, SMTPTLS: req.SMTPTLS})
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, s.settingsJSON(st))
}

func (s *Server) apiListFilters(w http.ResponseWriter, r *http.Request) {
	if !s.reading(w, r) {
		return
	}
	fs, err := s.opts.Reading.Filters(r.Context(), userID(r))
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	if fs == nil {
		fs = []*app.Filter{}
	}
	writeJSON(w, http.StatusOK, fs)
}

func (s *Server) decodeFilter(w http.ResponseWriter, r *http.Request) (*app.Filter, bool) {
	f := &app.Filter{Enabled: true}
	if err := decode(w, r, f); err != nil {
		s.apiError(w, r, err)
		return nil, false
	}
	return f, true
}

func (s *Server) apiCreateFilter(w http.ResponseWriter, r *http.Request) {
	if !s.reading(w, r) {
		return
	}
	f, ok := s.decodeFilter(w, r)
	if !ok {
		return
	}
	if err := s.opts.Reading.AddFilter(r.Context(), userID(r), f); err != nil {
		s.apiError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, f)
}

func (s *Server) apiPreviewFilter(w http.ResponseWriter, r *http.Request) {
	if !s.reading(w, r) {
		return
	}
	f, ok := s.decodeFilter(w, r)
	if !ok {
		return
	}
	n, items, err := s.opts.Reading.PreviewFilter(r.Context(), userID(r), f)
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	type match struct {
		ID    int64  `json:"id"`
		Title string `json:"title"`
	}
	out := struct {
		Matches int     `json:"matches"`
		Items   []match `json:"items"`
	}{Matches: n, Items: []match{}}
	for _, it := range items {
		out.Items = append(out.Items, match{it.ID, it.Title})
	}
	writeJSON(w, http.StatusOK, out)
}

func (s *Server) apiDeleteFilter(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r)
	if !ok {
		s.apiError(w, r, app.Errorf(app.ENOTFOUND, "Filter %q not found.", r.PathValue("id")))
		return
	}
	if !s.reading(w, r) {
		return
	}
	if err := s.opts.Reading.DeleteFilter(r.Context(), userID(r), id); err != nil {
		s.apiError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
