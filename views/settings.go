package views

import (
	"cmp"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/morningdeck/morningdeck/app"
)

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
		DataCare:     s.opts.DataCare, Admin: currentUser(r).Admin, MarkReadOnScroll: st.MarkReadOnScroll, Compact: st.Density == app.DensityCompact,
		CanSave: s.opts.Saving != nil, WebhookURL: st.WebhookURL, WebhookSecret: st.WebhookSecret, WallabagURL: st.WallabagURL,
		WallabagClientID: st.WallabagClientID, WallabagUsername: st.WallabagUsername, WallabagSet: st.WallabagAccount().Set()}
	if v.Enricher == "" {
		v.Enricher = s.opts.Enricher.Default
	}
	if form != nil { // a failed save: show what the user typed
		v.Interests, v.Topics, v.Enricher, v.DailyCredits, v.Timezone, v.Error = form.Interests, form.Topics, form.Enricher, form.DailyCredits, form.Timezone, form.Error
		v.LLMBaseURL, v.LLMModel = form.LLMBaseURL, form.LLMModel
	}
	v.Learned = s.learned(r)
	v.CanSuggestWords = s.opts.Vocabulary != nil && strings.TrimSpace(v.Interests) != ""
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

// saveInterests saves the interests alone (Today's first steps), leaving every other setting as
// it is, and goes back where the form was.
func (s *Server) saveInterests(w http.ResponseWriter, r *http.Request) {
	if s.opts.Settings == nil {
		s.notFound(w, r)
		return
	}
	interests := r.PostFormValue("interests")
	to := back(r, "/settings")
	if strings.TrimSpace(interests) == "" {
		s.redirect(w, r, to, flashError("Say what you want to read about: a few words or phrases, such as \"sqlite, go, cycling\"."))
		return
	}
	if _, err := s.opts.Settings.Update(r.Context(), userID(r), app.SettingsUpdate{Interests: &interests}); err != nil {
		if app.ErrorCode(err) != app.EINVALID {
			s.serverError(w, r, err)
			return
		}
		s.redirect(w, r, to, flashError(app.ErrorMessage(err)))
		return
	}
	s.redirect(w, r, to, flashSuccess("Interests saved: your items are being scored with them. Change them any time in Settings."))
}

func (s *Server) saveSettings(w http.ResponseWriter, r *http.Request) {
	if s.opts.Settings == nil {
		s.notFound(w, r)
		return
	}
	form := &SettingsView{Interests: r.PostFormValue("interests"), Topics: r.PostFormValue("topics"), Enricher: r.PostFormValue("enricher"),
		DailyCredits: strings.TrimSpace(r.PostFormValue("dailyCredits")), Timezone: strings.TrimSpace(r.PostFormValue("timezone")),
		LLMBaseURL: r.PostFormValue("llmBaseUrl"), LLMModel: r.PostFormValue("llmModel")}
	if len(r.PostForm) == 0 {
		s.redirect(w, r, "/settings", flashError("The form was empty, so nothing was saved."))
		return
	}
	// Only what the form holds changes: a post without a field leaves its setting as it is.
	var u app.SettingsUpdate
	if _, ok := r.PostForm["interests"]; ok {
		u.Interests = &form.Interests
	}
	if _, ok := r.PostForm["topics"]; ok {
		topics := app.ParseTopics(form.Topics)
		u.Topics = &topics
	}
	if _, ok := r.PostForm["timezone"]; ok {
		u.Timezone = &form.Timezone
	}
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

// saveReading saves the reading options: marking items read as they scroll past, and the
// lists' density.
func (s *Server) saveReading(w http.ResponseWriter, r *http.Request) {
	if s.opts.Settings == nil {
		s.notFound(w, r)
		return
	}
	onScroll := r.PostFormValue("markReadOnScroll") == "on"
	density := r.PostFormValue("density")
	if _, err := s.opts.Settings.Update(r.Context(), userID(r), app.SettingsUpdate{MarkReadOnScroll: &onScroll, Density: &density}); err != nil {
		if app.ErrorCode(err) != app.EINVALID {
			s.serverError(w, r, err)
			return
		}
		s.redirect(w, r, "/settings", flashError(app.ErrorMessage(err)))
		return
	}
	s.redirect(w, r, "/settings", flashSuccess("Reading options saved."))
}

// saveSaving saves where items are saved: the webhook (a secret is made with it) and the
// Wallabag account, which is signed in to before it is kept. Blank secret fields keep what is
// stored; "forget the account" clears it.
func (s *Server) saveSaving(w http.ResponseWriter, r *http.Request) {
	if s.opts.Saving == nil {
		s.notFound(w, r)
		return
	}
	_ = r.ParseForm()
	if len(r.PostForm) == 0 {
		s.redirect(w, r, "/settings#save-title", flashError("The form was empty, so nothing was saved."))
		return
	}
	var u app.SettingsUpdate
	field := func(name string) *string {
		if _, ok := r.PostForm[name]; !ok {
			return nil
		}
		v := r.PostFormValue(name)
		return &v
	}
	secret := func(name string) *string { // blank keeps the stored one
		if v := r.PostFormValue(name); v != "" {
			return &v
		}
		return nil
	}
	u.WebhookURL = field("webhookUrl")
	u.NewWebhookSecret = r.PostFormValue("newWebhookSecret") == "on"
	if r.PostFormValue("wallabagRemove") == "on" {
		empty := ""
		u.WallabagURL, u.WallabagClientID, u.WallabagClientSecret, u.WallabagUsername, u.WallabagPassword = &empty, &empty, &empty, &empty, &empty
	} else {
		u.WallabagURL, u.WallabagClientID, u.WallabagUsername = field("wallabagUrl"), field("wallabagClientId"), field("wallabagUsername")
		u.WallabagClientSecret, u.WallabagPassword = secret("wallabagClientSecret"), secret("wallabagPassword")
	}
	if _, err := s.opts.Saving.Configure(r.Context(), userID(r), u); err != nil {
		if app.ErrorCode(err) != app.EINVALID {
			s.serverError(w, r, err)
			return
		}
		s.redirect(w, r, "/settings#save-title", flashError(app.ErrorMessage(err)))
		return
	}
	s.redirect(w, r, "/settings#save-title", flashSuccess("Saved. \"Save\" on an item now sends it where you set up."))
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
	// Reading options: items marked read as they scroll past; "comfortable" or "compact" lists.
	MarkReadOnScroll bool   `json:"markReadOnScroll"`
	Density          string `json:"density"`
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
		SMTPHost: st.SMTPHost, SMTPPort: st.SMTPPort, SMTPUsername: st.SMTPUsername, SMTPPassSet: st.SMTPPassword != "", SMTPFrom: st.SMTPFrom, SMTPTLS: st.SMTPTLS,
		MarkReadOnScroll: st.MarkReadOnScroll, Density: cmp.Or(st.Density, "comfortable")}
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
	Interests        *string      `json:"interests"`
	Topics           *[]app.Topic `json:"topics"`
	Enricher         *string      `json:"enricher"`
	DailyCredits     *int         `json:"dailyCredits"`
	Timezone         *string      `json:"timezone"`
	LLMBaseURL       *string      `json:"llmBaseUrl"`
	LLMModel         *string      `json:"llmModel"`
	LLMAPIKey        *string      `json:"llmApiKey"`
	SMTPHost         *string      `json:"smtpHost"`
	SMTPPort         *int         `json:"smtpPort"`
	SMTPUsername     *string      `json:"smtpUsername"`
	SMTPPassword     *string      `json:"smtpPassword"`
	SMTPFrom         *string      `json:"smtpFrom"`
	SMTPTLS          *string      `json:"smtpTls"`
	MarkReadOnScroll *bool        `json:"markReadOnScroll"`
	Density          *string      `json:"density"`
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
	if req.Density != nil && *req.Density == "comfortable" {
		*req.Density = app.DensityComfortable
	}
	st, err := s.opts.Settings.Update(r.Context(), userID(r), app.SettingsUpdate{
		Interests: req.Interests, Topics: req.Topics, Enricher: req.Enricher, DailyCredits: req.DailyCredits, Timezone: req.Timezone,
		LLMBaseURL: req.LLMBaseURL, LLMModel: req.LLMModel, LLMAPIKey: req.LLMAPIKey,
		SMTPHost: req.SMTPHost, SMTPPort: req.SMTPPort, SMTPUsername: req.SMTPUsername, SMTPPassword: req.SMTPPassword, SMTPFrom: req.SMTPFrom, SMTPTLS: req.SMTPTLS,
		MarkReadOnScroll: req.MarkReadOnScroll, Density: req.Density})
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

func (s *Server) testEmail(w http.ResponseWriter, r *http.Request) {
	to := strings.TrimSpace(r.PostFormValue("to"))
	if s.opts.Deliveries == nil {
		s.redirect(w, r, "/settings", flashError("No SMTP server is configured: set MORNINGDECK_SMTP_HOST and MORNINGDECK_SMTP_FROM."))
		return
	}
	if to == "" {
		s.redirect(w, r, "/settings", flashError("Enter the address to send the test email to."))
		return
	}
	if !strings.Contains(to, "@") {
		s.redirect(w, r, "/settings", flashError(fmt.Sprintf("%q is not an email address (name@example.com).", to)))
		return
	}
	if err := s.opts.Deliveries.SendTest(r.Context(), userID(r), to); err != nil {
		s.redirect(w, r, "/settings", flashError("The test email failed: "+err.Error()))
		return
	}
	s.redirect(w, r, "/settings", flashSuccess("Test email sent to "+to+"."))
}
