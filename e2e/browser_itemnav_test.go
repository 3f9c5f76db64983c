package e2e_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/morningdeck/morningdeck/app/feeds/feedtest"
)

// The item page's next and previous, by button and by key, within the list it was opened from;
// the folder filter and the sidebar's folders; g b and g q.
func TestBrowserItemNav(t *testing.T) {
	farm := feedtest.NewFarm(2, 3)
	defer farm.Close()
	dir := t.TempDir()
	mustRun(t, dir, "source", "add", farm.URL(0), "--type", "rss", "--folder", "Tech")
	mustRun(t, dir, "source", "add", farm.URL(1), "--type", "rss")
	mustRun(t, dir, "fetch")
	base, _ := startServer(t, dir)
	ctx := browser(t)

	title := func() string {
		var s string
		if err := chromedp.Run(ctx, chromedp.WaitVisible(`[data-testid=item-page]`, chromedp.ByQuery),
			chromedp.Text(`h1.reader-title`, &s, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(s)
	}
	// The sidebar lists the folder with its unread count; it leads to the folder's river.
	var listed []string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(base+"items"),
		chromedp.WaitVisible(`[data-testid=nav-folder]`, chromedp.ByQuery),
		chromedp.Evaluate(`[document.querySelector('[data-testid=nav-folder]').textContent.replace(/\s+/g,' ').trim()]`, &listed),
	); err != nil {
		t.Fatal(err)
	}
	// The folder's river has the same filters as the page it is opened from: wait for its address.
	if err := chromedp.Run(ctx, chromedp.Click(`[data-testid=nav-folder]`, chromedp.ByQuery)); err != nil && !navigating(err) {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the folder's river", `location.search.includes('folder=') && document.readyState == 'complete' && document.querySelector('[data-testid=item-filters]') !== null`, patience)
	if len(listed) != 1 || !strings.HasPrefix(listed[0], "Tech 3") {
		t.Fatalf("sidebar folder %q, want Tech with 3 unread", listed)
	}
	var cards []string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`Array.from(document.querySelectorAll('[data-testid=item-title]')).map(a => a.textContent.trim())`, &cards)); err != nil {
		t.Fatal(err)
	}
	if len(cards) != 3 {
		t.Fatalf("the folder's river shows %q, want the 3 items of its source", cards)
	}
	// Open the first; Next by button, then j and n by key, p and k back.
	if err := chromedp.Run(ctx, chromedp.Click(`[data-testid=item-title]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	seen := []string{title()}
	if err := chromedp.Run(ctx, chromedp.Click(`[data-testid=item-next]`, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "Next to open the second item", `document.readyState == 'complete' && document.querySelector('h1.reader-title') && document.querySelector('h1.reader-title').textContent.trim() == `+jsString(cards[1]), patience)
	seen = append(seen, title())
	if err := chromedp.Run(ctx, chromedp.KeyEvent("j")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the third item's page", `document.readyState == 'complete' && document.querySelector('h1.reader-title') && document.querySelector('h1.reader-title').textContent.trim() == `+jsString(cards[2]), patience)
	seen = append(seen, title())
	if strings.Join(seen, "|") != strings.Join(cards, "|") {
		t.Fatalf("next went through %q, the list is %q", seen, cards)
	}
	var hasNext bool
	if err := chromedp.Run(ctx, chromedp.Evaluate(`!!document.querySelector('[data-testid=item-next]')`, &hasNext)); err != nil {
		t.Fatal(err)
	}
	if hasNext {
		t.Error("the last item of the folder offers a next one (from another folder?)")
	}
	if err := chromedp.Run(ctx, chromedp.KeyEvent("p")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "p to go back one", `document.readyState == 'complete' && document.querySelector('h1.reader-title') && document.querySelector('h1.reader-title').textContent.trim() == `+jsString(cards[1]), patience)
	if err := chromedp.Run(ctx, chromedp.KeyEvent("k")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "k to go back to the first", `document.readyState == 'complete' && document.querySelector('h1.reader-title') && document.querySelector('h1.reader-title').textContent.trim() == `+jsString(cards[0]), patience)
	if err := chromedp.Run(ctx, chromedp.KeyEvent("n")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "n to go to the second", `document.readyState == 'complete' && document.querySelector('h1.reader-title') && document.querySelector('h1.reader-title').textContent.trim() == `+jsString(cards[1]), patience)

	// g b and g q, listed in the keyboard help.
	if err := chromedp.Run(ctx, chromedp.KeyEvent("g"), chromedp.KeyEvent("b")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "g b to open Briefings", `location.pathname == '/briefings' && document.readyState == 'complete'`, patience)
	if err := chromedp.Run(ctx, chromedp.KeyEvent("g"), chromedp.KeyEvent("q")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "g q to open Queues", `location.pathname == '/queues'`, patience)
	var help string
	if err := chromedp.Run(ctx, chromedp.TextContent(`#shortcuts-dialog`, &help, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(help, "Go to Briefings") || !strings.Contains(help, "Go to Queues") {
		t.Errorf("keyboard help: %q", help)
	}
}

func jsString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
