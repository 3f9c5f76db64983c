package e2e_test

import (
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/morningdeck/morningdeck/app/feeds/feedtest"
)

// TestBrowserSourcesList: 36 sources fit in a compact list (one row a source, about a third of
// the 5,000 px the old list took), each with one status badge that tells the truth (a failing
// source is red with its error in the row and on its badge, never green), and the row's
// actions in a small menu.
func TestBrowserSourcesList(t *testing.T) {
	const n, failing = 36, 3
	farm := feedtest.NewFarm(n, 2)
	defer farm.Close()
	for i := range failing {
		farm.SetStatus(i, 404)
	}
	var outlines [][2]string
	for i := range n {
		outlines = append(outlines, [2]string{fmt.Sprintf("Source number %d with a fairly long name", i), farm.URL(i)})
	}
	dir := t.TempDir()
	importOutlines(t, dir, outlines)
	mustRun(t, dir, "fetch")
	base, _ := startServer(t, dir)
	ctx := browser(t)

	for _, vp := range []struct {
		name      string
		width     int64
		mobile    bool
		maxHeight int
	}{{"desktop", 1280, false, 1700}, {"phone", 390, true, 0}} {
		var height int
		var report string
		if err := chromedp.Run(ctx,
			chromedp.EmulateViewport(vp.width, 900, func(p *emulation.SetDeviceMetricsOverrideParams, _ *emulation.SetTouchEmulationEnabledParams) {
				p.Mobile = vp.mobile
			}),
			chromedp.Navigate(base+"sources"),
			chromedp.WaitVisible(`[data-testid=sources-table]`, chromedp.ByQuery),
			chromedp.Evaluate(`Math.round(document.querySelector('[data-testid=sources-table]').getBoundingClientRect().height)`, &height),
			chromedp.Evaluate(`(() => {
  const problems = [];
  const rows = [...document.querySelectorAll('[data-testid=source-row]')];
  if (rows.length !== `+fmt.Sprint(n)+`) problems.push(rows.length + ' rows');
  let red = 0;
  for (const r of rows) {
    const badges = r.querySelectorAll('.badge');
    if (badges.length !== 1) problems.push(r.id + ': ' + badges.length + ' badges');
    const b = badges[0];
    if (!b) continue;
    const err = r.querySelector('[data-testid=last-error]');
    if (err) {
      if (!b.classList.contains('badge-danger') || b.innerText.trim() !== 'Failing') problems.push(r.id + ' failing but its badge says ' + b.innerText.trim());
      if (!(b.title || '').startsWith('Last fetch failed: ')) problems.push(r.id + ': the badge does not carry the error: ' + b.title);
      if (/\S\s*Retry$/.test(err.innerText) && !/\s(\n)?Retry$/.test(err.innerText)) problems.push(r.id + ': error and Retry run together: ' + err.innerText);
      red++;
    } else if (b.innerText.trim() !== 'Active') problems.push(r.id + ' says ' + b.innerText.trim());
    if (r.querySelectorAll('button:not([hidden])').length && [...r.querySelectorAll('[data-testid=delete],[data-testid=pause],[data-testid=edit],[data-testid=refresh]')].some(e => e.checkVisibility())) problems.push(r.id + ': actions shown outside the menu');
  }
  if (red !== `+fmt.Sprint(failing)+`) problems.push(red + ' failing rows');
  if (document.documentElement.scrollWidth > document.documentElement.clientWidth + 1) problems.push('scrolls sideways: ' + document.documentElement.scrollWidth + ' px');
  return problems.join('; ');
})()`, &report),
		); err != nil {
			t.Fatalf("%s: %v", vp.name, err)
		}
		t.Logf("%s (%d px): %d sources take %d px", vp.name, vp.width, n, height)
		if os.Getenv("SHOT") != "" {
			var png []byte
			_ = chromedp.Run(ctx, chromedp.Evaluate(`document.querySelector('[data-testid=sources-table]').scrollIntoView()`, nil), chromedp.CaptureScreenshot(&png))
			_ = os.WriteFile("/tmp/sources-"+vp.name+".png", png, 0o644)
		}
		if report != "" {
			t.Errorf("%s: %s", vp.name, report)
		}
		if vp.maxHeight > 0 && height > vp.maxHeight {
			t.Errorf("%s: %d sources take %d px, want at most %d", vp.name, n, height, vp.maxHeight)
		}
		// The menu opens on a tap, shows the four actions, and closes on a tap elsewhere.
		var visible, closed bool
		if err := chromedp.Run(ctx,
			chromedp.Click(`[data-testid=source-row]:last-child [data-testid=source-menu] summary`, chromedp.ByQuery),
			chromedp.WaitVisible(`[data-testid=source-row]:last-child [data-testid=delete]`, chromedp.ByQuery),
			chromedp.Evaluate(`['refresh', 'pause', 'edit', 'delete'].every(id => document.querySelector('[data-testid=source-row]:last-child [data-testid=' + id + ']').checkVisibility())`, &visible),
			chromedp.Click(`h1`, chromedp.ByQuery),
			chromedp.Evaluate(`!document.querySelector('[data-testid=source-row]:last-child details.menu').open`, &closed),
		); err != nil {
			t.Fatalf("%s menu: %v", vp.name, err)
		}
		if !visible || !closed {
			t.Errorf("%s menu: actions visible %v, closed by a tap elsewhere %v", vp.name, visible, closed)
		}
	}
}

// TestBrowserScoreReasonOnTouch: on a phone (no hover) every card shows its score's reason on
// one line, within the card (issue 28), and a tap on the score still shows the whole reason, a
// second tap hides it, on Items and on Today.
func TestBrowserScoreReasonOnTouch(t *testing.T) {
	farm := feedtest.NewFarm(1, 4)
	defer farm.Close()
	dir := t.TempDir()
	mustRun(t, dir, "source", "add", farm.URL(0), "--type", "rss")
	mustRun(t, dir, "fetch")
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "morningdeck.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`update items set status = 'DONE', score = 80, score_reasoning = 'Matches your interest in Go; a primary source, with a long explanation that a phone cannot show on one line.', enriched_by = 'embedded'`); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	base, _ := startServer(t, dir)
	ctx := browser(t)
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(390, 844, func(p *emulation.SetDeviceMetricsOverrideParams, _ *emulation.SetTouchEmulationEnabledParams) {
		p.Mobile = true
	})); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"items?show=all", ""} {
		if err := chromedp.Run(ctx, chromedp.Navigate(base+path), chromedp.WaitVisible(`[data-reason-toggle]`, chromedp.ByQuery)); err != nil {
			t.Fatalf("/%s: %v", path, err)
		}
		var lines string
		if err := chromedp.Run(ctx, chromedp.Evaluate(`(() => {
			const cards = [...document.querySelectorAll('[data-testid=item]')], out = [];
			for (const c of cards) {
				const l = c.querySelector('[data-testid=reason-line]');
				if (!l) { out.push('a card without its reason line'); continue; }
				const r = l.getBoundingClientRect(), card = c.getBoundingClientRect(), lh = parseFloat(getComputedStyle(l).lineHeight) || 20;
				if (!l.checkVisibility() || r.height > lh * 1.5) out.push('a reason on ' + Math.round(r.height) + ' px (not one line)');
				if (r.right > card.right + 1 || r.right > document.documentElement.clientWidth) out.push('a reason past its card');
			}
			return cards.length ? out.join('; ') : 'no cards';
		})()`, &lines)); err != nil {
			t.Fatal(err)
		}
		if lines != "" {
			t.Errorf("/%s: %s", path, lines)
		}
		shown := `(() => { const r = document.querySelector('[data-reason-toggle] + .score-reason'); return r.checkVisibility() && r.getBoundingClientRect().width > 20; })()`
		var before, after, again bool
		if err := chromedp.Run(ctx,
			chromedp.Evaluate(shown, &before),
			chromedp.Click(`[data-reason-toggle]`, chromedp.ByQuery),
			chromedp.Evaluate(shown, &after),
			chromedp.Click(`[data-reason-toggle]`, chromedp.ByQuery),
			chromedp.Evaluate(shown, &again),
		); err != nil {
			t.Fatal(err)
		}
		if os.Getenv("SHOT") != "" {
			var png []byte
			_ = chromedp.Run(ctx, chromedp.Click(`[data-reason-toggle]`, chromedp.ByQuery), chromedp.CaptureScreenshot(&png))
			_ = os.WriteFile("/tmp/reason-"+strings.ReplaceAll(path, "?", "_")+".png", png, 0o644)
		}
		if before || !after || again {
			t.Errorf("/%s: reason shown before a tap %v, after one %v, after a second %v", path, before, after, again)
		}
	}
}

// TestBrowserPollKeepsOpenMenu: the Sources list refreshes itself (every 2 s while sources are
// busy, every 15 s otherwise); an answer that arrives after the reader opened a row's menu is
// dropped, so the menu is not swapped away under the pointer — and once the menu is closed the
// next answer is swapped in.
func TestBrowserPollKeepsOpenMenu(t *testing.T) {
	farm := feedtest.NewFarm(2, 2)
	defer farm.Close()
	dir := t.TempDir()
	importOutlines(t, dir, [][2]string{{"First", farm.URL(0)}, {"Second", farm.URL(1)}})
	mustRun(t, dir, "fetch")
	base, _ := startServer(t, dir)
	ctx := browser(t)
	// A poll asked while no menu is open, the menu opened before its answer arrives.
	poll := `(() => {
		const live = document.getElementById('sources-live');
		document.querySelector('[data-testid=source-row]').__before = true;
		htmx.ajax('GET', live.getAttribute('hx-get'), {source: live, target: live, swap: 'outerHTML'});
	})()`
	state := `(() => { const m = document.querySelector('[data-testid=source-menu]'), r = document.querySelector('[data-testid=source-row]');
		return (m && m.open ? 'open' : 'closed') + ', ' + (r && r.__before ? 'the same rows' : 'rows swapped'); })()`
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"sources"), chromedp.WaitVisible(`[data-testid=source-row]`, chromedp.ByQuery),
		chromedp.Evaluate(`window.__answered = 0; document.addEventListener('htmx:afterRequest', () => { window.__answered++; }); true`, nil),
		chromedp.Evaluate(poll+`; document.querySelector('[data-testid=source-menu]').open = true; true`, nil)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the poll's answer", `window.__answered >= 1`, patience)
	var got string
	if err := chromedp.Run(ctx, chromedp.Evaluate(state, &got)); err != nil {
		t.Fatal(err)
	}
	if got != "open, the same rows" {
		t.Fatalf("a poll answered after the menu opened: menu %s; want it open and the rows kept", got)
	}
	// The menu closed, the next answer is swapped in.
	if err := chromedp.Run(ctx, chromedp.Evaluate(`document.querySelector('[data-testid=source-menu]').open = false; `+poll+`; true`, nil)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the second poll's answer", `window.__answered >= 2`, patience)
	waitFor(t, ctx, "the rows swapped in", `!document.querySelector('[data-testid=source-row]').__before`, patience)
}
