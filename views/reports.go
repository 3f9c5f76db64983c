package views

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/render"
)

func (s *Server) apiBriefingReports(w http.ResponseWriter, r *http.Request) {
	id, ok := s.apiBriefingID(w, r)
	if !ok {
		return
	}
	if _, err := s.opts.Briefings.Get(r.Context(), userID(r), id); err != nil {
		s.apiError(w, r, err)
		return
	}
	reps, err := s.opts.Briefings.Reports(r.Context(), userID(r), id, 100)
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	if reps == nil {
		reps = []*app.Report{}
	}
	writeJSON(w, http.StatusOK, reps)
}

func (s *Server) apiGetReport(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r)
	if !ok || !s.briefingsOn(w, r) {
		if !ok {
			s.apiError(w, r, app.Errorf(app.ENOTFOUND, "Report %q not found.", r.PathValue("id")))
		}
		return
	}
	rep, err := s.opts.Briefings.Report(r.Context(), userID(r), id)
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	for i := range rep.Items {
		if rep.Items[i].AlsoCoveredBy == nil {
			rep.Items[i].AlsoCoveredBy = []app.Coverage{}
		}
	}
	if rep.Items == nil {
		rep.Items = []app.ReportItem{}
	}
	out := struct {
		*app.Report
		Deliveries []*app.Delivery `json:"deliveries"`
	}{Report: rep, Deliveries: []*app.Delivery{}}
	if s.opts.Deliveries != nil {
		if ds, err := s.opts.Deliveries.List(r.Context(), rep.ID); err == nil && ds != nil {
			out.Deliveries = ds
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// ReportView is a report made for display.
type ReportView struct {
	Report     *app.Report
	Briefing   *app.Briefing
	FeedURL    string // the briefing's Atom feed, with its token when sign-in is required
	Period     string
	Deliveries []*app.Delivery
	// Body is the report's stories, rendered by render.ReportHTML (the one rendering of a report,
	// shared with the email and the Atom feed) with this page's classes and feedback buttons.
	Body string
}

func (s *Server) reportPage(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r)
	if !ok || s.opts.Briefings == nil {
		s.notFound(w, r)
		return
	}
	rep, b, err := s.opts.Briefings.OpenReport(r.Context(), userID(r), id)
	if err != nil {
		s.appError(w, r, err)
		return
	}
	loc := app.Location(b.Timezone)
	v := ReportView{Report: rep, Briefing: b, FeedURL: s.feedURL(r, b.ID),
		Period: rep.PeriodStart.In(loc).Format("Mon 2 Jan 15:04") + " – " + rep.PeriodEnd.In(loc).Format("Mon 2 Jan 15:04 MST")}
	if s.opts.Deliveries != nil {
		v.Deliveries, _ = s.opts.Deliveries.List(r.Context(), rep.ID)
	}
	v.Body = render.ReportHTML(b, rep, loc, render.HTMLStyle{Page: true, After: s.reportFeedback(r.Context(), rep.ID)})
	s.render(w, r, reportPage(s.page(w, r, "briefings", b.Name), v))
}

// reportFeedback ends each story of a report's page with the items' "More like this" and
// "Less like this" buttons (feedbackButtons, as on items), which come back to the report.
func (s *Server) reportFeedback(ctx context.Context, reportID int64) func(app.ReportItem) string {
	return func(it app.ReportItem) string {
		if it.ItemID == nil || s.opts.Feedback == nil {
			return ""
		}
		var b strings.Builder
		if err := feedbackButtons(ItemView{ID: *it.ItemID}, "/reports/"+strconv.FormatInt(reportID, 10)).Render(ctx, &b); err != nil {
			return ""
		}
		return `<div class="item-actions">` + b.String() + `</div>`
	}
}

// baseURL is the app's address as the request reached it, for links in feeds.
func baseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil || r.Header.Get("X-Forwarded-Proto") == "https" {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// briefingFeed publishes a briefing's reports as Atom, for any feed reader.
func (s *Server) briefingFeed(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r)
	if !ok || s.opts.Briefings == nil {
		s.notFound(w, r)
		return
	}
	uid := userID(r)
	if _, signedIn := r.Context().Value(userKey{}).(*app.User); s.opts.RequireLogin && !signedIn {
		// A feed reader has no session: the feed's URL carries the briefing's secret token.
		if s.opts.Accounts == nil || !s.opts.Accounts.CheckFeedToken(r.Context(), id, r.URL.Query().Get("token")) {
			s.notFound(w, r)
			return
		}
		uid = 0 // the token stands for the briefing's owner
	}
	b, full, err := s.opts.Briefings.Feed(r.Context(), uid, id, 20)
	if err != nil {
		s.appError(w, r, err)
		return
	}
	out, err := render.ReportsAtom(b, full, baseURL(r), baseURL(r)+r.URL.RequestURI(), app.Location(b.Timezone))
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/atom+xml; charset=utf-8")
	_, _ = w.Write(out)
}

// reportMarkdown is the Markdown export of a report.
func (s *Server) reportMarkdown(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r)
	if !ok || s.opts.Briefings == nil {
		s.notFound(w, r)
		return
	}
	rep, b, err := s.opts.Briefings.ReportWithBriefing(r.Context(), userID(r), id)
	if err != nil {
		s.appError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.Header().Set("Content-Disposition", fmt.Sprintf(`attachment; filename="report-%d.md"`, rep.ID))
	_, _ = w.Write([]byte(render.ReportMarkdown(b, rep, app.Location(b.Timezone))))
}

func (s *Server) resendDelivery(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r)
	if !ok || s.opts.Deliveries == nil {
		s.notFound(w, r)
		return
	}
	if err := s.opts.Deliveries.Resend(r.Context(), userID(r), id); err != nil {
		s.redirect(w, r, back(r, "/briefings"), flashError(app.ErrorMessage(err)))
		return
	}
	s.redirect(w, r, back(r, "/briefings"), flashSuccess("Queued to be sent again."))
}

func (s *Server) apiResendDelivery(w http.ResponseWriter, r *http.Request) {
	id, ok := pathID(r)
	if !ok || s.opts.Deliveries == nil {
		s.apiError(w, r, app.Errorf(app.ENOTFOUND, "Delivery %q not found.", r.PathValue("id")))
		return
	}
	if err := s.opts.Deliveries.Resend(r.Context(), userID(r), id); err != nil {
		s.apiError(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, map[string]any{"id": id, "status": app.DeliveryPending})
}

// feedURL is a briefing's Atom feed path; when sign-in is required it carries the briefing's
// token, so a feed reader can subscribe.
func (s *Server) feedURL(r *http.Request, id int64) string {
	u := "/briefings/" + strconv.FormatInt(id, 10) + "/feed.xml"
	if s.opts.RequireLogin && s.opts.Accounts != nil {
		if tok, err := s.opts.Accounts.FeedToken(r.Context(), id); err == nil {
			u += "?token=" + tok
		}
	}
	return u
}
