package views

import (
	"cmp"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/a-h/templ"
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
		v := q.Get(name)
		if v == "" {
			return nil
		}
		b, ok := parseBool(v)
		if !ok {
			return app.Errorf(app.EINVALID, "%s must be true or false.", name)
		}
		*dst = b
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
	if v := q.Get("folderId"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id < 1 {
			return f, app.Errorf(app.EINVALID, "folderId must be a folder's id.")
		}
		f.FolderID = id
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

// itemsPageFilter reads the Items page's parameters (listKeys and offset): source and folder
// are ids, show is a view (unread, all, starred, errors, flagged; by default unread, or all
// for a search, a tag or a topic) and the rest are as the API has them. The page and an item
// page's next and previous (itemnav.go) share it. A parameter that is not valid gives the
// defaults with the error.
func itemsPageFilter(r *http.Request, q url.Values) (f app.ItemFilter, show string, err error) {
	api := url.Values{}
	for page, param := range map[string]string{"q": "q", "topic": "topic", "tag": "tag", "minScore": "minScore", "sort": "sort",
		"offset": "offset", "source": "sourceId", "folder": "folderId"} {
		if v := q.Get(page); v != "" {
			api.Set(param, v)
		}
	}
	if f, err = itemFilter(r, api); err != nil {
		f = app.ItemFilter{UserID: userID(r), Limit: defaultItemLimit}
	}
	show = q.Get("show")
	if show == "" {
		show = "unread"
		if f.Q != "" || f.Tag != "" || f.Topic != "" {
			show = "all"
		}
	}
	switch show {
	case "unread":
		f.Unread = true
	case "starred":
		f.Starred = true
	case "flagged":
		f.Hidden = true
	case "errors":
		f.Status = app.ItemError
	default:
		show = "all"
	}
	return f, show, err
}

func (s *Server) itemViews(r *http.Request, items []*app.Item) []ItemView {
	out := make([]ItemView, 0, len(items))
	to := s.saveTo(r)
	for _, it := range items {
		name := it.SourceName // the source's name, or its address when it has none
		if strings.Contains(name, "://") {
			name = hostOf(name)
		}
		v := s.itemViewOf(it, name)
		v.SaveTo = to
		out = append(out, v)
	}
	return out
}

// today is the home page: onboarding on the first start, the newest items afterwards.
func (s *Server) today(w http.ResponseWriter, r *http.Request) {
	sum, err := s.sourceSummary(r)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	if sum.Total == 0 {
		bs, listed := s.briefings(r)
		s.render(w, r, onboardingPage(s.page(w, r, "today", "Welcome"), AddForm{Onboarding: true}, s.opts.ImportOPML != nil, s.firstSteps(r, bs, listed)))
		return
	}
	// Since your last visit: what is unread, best first (then newest); of one folder with ?folder=ID.
	folderID, _ := strconv.ParseInt(r.URL.Query().Get("folder"), 10, 64)
	items, err := s.opts.Sources.Items(r.Context(), app.ItemFilter{UserID: userID(r), Unread: true, Sort: "score", Limit: todayItems, FolderID: max(folderID, 0)})
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	v := TodayView{Date: s.clock.Now().Format("Monday 2 January"), SourceCount: sum.Total, ErrorSources: sum.Errors, BusySources: sum.Busy,
		Items: s.itemViews(r, items), FolderID: folderID}
	if sum.Offline() {
		v.Unreachable = sum.Unreachable
	}
	placeInList(v.Items, r.URL.Query(), "today", 0, s.clock.Now())
	bs, listed := s.briefings(r)
	for _, b := range bs {
		// The latest report with stories is the one offered: an empty run does not hide it.
		if reps, err := s.opts.Briefings.Reports(r.Context(), userID(r), b.ID, 5); err == nil && len(reps) > 0 {
			rep := app.LatestNonEmpty(reps)
			v.Reports = append(v.Reports, TodayReport{ID: rep.ID, Name: b.Name, Overview: rep.Overview, When: s.timeView(&rep.GeneratedAt),
				Stories: rep.Stories(), NewerEmpty: rep != reps[0]})
		}
	}
	v.Steps = s.firstSteps(r, bs, listed)
	p := s.page(w, r, "today", "Today")
	v.Folders = p.Folders // counted once a request: the sidebar's list serves the picker too
	s.render(w, r, todayPage(p, v))
}

// briefings lists the user's briefings; listed is false when there is no briefing service or
// the list cannot be read.
func (s *Server) briefings(r *http.Request) (bs []*app.Briefing, listed bool) {
	if s.opts.Briefings == nil {
		return nil, false
	}
	bs, err := s.opts.Briefings.List(r.Context(), userID(r))
	return bs, err == nil
}

// firstSteps says which of the first steps the user has not taken, given their briefings (bs,
// when listed): none that cannot be known (no service, or a store that cannot be read).
func (s *Server) firstSteps(r *http.Request, bs []*app.Briefing, listed bool) FirstSteps {
	st := FirstSteps{Briefing: listed && len(bs) == 0}
	if s.opts.Settings != nil {
		if set, err := s.opts.Settings.Get(r.Context(), userID(r)); err == nil {
			st.Interests = strings.TrimSpace(set.Interests) == "" && len(set.Topics) == 0
		}
	}
	return st
}

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

// markAllQuestion asks before "Mark all as read", naming what it marks: the source's, the
// folder's or every unread item, whatever else the list is filtered by.
func (v ItemsPageView) markAllQuestion() string {
	switch {
	case v.Filter.SourceID != 0 && v.SourceName != "":
		return fmt.Sprintf("Mark every unread item of %s as read?", v.SourceName)
	case v.Filter.SourceID != 0:
		return "Mark every unread item of this source as read?"
	case v.Filter.FolderID > 0 && v.FolderName != "":
		return fmt.Sprintf("Mark every unread item in the folder %s as read?", v.FolderName)
	case v.Filter.FolderID > 0:
		return "Mark every unread item in this folder as read?"
	}
	return "Mark every unread item, of every source, as read?"
}

// keyFor is the keyboard shortcut that presses a toggle (see static/app.js).
func keyFor(action string) string {
	return map[string]string{"star": "s", "read": "m"}[action]
}

// items is the river: filters, search and paging kept in the URL so a view can be bookmarked.
func (s *Server) items(w http.ResponseWriter, r *http.Request) {
	sum, err := s.sourceSummary(r)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	f, show, _ := itemsPageFilter(r, r.URL.Query()) // a hand-edited URL shows the defaults
	f.Limit = itemsPerPage + 1                      // one more tells whether there is a next page
	v := ItemsPageView{AllSources: sum.Total, Filter: f, Show: show, Searching: f.Q != ""}
	// A picker of thousands of sources is neither quick to send nor to use (nor to read from
	// the store at every page): past maxSourceChoices it offers the current source only and
	// points to the Sources page.
	if sum.Total <= maxSourceChoices {
		if v.Sources, err = s.sourceNames(r); err != nil {
			s.serverError(w, r, err)
			return
		}
	} else if f.SourceID != 0 {
		if src, err := s.opts.Sources.Get(r.Context(), userID(r), f.SourceID); err == nil {
			v.Sources = []app.SourceName{{ID: src.ID, Name: cmp.Or(src.Name, hostOf(src.URL))}}
		}
	}
	for _, src := range v.Sources {
		if src.ID == f.SourceID {
			v.SourceName = src.Name
		}
	}
	p := s.page(w, r, "items", "Items")
	v.Folders = p.Folders // counted once a request: the sidebar's list serves the picker too
	for _, fo := range v.Folders {
		if fo.ID == f.FolderID {
			v.FolderName = fo.Name
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
		if items, err = s.opts.Sources.Items(r.Context(), f); errors.Is(err, app.ErrNothingToSearch) {
			v.SearchErr = app.ErrorMessage(err) // said on the page, with the search box to retry
		} else if err != nil {
			s.serverError(w, r, err)
			return
		}
	}
	link := func(offset int) string {
		vals := url.Values{}
		for _, k := range listKeys {
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
	v.Items = s.itemViews(r, items)
	placeInList(v.Items, r.URL.Query(), "", f.Offset, s.clock.Now())
	s.render(w, r, itemsPage(p, v))
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
	switch {
	case offlineCopy(r): // kept for reading offline, not opened
	case it.ReadAt == nil:
		if opened, err := s.opts.Reading.Open(r.Context(), userID(r), it.ID); err == nil {
			it = opened
		}
	default:
		s.opts.Feedback.Signal(r.Context(), userID(r), it.ID, app.SignalOpened)
	}
	it.UsualTopics = s.opts.Feedback.UsualTopics(r.Context(), userID(r), it)
	v := ItemPageView{Item: s.itemView(r, it, "")}
	v.Nav = s.itemNav(r, it.ID)
	if len(it.Topics) > 0 {
		v.Topic = it.Topics[0]
		related, err := s.opts.Reading.Items(r.Context(), app.ItemFilter{UserID: userID(r), Topic: v.Topic, Limit: 6})
		if err == nil {
			for _, o := range related {
				if o.ID != it.ID && len(v.Related) < 5 {
					v.Related = append(v.Related, s.itemView(r, o, ""))
				}
			}
		}
	}
	s.render(w, r, itemPage(s.page(w, r, "items", it.Title), v))
}

// parseBool reads a yes-or-no parameter: 1, true, yes, on or 0, false, no, off.
func parseBool(v string) (b, ok bool) {
	switch v {
	case "1", "true", "yes", "on":
		return true, true
	case "0", "false", "no", "off":
		return false, true
	}
	return false, false
}

// toggleItem flips star, read or hidden; with htmx it answers with the re-rendered card.
func (s *Server) toggleItem(action string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		it, ok := s.loadItem(w, r)
		if !ok {
			return
		}
		on, ok := true, true // the buttons send true or false; no value sets it
		if v := r.PostFormValue("on"); v != "" {
			on, ok = parseBool(v)
		}
		if !ok {
			s.appError(w, r, app.Errorf(app.EINVALID, "on must be true or false."))
			return
		}
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
			card := itemCard(s.itemView(r, it, ""), true, false, here)
			if c, err := s.opts.Reading.Counts(r.Context(), userID(r), app.NavUnreadCap); err == nil {
				card = templ.Join(card, unreadBadge(c.Unread, true)) // the sidebar's count follows
			}
			s.render(w, r, card)
			return
		}
		s.redirect(w, r, here, Flash{})
	}
}

// fullText fetches the page an item links to and stores its article as the item's content
// (Reading.FullText). With htmx it answers the part it replaces, the item page's article
// (HX-Target article-ID) or the card, opened on the article, or with why the page could not be
// read; without, it leads to the item's page, with that reason as a flash.
func (s *Server) fullText(w http.ResponseWriter, r *http.Request) {
	it, ok := s.loadItem(w, r)
	if !ok {
		return
	}
	got, err := s.opts.Reading.FullText(r.Context(), userID(r), it.ID)
	if err != nil && app.ErrorCode(err) != app.EINVALID {
		s.appError(w, r, err)
		return
	}
	if r.Header.Get("HX-Request") != "true" {
		if err != nil {
			s.redirect(w, r, s.itemView(r, it, "").Href(), flashError(app.ErrorMessage(err)))
			return
		}
		s.redirect(w, r, s.itemView(r, got, "").Href(), Flash{})
		return
	}
	if got == nil {
		got = it
	}
	v := s.itemView(r, got, "")
	if err != nil {
		v.FullTextError = app.ErrorMessage(err)
	}
	if strings.HasPrefix(r.Header.Get("HX-Target"), "article-") {
		if err != nil {
			s.render(w, r, articleRegion(v))
			return
		}
		s.render(w, r, templ.Join(articleRegion(v), fullTextDone(v.ID)))
		return
	}
	v.ShowArticle = err == nil
	s.render(w, r, itemCard(v, true, false, back(r, "/items")))
}

// saveItem sends the item to the user's webhook and Wallabag (Saving.Save). With htmx it
// answers the card saying what was done or what failed; otherwise a message and back.
func (s *Server) saveItem(w http.ResponseWriter, r *http.Request) {
	if s.opts.Saving == nil {
		s.notFound(w, r)
		return
	}
	it, ok := s.loadItem(w, r)
	if !ok {
		return
	}
	done, err := s.opts.Saving.Save(r.Context(), userID(r), it.ID)
	if err != nil && app.ErrorCode(err) != app.EINVALID {
		s.appError(w, r, err)
		return
	}
	if r.Header.Get("HX-Request") != "true" {
		if err != nil {
			s.redirect(w, r, back(r, "/items"), flashError(app.ErrorMessage(err)))
			return
		}
		s.redirect(w, r, back(r, "/items"), flashSuccess(done))
		return
	}
	v := s.itemView(r, it, "")
	v.Saved = done
	if err != nil {
		v.Saved, v.SaveFailed = app.ErrorMessage(err), true
	}
	s.render(w, r, itemCard(v, true, false, back(r, "/items")))
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
	n, err := s.opts.Reading.MarkScopeRead(r.Context(), userID(r), formScopeID(r, "source"), formScopeID(r, "folder"))
	if err != nil {
		s.appError(w, r, err)
		return
	}
	s.redirect(w, r, back(r, "/items"), flashSuccess(fmt.Sprintf("%s marked as read.", countWords(n, "item", "items"))))
}

// formScopeID is the mark-all-read form's source or folder; the Items page's form writes 0 for
// none.
func formScopeID(r *http.Request, name string) app.ScopeID {
	v := r.PostFormValue(name)
	if v == "0" {
		v = ""
	}
	return app.ScopeID{Name: name, Text: v}
}
