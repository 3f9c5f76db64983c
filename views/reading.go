package views

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/a-h/templ"

	"github.com/morningdeck/morningdeck/app"
)

func urlQueryEscape(s string) string { return url.QueryEscape(s) }

func boolValue(b bool) string { return strconv.FormatBool(b) }

func minScoreValue(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

func sortDefaultLabel(searching bool) string {
	if searching {
		return "Relevance"
	}
	return "Newest"
}

// pagerLabel names the page links: by date they lead to newer and older items, in other orders
// to the previous and next page.
func (v ItemsPageView) pagerLabel(prev bool) string {
	byDate := v.Filter.Sort == "date" || (v.Filter.Sort == "" && !v.Searching)
	switch {
	case byDate && prev:
		return "Newer"
	case byDate:
		return "Older"
	case prev:
		return "Previous"
	}
	return "Next"
}

// keyFor is the keyboard shortcut that presses a toggle (see static/app.js).
func keyFor(action string) string {
	return map[string]string{"star": "s", "read": "m"}[action]
}

// items is the river: filters, search and paging kept in the URL so a view can be bookmarked.
func (s *Server) items(w http.ResponseWriter, r *http.Request) {
	srcs, err := s.sourceNames(r)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	q := r.URL.Query()
	// The page's own parameters: source (an id) and show; the rest as the API has them.
	if v := q.Get("source"); v != "" {
		q.Set("sourceId", v)
	}
	f, err := itemFilter(r, q)
	if err != nil {
		f = app.ItemFilter{UserID: userID(r)} // a hand-edited URL: show the defaults
	}
	f.Limit = itemsPerPage + 1 // one more tells whether there is a next page
	v := ItemsPageView{Sources: srcs, AllSources: len(srcs), Filter: f, Show: q.Get("show"), Searching: f.Q != ""}
	if v.Show == "" {
		v.Show = "unread"
		if v.Searching || f.Tag != "" || f.Topic != "" {
			v.Show = "all"
		}
	}
	switch v.Show {
	case "unread":
		f.Unread = true
	case "starred":
		f.Starred = true
	case "flagged":
		f.Hidden = true
	case "errors":
		f.Status = app.ItemError
	default:
		v.Show = "all"
	}
	for _, src := range srcs {
		if src.ID == f.SourceID {
			v.SourceName = src.Name
		}
	}
	// A picker of thousands of sources is neither quick to send nor to use: past
	// maxSourceChoices it offers the current source only and points to the Sources page.
	if len(srcs) > maxSourceChoices {
		v.Sources = nil
		for _, src := range srcs {
			if src.ID == f.SourceID {
				v.Sources = append(v.Sources, src)
			}
		}
	}
	if s.opts.Settings != nil {
		if st, err := s.opts.Settings.Get(r.Context(), userID(r)); err == nil {
			for _, t := range st.Topics {
				v.Topics = append(v.Topics, t.Name)
			}
		}
	}
	var items []*app.Item
	if v.AllSources > 0 {
		if items, err = s.opts.Sources.Items(r.Context(), f); err != nil {
			s.serverError(w, r, err)
			return
		}
	}
	link := func(offset int) string {
		vals := url.Values{}
		for _, k := range []string{"q", "show", "source", "topic", "tag", "minScore", "sort"} {
			vals.Set(k, r.URL.Query().Get(k))
		}
		return pageLink("/items", vals, offset)
	}
	v.Here = link(f.Offset)
	if len(items) > itemsPerPage {
		items = items[:itemsPerPage]
		v.NextHref = link(f.Offset + itemsPerPage)
	}
	if f.Offset > 0 {
		v.PrevHref = link(max(f.Offset-itemsPerPage, 0))
	}
	v.Items = s.itemViews(items)
	s.render(w, r, itemsPage(s.page(w, r, "items", "Items"), v))
}

func (s *Server) loadItem(w http.ResponseWriter, r *http.Request) (*app.Item, bool) {
	id, ok := pathID(r)
	if !ok || s.opts.Reading == nil {
		s.notFound(w, r)
		return nil, false
	}
	it, err := s.opts.Reading.Item(r.Context(), userID(r), id)
	if err != nil {
		s.appError(w, r, err)
		return nil, false
	}
	return it, true
}

// itemPage shows an item at reading width and marks it read.
func (s *Server) itemPage(w http.ResponseWriter, r *http.Request) {
	it, ok := s.loadItem(w, r)
	if !ok {
		return
	}
	if it.ReadAt == nil {
		if opened, err := s.opts.Reading.Open(r.Context(), userID(r), it.ID); err == nil {
			it = opened
		}
	}
	v := ItemPageView{Item: s.itemView(it, "")}
	if len(it.Topics) > 0 {
		v.Topic = it.Topics[0]
		related, err := s.opts.Reading.Items(r.Context(), app.ItemFilter{UserID: userID(r), Topic: v.Topic, Limit: 6})
		if err == nil {
			for _, o := range related {
				if o.ID != it.ID && len(v.Related) < 5 {
					v.Related = append(v.Related, s.itemView(o, ""))
				}
			}
		}
	}
	s.render(w, r, itemPage(s.page(w, r, "items", it.Title), v))
}

// toggleItem flips star, read or hidden; with htmx it answers with the re-rendered card.
func (s *Server) toggleItem(action string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		it, ok := s.loadItem(w, r)
		if !ok {
			return
		}
		on := r.PostFormValue("on") != "false"
		var u app.ItemUpdate
		switch action {
		case "star":
			u.Starred = &on
		case "read":
			u.Read = &on
		case "hide":
			u.Hidden = &on
		}
		it, err := s.opts.Reading.Update(r.Context(), userID(r), it.ID, u)
		if err != nil {
			s.appError(w, r, err)
			return
		}
		here := back(r, "/items")
		if r.Header.Get("HX-Request") == "true" {
			card := itemCard(s.itemView(it, ""), true, false, here)
			if c, err := s.opts.Reading.Counts(r.Context(), userID(r)); err == nil {
				card = templ.Join(card, unreadBadge(c.Unread, true)) // the sidebar's count follows
			}
			s.render(w, r, card)
			return
		}
		s.redirect(w, r, here, Flash{})
	}
}

func (s *Server) retryItem(w http.ResponseWriter, r *http.Request) {
	it, ok := s.loadItem(w, r)
	if !ok {
		return
	}
	if err := s.opts.Reading.Retry(r.Context(), userID(r), it.ID); err != nil {
		s.redirect(w, r, back(r, "/items"), flashError(app.ErrorMessage(err)))
		return
	}
	s.redirect(w, r, back(r, "/items"), flashSuccess("Queued for processing again."))
}

func (s *Server) markAllRead(w http.ResponseWriter, r *http.Request) {
	if s.opts.Reading == nil {
		s.notFound(w, r)
		return
	}
	src, _ := strconv.ParseInt(r.PostFormValue("source"), 10, 64)
	n, err := s.opts.Reading.MarkAllRead(r.Context(), userID(r), src)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	s.redirect(w, r, back(r, "/items"), flashSuccess(fmt.Sprintf("%s marked as read.", countWords(n, "item", "items"))))
}

// settingsPage shows interests, topics, the enricher, credits and filter rules.
func (s *Server) settingsPage(w http.ResponseWriter, r *http.Request) {
	s.renderSettings(w, r, http.StatusOK, nil, FilterForm{})
}

func (s *Server) renderSettings(w http.ResponseWriter, r *http.Request, status int, form *SettingsView, ff FilterForm) {
	if s.opts.Settings == nil {
		s.comingSoon("settings")(w, r)
		return
	}
	st, err := s.opts.Settings.Get(r.Context(), userID(r))
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	v := SettingsView{Interests: st.Interests, Topics: app.FormatTopics(st.Topics), Enricher: st.Enricher, Info: s.opts.Enricher,
		Credits: st.Credits, DailyCredits: strconv.Itoa(st.DailyCredits), Timezone: st.Timezone, FilterForm: ff,
		LLMBaseURL: st.LLMBaseURL, LLMModel: st.LLMModel, LLMKeySet: st.LLMAPIKey != "", CanTestLLM: s.opts.TestLLM != nil, CanTestEmail: s.opts.Deliveries != nil,
		SMTPHost: st.SMTPHost, SMTPPort: portValue(st.SMTPPort), SMTPUsername: st.SMTPUsername, SMTPPassSet: st.SMTPPassword != "", SMTPFrom: st.SMTPFrom, SMTPTLS: st.SMTPTLS,
		LLMAvailable: s.opts.Enricher.LLMConfigured || st.LLMModel != "" || st.Enricher == app.EnricherLLM,
		DataCare:     s.opts.DataCare, Admin: currentUser(r).Admin}
	if v.Enricher == "" {
		v.Enricher = s.opts.Enricher.Default
	}
	if form != nil { // a failed save: show what the user typed
		v.Interests, v.Topics, v.Enricher, v.DailyCredits, v.Timezone, v.Error = form.Interests, form.Topics, form.Enricher, form.DailyCredits, form.Timezone, form.Error
		v.LLMBaseURL, v.LLMModel = form.LLMBaseURL, form.LLMModel
	}
	if v.Filters, err = s.opts.Reading.Filters(r.Context(), userID(r)); err != nil {
		s.serverError(w, r, err)
		return
	}
	if v.Sources, err = s.sourceNames(r); err != nil {
		s.serverError(w, r, err)
		return
	}
	s.renderStatus(w, r, status, settingsPage(s.page(w, r, "settings", "Settings"), v))
}

func (s *Server) saveSettings(w http.ResponseWriter, r *http.Request) {
	if s.opts.Settings == nil {
		s.notFound(w, r)
		return
	}
	form := &SettingsView{Interests: r.PostFormValue("interests"), Topics: r.PostFormValue("topics"), Enricher: r.PostFormValue("enricher"),
		DailyCredits: strings.TrimSpace(r.PostFormValue("dailyCredits")), Timezone: strings.TrimSpace(r.PostFormValue("timezone")),
		LLMBaseURL: r.PostFormValue("llmBaseUrl"), LLMModel: r.PostFormValue("llmModel")}
	topics := app.ParseTopics(form.Topics)
	u := app.SettingsUpdate{Interests: &form.Interests, Topics: &topics, Timezone: &form.Timezone}
	if _, ok := r.PostForm["llmModel"]; ok {
		u.LLMBaseURL, u.LLMModel = &form.LLMBaseURL, &form.LLMModel
	}
	// A blank key field keeps the stored key (it is never sent to the page); "clear" removes it.
	if key := r.PostFormValue("llmApiKey"); key != "" {
		u.LLMAPIKey = &key
	} else if r.PostFormValue("llmApiKeyClear") == "on" {
		u.LLMAPIKey = &key
	}
	if form.Enricher != "" {
		u.Enricher = &form.Enricher
	}
	if form.DailyCredits != "" {
		n, err := strconv.Atoi(form.DailyCredits)
		if err != nil {
			form.Error = "Credits per day must be a whole number."
			s.renderSettings(w, r, http.StatusUnprocessableEntity, form, FilterForm{})
			return
		}
		u.DailyCredits = &n
	}
	if _, err := s.opts.Settings.Update(r.Context(), userID(r), u); err != nil {
		if app.ErrorCode(err) != app.EINVALID {
			s.serverError(w, r, err)
			return
		}
		form.Error = app.ErrorMessage(err)
		s.renderSettings(w, r, http.StatusUnprocessableEntity, form, FilterForm{})
		return
	}
	s.redirect(w, r, "/settings", flashSuccess("Settings saved. New items are scored with them."))
}

func (s *Server) testLLM(w http.ResponseWriter, r *http.Request) {
	if s.opts.TestLLM == nil {
		s.redirect(w, r, "/settings", flashError("No LLM is configured: start Morning Deck with --llm-model (and --llm-base-url)."))
		return
	}
	if err := s.opts.TestLLM(r.Context(), userID(r)); err != nil {
		s.redirect(w, r, "/settings", flashError("The LLM test failed: "+err.Error()))
		return
	}
	s.redirect(w, r, "/settings", flashSuccess("The LLM answered. Connection, model and key work."))
}

func filterFromForm(r *http.Request) (*app.Filter, FilterForm) {
	ff := FilterForm{Name: r.PostFormValue("name"), Field: r.PostFormValue("field"), Match: r.PostFormValue("match"), Pattern: r.PostFormValue("pattern"),
		Action: r.PostFormValue("action"), ScoreDelta: strings.TrimSpace(r.PostFormValue("scoreDelta")), SourceID: r.PostFormValue("sourceId")}
	f := &app.Filter{Name: ff.Name, Field: ff.Field, Match: ff.Match, Pattern: ff.Pattern, Action: ff.Action, Enabled: true}
	if ff.ScoreDelta != "" {
		n, err := strconv.Atoi(strings.TrimPrefix(ff.ScoreDelta, "+"))
		if err != nil {
			ff.Error = "The score change must be a whole number between -100 and 100."
		}
		f.ScoreDelta = n
	}
	if id, err := strconv.ParseInt(ff.SourceID, 10, 64); err == nil && id > 0 {
		f.SourceID = &id
	}
	return f, ff
}

func (s *Server) addFilter(w http.ResponseWriter, r *http.Request) {
	if s.opts.Reading == nil {
		s.notFound(w, r)
		return
	}
	f, ff := filterFromForm(r)
	if ff.Error == "" {
		if err := s.opts.Reading.AddFilter(r.Context(), userID(r), f); err != nil {
			if app.ErrorCode(err) != app.EINVALID {
				s.serverError(w, r, err)
				return
			}
			ff.Error = app.ErrorMessage(err)
		}
	}
	if ff.Error != "" {
		s.renderSettings(w, r, http.StatusUnprocessableEntity, nil, ff)
		return
	}
	s.redirect(w, r, "/settings", flashSuccess("Rule added. It applies to new items."))
}

// previewFilter says, live, how many recent items a rule would match (an htmx fragment).
func (s *Server) previewFilter(w http.ResponseWriter, r *http.Request) {
	if s.opts.Reading == nil {
		s.notFound(w, r)
		return
	}
	f, ff := filterFromForm(r)
	v := FilterPreviewView{Error: ff.Error}
	if strings.TrimSpace(f.Pattern) == "" {
		s.render(w, r, filterPreview(FilterPreviewView{Error: "Type words or an expression to see what the rule would match."}))
		return
	}
	if v.Error == "" {
		n, items, err := s.opts.Reading.PreviewFilter(r.Context(), userID(r), f)
		if err != nil {
			if app.ErrorCode(err) != app.EINVALID {
				s.serverError(w, r, err)
				return
			}
			v.Error = app.ErrorMessage(err)
		}
		v.Matches = n
		for i, it := range items {
			if i == 5 {
				break
			}
			v.Titles = append(v.Titles, it.Title)
		}
	}
	s.render(w, r, filterPreview(v))
}

func (s *Server) deleteFilter(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r)
	if !ok || s.opts.Reading == nil {
		s.notFound(w, r)
		return
	}
	if err := s.opts.Reading.DeleteFilter(r.Context(), userID(r), id); err != nil {
		s.redirect(w, r, "/settings", flashError(app.ErrorMessage(err)))
		return
	}
	s.redirect(w, r, "/settings", flashSuccess("Rule deleted."))
}

// ruleText says a rule in words.
func ruleText(f *app.Filter, srcs []app.SourceName) string {
	field := map[string]string{"any": "anything", "title": "the title", "content": "the text", "author": "the author", "link": "the link", "tags": "the tags", "topics": "the topics"}[f.Field]
	how := "mentions any of “" + f.Pattern + "”"
	if f.Match == "regex" {
		how = "matches /" + f.Pattern + "/"
	}
	out := "When " + field + " " + how
	if f.SourceID != nil {
		for _, s := range srcs {
			if s.ID == *f.SourceID {
				out += " (in " + s.Name + ")"
			}
		}
	}
	return out
}

func actionText(f *app.Filter) string {
	switch f.Action {
	case app.FilterHide:
		return "hide it"
	case app.FilterRead:
		return "mark it read"
	case app.FilterStar:
		return "star it"
	}
	return fmt.Sprintf("score %+d", f.ScoreDelta)
}

func keyPlaceholder(set bool) string {
	if set {
		return "•••••• stored (leave blank to keep)"
	}
	return "none"
}

func portValue(p int) string {
	if p == 0 {
		return ""
	}
	return strconv.Itoa(p)
}

// saveEmail stores the user's SMTP settings; a blank password keeps the stored one.
func (s *Server) saveEmail(w http.ResponseWriter, r *http.Request) {
	if s.opts.Settings == nil {
		s.notFound(w, r)
		return
	}
	host, user, from, tlsMode := r.PostFormValue("smtpHost"), r.PostFormValue("smtpUsername"), r.PostFormValue("smtpFrom"), r.PostFormValue("smtpTls")
	u := app.SettingsUpdate{SMTPHost: &host, SMTPUsername: &user, SMTPFrom: &from, SMTPTLS: &tlsMode}
	port := 0
	if v := strings.TrimSpace(r.PostFormValue("smtpPort")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			s.redirect(w, r, "/settings", flashError("The SMTP port must be a number."))
			return
		}
		port = n
	}
	u.SMTPPort = &port
	if pass := r.PostFormValue("smtpPassword"); pass != "" {
		u.SMTPPassword = &pass
	}
	if _, err := s.opts.Settings.Update(r.Context(), userID(r), u); err != nil {
		if app.ErrorCode(err) != app.EINVALID {
			s.serverError(w, r, err)
			return
		}
		s.redirect(w, r, "/settings", flashError(app.ErrorMessage(err)))
		return
	}
	s.redirect(w, r, "/settings", flashSuccess("Email settings saved."))
}
