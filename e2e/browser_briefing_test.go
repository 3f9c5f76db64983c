package e2e_test

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestBrowserBriefingSourceFilter: the briefing form's list of 30 sources has a filter box;
// typing keeps the matching sources (any case) and says how many are shown and chosen; Enter in
// the box does not send the form; a source chosen from the filtered list is the briefing's.
func TestBrowserBriefingSourceFilter(t *testing.T) {
	var outlines [][2]string
	for _, kind := range []string{"Alpha news", "Beta blog", "Gamma digest"} {
		for i := range 10 {
			outlines = append(outlines, [2]string{fmt.Sprintf("%s %d", kind, i), fmt.Sprintf("http://127.0.0.1:9/%s/%d.xml", strings.Fields(kind)[0], i)})
		}
	}
	dir := t.TempDir()
	importOutlines(t, dir, outlines)
	base, _ := startServer(t, dir, "--no-workers")
	ctx := browser(t)

	visible := `[...document.querySelectorAll('[data-picks] label')].filter(l => l.checkVisibility()).map(l => l.innerText.trim())`
	var shown []string
	var status, path string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(base+"briefings"),
		chromedp.WaitVisible(`[data-testid=picks-filter]`, chromedp.ByQuery),
		chromedp.SendKeys(`[data-testid=picks-filter]`, "BETA", chromedp.ByQuery),
		chromedp.Evaluate(visible, &shown),
		chromedp.Text(`[data-picks-status]`, &status, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	if len(shown) != 10 || !strings.HasPrefix(shown[0], "Beta blog") || status != "10 of 30 shown" {
		t.Fatalf("filtered by BETA: %d shown %q, status %q", len(shown), shown, status)
	}
	if err := chromedp.Run(ctx,
		chromedp.SendKeys(`[data-testid=picks-filter]`, " blog 3\r", chromedp.ByQuery),
		chromedp.Evaluate(visible, &shown),
		chromedp.Evaluate(`location.pathname + (document.querySelector('[data-testid=flash]') ? ' flash' : '')`, &path),
	); err != nil {
		t.Fatal(err)
	}
	if len(shown) != 1 || shown[0] != "Beta blog 3" || path != "/briefings" {
		t.Fatalf("filtered by 'BETA blog 3' and Enter: %q shown, at %q", shown, path)
	}
	if err := chromedp.Run(ctx,
		chromedp.Click(`[data-picks] label:not([hidden]) input`, chromedp.ByQuery),
		chromedp.Text(`[data-picks-status]`, &status, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	if status != "1 of 30 shown · 1 chosen" {
		t.Fatalf("after choosing one: status %q", status)
	}
	if err := chromedp.Run(ctx,
		chromedp.SendKeys(`#b-name`, "Betas", chromedp.ByQuery),
		chromedp.Click(`[data-testid=create-briefing]`, chromedp.ByQuery),
		chromedp.WaitVisible(`[data-testid=briefing]`, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "morningdeck.db")+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var names string
	if err := db.QueryRow(`select group_concat(s.name) from briefings b join json_each(b.source_ids) j join sources s on s.id = j.value
		where b.name = 'Betas'`).Scan(&names); err != nil {
		t.Fatal(err)
	}
	if names != "Beta blog 3" {
		t.Fatalf("the briefing covers %q, want Beta blog 3", names)
	}
}

// TestBrowserBriefingCardAndForm (issue 28): a new briefing's time zone is the browser's when
// Settings names none; the weekly day shows only for a weekly schedule; the card shows the
// recipients, and after Run now its last run is the run it lists, not "never".
func TestBrowserBriefingCardAndForm(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "source", "add", "http://127.0.0.1:9/feed.xml", "--type", "rss")
	base, _ := startServer(t, dir)
	ctx := browser(t)

	shown := func(sel string) string {
		return `(() => { const e = document.querySelector('` + sel + `'); return !!e && e.checkVisibility(); })()`
	}
	var zone string
	var dayDaily, dayWeekly bool
	if err := chromedp.Run(ctx,
		emulation.SetTimezoneOverride("Asia/Tokyo"),
		chromedp.Navigate(base+"briefings"),
		chromedp.WaitVisible(`[data-testid=briefing-zone]`, chromedp.ByQuery),
		chromedp.Value(`[data-testid=briefing-zone]`, &zone, chromedp.ByQuery),
		chromedp.Evaluate(shown(`[data-weekly-only]`), &dayDaily),
		chromedp.SetValue(`#b-freq`, "WEEKLY", chromedp.ByQuery),
		chromedp.Evaluate(shown(`[data-weekly-only]`), &dayWeekly),
		chromedp.SetValue(`#b-freq`, "DAILY", chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	if zone != "Asia/Tokyo" {
		t.Errorf("the new briefing's time zone is %q, want the browser's Asia/Tokyo", zone)
	}
	if dayDaily || !dayWeekly {
		t.Errorf("the weekly day shows for a daily schedule: %v, for a weekly one: %v; want false, true", dayDaily, dayWeekly)
	}

	var recipients, last string
	if err := chromedp.Run(ctx,
		chromedp.SendKeys(`#b-name`, "Tokyo morning", chromedp.ByQuery),
		chromedp.SendKeys(`#b-email`, "ann@example.com, bob@example.com", chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	follow(t, ctx, "the new briefing's card", visibleJS(`[data-testid=briefing]`),
		chromedp.Click(`[data-testid=create-briefing]`, chromedp.ByQuery))
	if err := chromedp.Run(ctx,
		chromedp.Text(`[data-testid=briefing-recipients]`, &recipients, chromedp.ByQuery),
		chromedp.Text(`[data-testid=last-run]`, &last, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	if recipients != "ann@example.com, bob@example.com" || strings.TrimSpace(last) != "never" {
		t.Fatalf("the new card: recipients %q, last run %q", recipients, last)
	}
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.querySelector('[data-testid=briefing]').innerText.includes('Asia/Tokyo')`, &dayDaily)); err != nil || !dayDaily {
		t.Errorf("the briefing was not saved in the browser's zone (%v)", err)
	}
	if err := chromedp.Run(ctx, chromedp.Click(`[data-testid=run-now]`, chromedp.ByQuery)); err != nil && !navigating(err) {
		t.Fatal(err)
	}
	// The preview is written by the workers: reload until the card lists it, then its last run
	// must be that run.
	waitFor(t, ctx, "the card to list the report Run now wrote", `(() => {
		if (!document.querySelector('[data-testid=report-row]')) { if (document.readyState === 'complete') setTimeout(() => location.reload(), 300); return false; }
		return true; })()`, patience)
	if err := chromedp.Run(ctx, chromedp.Text(`[data-testid=last-run]`, &last, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(last) == "never" || strings.TrimSpace(last) == "" {
		t.Fatalf("after Run now the card lists a report and says last run %q", last)
	}
}
