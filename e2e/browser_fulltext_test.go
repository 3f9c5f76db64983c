package e2e_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestBrowserFullText: on an item's page the f key reads the linked page's whole article and
// shows it in place; on a card the Full text button opens the article in the card (issue 28,
// item 4). Scripts in the page never run.
func TestBrowserFullText(t *testing.T) {
	para := strings.Repeat("The council voted on Tuesday to rebuild the old harbour bridge, after years of debate about its cost and its look. ", 6)
	var srvURL string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/feed" {
			w.Header().Set("Content-Type", "application/rss+xml")
			fmt.Fprintf(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>Paper</title><link>%s/</link>
<item><title>The bridge, first</title><link>%s/a</link><guid>a</guid><description>A short summary.</description></item>
<item><title>The bridge, second</title><link>%s/b</link><guid>b</guid><description>A short summary.</description></item>
</channel></rss>`, srvURL, srvURL, srvURL)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>Bridge</title></head><body><nav>Home · News</nav><article><h1>The bridge</h1>
<p>%s</p><p>%s</p><p>Residents will be asked their view.<img src=x onerror="window.__ran=1"><script>window.__ran=2</script></p></article></body></html>`, para, para)
	}))
	defer srv.Close()
	srvURL = srv.URL
	dir := t.TempDir()
	mustRun(t, dir, "source", "add", srv.URL+"/feed", "--type", "rss")
	mustRun(t, dir, "fetch")
	base, _ := startServer(t, dir)
	ctx := browser(t)

	follow(t, ctx, "the first item's page", `document.querySelector('[data-testid=fulltext]') !== null`, chromedp.Navigate(base+"items/1"))
	_ = chromedp.Run(ctx, chromedp.Evaluate(`window.__notReloaded = true`, nil))
	if err := chromedp.Run(ctx, chromedp.KeyEvent("f")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the article in place after f", `window.__notReloaded && !!document.querySelector('[data-testid=full-text-note]') &&
		document.querySelector('[data-testid=article]').textContent.includes('Residents will be asked their view.') && !document.querySelector('[data-testid=fulltext]')`, patience)

	follow(t, ctx, "the list", `document.querySelectorAll('[data-testid=item]').length == 2`, chromedp.Navigate(base+"items?show=all"))
	_ = chromedp.Run(ctx, chromedp.Evaluate(`window.__notReloaded = true`, nil))
	if err := chromedp.Run(ctx, chromedp.Click(`#item-2 [data-testid=fulltext]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the article in the card", `window.__notReloaded && !!document.querySelector('#item-2 details[open] [data-testid=article]') &&
		document.querySelector('#item-2 [data-testid=article]').textContent.includes('harbour bridge')`, patience)
	// The page's script and its onerror never ran.
	var ran any
	if err := chromedp.Run(ctx, chromedp.KeyEvent(kb.Escape), chromedp.Evaluate(`window.__ran || null`, &ran)); err != nil {
		t.Fatal(err)
	}
	if ran != nil {
		t.Fatalf("a script of the page ran: %v", ran)
	}
}
