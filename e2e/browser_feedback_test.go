package e2e_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// feedbackFeed is an RSS feed of four sourdough items among thirty on other subjects.
func feedbackFeed() string {
	subjects := []string{"volcano eruption lava", "chess opening gambit", "tidal energy turbine", "orchid greenhouse humidity",
		"marathon training mileage", "railway signalling interlocking", "beekeeping hive queen", "violin bow rosin",
		"glacier retreat meltwater", "satellite orbit debris", "knitting yarn gauge", "coral reef bleaching",
		"falconry hawk hood", "origami crane fold", "typewriter ribbon keys", "lighthouse keeper lamp",
		"cactus desert succulent", "submarine sonar hull", "pottery kiln glaze", "kite surfing wind",
		"telescope mirror grinding", "cheese cave rind", "bicycle derailleur gears", "penguin colony krill",
		"archery bow fletching", "windmill sails grain", "jazz saxophone solo", "mushroom foraging spores",
		"canal lock barge", "meteor shower radiant"}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>Mixed</title><link>http://mixed.invalid/</link><description>x</description>`)
	item := func(i int, title, text string) {
		fmt.Fprintf(&b, `<item><title>%s</title><link>http://mixed.invalid/%d</link><guid>mixed-%d</guid><pubDate>%s</pubDate><description>%s</description></item>`,
			title, i, i, time.Now().Add(-time.Duration(i)*time.Hour).UTC().Format(time.RFC1123Z), text)
	}
	for i, t := range []string{"Sourdough starter: feeding a lively levain", "Sourdough loaves with an open crumb",
		"Why a sourdough levain smells of acetone", "Rye sourdough and the levain that lifts it"} {
		item(i, t, t+". A sourdough levain needs flour, water and patience; the crumb of the loaf shows the hydration and the fermentation of the levain.")
	}
	for i, s := range subjects {
		w := strings.Fields(s)
		item(100+i, fmt.Sprintf("Notes on the %s", s), fmt.Sprintf("A long look at the %s: why the %s matters, how the %s works and what the %s teaches.", s, w[0], w[1], w[2]))
	}
	b.WriteString(`</channel></rss>`)
	return b.String()
}

func TestBrowserFeedback(t *testing.T) {
	feed := feedbackFeed()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprint(w, feed)
	}))
	defer srv.Close()
	dir := t.TempDir()
	mustRun(t, dir, "source", "add", srv.URL+"/feed", "--type", "rss")
	base, _ := startServer(t, dir)
	ctx := browser(t)

	// The first import is ranked: every item gets a score without any new post.
	deadline := time.Now().Add(patience)
	for {
		var scored, shown int
		if err := chromedp.Run(ctx,
			chromedp.Navigate(base+"items?show=all"),
			chromedp.WaitVisible(`[data-testid=item-filters]`, chromedp.ByQuery),
			chromedp.Evaluate(`document.querySelectorAll('[data-testid=score]').length`, &scored),
			chromedp.Evaluate(`document.querySelectorAll('[data-testid=item]').length`, &shown),
		); err != nil {
			t.Fatal(err)
		}
		if shown == 30 && scored == shown { // the first page of the 34
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of the %d items shown of the first import scored", scored, shown)
		}
		time.Sleep(300 * time.Millisecond)
	}

	// "More like this" on one sourdough item, by mouse.
	card := `[...document.querySelectorAll('[data-testid=item]')].find(c => c.textContent.includes('feeding a lively levain'))`
	// The click posts a form and loads the page it returns to: wait on that page, never read the
	// one being left (a read between the two documents fails with "No node with given id").
	follow(t, ctx, "the flash of More like this",
		`!!document.querySelector('.flash') && document.querySelector('.flash').textContent.includes('more items like this')`,
		chromedp.Evaluate(card+`.querySelector('[data-testid=feedback-more]').click()`, nil))

	// After the background re-scoring, a similar item's reason says why it moved up.
	similar := `[...document.querySelectorAll('[data-testid=item]')].find(c => c.textContent.includes('open crumb'))`
	deadline = time.Now().Add(patience)
	for {
		var reason string
		if err := chromedp.Run(ctx,
			chromedp.Navigate(base+"items?show=all"),
			chromedp.WaitVisible(`[data-testid=item-filters]`, chromedp.ByQuery),
			chromedp.Evaluate(similar+`.querySelector('[data-testid=score-reason]').textContent`, &reason),
		); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(reason, "you liked similar items") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the similar item's reason never mentioned the feedback: %q", reason)
		}
		time.Sleep(300 * time.Millisecond)
	}

	// "Less like this" by keyboard on an item's page.
	var href string
	if err := chromedp.Run(ctx, chromedp.Evaluate(`[...document.querySelectorAll('[data-testid=item]')].find(c => c.textContent.includes('volcano')).querySelector('[data-testid=item-title]').getAttribute('href')`, &href)); err != nil {
		t.Fatal(err)
	}
	if err := chromedp.Run(ctx,
		chromedp.Navigate(base+strings.TrimPrefix(href, "/")),
		chromedp.WaitVisible(`[data-testid=item-page]`, chromedp.ByQuery),
		chromedp.KeyEvent("-"),
	); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, "the flash of Less like this", `!!document.querySelector('.flash') && document.querySelector('.flash').textContent.includes('fewer items like this')`, patience)

	// Settings shows what was learned, and Reset (confirmed) forgets it.
	var count, positive string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(base+"settings"),
		chromedp.WaitVisible(`[data-testid=learned-count]`, chromedp.ByQuery),
		chromedp.Text(`[data-testid=learned-count]`, &count, chromedp.ByQuery),
		chromedp.Text(`[data-testid=learned-positive]`, &positive, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	// more, less, and the opening of the volcano item
	if !strings.Contains(count, "From 3 signals") || !strings.Contains(strings.ToLower(positive), "levain") {
		t.Fatalf("learned: %q, more of %q", count, positive)
	}
	if err := chromedp.Run(ctx,
		chromedp.Click(`[data-testid=learned-reset]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#confirm-dialog [data-confirm-button]`, chromedp.ByQuery),
		chromedp.Click(`#confirm-dialog [data-confirm-button]`, chromedp.ByQuery),
		chromedp.WaitVisible(`[data-testid=learned-empty]`, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
}
