package e2e_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// TestBrowserOffline: the installable app reads offline (issue 28, item 5). Loaded once, its
// service worker keeps Today, Items, the latest report and the latest items' pages (without
// marking any read); with the server gone and the browser offline, the report and an item's
// page still open, a star made there is kept, and once back online the star (and the item's
// read mark, it was opened offline) arrive at the server.
func TestBrowserOffline(t *testing.T) {
	var feed strings.Builder
	feed.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>News</title><link>https://example.com/</link>`)
	for i := range 20 {
		fmt.Fprintf(&feed, `<item><title>Offline story %d</title><link>https://example.com/%d</link><guid>%d</guid><description>What happened in story %d.</description></item>`, i, i, i, i)
	}
	feed.WriteString(`</channel></rss>`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		_, _ = w.Write([]byte(feed.String()))
	}))
	defer srv.Close()
	dir := t.TempDir()
	mustRun(t, dir, "source", "add", srv.URL+"/feed", "--type", "rss")
	mustRun(t, dir, "fetch")
	mustRun(t, dir, "brief", "add", "Morning news", "--time", "07:00", "--timezone", "UTC")
	mustRun(t, dir, "brief", "run", "1")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	base, server := startServer(t, dir, "--addr", addr)
	ctx := browser(t)

	await := func(expr string, res any) chromedp.Action {
		return chromedp.Evaluate(expr, res, func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) })
	}
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"items"), chromedp.WaitVisible(`[data-testid=item]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the service worker to control the page", `!!navigator.serviceWorker.controller`, patience)
	for deadline := time.Now().Add(patience); ; time.Sleep(300 * time.Millisecond) {
		var kept int
		if err := chromedp.Run(ctx, await(`caches.open('md-pages').then(c => c.keys()).then(k => k.filter(r => /\/items\/\d+$|\/reports\/\d+$/.test(new URL(r.url).pathname)).length)`, &kept)); err != nil {
			t.Fatal(err)
		}
		if kept >= 21 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d item and report pages kept, want 21", kept)
		}
	}
	db := openRead(t, dir)
	var read int
	if err := db.QueryRow(`select count(*) from items where read_at is not null`).Scan(&read); err != nil {
		t.Fatal(err)
	}
	if read != 0 {
		t.Fatalf("keeping the pages marked %d items read", read)
	}

	// Offline: the server is gone and the browser knows it.
	_ = server.Process.Kill()
	_ = server.Wait()
	if err := chromedp.Run(ctx, network.Enable(), network.EmulateNetworkConditions(true, 0, -1, -1)); err != nil {
		t.Fatal(err)
	}
	follow(t, ctx, "the latest report, offline", `!!document.querySelector('[data-testid=report]') && document.body.textContent.includes('Offline story')`,
		chromedp.Navigate(base+"reports/1"))
	follow(t, ctx, "an item's page, offline", `!!document.querySelector('[data-testid=item-page]') && document.querySelector('h1.reader-title').textContent.includes('Offline story')`,
		chromedp.Navigate(base+"items/3"))
	var title string
	if err := chromedp.Run(ctx, chromedp.Text(`h1.reader-title`, &title, chromedp.ByQuery), chromedp.Click(`[data-testid=toggle-star]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the star shown and kept on the device", `document.querySelector('[data-testid=toggle-star]').getAttribute('aria-pressed') == 'true' &&
		JSON.parse(localStorage.getItem('md-pending') || '[]').some(c => c.id == '3' && c.action == 'star' && c.on == 'true')`, patience)

	// Back online: the server again, then the network.
	startServer(t, dir, "--addr", addr)
	if err := chromedp.Run(ctx, network.EmulateNetworkConditions(false, 0, -1, -1)); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(patience); ; time.Sleep(300 * time.Millisecond) {
		var starred, isRead bool
		if err := db.QueryRowContext(context.Background(), `select starred, read_at is not null from items where id = 3`).Scan(&starred, &isRead); err != nil {
			t.Fatal(err)
		}
		if starred && isRead {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%q after coming back online: starred %v, read %v; want both", title, starred, isRead)
		}
	}
	waitFor(t, ctx, "nothing left to send", `(localStorage.getItem('md-pending') || '[]') == '[]'`, patience)
}
