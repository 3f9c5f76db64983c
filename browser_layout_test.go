package main_test

import (
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
</channel></rss>`
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

	pages := []string{"", "items", "items/1", "sources", "sources/1", "briefings", "briefings/1/edit", "reports/1", "settings", "queues"}
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
