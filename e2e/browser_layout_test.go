package e2e_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestBrowserLayout opens every page at a phone's and a desktop's width, in both themes, with a
// source, items and a briefing whose titles, names and links are long unbroken words: no page
// may scroll sideways, and every text-like input is drawn by our stylesheet (the theme's surface
// and border), not the browser's default light box.
func TestBrowserLayout(t *testing.T) {
	long := strings.Repeat("Unbreakable", 30)
	longURL := "https://example.com/" + strings.Repeat("path-segment-", 25) + "?q=" + strings.Repeat("x", 120)
	feed := `<?xml version="1.0"?><rss version="2.0"><channel><title>` + long + `</title><link>` + longURL + `</link>
<item><title>` + long + `</title><link>` + longURL + `</link><guid>1</guid><description>` + long + ` ` + longURL + `</description><pubDate>Mon, 23 Nov 2026 06:00:00 GMT</pubDate></item>
<item><title>A second, ordinary title</title><link>https://example.com/2</link><guid>2</guid><description>Some text.</description><pubDate>Mon, 23 Nov 2026 05:00:00 GMT</pubDate></item>
` + moreItems(120) + `</channel></rss>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		_, _ = w.Write([]byte(feed))
	}))
	defer srv.Close()
	dir := t.TempDir()
	mustRun(t, dir, "source", "add", srv.URL+"/feed", "--type", "rss")
	mustRun(t, dir, "fetch")
	mustRun(t, dir, "brief", "add", long[:190], "--time", "07:00", "--timezone", "UTC")
	mustRun(t, dir, "brief", "run", "1")
	base, _ := startServer(t, dir)
	ctx := browser(t)

	pages := []string{"", "items", "items?q=Unbreakable&show=all", "items/1", "sources", "sources/1", "briefings", "briefings/1/edit", "reports/1", "settings", "queues", "account", "nowhere"}
	for _, vp := range []struct {
		name          string
		width, height int64
		mobile        bool
	}{{"phone", 390, 844, true}, {"desktop", 1280, 900, false}} {
		for _, theme := range []string{"light", "dark"} {
			if err := chromedp.Run(ctx, chromedp.EmulateViewport(vp.width, vp.height, func(p *emulation.SetDeviceMetricsOverrideParams, _ *emulation.SetTouchEmulationEnabledParams) {
				p.Mobile = vp.mobile
			}), chromedp.Navigate(base), chromedp.WaitReady("body", chromedp.ByQuery),
				chromedp.Evaluate(`localStorage.setItem('md-theme', '`+theme+`')`, nil)); err != nil {
				t.Fatal(err)
			}
			for _, path := range pages {
				var report string
				if err := chromedp.Run(ctx,
					chromedp.Navigate(base+path),
					chromedp.WaitReady("body", chromedp.ByQuery),
					chromedp.Evaluate(layoutProblems(theme), &report),
				); err != nil {
					t.Fatalf("%s %s /%s: %v", vp.name, theme, path, err)
				}
				if report != "" {
					t.Errorf("%s (%d px), %s theme, /%s: %s", vp.name, vp.width, theme, path, report)
				}
			}
		}
	}
}

// TestBrowserFiltersApplyOnPhone: on a phone the Items filters' Apply button, hidden while
// every change submits itself, comes back when the minimum score is typed (a number pad has
// no Go key), on the screen.
func TestBrowserFiltersApplyOnPhone(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "source", "add", "https://a.example/feed", "--type", "rss")
	base, _ := startServer(t, dir)
	ctx := browser(t)
	var before, after string
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(390, 844, func(p *emulation.SetDeviceMetricsOverrideParams, _ *emulation.SetTouchEmulationEnabledParams) {
		p.Mobile = true
	}), chromedp.Navigate(base+"items?show=all"), chromedp.WaitVisible("#filter-min", chromedp.ByQuery),
		chromedp.Evaluate(`getComputedStyle(document.querySelector('[data-autosubmit-button]')).display === 'none' ? 'hidden' : 'shown'`, &before),
		chromedp.SendKeys("#filter-min", "40", chromedp.ByQuery),
		chromedp.Evaluate(`(() => { const b = document.querySelector('[data-autosubmit-button]'), r = b.getBoundingClientRect();
			return getComputedStyle(b).display === 'none' ? 'hidden' : (r.width > 0 && r.left >= 0 && r.right <= document.documentElement.clientWidth ? 'shown' : 'off screen ' + JSON.stringify(r)); })()`, &after),
	); err != nil {
		t.Fatal(err)
	}
	if before != "hidden" || after != "shown" {
		t.Fatalf("Apply: hidden %s before typing, %s after; want hidden, then shown", before, after)
	}
	// The new page has the same fields as the old one: wait for its address, not for a field.
	if err := chromedp.Run(ctx, chromedp.Click("[data-autosubmit-button]", chromedp.ByQuery)); err != nil && !navigating(err) {
		t.Fatal(err)
	}
	waitFor(t, ctx, "Apply to load the river with minScore=40", `location.search.includes('minScore=40') && document.readyState == 'complete' && document.querySelector('#filter-min') !== null && document.querySelector('#filter-min').value == '40'`, patience)
}

// moreItems are n ordinary items, so that the unread count has three digits (its widest
// badge on a phone).
func moreItems(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "<item><title>Ordinary story %d</title><link>https://example.com/s/%d</link><guid>s%d</guid><description>Text.</description><pubDate>Sun, 22 Nov 2026 %02d:%02d:00 GMT</pubDate></item>\n", i, i, i, i/60, i%60)
	}
	return b.String()
}

// layoutProblems is a script that answers "" when the page fits its width and its inputs are
// styled, else what is wrong and where.
func layoutProblems(theme string) string {
	return `(() => {
  const problems = [];
  if (document.documentElement.getAttribute('data-theme') !== '` + theme + `') problems.push('theme not applied');
  const w = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > w + 1) {
    const wide = [...document.querySelectorAll('body *')].filter(e => {
      const r = e.getBoundingClientRect();
      return r.width > 0 && r.right > w + 1 && getComputedStyle(e).position !== 'fixed' ;
    }).slice(0, 4).map(e => e.tagName.toLowerCase() + (e.className ? '.' + String(e.className).split(' ').join('.') : '') + ' (' + Math.round(Math.max(e.getBoundingClientRect().right, e.getBoundingClientRect().left + e.scrollWidth)) + ' px)');
    problems.push('scrolls sideways: ' + document.documentElement.scrollWidth + ' px wide at ' + w + ' px; widest: ' + wide.join(', '));
  }
  // Each count in the navigation sits inside its own tab, beside its icon, never on it or on
  // the next tab.
  for (const a of document.querySelectorAll('.nav > li > a')) {
    const icon = a.querySelector('svg'), ar = a.getBoundingClientRect();
    for (const c of a.querySelectorAll('.count')) {
      const cr = c.getBoundingClientRect();
      if (cr.width === 0) continue;
      if (cr.left < ar.left - 0.5 || cr.right > ar.right + 0.5) problems.push('the count ' + JSON.stringify(c.textContent.trim()) + ' of ' + a.dataset.testid + ' leaves its tab (' + Math.round(cr.left) + '–' + Math.round(cr.right) + ' px, tab ' + Math.round(ar.left) + '–' + Math.round(ar.right) + ')');
      const ir = icon && icon.getBoundingClientRect();
      if (ir && cr.left < ir.right - 0.5 && cr.right > ir.left + 0.5 && cr.top < ir.bottom - 0.5 && cr.bottom > ir.top + 0.5) problems.push('the count of ' + a.dataset.testid + ' covers its icon');
    }
  }
  // A filter form's fields and its Apply button are on the screen, not cut off.
  for (const el of document.querySelectorAll('form.filters input:not([type=hidden]), form.filters select, form.filters button')) {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && (r.left < -0.5 || r.right > w + 0.5)) problems.push('filter ' + (el.name || el.textContent.trim()) + ' is cut off (' + Math.round(r.left) + '–' + Math.round(r.right) + ' px)');
  }
  const surface = getComputedStyle(document.documentElement).getPropertyValue('--surface').trim();
  const probe = document.createElement('div');
  probe.style.background = surface;
  document.body.appendChild(probe);
  const want = getComputedStyle(probe).backgroundColor;
  probe.remove();
  for (const el of document.querySelectorAll('main input, main select, main textarea')) {
    const type = (el.getAttribute('type') || 'text').toLowerCase();
    if (['checkbox', 'radio', 'hidden', 'file', 'submit', 'button', 'range', 'color'].includes(type)) continue;
    const cs = getComputedStyle(el);
    if (cs.backgroundColor !== want || cs.borderTopLeftRadius === '0px') {
      problems.push('input ' + (el.name || el.id || type) + ' [' + type + '] not styled: background ' + cs.backgroundColor + ', want ' + want);
    }
  }
  return problems.join('; ');
})()`
}
