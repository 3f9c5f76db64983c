package e2e_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserLiveCounts: the sidebar's unread counts follow a mark and an OPML import's fetches
// without a page load (issue 28, item 8). A card marked read lowers the Items count and its
// folder's; after an import, the imported feed's items raise the count on the page the import
// led to, as they arrive.
func TestBrowserLiveCounts(t *testing.T) {
	feed := func(prefix string, n int) string {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>` + prefix + `</title><link>https://example.com/</link>`)
		for i := range n {
			fmt.Fprintf(&b, `<item><title>%s story %d</title><link>https://example.com/%s/%d</link><guid>%s-%d</guid><description>Text.</description></item>`, prefix, i, prefix, i, prefix, i)
		}
		b.WriteString(`</channel></rss>`)
		return b.String()
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		if r.URL.Path == "/imported" {
			time.Sleep(3 * time.Second) // the page after the import loads before its items come
			_, _ = w.Write([]byte(feed("Imported", 7)))
			return
		}
		_, _ = w.Write([]byte(feed("News", 5)))
	}))
	defer srv.Close()
	dir := t.TempDir()
	mustRun(t, dir, "source", "add", srv.URL+"/news", "--type", "rss", "--folder", "News")
	mustRun(t, dir, "fetch")
	base, _ := startServer(t, dir)
	ctx := browser(t)

	counts := `[(document.querySelector('[data-testid=unread-count]') || {textContent: '0'}).textContent.replace(/\D/g, ''),
		(document.querySelector('[data-testid=folder-unread]') || {textContent: '0'}).textContent.replace(/\D/g, '')].join(' ')`
	var got string
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"items"), chromedp.WaitVisible(`[data-testid=toggle-read]`, chromedp.ByQuery),
		chromedp.Evaluate(counts, &got)); err != nil {
		t.Fatal(err)
	}
	if got != "5 5" {
		t.Fatalf("unread and folder counts %q, want 5 5", got)
	}
	_ = chromedp.Run(ctx, chromedp.Evaluate(`window.__notReloaded = true`, nil))
	if err := chromedp.Run(ctx, chromedp.Click(`[data-testid=toggle-read]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "both counts at 4 after a mark", `window.__notReloaded && `+counts+` == '4 4'`, patience)

	// An OPML import through the form: the page it leads to counts the new items as they come.
	opml := filepath.Join(t.TempDir(), "subs.opml")
	if err := os.WriteFile(opml, []byte(`<?xml version="1.0"?><opml version="2.0"><body><outline type="rss" text="Imported" xmlUrl="`+srv.URL+`/imported"/></body></opml>`), 0o600); err != nil {
		t.Fatal(err)
	}
	follow(t, ctx, "the sources page", `document.querySelector('[data-testid=import-opml]') !== null`, chromedp.Navigate(base+"sources"))
	if err := chromedp.Run(ctx, chromedp.SetUploadFiles(`#opml-file`, []string{opml}, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	follow(t, ctx, "the page after the import", `document.querySelectorAll('[data-testid=source-row]').length == 2`,
		chromedp.Click(`form[data-testid=import-opml] button`, chromedp.ByQuery))
	_ = chromedp.Run(ctx, chromedp.Evaluate(`window.__notReloaded = true`, nil))
	waitFor(t, ctx, "the Items count at 11 once the imported feed is read", `window.__notReloaded && `+counts+` == '11 4'`, patience)
}
