package render_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/render"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites the file with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it after a deliberate change):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// SampleReport is a report with the shapes a report takes: a linked item with coverage by
// others, one without a link, a summary, a reason, and text that Markdown and HTML must escape.
func sampleReport() (*app.Briefing, *app.Report) {
	end := time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC)
	id1, id2 := int64(11), int64(12)
	b := &app.Briefing{ID: 7, Name: "Brussels morning", Timezone: "Europe/Brussels"}
	r := &app.Report{ID: 3, BriefingID: 7, GeneratedAt: end, PeriodStart: end.Add(-24 * time.Hour), PeriodEnd: end,
		Overview: "2 stories from 3 sources, chosen among 40 new items. Main themes: transport (3).",
		Items: []app.ReportItem{
			{Rank: 1, ItemID: &id1, SourceName: "Le Soir", Title: "Tram to the airport approved", Link: "https://lesoir.example/tram",
				Summary: "The council approved the tram line <for real> & on time.", Score: 88, ScoreReasoning: "Matches your focus: transport.",
				AlsoCoveredBy: []app.Coverage{{Title: "Airport tram: yes", Link: "https://bx1.example/tram", Source: "BX1"}, {Title: "Tram", Source: "Bruzz"}}},
			{Rank: 2, ItemID: &id2, SourceName: "Hacker News", Title: "SQLite 3.50 [released] *today*", Link: "javascript:alert(1)",
				Summary: "", Score: 61},
		}}
	return b, r
}

func TestReportGoldens(t *testing.T) {
	b, r := sampleReport()
	loc := app.Location(b.Timezone)
	t.Run("the Markdown export", func(t *testing.T) {
		golden(t, "report.md.golden", render.ReportMarkdown(b, r, loc))
	})
	t.Run("the HTML fragment of the Atom feed and the email", func(t *testing.T) {
		golden(t, "report.html.golden", render.ReportHTML(b, r, loc, render.HTMLStyle{}))
	})
	t.Run("the same fragment as the report's page renders it", func(t *testing.T) {
		after := func(it app.ReportItem) string { return fmt.Sprintf("<form data-item=\"%d\"></form>", *it.ItemID) }
		golden(t, "report.page.golden", render.ReportHTML(b, r, loc, render.HTMLStyle{Page: true, After: after}))
	})
	t.Run("the Atom feed", func(t *testing.T) {
		out, err := render.ReportsAtom(b, []*app.Report{r}, "http://127.0.0.1:7777/", "http://127.0.0.1:7777/briefings/1/feed.xml", loc)
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "reports.atom.golden", string(out))
	})
}

// The email reads on a phone and in dark mode: a viewport, color-scheme, a dark style sheet
// whose classes the body, the stories and the muted lines carry (headless Chromium checks
// the width and the colours: e2e TestBrowserEmailOnPhone).
func TestReportEmailPhoneAndDark(t *testing.T) {
	b, r := sampleReport()
	h, _ := render.ReportEmail(b, r, app.Location(b.Timezone), "ann@example.com", render.EmailLinks{Base: "http://md.example/", Report: "http://md.example/reports/3"})
	for _, want := range []string{
		`<meta name="viewport" content="width=device-width, initial-scale=1">`,
		`<meta name="color-scheme" content="light dark">`,
		`@media (prefers-color-scheme:dark)`,
		`.md-page img{max-width:100%;height:auto}`,
		`<body class="md-body"`, `<div class="md-page" style="max-width:640px;`,
		`<div class="md-item" style=`, `<p class="md-muted" style=`,
		`<title>Brussels morning</title>`,
	} {
		if !strings.Contains(h, want) {
			t.Errorf("the email lacks %s", want)
		}
	}
}
