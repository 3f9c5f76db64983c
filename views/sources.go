package views

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/morningdeck/morningdeck/app"
)

const (
	todayItems   = 20
	itemsPerPage = 30
	sourceItems  = 50
	// sourcesPerPage is how many sources the Sources page lists at a time.
	sourcesPerPage = 100
	// maxSourceChoices is the most sources the Items page's source picker lists.
	maxSourceChoices = 300
	maxOPMLBytes     = 5 << 20
)

// sourceNames lists the user's sources for a picker: ids and names (the host of its address
// for a source without a name), in name order.
func (s *Server) sourceNames(r *http.Request) ([]app.SourceName, error) {
	names, err := s.opts.Sources.Names(r.Context(), userID(r))
	for i := range names {
		if strings.Contains(names[i].Name, "://") {
			names[i].Name = hostOf(names[i].Name)
		}
	}
	// In the order they are read: "Feed 2" before "Feed 10", "ars" beside "Ars".
	slices.SortStableFunc(names, func(a, b app.SourceName) int { return app.NaturalCompare(a.Name, b.Name) })
	return names, err
}

func (s *Server) sourcesPage(w http.ResponseWriter, r *http.Request) {
	s.renderSources(w, r, http.StatusOK, AddForm{}, nil)
}

func (s *Server) renderSources(w http.ResponseWriter, r *http.Request, status int, form AddForm, choice *ChoiceView) {
	l, err := s.sourceList(r)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	v := SourcesPageView{Form: form, Choice: choice, List: l, CanImport: s.opts.ImportOPML != nil, CanExport: s.opts.ExportOPML != nil}
	s.renderStatus(w, r, status, sourcesPage(s.page(w, r, "sources", "Sources"), v))
}

func (s *Server) sourcesFragment(w http.ResponseWriter, r *http.Request) {
	l, err := s.sourceList(r)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	s.renderTagged(w, r, sourcesLive(l))
}

// sourceList is the page of sources the URL asks for (q, show, offset): the Sources page lists
// sourcesPerPage at a time, so that it stays quick with thousands of sources.
func (s *Server) sourceList(r *http.Request) (SourceListView, error) {
	q := r.URL.Query()
	l := SourceListView{Q: strings.TrimSpace(q.Get("q")), Show: q.Get("show")}
	if l.Show != "errors" && l.Show != "paused" {
		l.Show = ""
	}
	if len(l.Q) > 200 {
		l.Q = l.Q[:200]
	}
	offset, _ := strconv.Atoi(q.Get("offset"))
	offset = max(offset, 0)
	var err error
	if l.Summary, err = s.sourceSummary(r); err != nil {
		return l, err
	}
	srcs, err := s.opts.Sources.Page(r.Context(), app.SourceFilter{UserID: userID(r), Q: l.Q, Show: l.Show, Limit: sourcesPerPage + 1, Offset: offset})
	if err != nil {
		return l, err
	}
	link := func(path string, offset int) string {
		return pageLink(path, url.Values{"q": {l.Q}, "show": {l.Show}}, offset)
	}
	more := len(srcs) > sourcesPerPage
	if more {
		srcs = srcs[:sourcesPerPage]
		l.NextHref = link("/sources", offset+sourcesPerPage)
	}
	if offset > 0 {
		l.PrevHref = link("/sources", max(offset-sourcesPerPage, 0))
	}
	l.Fragment = link("/fragments/sources", offset)
	for _, src := range srcs {
		l.Sources = append(l.Sources, s.sourceView(src))
	}
	if len(srcs) > 0 {
		l.From, l.To = offset+1, offset+len(srcs)
	}
	switch {
	case more:
		l.Matching = -1
	case l.Show == "" && l.Q == "":
		l.Matching = l.Summary.Total
	default:
		l.Matching = offset + len(srcs)
	}
	return l, nil
}

// pageLink is path with the non-empty values of vals and, past the first page, the offset: the
// address of one page of a filtered list.
func pageLink(path string, vals url.Values, offset int) string {
	q := url.Values{}
	for k, v := range vals {
		if len(v) > 0 && v[0] != "" {
			q.Set(k, v[0])
		}
	}
	if offset > 0 {
		q.Set("offset", strconv.Itoa(offset))
	}
	if len(q) == 0 {
		return path
	}
	return path + "?" + q.Encode()
}

// sourceCount says which sources a page shows: "1–100 of 10,000", "3 failing sources".
func sourceCount(l SourceListView) string {
	what := map[string]string{"": "sources", "errors": "failing sources", "paused": "paused sources"}[l.Show]
	if l.Q != "" {
		what += " matching “" + l.Q + "”"
	}
	total := l.Matching
	if l.Q == "" {
		total = map[string]int{"": l.Summary.Total, "errors": l.Summary.Errors, "paused": l.Summary.Paused}[l.Show]
	}
	if l.From == 1 && total == l.To {
		return thousands(total) + " " + what
	}
	if total < 0 {
		return fmt.Sprintf("%s–%s of the %s", thousands(l.From), thousands(l.To), what)
	}
	return fmt.Sprintf("%s–%s of %s %s", thousands(l.From), thousands(l.To), thousands(total), what)
}

// thousands writes n with thousands separators: 10,000.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func (s *Server) loadSource(w http.ResponseWriter, r *http.Request) (*app.Source, bool) {
	id, ok := pathID(r)
	if !ok {
		s.notFound(w, r)
		return nil, false
	}
	src, err := s.opts.Sources.Get(r.Context(), userID(r), id)
	if err != nil {
		s.appError(w, r, err)
		return nil, false
	}
	return src, true
}

func (s *Server) sourceItems(r *http.Request, src *app.Source) ([]ItemView, error) {
	items, err := s.opts.Sources.Items(r.Context(), app.ItemFilter{UserID: userID(r), SourceID: src.ID, Limit: sourceItems})
	if err != nil {
		return nil, err
	}
	return s.itemViews(items), nil
}

func (s *Server) sourcePage(w http.ResponseWriter, r *http.Request) {
	src, ok := s.loadSource(w, r)
	if !ok {
		return
	}
	s.renderSource(w, r, http.StatusOK, src, src.Name, strconv.Itoa(src.RefreshIntervalMinutes), "")
}

func (s *Server) renderSource(w http.ResponseWriter, r *http.Request, status int, src *app.Source, name, every, problem string) {
	items, err := s.sourceItems(r, src)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	sv := s.sourceView(src)
	v := SourcePageView{Source: sv, Items: items, EditName: name, EditEvery: every, EditError: problem, Folders: s.folders(r)}
	if v.EditName == "" && problem == "" {
		v.EditName = sv.Name
	}
	s.renderStatus(w, r, status, sourcePage(s.page(w, r, "sources", sv.Name), v))
}

func (s *Server) sourceFragment(w http.ResponseWriter, r *http.Request) {
	src, ok := s.loadSource(w, r)
	if !ok {
		return
	}
	items, err := s.sourceItems(r, src)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	s.renderTagged(w, r, sourceLive(s.sourceView(src), items))
}

// addSource handles the add form: redirect on success, the form again (422) with the problem
// and what the user typed otherwise, or the list of feeds when a page offers several.
func (s *Server) addSource(w http.ResponseWriter, r *http.Request) {
	form := AddForm{
		URL:        strings.TrimSpace(r.PostFormValue("url")),
		Name:       strings.TrimSpace(r.PostFormValue("name")),
		Type:       strings.TrimSpace(r.PostFormValue("type")),
		Interval:   strings.TrimSpace(r.PostFormValue("interval")),
		Onboarding: back(r, "") == "/",
	}
	in := app.AddSource{UserID: userID(r), URL: form.URL, Name: form.Name, Type: app.SourceType(form.Type), OfferChoice: true}
	if form.Interval != "" {
		n, err := strconv.Atoi(form.Interval)
		if err != nil {
			form.Error = fmt.Sprintf("Refresh interval must be a whole number of minutes between %d and %d; got %q.", app.MinRefreshInterval, app.MaxRefreshInterval, form.Interval)
			s.addFailed(w, r, form)
			return
		}
		in.RefreshIntervalMinutes = &n
	}
	src, err := s.opts.Sources.Add(r.Context(), in)
	var choice *app.FeedChoice
	switch {
	case errors.As(err, &choice):
		c := &ChoiceView{PageURL: choice.PageURL, Title: choice.Title, Name: form.Name, Interval: form.Interval}
		for _, f := range choice.Feeds {
			c.Feeds = append(c.Feeds, FeedView{URL: f.URL, Title: f.Title})
		}
		form.Error = ""
		s.renderSources(w, r, http.StatusOK, form, c)
		return
	case err != nil && app.ErrorCode(err) == app.EINTERNAL:
		s.serverError(w, r, err)
		return
	case err != nil:
		form.Error = app.ErrorMessage(err)
		s.addFailed(w, r, form)
		return
	}
	name := src.Name
	if name == "" {
		name = src.URL
	}
	s.redirect(w, r, "/sources", flashSuccess("Source added — fetching "+name+"…"))
}

func (s *Server) addFailed(w http.ResponseWriter, r *http.Request, form AddForm) {
	if form.Onboarding {
		bs, listed := s.briefings(r)
		s.renderStatus(w, r, http.StatusUnprocessableEntity, onboardingPage(s.page(w, r, "today", "Welcome"), form, s.opts.ImportOPML != nil, s.firstSteps(r, bs, listed)))
		return
	}
	s.renderSources(w, r, http.StatusUnprocessableEntity, form, nil)
}

func (s *Server) refreshAll(w http.ResponseWriter, r *http.Request) {
	n, err := s.opts.Sources.Refresh(r.Context(), userID(r))
	if err != nil {
		s.actionFailed(w, r, "/sources", err)
		return
	}
	msg := "Nothing to refresh: every active source is already queued or fetching."
	if n > 0 {
		msg = "Fetching " + countWords(n, "source", "sources") + "…"
	}
	s.redirect(w, r, back(r, "/sources"), flashSuccess(msg))
}

func (s *Server) refreshSource(w http.ResponseWriter, r *http.Request) {
	src, ok := s.loadSource(w, r)
	if !ok {
		return
	}
	name := s.sourceView(src).Name
	n, err := s.opts.Sources.Refresh(r.Context(), userID(r), src.ID)
	if err != nil {
		s.actionFailed(w, r, "/sources", err)
		return
	}
	f := flashSuccess("Fetching " + name + "…")
	if n == 0 {
		if src.Status == app.SourcePaused {
			f = Flash{Kind: "info", Message: name + " is paused: resume it to fetch."}
		} else {
			f = Flash{Kind: "info", Message: name + " is already queued or being fetched."}
		}
	}
	s.redirect(w, r, back(r, "/sources"), f)
}

func (s *Server) setPaused(pause bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		src, ok := s.loadSource(w, r)
		if !ok {
			return
		}
		st, verb := app.SourceActive, "resumed"
		if pause {
			st, verb = app.SourcePaused, "paused"
		}
		if _, err := s.opts.Sources.Update(r.Context(), userID(r), src.ID, app.SourceUpdate{Status: &st}); err != nil {
			s.actionFailed(w, r, "/sources", err)
			return
		}
		s.redirect(w, r, back(r, "/sources"), flashSuccess(s.sourceView(src).Name+" "+verb+"."))
	}
}

func (s *Server) editSource(w http.ResponseWriter, r *http.Request) {
	src, ok := s.loadSource(w, r)
	if !ok {
		return
	}
	name := strings.TrimSpace(r.PostFormValue("name"))
	every := strings.TrimSpace(r.PostFormValue("interval"))
	auto := r.PostFormValue("auto") == "on"
	n, err := strconv.Atoi(every)
	if err != nil {
		s.renderSource(w, r, http.StatusUnprocessableEntity, src, name, every,
			fmt.Sprintf("Refresh interval must be a whole number of minutes between %d and %d.", app.MinRefreshInterval, app.MaxRefreshInterval))
		return
	}
	u := app.SourceUpdate{Name: &name, RefreshIntervalMinutes: &n, AutoInterval: &auto}
	if _, ok := r.PostForm["folder"]; ok {
		folder := strings.TrimSpace(r.PostFormValue("folder"))
		u.Folder = &folder
	}
	if _, err := s.opts.Sources.Update(r.Context(), userID(r), src.ID, u); err != nil {
		if app.ErrorCode(err) == app.EINVALID {
			s.renderSource(w, r, http.StatusUnprocessableEntity, src, name, every, app.ErrorMessage(err))
			return
		}
		s.actionFailed(w, r, src.URL, err)
		return
	}
	s.redirect(w, r, "/sources/"+strconv.FormatInt(src.ID, 10), flashSuccess("Saved."))
}

// deleteSource deletes after a confirmation: the dialog of app.js, or without JavaScript a page.
func (s *Server) deleteSource(w http.ResponseWriter, r *http.Request) {
	src, ok := s.loadSource(w, r)
	if !ok {
		return
	}
	sv := s.sourceView(src)
	if r.PostFormValue("confirm") != "yes" {
		s.render(w, r, confirmDeletePage(s.page(w, r, "sources", "Delete "+sv.Name), sv))
		return
	}
	if err := s.opts.Sources.Delete(r.Context(), userID(r), src.ID); err != nil {
		s.actionFailed(w, r, "/sources", err)
		return
	}
	s.redirect(w, r, "/sources", flashSuccess("Deleted "+sv.Name+" and its "+countWords(sv.ItemCount, "item", "items")+"."))
}

func (s *Server) importOPML(w http.ResponseWriter, r *http.Request) {
	if s.opts.ImportOPML == nil {
		s.redirect(w, r, "/sources", flashError("OPML import is not available in this installation."))
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxOPMLBytes)
	file, _, err := r.FormFile("opml")
	if err != nil {
		var tooBig *http.MaxBytesError
		msg := "Choose an OPML file to import."
		if errors.As(err, &tooBig) {
			msg = "That file is too large: an OPML file can be at most 5 MB."
		}
		s.redirect(w, r, back(r, "/sources"), flashError(msg))
		return
	}
	defer func() { _ = file.Close() }()
	added, skipped, errs, err := s.opts.ImportOPML(r.Context(), userID(r), file)
	if err != nil {
		if app.ErrorCode(err) == app.EINTERNAL {
			s.serverError(w, r, err)
			return
		}
		s.redirect(w, r, "/sources", flashError("Could not import: "+app.ErrorMessage(err)))
		return
	}
	msg := fmt.Sprintf("Imported OPML: %d added, %d skipped.", added, skipped)
	if len(errs) > 0 {
		shown := errs[:min(len(errs), 3)]
		msg += " Problems: " + strings.Join(shown, "; ")
		if len(errs) > len(shown) {
			msg += fmt.Sprintf(" (and %d more)", len(errs)-len(shown))
		}
		s.redirect(w, r, "/sources", Flash{Kind: "error", Message: msg})
		return
	}
	if added > 0 {
		msg += " Fetching the new sources…"
	}
	s.redirect(w, r, "/sources", flashSuccess(msg))
}

func (s *Server) exportOPML(w http.ResponseWriter, r *http.Request) {
	if s.opts.ExportOPML == nil {
		s.notFound(w, r)
		return
	}
	var buf bytes.Buffer
	if err := s.opts.ExportOPML(r.Context(), userID(r), &buf); err != nil {
		s.serverError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/x-opml; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="morningdeck-`+s.clock.Now().Format("2006-01-02")+`.opml"`)
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(buf.Bytes())
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
