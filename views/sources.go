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
	// maxOPMLOverhead is what an upload's form adds to the OPML file it carries.
	maxOPMLOverhead = 64 << 10
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
	return s.itemViews(r, items), nil
}

func (s *Server) sourcePage(w http.ResponseWriter, r *http.Request) {
	src, ok := s.loadSource(w, r)
	if !ok {
		return
	}
	s.renderSource(w, r, http.StatusOK, src, src.Name, strconv.Itoa(src.RefreshIntervalMinutes), "")
}

func (s *Server) renderSource(w http.ResponseWriter, r *http.Request, status int, src *app.Source, name, every, problem string) {
	s.renderSourceWith(w, r, status, src, name, every, problem, nil)
}

// renderSourceWith is renderSource with a mail source's mailbox form as typed (nil: as stored).
func (s *Server) renderSourceWith(w http.ResponseWriter, r *http.Request, status int, src *app.Source, name, every, problem string, mail *MailForm) {
	items, err := s.sourceItems(r, src)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	sv := s.sourceView(src)
	v := SourcePageView{Source: sv, Items: items, EditName: name, EditEvery: every, EditError: problem, Folders: s.folders(r)}
	v.Mail, v.Senders = s.mailPart(r, src, mail)
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

// addSource handles the add form: redirect to the new source's page on success, the form again
// (422) with the problem and what the user typed otherwise, or the list of feeds when a page
// offers several.
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
		status, _, _ := failure(err)
		if status != http.StatusTooManyRequests {
			status = http.StatusUnprocessableEntity
		}
		setRetryAfter(w, err)
		s.addFailedStatus(w, r, status, form)
		return
	}
	name := src.Name
	if name == "" {
		name = src.URL
	}
	// The new source's own page: its first fetch's progress, then its items as they come.
	s.redirect(w, r, "/sources/"+strconv.FormatInt(src.ID, 10), flashSuccess("Source added — fetching "+name+"…"))
}

func (s *Server) addFailed(w http.ResponseWriter, r *http.Request, form AddForm) {
	s.addFailedStatus(w, r, http.StatusUnprocessableEntity, form)
}

// addFailedStatus shows the add form again with its problem: 422, or 429 when the server is
// too busy reading other feeds to read this one now (app.Busy).
func (s *Server) addFailedStatus(w http.ResponseWriter, r *http.Request, status int, form AddForm) {
	if form.Onboarding {
		bs, listed := s.briefings(r)
		s.renderStatus(w, r, status, onboardingPage(s.page(w, r, "today", "Welcome"), form, s.opts.ImportOPML != nil, s.firstSteps(r, bs, listed)))
		return
	}
	s.renderSources(w, r, status, form, nil)
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
	limit := s.opts.Sources.Limits.OPML() // the service checks the file; this bounds the upload
	r.Body = http.MaxBytesReader(w, r.Body, limit+maxOPMLOverhead)
	file, _, err := r.FormFile("opml")
	if err != nil {
		var tooBig *http.MaxBytesError
		msg := "Choose an OPML file to import."
		if errors.As(err, &tooBig) {
			msg = fmt.Sprintf("That file is too large: an OPML file can be at most %s on this server (--max-opml-bytes).", app.FormatSize(limit))
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
