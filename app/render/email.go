package render

import (
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// EmailLinks are the addresses a report's email links to besides its stories: the app (Base,
// for the stories' pages in it), the report's page, the briefing's settings, and the
// recipient's unsubscribe link.
type EmailLinks struct {
	Base, Report, Settings, Unsubscribe string
}

// ReportEmail writes the email of a report for the recipient to: an HTML body with inline
// styles and no external assets, and a plain-text body (plain text, not Markdown), each ending
// with the links back to the report, the settings and unsubscribing. Times are in loc.
func ReportEmail(b *app.Briefing, r *app.Report, loc *time.Location, to string, l EmailLinks) (htmlBody, text string) {
	e := html.EscapeString
	var h strings.Builder
	h.WriteString(`<!doctype html><html><body style="margin:0;padding:0;background:#fbfaf7;">`)
	h.WriteString(`<div style="max-width:640px;margin:0 auto;padding:24px;font-family:Georgia,'Times New Roman',serif;color:#1c1c1e;line-height:1.55;">`)
	fmt.Fprintf(&h, `<h1 style="font-size:26px;margin:0 0 4px;">%s</h1>`, e(b.Name))
	st := emailStyle
	st.BaseURL = l.Base
	h.WriteString(ReportHTML(b, r, loc, st))
	fmt.Fprintf(&h, `<p style="font-family:Arial,sans-serif;font-size:13px;color:#55555b;"><a href="%s" style="color:#1f5fa8;">Read this report in Morning Deck</a> · <a href="%s" style="color:#1f5fa8;">Briefing settings</a> · <a href="%s" style="color:#1f5fa8;">Unsubscribe %s</a></p>`,
		e(l.Report), e(l.Settings), e(l.Unsubscribe), e(to))
	h.WriteString(`</div></body></html>`)

	text = ReportText(b, r, loc, l.Base) + "Read it in Morning Deck: " + l.Report + "\nBriefing settings: " + l.Settings +
		"\nUnsubscribe " + to + ": " + l.Unsubscribe + "\n"
	return h.String(), text
}

// emailStyle is the newsletter look of a report, inline because mail clients drop style sheets.
var emailStyle = HTMLStyle{
	Period:   "margin:0 0 16px;color:#55555b;font-family:Arial,sans-serif;font-size:13px;",
	Overview: "margin:0 0 20px;",
	Item:     "margin:0 0 20px;padding:0 0 16px;border-bottom:1px solid #dedbd3;",
	Title:    "font-size:19px;margin:0 0 4px;",
	Link:     "color:#1f5fa8;text-decoration:none;",
	Meta:     "margin:0 0 6px;color:#55555b;font-family:Arial,sans-serif;font-size:13px;",
	Summary:  "margin:0;",
	Also:     "margin:6px 0 0;color:#55555b;font-family:Arial,sans-serif;font-size:13px;",
}
