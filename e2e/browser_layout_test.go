package e2e_test

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestBrowserLayout opens every page at a phone's (390×844) and a desktop's (1280×800) size,
// in both themes as the system asks for them (prefers-color-scheme, emulated), with sources,
// items, a folder and a briefing whose titles, names and links are long (unbroken words, and
// long names of ordinary words), a failing source with its error, and enough sources for the
// list's filter: no page may scroll sideways; on a phone the bottom tab bar is on the screen,
// drawn (an opaque bar whose labels contrast with it) and not covered; at the desktop's width
// the forms line up (the Items filters and the add-source form on one row, their labels on one
// line, the placeholders whole, table headers on one line, the Settings panels one width); and
// every text-like input is drawn by our stylesheet, not the browser's default light box. The
// sign-in page is checked the same way on a server that requires it.
func TestBrowserLayout(t *testing.T) {
	long := strings.Repeat("Unbreakable", 30)
	longURL := "https://example.com/" + strings.Repeat("path-segment-", 25) + "?q=" + strings.Repeat("x", 120)
	feed := `<?xml version="1.0"?><rss version="2.0"><channel><title>` + long + `</title><link>` + longURL + `</link>
<item><title>` + long + `</title><link>` + longURL + `</link><guid>1</guid><description>` + long + ` ` + longURL + `</description><pubDate>Mon, 23 Nov 2026 06:00:00 GMT</pubDate></item>
<item><title>A second, ordinary title</title><link>https://example.com/2</link><guid>2</guid><description>Some text.</description><pubDate>Mon, 23 Nov 2026 05:00:00 GMT</pubDate></item>
` + moreItems(120) + `</channel></rss>`
	small := `<?xml version="1.0"?><rss version="2.0"><channel><title>Small</title><link>https://example.com/</link>
<item><title>One story</title><link>https://example.com/one</link><guid>one</guid><description>Text.</description></item></channel></rss>`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case strings.HasPrefix(r.URL.Path, "/broken/"):
			http.Error(w, "gone", http.StatusInternalServerError)
			return
		case r.URL.Path == "/feed":
			w.Header().Set("Content-Type", "application/rss+xml")
			_, _ = w.Write([]byte(feed))
		default:
			w.Header().Set("Content-Type", "application/rss+xml")
			_, _ = w.Write([]byte(small))
		}
	}))
	defer srv.Close()
	dir := t.TempDir()
	longPath := "/" + strings.Repeat("a-long-path-segment-of-the-site/", 8) + "feed.xml?category=" + strings.Repeat("technology-and-science-", 6)
	longName := "The Extraordinarily Long-Winded Name of a Regional Newspaper’s Technology, Science and Culture Weekly Digest"
	mustRun(t, dir, "source", "add", srv.URL+"/feed", "--type", "rss", "--folder", "A folder with a rather long name for a folder")
	mustRun(t, dir, "source", "add", srv.URL+longPath, "--type", "rss", "--name", longName)
	mustRun(t, dir, "source", "add", srv.URL+"/broken"+longPath, "--type", "rss", "--name", long[:120])
	for i := range 11 { // past twelve sources the list has its filter
		mustRun(t, dir, "source", "add", fmt.Sprintf("%s/small/%d", srv.URL, i), "--type", "rss", "--name", fmt.Sprintf("Small source %d", i))
	}
	_, _, _ = run(t, dir, "fetch") // the broken source fails: that is its point
	mustRun(t, dir, "brief", "add", long[:190], "--time", "07:00", "--timezone", "UTC")
	mustRun(t, dir, "brief", "run", "1")
	base, _ := startServer(t, dir)
	ctx := browser(t)

	pages := []string{"", "items", "items?q=Unbreakable&show=all", "items?folder=1&show=all", "items/1", "sources", "sources?q=source",
		"sources/1", "sources/2", "sources/3", "briefings", "briefings/1/edit", "reports/1", "settings", "queues", "account", "nowhere"}
	checkLayout(t, ctx, base, pages)

	// The sign-in page, on a server that asks for it.
	login := t.TempDir()
	add := exec.Command(binary, "--data-dir", login, "user", "add", "ann")
	add.Env = append(os.Environ(), "XDG_CONFIG_HOME="+t.TempDir())
	add.Stdin = strings.NewReader("a long enough password\n")
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("user add: %v %s", err, out)
	}
	loginBase, _ := startServer(t, login, "--require-login")
	checkLayout(t, ctx, loginBase, []string{"login"})
}

// layoutViewports are the sizes TestBrowserLayout checks: a phone's and a laptop's.
var layoutViewports = []struct {
	name          string
	width, height int64
	mobile        bool
}{{"phone", 390, 844, true}, {"desktop", 1280, 800, false}}

// checkLayout opens each page under base at each of layoutViewports, in the light and the dark
// theme as the system's preference (no theme chosen in the page), and reports layoutProblems.
func checkLayout(t *testing.T, ctx context.Context, base string, pages []string) {
	t.Helper()
	for _, vp := range layoutViewports {
		for _, theme := range []string{"light", "dark"} {
			if err := chromedp.Run(ctx, chromedp.EmulateViewport(vp.width, vp.height, func(p *emulation.SetDeviceMetricsOverrideParams, _ *emulation.SetTouchEmulationEnabledParams) {
				p.Mobile = vp.mobile
			}), emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: theme}}),
				chromedp.Navigate(base), chromedp.WaitReady("body", chromedp.ByQuery),
				chromedp.Evaluate(`localStorage.removeItem('md-theme')`, nil)); err != nil {
				t.Fatal(err)
			}
			for _, path := range pages {
				var report string
				if err := chromedp.Run(ctx,
					chromedp.Navigate(base+path),
					chromedp.WaitReady("body", chromedp.ByQuery),
					chromedp.Evaluate(layoutProblems(theme, vp.width), &report),
				); err != nil {
					t.Fatalf("%s %s /%s: %v", vp.name, theme, path, err)
				}
				if report != "" {
					t.Errorf("%s (%d px), %s theme, /%s: %s", vp.name, vp.width, theme, path, report)
				}
				// MORNINGDECK_LAYOUT_SHOTS=folder keeps a picture of each page's first screen, to look at.
				if shots := os.Getenv("MORNINGDECK_LAYOUT_SHOTS"); shots != "" {
					var png []byte
					if err := chromedp.Run(ctx, chromedp.CaptureScreenshot(&png)); err != nil {
						t.Fatal(err)
					}
					name := strings.NewReplacer("/", "_", "?", "_", "&", "_", "=", "_").Replace(path)
					if err := os.WriteFile(filepath.Join(shots, fmt.Sprintf("%s-%s-%s.png", vp.name, theme, cmp.Or(name, "today"))), png, 0o644); err != nil {
						t.Fatal(err)
					}
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

// layoutProblems is a script that answers "" when the page fits its width, its tab bar is on
// the screen (on a phone), its forms line up (at a desktop's width) and its inputs are styled,
// else what is wrong and where.
func layoutProblems(theme string, width int64) string {
	return `(() => {
  const problems = [], phone = ` + fmt.Sprint(width) + ` <= 700;
  const dark = matchMedia('(prefers-color-scheme: dark)').matches;
  if (dark !== ('` + theme + `' === 'dark')) problems.push('the system theme is not ` + theme + `');
  const bodyBg = getComputedStyle(document.body).backgroundColor;
  const rgb = c => (c.match(/[\d.]+/g) || []).map(Number);
  const lum = c => { const [r, g, b] = rgb(c).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const contrast = (a, b) => { const x = lum(a), y = lum(b); return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  if ((lum(bodyBg) < 0.2) !== dark) problems.push('the page is drawn ' + (dark ? 'light' : 'dark') + ' (' + bodyBg + ')');
  const w = document.documentElement.clientWidth, vw = window.innerWidth;
  if (w !== ` + fmt.Sprint(width) + `) problems.push('the page is laid out ' + w + ' px wide');
  if (document.documentElement.scrollWidth > w + 1 || document.body.scrollWidth > w + 1) {
    const wide = [...document.querySelectorAll('body *')].filter(e => {
      const r = e.getBoundingClientRect();
      return r.width > 0 && r.right > w + 1 && getComputedStyle(e).position !== 'fixed' ;
    }).slice(-4).map(e => e.tagName.toLowerCase() + (e.className ? '.' + String(e.className).split(' ').join('.') : '') + ' (' + Math.round(Math.max(e.getBoundingClientRect().right, e.getBoundingClientRect().left + e.scrollWidth)) + ' px)');
    problems.push('scrolls sideways: ' + document.documentElement.scrollWidth + ' px wide at ' + w + ' px; widest: ' + wide.join(', '));
  }
  const desc = e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.getAttribute('name') ? '[name=' + e.getAttribute('name') + ']' : '') + (e.className && typeof e.className === 'string' ? '.' + e.className.split(' ').join('.') : '');
  // On a phone the bottom tab bar is on the screen, opaque, its labels readable on it, and the
  // topmost thing where it is.
  const bar = document.querySelector('.sidebar');
  if (phone && bar) {
    const r = bar.getBoundingClientRect(), cs = getComputedStyle(bar);
    if (r.height < 30 || r.top < 0 || r.bottom > innerHeight + 0.5 || r.left < -0.5 || r.right > vw + 0.5) problems.push('the tab bar is off the screen: ' + Math.round(r.left) + ',' + Math.round(r.top) + '–' + Math.round(r.right) + ',' + Math.round(r.bottom) + ' in ' + vw + '×' + innerHeight);
    if (cs.position !== 'fixed') problems.push('the tab bar scrolls away (position ' + cs.position + ')');
    if (cs.visibility !== 'visible' || cs.display === 'none' || Number(cs.opacity) < 1) problems.push('the tab bar is hidden');
    const bg = rgb(cs.backgroundColor);
    if (bg.length > 3 && bg[3] < 1) problems.push('the tab bar is transparent (' + cs.backgroundColor + ')');
    for (const a of bar.querySelectorAll('.nav > li > a')) {
      const c = contrast(getComputedStyle(a).color, getComputedStyle(a).backgroundColor.endsWith(', 0)') ? cs.backgroundColor : getComputedStyle(a).backgroundColor);
      if (c < 4.5) problems.push('the tab ' + a.dataset.testid + ' is hard to see (contrast ' + c.toFixed(1) + ')');
      const ar = a.getBoundingClientRect(), hit = document.elementFromPoint(ar.left + ar.width / 2, ar.top + ar.height / 2);
      if (!hit || !a.contains(hit)) problems.push('the tab ' + a.dataset.testid + ' is covered by ' + (hit ? desc(hit) : 'nothing'));
    }
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
  // Nothing inside a card, a row or a panel runs out of it (a long name under the row's menu).
  for (const box of document.querySelectorAll('main .panel, main .item, main tr, main .empty, main .briefings > li')) {
    const br = box.getBoundingClientRect();
    if (br.width === 0) continue;
    for (const el of box.querySelectorAll('a, span, p, h1, h2, h3, strong, time, td, div, img')) {
      const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
      if (r.width === 0 || cs.position === 'absolute' || el.closest('.visually-hidden, .menu-panel, .score-reason')) continue;
      if (r.right > br.right + 1 || r.left < br.left - 1) { problems.push(desc(el) + ' ' + JSON.stringify(el.textContent.trim().slice(0, 30)) + ' runs out of its ' + desc(box) + ' (' + Math.round(r.left) + '–' + Math.round(r.right) + ' px in ' + Math.round(br.left) + '–' + Math.round(br.right) + ')'); break; }
    }
  }
  // Nothing runs under a row's menu button.
  for (const m of document.querySelectorAll('main .menu > summary')) {
    const mr = m.getBoundingClientRect(), row = m.closest('tr');
    if (!row || mr.width === 0) continue;
    for (const el of row.querySelectorAll('a, span, p, time')) {
      if (m.contains(el) || el.closest('.menu, .visually-hidden')) continue;
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.left < mr.right - 0.5 && r.right > mr.left + 0.5 && r.top < mr.bottom - 0.5 && r.bottom > mr.top + 0.5) { problems.push(desc(el) + ' ' + JSON.stringify(el.textContent.trim().slice(0, 30)) + ' runs under the menu button'); break; }
    }
  }
  // A label, a placeholder, a table header: whole and on one line where there is room.
  // A text is on one line when all its visible words' boxes share one line.
  const oneLine = el => {
    const tops = [], walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      if (!n.textContent.trim() || n.parentElement.closest('.visually-hidden')) continue;
      const rg = document.createRange();
      rg.selectNodeContents(n);
      for (const r of rg.getClientRects()) if (r.width > 0) tops.push(r.top);
    }
    return tops.every(t => Math.abs(t - tops[0]) < 4);
  };
  const canvas = document.createElement('canvas').getContext('2d');
  const placeholderFits = el => {
    const cs = getComputedStyle(el);
    canvas.font = cs.fontStyle + ' ' + cs.fontWeight + ' ' + cs.fontSize + ' ' + cs.fontFamily;
    return canvas.measureText(el.placeholder).width <= el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) + 1;
  };
  if (!phone) {
    for (const form of document.querySelectorAll('main form.filters, main form[data-testid=add-source] .row')) {
      const controls = [...form.querySelectorAll('input:not([type=hidden]), select, button')].filter(e => e.getBoundingClientRect().width > 0);
      const bottoms = controls.map(e => Math.round(e.getBoundingClientRect().bottom));
      if (Math.max(...bottoms) - Math.min(...bottoms) > 1) problems.push('the fields of ' + desc(form.closest('form')) + ' are not on one line: ' + controls.map((e, i) => desc(e) + ' ' + bottoms[i]).join(', '));
      const labels = [...form.querySelectorAll('.field > label')].filter(l => l.getBoundingClientRect().width > 0);
      for (const l of labels) if (!oneLine(l)) problems.push('the label ' + JSON.stringify(l.textContent.trim()) + ' wraps');
      const tops = labels.map(l => Math.round(l.getBoundingClientRect().top));
      if (Math.max(...tops) - Math.min(...tops) > 1) problems.push('the labels of ' + desc(form.closest('form')) + ' are not on one line: ' + labels.map((l, i) => JSON.stringify(l.textContent.trim()) + ' ' + tops[i]).join(', '));
      for (const s of form.querySelectorAll('select')) if (s.getBoundingClientRect().width > 320) problems.push('the select ' + desc(s) + ' stretches to ' + Math.round(s.getBoundingClientRect().width) + ' px');
    }
    for (const th of document.querySelectorAll('main th')) if (th.getBoundingClientRect().width > 0 && !oneLine(th)) problems.push('the header ' + JSON.stringify(th.textContent.trim()) + ' wraps');
    // The Settings page's panels share one width.
    const panels = [...document.querySelectorAll('main > .panel')].filter(e => e.getBoundingClientRect().width > 0);
    const widths = new Set(panels.map(e => Math.round(e.getBoundingClientRect().width)));
    if (location.pathname === '/settings' && widths.size > 1) problems.push('the panels have different widths: ' + panels.map(e => desc(e) + ' ' + Math.round(e.getBoundingClientRect().width)).join(', '));
  }
  for (const el of document.querySelectorAll('main input[placeholder]')) if (el.getBoundingClientRect().width > 0 && el.placeholder && !placeholderFits(el) && !phone) problems.push('the placeholder of ' + desc(el) + ' is cut: ' + JSON.stringify(el.placeholder));
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
