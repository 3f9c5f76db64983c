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

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestBrowserReadingOptions: Settings → Reading. The compact density shows at least twice as
// many items on the first screen; with mark as read on scroll, the items scrolled past the top
// are marked read (the sidebar's count follows) and those not yet seen stay unread, without a
// reload (issue 28, item 6).
func TestBrowserReadingOptions(t *testing.T) {
	var feed strings.Builder
	feed.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>News</title><link>https://example.com/</link>`)
	for i := range 40 {
		fmt.Fprintf(&feed, `<item><title>Story number %d about the news of the day</title><link>https://example.com/%d</link><guid>%d</guid><description>A summary of the story, long enough to take two lines on a card: what happened, where, and why it matters to the reader.</description><pubDate>Sun, 22 Nov 2026 %02d:00:00 GMT</pubDate></item>`, i, i, i, 23-i%24)
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
	base, _ := startServer(t, dir)
	ctx := browser(t)

	onScreen := `[...document.querySelectorAll('[data-testid=item]')].filter(e => e.getBoundingClientRect().top < innerHeight).length`
	var comfortable, compact int
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(1280, 800, func(p *emulation.SetDeviceMetricsOverrideParams, _ *emulation.SetTouchEmulationEnabledParams) {}),
		chromedp.Navigate(base+"items"), chromedp.WaitVisible(`[data-testid=item]`, chromedp.ByQuery),
		chromedp.Evaluate(onScreen, &comfortable)); err != nil {
		t.Fatal(err)
	}
	// Scrolling changes nothing while the option is off (its default).
	if err := chromedp.Run(ctx, chromedp.Evaluate(`window.scrollTo(0, 1500)`, nil)); err != nil {
		t.Fatal(err)
	}
	follow(t, ctx, "the settings", `document.querySelector('[data-testid=reading-settings]') !== null`, chromedp.Navigate(base+"settings"))
	if err := chromedp.Run(ctx,
		chromedp.Click(`[data-testid=mark-read-on-scroll]`, chromedp.ByQuery),
		chromedp.Click(`[data-testid=density-compact]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	follow(t, ctx, "the saved settings", `document.querySelector('[data-testid=flash]') !== null`,
		chromedp.Click(`[data-testid=save-reading]`, chromedp.ByQuery))
	follow(t, ctx, "the compact river", `document.body.classList.contains('density-compact') && document.querySelector('[data-testid=item]') !== null`,
		chromedp.Navigate(base+"items"))
	var unreadBefore string
	if err := chromedp.Run(ctx, chromedp.Evaluate(onScreen, &compact), chromedp.Evaluate(`document.querySelector('[data-testid=unread-count]').textContent.replace(/\D/g, '')`, &unreadBefore)); err != nil {
		t.Fatal(err)
	}
	if compact < 2*comfortable {
		t.Fatalf("%d items on the first screen in the compact density, %d in the comfortable one; want at least twice as many", compact, comfortable)
	}
	if unreadBefore != "40" {
		t.Fatalf("unread %s before scrolling, want 40 (scrolling with the option off marked items read)", unreadBefore)
	}
	if shots := os.Getenv("MORNINGDECK_LAYOUT_SHOTS"); shots != "" {
		var png []byte
		if err := chromedp.Run(ctx, chromedp.CaptureScreenshot(&png)); err != nil {
			t.Fatal(err)
		}
		_ = os.WriteFile(filepath.Join(shots, "desktop-compact-items.png"), png, 0o644)
	}
	_ = chromedp.Run(ctx, chromedp.Evaluate(`window.__notReloaded = true`, nil))
	// Scroll by steps, as a reader does, past the first items.
	for _, y := range []int{200, 400, 600} {
		if err := chromedp.Run(ctx, chromedp.Evaluate(fmt.Sprintf(`window.scrollTo(0, %d)`, y), nil)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(300 * time.Millisecond)
	}
	passed := `[...document.querySelectorAll('[data-testid=item]')].filter(e => e.getBoundingClientRect().bottom <= 0)`
	waitFor(t, ctx, "the items scrolled past marked read, and the count lowered", `window.__notReloaded && `+passed+`.length > 0 && `+passed+`.every(e => e.classList.contains('is-read')) &&
		document.querySelector('[data-testid=unread-count]').textContent.replace(/\D/g, '') == String(40 - `+passed+`.length)`, patience)
	var below int
	if err := chromedp.Run(ctx, chromedp.Evaluate(`[...document.querySelectorAll('[data-testid=item]')].filter(e => e.getBoundingClientRect().top > 0 && e.classList.contains('is-read')).length`, &below)); err != nil {
		t.Fatal(err)
	}
	if below != 0 {
		t.Fatalf("%d items still on or below the screen were marked read", below)
	}
}
