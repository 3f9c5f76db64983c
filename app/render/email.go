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
//
// The HTML reads on a phone (a viewport, a column at most 640 px wide that narrows with the
// screen, long words and links wrapped, pictures no wider than the column) and in dark mode
// (color-scheme, and dark colours under prefers-color-scheme: dark, in the head's style sheet:
// the clients that honour it keep it; the inline styles are the light look for the others).
func ReportEmail(b *app.Briefing, r *app.Report, loc *time.Location, to string, l EmailLinks) (htmlBody, text string) {
	e := html.EscapeString
	var h strings.Builder
	h.WriteString(`<!doctype html><html lang="en"><head><meta charset="utf-8">`)
	h.WriteString(`<meta name="viewport" content="width=device-width, initial-scale=1">`)
	h.WriteString(`<meta name="color-scheme" content="light dark"><meta name="supported-color-schemes" content="light dark">`)
	fmt.Fprintf(&h, `<title>%s</title><style>%s</style></head>`, e(b.Name), emailCSS)
	h.WriteString(`<body class="md-body" style="margin:0;padding:0;background:#fbfaf7;">`)
	h.WriteString(`<div class="md-page" style="max-width:640px;margin:0 auto;padding:24px;font-family:Georgia,'Times New Roman',serif;color:#1c1c1e;line-height:1.55;overflow-wrap:break-word;word-wrap:break-word;">`)
	fmt.Fprintf(&h, `<h1 style="font-size:26px;margin:0 0 4px;">%s</h1>`, e(b.Name))
	st := emailStyle
	st.BaseURL = l.Base
	h.WriteString(ReportHTML(b, r, loc, st))
	fmt.Fprintf(&h, `<p class="md-muted" style="font-family:Arial,sans-serif;font-size:13px;color:#55555b;"><a href="%s" style="color:#1f5fa8;">Read this report in Morning Deck</a> · <a href="%s" style="color:#1f5fa8;">Briefing settings</a> · <a href="%s" style="color:#1f5fa8;">Unsubscribe %s</a></p>`,
		e(l.Report), e(l.Settings), e(l.Unsubscribe), e(to))
	h.WriteString(`</div></body></html>`)

	text = ReportText(b, r, loc, l.Base) + "Read it in Morning Deck: " + l.Report + "\nBriefing settings: " + l.Settings +
		"\nUnsubscribe " + to + ": " + l.Unsubscribe + "\n"
	return h.String(), text
}

// emailCSS is the email's style sheet: what inline styles cannot say (the width of pictures,
// a narrow screen, dark mode). The dark colours override the inline light ones (!important).
const emailCSS = `:root{color-scheme:light dark;supported-color-schemes:light dark}` +
	`body{margin:0;padding:0;-webkit-text-size-adjust:100%;text-size-adjust:100%}` +
	`.md-page img{max-width:100%;height:auto}` +
	`.md-page,.md-page *{overflow-wrap:break-word;word-wrap:break-word}` +
	`@media (max-width:480px){.md-page{padding:16px !important}.md-page h1{font-size:22px !important}.md-page h2{font-size:17px !important}}` +
	`@media (prefers-color-scheme:dark){` +
	`.md-body{background:#161618 !important}` +
	`.md-page{color:#e8e6e1 !important}` +
	`.md-page a{color:#8ab4f8 !important}` +
	`.md-muted{color:#a8a8ad !important}` +
	`.md-item{border-bottom-color:#3a3a3f !important}}`

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

	MutedClass: "md-muted",
	ItemClass:  "md-item",
}
