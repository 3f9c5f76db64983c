package views

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// BriefingJSON is a briefing as the API shows it.
type BriefingJSON struct {
	*app.Briefing
	NextRunAt *string `json:"nextRunAt"`
}

func (s *Server) briefingJSON(b *app.Briefing) BriefingJSON {
	if b.SourceIDs == nil {
		b.SourceIDs = []int64{}
	}
	if b.Recipients == nil {
		b.Recipients = []string{}
	}
	return BriefingJSON{Briefing: b, NextRunAt: jsonTime(b.NextRunAt(s.clock.Now()))}
}

func (s *Server) briefingsOn(w http.ResponseWriter, r *http.Request) bool {
	if s.opts.Briefings == nil {
		s.apiError(w, r, app.Errorf(app.ENOTFOUND, "Briefings are not enabled on this server."))
		return false
	}
	return true
}

func (s *Server) apiListBriefings(w http.ResponseWriter, r *http.Request) {
	if !s.briefingsOn(w, r) {
		return
	}
	bs, err := s.opts.Briefings.List(r.Context(), userID(r))
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	out := make([]BriefingJSON, 0, len(bs))
	for _, b := range bs {
		out = append(out, s.briefingJSON(b))
	}
	writeJSON(w, http.StatusOK, out)
}

type briefingRequest struct {
	Name         string   `json:"name"`
	Focus        string   `json:"focus"`
	Frequency    string   `json:"frequency"`
	DayOfWeek    int      `json:"dayOfWeek"`
	Time         string   `json:"time"`
	Timezone     string   `json:"timezone"`
	ItemLimit    int      `json:"itemLimit"`
	MinScore     int      `json:"minScore"`
	SourceIDs    []int64  `json:"sourceIds"`
	FolderID     *int64   `json:"folderId"` // null: no folder (sourceIds, or every source)
	Topic        string   `json:"topic"`
	EmailEnabled bool     `json:"emailEnabled"`
	Recipients   []string `json:"recipients"`
	EmailEmpty   bool     `json:"emailWhenEmpty"`
	MarkRead     bool     `json:"markRead"`
}

func (req briefingRequest) apply(b *app.Briefing) {
	b.Name, b.Focus, b.Frequency, b.DayOfWeek, b.Time, b.Timezone = strings.TrimSpace(req.Name), strings.TrimSpace(req.Focus), req.Frequency, req.DayOfWeek, req.Time, req.Timezone
	b.ItemLimit, b.MinScore, b.SourceIDs, b.EmailEnabled, b.Recipients, b.Topic = req.ItemLimit, req.MinScore, req.SourceIDs, req.EmailEnabled, req.Recipients, strings.TrimSpace(req.Topic)
	b.EmailWhenEmpty, b.MarkRead, b.FolderID = req.EmailEmpty, req.MarkRead, req.FolderID
}

func (s *Server) apiCreateBriefing(w http.ResponseWriter, r *http.Request) {
	if !s.briefingsOn(w, r) {
		return
	}
	var req briefingRequest
	if err := decode(w, r, &req); err != nil {
		s.apiError(w, r, err)
		return
	}
	b := &app.Briefing{UserID: userID(r)}
	req.apply(b)
	if err := s.opts.Briefings.Save(r.Context(), b); err != nil {
		s.apiError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, s.briefingJSON(b))
}

func (s *Server) apiBriefingID(w http.ResponseWriter, r *http.Request) (int64, bool) {
	id, ok := pathID(r)
	if !ok {
		s.apiError(w, r, app.Errorf(app.ENOTFOUND, "Briefing %q not found.", r.PathValue("id")))
		return 0, false
	}
	return id, s.briefingsOn(w, r)
}

func (s *Server) apiGetBriefing(w http.ResponseWriter, r *http.Request) {
	id, ok := s.apiBriefingID(w, r)
	if !ok {
		return
	}
	b, err := s.opts.Briefings.Get(r.Context(), userID(r), id)
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, s.briefingJSON(b))
}

func (s *Server) apiUpdateBriefing(w http.ResponseWriter, r *http.Request) {
	id, ok := s.apiBriefingID(w, r)
	if !ok {
		return
	}
	b, err := s.opts.Briefings.Get(r.Context(), userID(r), id)
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	req := briefingRequest{Name: b.Name, Focus: b.Focus, Frequency: b.Frequency, DayOfWeek: b.DayOfWeek, Time: b.Time, Timezone: b.Timezone,
		ItemLimit: b.ItemLimit, MinScore: b.MinScore, SourceIDs: b.SourceIDs, FolderID: b.FolderID, Topic: b.Topic, EmailEnabled: b.EmailEnabled, Recipients: b.Recipients, EmailEmpty: b.EmailWhenEmpty, MarkRead: b.MarkRead}
	if err := decode(w, r, &req); err != nil { // fields not sent keep their values
		s.apiError(w, r, err)
		return
	}
	req.apply(b)
	if err := s.opts.Briefings.Save(r.Context(), b); err != nil {
		s.apiError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, s.briefingJSON(b))
}

func (s *Server) apiDeleteBriefing(w http.ResponseWriter, r *http.Request) {
	id, ok := s.apiBriefingID(w, r)
	if !ok {
		return
	}
	if err := s.opts.Briefings.Delete(r.Context(), userID(r), id); err != nil {
		s.apiError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) apiRunBriefing(w http.ResponseWriter, r *http.Request) {
	id, ok := s.apiBriefingID(w, r)
	if !ok {
		return
	}
	if err := s.runBriefing(r, id); err != nil {
		s.apiError(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"id": id, "status": app.BriefingQueued})
}

// runBriefing queues a run now; a briefing already queued or running is a conflict.
func (s *Server) runBriefing(r *http.Request, id int64) error {
	if _, err := s.opts.Briefings.Get(r.Context(), userID(r), id); err != nil {
		return err
	}
	if s.opts.Briefings == nil {
		return app.Errorf(app.ECONFLICT, "Briefings do not run on this server (no workers).")
	}
	ok, err := s.opts.Briefings.RunNow(r.Context(), id)
	if err != nil {
		return err
	}
	if !ok {
		return app.Errorf(app.ECONFLICT, "This briefing is already queued or running, or paused.")
	}
	return nil
}

// BriefingView is a briefing made for display.
type BriefingView struct {
	*app.Briefing
	Schedule string // "Daily at 07:00 · Europe/Brussels"
	Scope    string // "All sources", "Folder Tech", "3 sources: A, B, C"
	Next     string // "tomorrow 07:00 Europe/Brussels, in 9 h"
	Last     TimeView
	HasLast  bool
	Latest   *app.Report // the latest report with stories (else the latest): the one offered
	Recent   []ReportRow // the latest reports, newest first
	// Recipients are who its reports are emailed to, "" when none.
	Recipients string
}

// ReportRow is a report in a list: its date in the briefing's zone and its story count.
type ReportRow struct {
	ID      int64
	Date    string // "Tue 24 Nov 07:00 CET"
	Stories int
	Preview bool
}

func reportRows(reps []*app.Report, loc *time.Location) []ReportRow {
	out := make([]ReportRow, 0, len(reps))
	for _, r := range reps {
		out = append(out, ReportRow{ID: r.ID, Date: r.PeriodEnd.In(loc).Format("Mon 2 Jan 2006 15:04 MST"), Stories: r.Stories(), Preview: r.Preview})
	}
	return out
}

// briefingScope says what a briefing covers, in words.
func briefingScope(b *app.Briefing, sources []app.SourceName) string {
	switch {
	case b.FolderID != nil:
		return "the sources of folder " + b.FolderName
	case len(b.SourceIDs) > 0:
		names := map[int64]string{}
		for _, src := range sources {
			names[src.ID] = src.Name
		}
		var list []string
		for _, id := range b.SourceIDs {
			if n, ok := names[id]; ok {
				list = append(list, n)
			}
		}
		if len(list) == 0 {
			return "chosen sources, all deleted since: it finds nothing until you choose others"
		}
		shown := list
		if len(shown) > 3 {
			shown = append(append([]string{}, shown[:3]...), fmt.Sprintf("%d more", len(list)-3))
		}
		return fmt.Sprintf("%d %s: %s", len(list), app.Plural(len(list), "source", "sources"), strings.Join(shown, ", "))
	}
	return "all sources"
}

func (s *Server) briefingView(r *http.Request, b *app.Briefing, sources []app.SourceName) BriefingView {
	v := BriefingView{Briefing: b, Scope: briefingScope(b, sources)}
	day := ""
	if b.Frequency == app.Weekly {
		day = " on " + time.Weekday(b.DayOfWeek).String() + "s"
	}
	v.Schedule = fmt.Sprintf("%s%s at %s · %s", map[string]string{app.Daily: "Every day", app.Weekly: "Every week"}[b.Frequency], day, b.Time, b.Timezone)
	now := s.clock.Now()
	if next := b.NextRunAt(now); next != nil {
		loc := app.Location(b.Timezone)
		local := next.In(loc)
		when := local.Format("Mon 2 Jan 15:04")
		today := now.In(loc)
		switch {
		case local.YearDay() == today.YearDay() && local.Year() == today.Year():
			when = "today " + local.Format("15:04")
		case local.YearDay() == today.AddDate(0, 0, 1).YearDay():
			when = "tomorrow " + local.Format("15:04")
		}
		in := next.Sub(now)
		v.Next = fmt.Sprintf("%s %s, %s", when, b.Timezone, humanIn(in))
	}
	// The last run is the scheduled one, or a later Run now (a preview, which does not move
	// the schedule but is a run the reader sees listed).
	last := b.LastExecutedAt
	if reps, err := s.opts.Briefings.Reports(r.Context(), userID(r), b.ID, 5); err == nil && len(reps) > 0 {
		v.Latest = app.LatestNonEmpty(reps)
		v.Recent = reportRows(reps, app.Location(b.Timezone))
		if at := reps[0].GeneratedAt; !at.IsZero() && (last == nil || at.After(*last)) {
			last = &at
		}
	}
	if last != nil {
		v.Last, v.HasLast = s.timeView(last), true
	}
	if b.EmailEnabled && len(b.Recipients) > 0 {
		v.Recipients = strings.Join(b.Recipients, ", ")
	}
	return v
}

func humanIn(d time.Duration) string {
	switch {
	case d <= time.Minute:
		return "due now"
	case d < time.Hour:
		return fmt.Sprintf("in %d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("in %d h", int(d.Hours()+0.5))
	}
	return fmt.Sprintf("in %d days", int(d.Hours()/24+0.5))
}

// BriefingsPageView is the data of /briefings.
type BriefingsPageView struct {
	Briefings []BriefingView
	Form      BriefingForm
	Sources   []app.SourceName
}

// BriefingForm is the create form, kept on a validation error.
type BriefingForm struct {
	Name, Focus, Frequency, DayOfWeek, Time, Timezone, ItemLimit, MinScore, Recipients, Topic, Error string
	SourceIDs                                                                                        []int64
	Scope                                                                                            string // "all", "folder" or "sources"
	FolderID                                                                                         int64
	Folders                                                                                          []*app.Folder // the user's folders, for the scope picker
	EmailWhenEmpty                                                                                   bool
	MarkRead                                                                                         bool     // opening a report marks its stories read
	TopicChoices                                                                                     []string // the user's topics, for the picker
	// BrowserZone: the time zone is a default (no zone in Settings), which app.js replaces with
	// the browser's own.
	BrowserZone bool
}

// HasSource reports whether the form picks the source.
func (f BriefingForm) HasSource(id int64) bool {
	for _, s := range f.SourceIDs {
		if s == id {
			return true
		}
	}
	return false
}

func briefingFormOf(b *app.Briefing) BriefingForm {
	f := BriefingForm{Name: b.Name, Focus: b.Focus, Frequency: b.Frequency, DayOfWeek: strconv.Itoa(b.DayOfWeek), Time: b.Time, Timezone: b.Timezone,
		ItemLimit: strconv.Itoa(b.ItemLimit), MinScore: strconv.Itoa(b.MinScore), Recipients: strings.Join(b.Recipients, ", "), SourceIDs: b.SourceIDs, Topic: b.Topic, EmailWhenEmpty: b.EmailWhenEmpty, MarkRead: b.MarkRead,
		Scope: "all"}
	switch {
	case b.FolderID != nil:
		f.Scope, f.FolderID = "folder", *b.FolderID
	case len(b.SourceIDs) > 0:
		f.Scope = "sources"
	}
	return f
}

func (s *Server) briefingsPage(w http.ResponseWriter, r *http.Request) {
	s.renderBriefings(w, r, http.StatusOK, BriefingForm{})
}

func (s *Server) renderBriefings(w http.ResponseWriter, r *http.Request, status int, form BriefingForm) {
	if s.opts.Briefings == nil {
		s.comingSoon("briefings")(w, r)
		return
	}
	bs, err := s.opts.Briefings.List(r.Context(), userID(r))
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	v := BriefingsPageView{Form: form}
	v.Form.TopicChoices = s.topicNames(r)
	v.Form.Folders = s.folders(r)
	if v.Sources, err = s.sourceNames(r); err != nil {
		s.serverError(w, r, err)
		return
	}
	if v.Form.Time == "" {
		v.Form.Time, v.Form.ItemLimit, v.Form.Frequency, v.Form.DayOfWeek = "07:00", "10", app.Daily, "1"
		if s.opts.Settings != nil {
			if st, err := s.opts.Settings.Get(r.Context(), userID(r)); err == nil {
				v.Form.Timezone = st.Timezone
			}
		}
		if v.Form.Timezone == "" {
			v.Form.Timezone, v.Form.BrowserZone = "UTC", true
		}
	}
	for _, b := range bs {
		v.Briefings = append(v.Briefings, s.briefingView(r, b, v.Sources))
	}
	s.renderStatus(w, r, status, briefingsPage(s.page(w, r, "briefings", "Briefings"), v))
}

func (s *Server) createBriefing(w http.ResponseWriter, r *http.Request) {
	if s.opts.Briefings == nil {
		s.notFound(w, r)
		return
	}
	b := &app.Briefing{UserID: userID(r)}
	if f, err := s.applyBriefingForm(r, b); err != nil {
		status := http.StatusUnprocessableEntity
		switch app.ErrorCode(err) {
		case app.EINVALID:
		case app.EFORBIDDEN: // the account's limit of briefings
			status = http.StatusForbidden
		default:
			s.serverError(w, r, err)
			return
		}
		f.Error = app.ErrorMessage(err)
		s.renderBriefings(w, r, status, f)
		return
	}
	s.redirect(w, r, "/briefings", flashSuccess("Briefing created. It runs on its schedule; press Run now to see it today."))
}

// applyBriefingForm reads the briefing form into b and saves it.
func (s *Server) applyBriefingForm(r *http.Request, b *app.Briefing) (BriefingForm, error) {
	f := BriefingForm{Name: r.PostFormValue("name"), Focus: r.PostFormValue("focus"), Frequency: r.PostFormValue("frequency"), DayOfWeek: r.PostFormValue("dayOfWeek"),
		Time: r.PostFormValue("time"), Timezone: strings.TrimSpace(r.PostFormValue("timezone")), ItemLimit: r.PostFormValue("itemLimit"), MinScore: r.PostFormValue("minScore"),
		Recipients: r.PostFormValue("recipients"), Topic: strings.TrimSpace(r.PostFormValue("topic")), EmailWhenEmpty: r.PostFormValue("emailWhenEmpty") != "",
		MarkRead: r.PostFormValue("markRead") != ""}
	b.Name, b.Focus, b.Frequency, b.Time, b.Timezone, b.Topic = strings.TrimSpace(f.Name), strings.TrimSpace(f.Focus), f.Frequency, f.Time, f.Timezone, f.Topic
	b.Recipients, b.SourceIDs = nil, nil
	for _, to := range strings.Split(f.Recipients, ",") {
		if to = strings.TrimSpace(to); to != "" {
			b.Recipients = append(b.Recipients, to)
		}
	}
	b.EmailEnabled = len(b.Recipients) > 0
	b.EmailWhenEmpty = f.EmailWhenEmpty
	b.MarkRead = f.MarkRead
	b.FolderID = nil
	var err error
	// The scope: every source, one folder's sources, or chosen sources. Without a scope (a
	// client that predates it), checked sources mean chosen sources.
	f.Scope = r.PostFormValue("scope")
	folder, _ := strconv.ParseInt(r.PostFormValue("folderId"), 10, 64)
	var picked []int64
	for _, v := range r.PostForm["sourceIds"] {
		if id, err := strconv.ParseInt(v, 10, 64); err == nil {
			picked = append(picked, id)
		}
	}
	if f.Scope == "" {
		f.Scope = "all"
		if len(picked) > 0 {
			f.Scope = "sources"
		}
	}
	f.FolderID, f.SourceIDs = folder, picked
	switch f.Scope {
	case "folder":
		if folder <= 0 {
			err = app.Errorf(app.EINVALID, "Choose the folder this briefing covers.")
		}
		b.FolderID = &folder
	case "sources":
		if len(picked) == 0 {
			err = app.Errorf(app.EINVALID, "Check the sources this briefing covers, or choose All sources.")
		}
		b.SourceIDs = picked
	case "all":
	default:
		err = app.Errorf(app.EINVALID, "Choose what this briefing covers: all sources, a folder or chosen sources.")
	}
	atoi := func(v string, dst *int, what string) {
		if err != nil || strings.TrimSpace(v) == "" {
			return
		}
		n, e := strconv.Atoi(strings.TrimSpace(v))
		if e != nil {
			err = app.Errorf(app.EINVALID, "%s must be a whole number.", what)
		}
		*dst = n
	}
	atoi(f.DayOfWeek, &b.DayOfWeek, "The day of the week")
	atoi(f.ItemLimit, &b.ItemLimit, "The number of items")
	atoi(f.MinScore, &b.MinScore, "The minimum score")
	if err == nil {
		err = s.opts.Briefings.Save(r.Context(), b)
	}
	return f, err
}

// editBriefing shows the briefing's form and what it would pick right now.
func (s *Server) editBriefing(w http.ResponseWriter, r *http.Request) {
	s.renderBriefingEdit(w, r, http.StatusOK, nil)
}

func (s *Server) renderBriefingEdit(w http.ResponseWriter, r *http.Request, status int, form *BriefingForm) {
	id, ok := pathID(r)
	if !ok || s.opts.Briefings == nil {
		s.notFound(w, r)
		return
	}
	b, err := s.opts.Briefings.Get(r.Context(), userID(r), id)
	if err != nil {
		s.appError(w, r, err)
		return
	}
	v := BriefingEditView{ID: id, Form: briefingFormOf(b)}
	if form != nil {
		v.Form = *form
	}
	v.Form.TopicChoices = s.topicNames(r)
	v.Form.Folders = s.folders(r)
	if v.Sources, err = s.sourceNames(r); err != nil {
		s.serverError(w, r, err)
		return
	}
	if reps, err := s.opts.Briefings.Reports(r.Context(), userID(r), id, 30); err == nil {
		v.Reports = reportRows(reps, app.Location(b.Timezone))
	}
	if s.opts.Briefings != nil {
		if v.Preview, err = s.opts.Briefings.Preview(r.Context(), b); err != nil {
			v.PrevErr = app.ErrorMessage(err)
		}
	}
	s.renderStatus(w, r, status, briefingEditPage(s.page(w, r, "briefings", "Edit "+b.Name), v))
}

func (s *Server) saveBriefing(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r)
	if !ok || s.opts.Briefings == nil {
		s.notFound(w, r)
		return
	}
	b, err := s.opts.Briefings.Get(r.Context(), userID(r), id)
	if err != nil {
		s.appError(w, r, err)
		return
	}
	if f, err := s.applyBriefingForm(r, b); err != nil {
		if app.ErrorCode(err) != app.EINVALID {
			s.serverError(w, r, err)
			return
		}
		f.Error = app.ErrorMessage(err)
		s.renderBriefingEdit(w, r, http.StatusUnprocessableEntity, &f)
		return
	}
	s.redirect(w, r, "/briefings", flashSuccess("Briefing saved."))
}

func (s *Server) briefingAction(action string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		id, ok := pathID(r)
		if !ok || s.opts.Briefings == nil {
			s.notFound(w, r)
			return
		}
		var err error
		msg := ""
		switch action {
		case "run":
			err, msg = s.runBriefing(r, id), "Running a preview: it appears under Recent reports in a moment (and is emailed if the briefing emails). "+
				"It does not change the schedule: the next scheduled report still covers everything since the last one."
		case "pause":
			err, msg = s.opts.Briefings.SetPaused(r.Context(), userID(r), id, true), "Briefing paused."
		case "resume":
			err, msg = s.opts.Briefings.SetPaused(r.Context(), userID(r), id, false), "Briefing resumed."
		case "delete":
			err, msg = s.opts.Briefings.Delete(r.Context(), userID(r), id), "Briefing deleted."
		}
		if err != nil {
			if app.ErrorCode(err) == app.EINTERNAL {
				s.serverError(w, r, err)
				return
			}
			s.redirect(w, r, "/briefings", flashError(app.ErrorMessage(err)))
			return
		}
		s.redirect(w, r, "/briefings", flashSuccess(msg))
	}
}

// topicNames lists the user's topics, for the briefing form's topic picker.
func (s *Server) topicNames(r *http.Request) []string {
	if s.opts.Settings == nil {
		return nil
	}
	st, err := s.opts.Settings.Get(r.Context(), userID(r))
	if err != nil {
		return nil
	}
	names := make([]string, len(st.Topics))
	for i, t := range st.Topics {
		names[i] = t.Name
	}
	return names
}
