package app

import (
	"encoding/xml"
	"fmt"
	"html"
	"strings"
	"time"
)

// mdEscape makes text safe inside Markdown: no HTML, no link or emphasis syntax from outside.
func mdEscape(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.NewReplacer("\\", "\\\\", "<", "&lt;", ">", "&gt;", "[", "\\[", "]", "\\]", "(", "\\(", ")", "\\)",
		"*", "\\*", "_", "\\_", "`", "\\`", "#", "\\#", "|", "\\|", "!", "\\!").Replace(s)
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
func ReportMarkdown(b *Briefing, r *Report, loc *time.Location) string {
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
				name := mdEscape(c.Source)
				if u := mdURL(c.Link); u != "" {
					name = "[" + name + "](" + u + ")"
				}
				also = append(also, name)
			}
			fmt.Fprintf(&w, "   Also covered by %s\n", strings.Join(also, ", "))
		}
		w.WriteString("\n")
	}
	return w.String()
}

// HTMLStyle is the inline style of each element of a report's HTML: empty for the Atom feed
// (a feed reader styles it), the newsletter look for email (mail clients drop style sheets).
type HTMLStyle struct {
	Period, Overview, Item, Title, Link, Meta, Summary, Also string
}

// ReportHTML writes a report as a self-contained HTML fragment with every piece of text escaped
// and only http(s) links: the one HTML rendering of a report outside the web page, used by the
// Atom feed (no style) and the email (with its style).
func ReportHTML(b *Briefing, r *Report, loc *time.Location, st HTMLStyle) string {
	if loc == nil {
		loc = time.UTC
	}
	e := html.EscapeString
	attr := func(style string) string {
		if style == "" {
			return ""
		}
		return ` style="` + e(style) + `"`
	}
	link := func(u, text string) string {
		if u = SafeLink(u); u == "" {
			return text
		}
		return `<a href="` + e(u) + `"` + attr(st.Link) + `>` + text + `</a>`
	}
	var w strings.Builder
	fmt.Fprintf(&w, "<p%s>%s – %s</p>\n", attr(st.Period), e(r.PeriodStart.In(loc).Format("Mon 2 Jan 15:04")), e(r.PeriodEnd.In(loc).Format("Mon 2 Jan 15:04 MST")))
	fmt.Fprintf(&w, "<p%s>%s</p>\n", attr(st.Overview), e(r.Overview))
	for _, it := range r.Items {
		fmt.Fprintf(&w, "<div%s>\n<h2%s>%d. %s</h2>\n", attr(st.Item), attr(st.Title), it.Rank, link(it.Link, e(it.Title)))
		meta := fmt.Sprintf("%s · score %d", e(it.SourceName), it.Score)
		if it.ScoreReasoning != "" {
			meta += " · " + e(it.ScoreReasoning)
		}
		fmt.Fprintf(&w, "<p%s>%s</p>\n", attr(st.Meta), meta)
		if it.Summary != "" {
			fmt.Fprintf(&w, "<p%s>%s</p>\n", attr(st.Summary), e(it.Summary))
		}
		if len(it.AlsoCoveredBy) > 0 {
			var also []string
			for _, c := range it.AlsoCoveredBy {
				also = append(also, link(c.Link, e(c.Source)))
			}
			fmt.Fprintf(&w, "<p%s>Also covered by %s</p>\n", attr(st.Also), strings.Join(also, ", "))
		}
		w.WriteString("</div>\n")
	}
	return w.String()
}

type atomFeed struct {
	XMLName xml.Name    `xml:"http://www.w3.org/2005/Atom feed"`
	Title   string      `xml:"title"`
	ID      string      `xml:"id"`
	Updated string      `xml:"updated"`
	Link    []atomLink  `xml:"link"`
	Entries []atomEntry `xml:"entry"`
}

type atomLink struct {
	Href string `xml:"href,attr"`
	Rel  string `xml:"rel,attr,omitempty"`
	Type string `xml:"type,attr,omitempty"`
}

type atomEntry struct {
	Title   string   `xml:"title"`
	ID      string   `xml:"id"`
	Updated string   `xml:"updated"`
	Link    atomLink `xml:"link"`
	Content atomText `xml:"content"`
}

type atomText struct {
	Type string `xml:"type,attr"`
	Body string `xml:",chardata"`
}

// ReportsAtom writes a briefing's reports (full, with items) as an Atom feed; baseURL is the
// app's address, for links back to each report.
func ReportsAtom(b *Briefing, reports []*Report, baseURL string, loc *time.Location) ([]byte, error) {
	base := strings.TrimRight(baseURL, "/")
	f := atomFeed{Title: b.Name + " — Morning Deck", ID: fmt.Sprintf("%s/briefings/%d", base, b.ID),
		Updated: b.CreatedAt.UTC().Format(time.RFC3339), Link: []atomLink{{Href: base + "/briefings", Rel: "alternate", Type: "text/html"}}}
	for i, r := range reports {
		if i == 0 {
			f.Updated = r.GeneratedAt.UTC().Format(time.RFC3339)
		}
		href := fmt.Sprintf("%s/reports/%d", base, r.ID)
		f.Entries = append(f.Entries, atomEntry{
			Title: fmt.Sprintf("%s — %s", b.Name, r.PeriodEnd.In(loc).Format("Mon 2 Jan 2006")), ID: href,
			Updated: r.GeneratedAt.UTC().Format(time.RFC3339), Link: atomLink{Href: href, Rel: "alternate", Type: "text/html"},
			Content: atomText{Type: "html", Body: ReportHTML(b, r, loc, HTMLStyle{})},
		})
	}
	out, err := xml.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append([]byte(xml.Header), out...), nil
}
