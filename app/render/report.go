package render

import (
	"fmt"
	"html"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// mdEscape makes text safe inside Markdown, escaping only what Markdown reads as syntax: no
// HTML, no link, code or emphasis syntax from outside ("Apple (11)" stays as it is), and a
// line that would start a heading, quote or list has its first character escaped.
func mdEscape(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	s = strings.NewReplacer("\\", "\\\\", "<", "&lt;", ">", "&gt;", "[", "\\[", "]", "\\]",
		"*", "\\*", "_", "\\_", "`", "\\`").Replace(s)
	// A bracket followed by a parenthesis would read as a link to lenient renderers.
	s = strings.ReplaceAll(s, "\\](", "\\]\\(")
	if s != "" && strings.ContainsRune("#+-=|", rune(s[0])) {
		s = "\\" + s
	}
	return s
}

// ReportText writes a report as plain text (an email's text part): no Markup of any kind,
// links written out in full. baseURL, when set, adds each story's page in the app.
func ReportText(b *app.Briefing, r *app.Report, loc *time.Location, baseURL string) string {
	if loc == nil {
		loc = time.UTC
	}
	base := strings.TrimRight(baseURL, "/")
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	var w strings.Builder
	fmt.Fprintf(&w, "%s\n%s – %s\n\n", flat(b.Name), r.PeriodStart.In(loc).Format("Mon 2 Jan 2006 15:04"), r.PeriodEnd.In(loc).Format("Mon 2 Jan 2006 15:04 MST"))
	fmt.Fprintf(&w, "%s\n\n", flat(r.Overview))
	for _, it := range r.Items {
		fmt.Fprintf(&w, "%d. %s\n   %s · score %d", it.Rank, flat(it.Title), flat(it.SourceName), it.Score)
		if it.ScoreReasoning != "" {
			fmt.Fprintf(&w, " · %s", flat(it.ScoreReasoning))
		}
		w.WriteString("\n")
		if it.Summary != "" {
			fmt.Fprintf(&w, "   %s\n", flat(it.Summary))
		}
		if u := app.SafeLink(it.Link); u != "" {
			fmt.Fprintf(&w, "   Original: %s\n", u)
		}
		if base != "" && it.ItemID != nil {
			fmt.Fprintf(&w, "   In Morning Deck: %s/items/%d\n", base, *it.ItemID)
		}
		if len(it.AlsoCoveredBy) > 0 {
			w.WriteString("   Also covered by:\n")
			for _, c := range it.AlsoCoveredBy {
				fmt.Fprintf(&w, "   - %s (%s)", flat(c.Title), flat(c.Source))
				if base != "" && c.ItemID != nil {
					fmt.Fprintf(&w, " %s/items/%d", base, *c.ItemID)
				} else if u := app.SafeLink(c.Link); u != "" {
					fmt.Fprintf(&w, " %s", u)
				}
				w.WriteString("\n")
			}
		}
		w.WriteString("\n")
	}
	return w.String()
}

// mdURL keeps only http(s) links, with the characters that would end a Markdown link escaped.
func mdURL(u string) string {
	l := strings.ToLower(strings.TrimSpace(u))
	if !strings.HasPrefix(l, "http://") && !strings.HasPrefix(l, "https://") {
		return ""
	}
	return strings.NewReplacer("(", "%28", ")", "%29", " ", "%20", "<", "%3C", ">", "%3E").Replace(strings.TrimSpace(u))
}

// ReportMarkdown writes a report as Markdown.
func ReportMarkdown(b *app.Briefing, r *app.Report, loc *time.Location) string {
	if loc == nil {
		loc = time.UTC
	}
	var w strings.Builder
	fmt.Fprintf(&w, "# %s\n\n", mdEscape(b.Name))
	fmt.Fprintf(&w, "*%s – %s*\n\n", r.PeriodStart.In(loc).Format("Mon 2 Jan 2006 15:04"), r.PeriodEnd.In(loc).Format("Mon 2 Jan 2006 15:04 MST"))
	fmt.Fprintf(&w, "%s\n\n", mdEscape(r.Overview))
	for _, it := range r.Items {
		title := mdEscape(it.Title)
		if u := mdURL(it.Link); u != "" {
			title = "[" + title + "](" + u + ")"
		}
		fmt.Fprintf(&w, "%d. **%s** — %s (score %d)\n", it.Rank, title, mdEscape(it.SourceName), it.Score)
		if it.Summary != "" {
			fmt.Fprintf(&w, "   %s\n", mdEscape(it.Summary))
		}
		if it.ScoreReasoning != "" {
			fmt.Fprintf(&w, "   *%s*\n", mdEscape(it.ScoreReasoning))
		}
		if len(it.AlsoCoveredBy) > 0 {
			var also []string
			for _, c := range it.AlsoCoveredBy {
				title := mdEscape(c.Title)
				if u := mdURL(c.Link); u != "" {
					title = "[" + title + "](" + u + ")"
				}
				also = append(also, title+" ("+mdEscape(c.Source)+")")
			}
			fmt.Fprintf(&w, "   Also covered by %s\n", strings.Join(also, "; "))
		}
		w.WriteString("\n")
	}
	return w.String()
}

// HTMLStyle is the inline style of each element of a report's HTML: empty for the Atom feed
// (a feed reader styles it), the newsletter look for email (mail clients drop style sheets).
type HTMLStyle struct {
	Period, Overview, Item, Title, Link, Meta, Summary, Also string
	// BaseURL, when set, is the app's address: each story gets a link to its page in the app,
	// and the "Also covered by" headlines link to theirs.
	BaseURL string
	// Page renders the report for the app's own page: the style sheet's classes (and test ids)
	// instead of inline styles, links into the app relative ("/items/12"), each title linking
	// to the story's page in the app with the original beside it ("Original ↗", in a new tab),
	// and the period left to the page's header.
	Page bool
	// MutedClass and ItemClass, when set (the email), are the classes of the muted lines
	// (period, meta, "Also covered by") and of each story, besides their inline styles: the
	// email's style sheet gives them their dark-mode colours.
	MutedClass, ItemClass string
	// After, when set, is HTML (escaped by its maker) that ends each story: the page's
	// "More like this" / "Less like this" buttons.
	After func(it app.ReportItem) string
}

// ReportHTML writes a report as an HTML fragment with every piece of text escaped and only
// http(s) links out: the one HTML rendering of a report, used by the Atom feed (no style), the
// email (inline styles) and the report's page in the app (st.Page: classes, links into the app,
// feedback buttons).
func ReportHTML(b *app.Briefing, r *app.Report, loc *time.Location, st HTMLStyle) string {
	if loc == nil {
		loc = time.UTC
	}
	e := html.EscapeString
	// attr is an element's look: its inline style (and its email class), or on the page its
	// class and test id.
	attr := func(style, class, testid string, emailClass ...string) string {
		if st.Page {
			out := ""
			if class != "" {
				out += ` class="` + class + `"`
			}
			if testid != "" {
				out += ` data-testid="` + testid + `"`
			}
			return out
		}
		out := ""
		if len(emailClass) > 0 && emailClass[0] != "" {
			out = ` class="` + e(emailClass[0]) + `"`
		}
		if style != "" {
			out += ` style="` + e(style) + `"`
		}
		return out
	}
	// out links to another site (a new tab on the page); text is escaped HTML.
	out := func(u, text, testid string) string {
		if u = app.SafeLink(u); u == "" {
			return text
		}
		if st.Page {
			return `<a href="` + e(u) + `" target="_blank" rel="noopener noreferrer"` + attr("", "", testid) + `>` + text + `</a>`
		}
		return `<a href="` + e(u) + `"` + attr(st.Link, "", "") + `>` + text + `</a>`
	}
	// inApp is the address of an item's page in the app ("" when there is none to link).
	base := strings.TrimRight(st.BaseURL, "/")
	inApp := func(id *int64) string {
		switch {
		case id == nil:
			return ""
		case st.Page:
			return fmt.Sprintf("/items/%d", *id)
		case base != "":
			return fmt.Sprintf("%s/items/%d", base, *id)
		}
		return ""
	}
	appLink := func(href, text, testid string) string {
		if st.Page {
			return `<a href="` + e(href) + `"` + attr("", "", testid) + `>` + text + `</a>`
		}
		return out(href, text, "")
	}
	var w strings.Builder
	if !st.Page {
		fmt.Fprintf(&w, "<p%s>%s – %s</p>\n", attr(st.Period, "", "", st.MutedClass), e(r.PeriodStart.In(loc).Format("Mon 2 Jan 15:04")), e(r.PeriodEnd.In(loc).Format("Mon 2 Jan 15:04 MST")))
	}
	fmt.Fprintf(&w, "<p%s>%s</p>\n", attr(st.Overview, "summary", "overview"), e(r.Overview))
	if st.Page && len(r.Items) > 0 {
		w.WriteString("<div class=\"report-items\">\n")
	}
	for _, it := range r.Items {
		title := e(it.Title)
		if href := inApp(it.ItemID); st.Page && href != "" {
			title = appLink(href, title, "report-item-link")
		} else {
			title = out(it.Link, title, "")
		}
		fmt.Fprintf(&w, "<div%s>\n<h2%s>%d. %s</h2>\n", attr(st.Item, "report-item", "report-item", st.ItemClass), attr(st.Title, "", ""), it.Rank, title)
		var meta string
		if st.Page {
			meta = fmt.Sprintf(`<span class="score-badge"><span class="score %s"><span class="visually-hidden">Score </span>%d</span></span> <span>%s</span>`,
				app.ScoreClass(it.Score), it.Score, e(it.SourceName))
			if it.ScoreReasoning != "" {
				meta += " <span>" + e(it.ScoreReasoning) + "</span>"
			}
			if it.ItemID != nil && app.SafeLink(it.Link) != "" {
				meta += " " + out(it.Link, "Original ↗", "report-original")
			}
		} else {
			meta = fmt.Sprintf("%s · score %d", e(it.SourceName), it.Score)
			if it.ScoreReasoning != "" {
				meta += " · " + e(it.ScoreReasoning)
			}
			if href := inApp(it.ItemID); href != "" {
				meta += " · " + appLink(href, "In Morning Deck", "")
			}
		}
		fmt.Fprintf(&w, "<p%s>%s</p>\n", attr(st.Meta, "meta", "", st.MutedClass), meta)
		if it.Summary != "" {
			fmt.Fprintf(&w, "<p%s>%s</p>\n", attr(st.Summary, "excerpt", ""), e(it.Summary))
		}
		if len(it.AlsoCoveredBy) > 0 {
			var also []string
			for _, c := range it.AlsoCoveredBy {
				if href := inApp(c.ItemID); href != "" {
					also = append(also, appLink(href, e(c.Title), "also-link")+" ("+e(c.Source)+")")
				} else {
					also = append(also, out(c.Link, e(c.Title), "")+" ("+e(c.Source)+")")
				}
			}
			fmt.Fprintf(&w, "<p%s>Also covered by %s</p>\n", attr(st.Also, "also", "also-covered", st.MutedClass), strings.Join(also, "; "))
		}
		if st.After != nil {
			w.WriteString(st.After(it))
		}
		w.WriteString("</div>\n")
	}
	if st.Page && len(r.Items) > 0 {
		w.WriteString("</div>\n")
	}
	return w.String()
}
