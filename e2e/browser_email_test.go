package e2e_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/render"
)

// TestBrowserEmailOnPhone: a report's email, in headless Chromium at 390 px, is no wider than
// the screen (a long title, a long word and a long link among its stories), its column fills
// the screen rather than being scaled down, and in dark mode its background is dark and its
// text light (issue 28: it rendered at desktop width, scaled down, with no dark styles).
func TestBrowserEmailOnPhone(t *testing.T) {
	end := time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC)
	id := int64(1)
	long := "https://example.com/" + strings.Repeat("a-very-long-path-segment/", 8)
	b := &app.Briefing{ID: 1, Name: "Morning briefing with a rather long name for a small screen", Timezone: "UTC"}
	r := &app.Report{ID: 1, BriefingID: 1, GeneratedAt: end, PeriodStart: end.Add(-24 * time.Hour), PeriodEnd: end,
		Overview: "Three stories from two sources.",
		Items: []app.ReportItem{
			{Rank: 1, ItemID: &id, SourceName: "Go Blog", Title: "Go 1.26 is released with a faster garbage collector and generic type aliases",
				Link: "https://go.dev/blog/go1.26", Summary: "Update your Go toolchain: " + long, Score: 88, ScoreReasoning: "Matches your interest: Go."},
			{Rank: 2, SourceName: "Long words", Title: "Donaudampfschifffahrtsgesellschaftskapitänsmützenabzeichenherstellungsbetriebsgenehmigung",
				Link: long, Summary: strings.Repeat("Pneumonoultramicroscopicsilicovolcanoconiosis", 3), Score: 61,
				AlsoCoveredBy: []app.Coverage{{Title: "Another " + strings.Repeat("long", 20), Link: long, Source: "Elsewhere"}}},
		}}
	body, _ := render.ReportEmail(b, r, time.UTC, "reader-with-a-long-address@example.com",
		render.EmailLinks{Base: "http://127.0.0.1:7777/", Report: "http://127.0.0.1:7777/reports/1", Settings: "http://127.0.0.1:7777/briefings/1/edit", Unsubscribe: "http://127.0.0.1:7777/unsubscribe?b=1"})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(body))
	}))
	defer srv.Close()

	ctx := browser(t)
	for _, theme := range []string{"light", "dark"} {
		var got struct {
			Width, Inner, Page float64
			Background, Color  string
		}
		if err := chromedp.Run(ctx,
			chromedp.EmulateViewport(390, 844, func(p *emulation.SetDeviceMetricsOverrideParams, _ *emulation.SetTouchEmulationEnabledParams) {
				p.Mobile = true
			}),
			emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: theme}}),
			chromedp.Navigate(srv.URL),
			chromedp.WaitReady("body", chromedp.ByQuery),
			chromedp.Evaluate(`(() => {
				const page = document.querySelector('.md-page');
				return {width: Math.max(document.documentElement.scrollWidth, document.body.scrollWidth), inner: window.innerWidth,
					page: page.getBoundingClientRect().width,
					background: getComputedStyle(document.body).backgroundColor, color: getComputedStyle(page).color};
			})()`, &got),
		); err != nil {
			t.Fatal(err)
		}
		if got.Width > 390 || got.Inner > 390 {
			t.Errorf("%s: the email is %.0f px wide in a 390 px screen (window %.0f px): scaled down or overflowing", theme, got.Width, got.Inner)
		}
		if got.Page < 380 {
			t.Errorf("%s: the column is %.0f px wide: it should fill the phone's 390 px", theme, got.Page)
		}
		dark := strings.HasPrefix(got.Background, "rgb(22, 22, 24)")
		if theme == "dark" && (!dark || !strings.HasPrefix(got.Color, "rgb(232, 230, 225)")) {
			t.Errorf("dark mode: background %s, text %s; want a dark background and light text", got.Background, got.Color)
		}
		if theme == "light" && dark {
			t.Errorf("light mode has the dark background")
		}
	}
}
