package e2e_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserReport: a report's page (one rendering with the email and the Atom feed) shows
// each story with a link to its page in the app, a link to the original in a new tab, and the
// items' "More like this" / "Less like this" buttons, which record the feedback and come back
// to the report.
func TestBrowserReport(t *testing.T) {
	feed := feedbackFeed()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprint(w, feed)
	}))
	defer srv.Close()
	dir := t.TempDir()
	mustRun(t, dir, "source", "add", srv.URL+"/feed", "--type", "rss", "--folder", "Kitchen")
	base, _ := startServer(t, dir)
	for deadline := time.Now().Add(patience); countItems(t, dir, "DONE") < 34; time.Sleep(300 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of 34 items enriched", countItems(t, dir, "DONE"))
		}
	}
	res, err := http.Post(base+"api/briefings", "application/json", strings.NewReader(`{"name": "Bread", "focus": "sourdough levain", "time": "07:00", "itemLimit": 3}`))
	if err != nil || res.StatusCode != 201 {
		t.Fatalf("create briefing: %v %v", err, res.Status)
	}
	res.Body.Close()
	if res, err := http.Post(base+"api/briefings/1/run", "application/json", nil); err != nil || res.StatusCode != 202 {
		t.Fatalf("run: %v", err)
	}
	for deadline := time.Now().Add(patience); ; time.Sleep(200 * time.Millisecond) {
		res, err := http.Get(base + "api/reports/1")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode == 200 && strings.Contains(string(body), `"rank":1`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no report with stories: %s %s", res.Status, body)
		}
	}

	ctx := browser(t)
	var stories, buttons int
	var first, original, target string
	if err := chromedp.Run(ctx,
		chromedp.Navigate(base+"reports/1"),
		chromedp.WaitVisible(`[data-testid=report-item]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('[data-testid=report-item]').length`, &stories),
		chromedp.Evaluate(`[...document.querySelectorAll('[data-testid=report-item]')].filter(s =>
			s.querySelector('[data-testid=feedback-more]') && s.querySelector('[data-testid=feedback-less]') && s.querySelector('[data-testid=report-item-link]')).length`, &buttons),
		chromedp.Evaluate(`document.querySelector('[data-testid=report-item-link]').getAttribute('href')`, &first),
		chromedp.Evaluate(`document.querySelector('[data-testid=report-original]').href`, &original),
		chromedp.Evaluate(`document.querySelector('[data-testid=report-original]').target`, &target),
	); err != nil {
		t.Fatal(err)
	}
	if stories == 0 || buttons != stories {
		t.Fatalf("%d stories, %d of them with a link into the app and both feedback buttons", stories, buttons)
	}
	if !strings.HasPrefix(first, "/items/") || !strings.HasPrefix(original, "http://mixed.invalid/") || target != "_blank" {
		t.Fatalf("the first story links to %q in the app and to %q (target %q) for the original", first, original, target)
	}
	var title string
	if err := chromedp.Run(ctx, chromedp.Text(`[data-testid=report-item-link]`, &title, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.ToLower(title), "sourdough") && !strings.Contains(strings.ToLower(title), "levain") {
		t.Fatalf("the focus briefing's first story is %q", title)
	}

	// "Less like this" on the first story: recorded, and the reader is back on the report.
	follow(t, ctx, "Less like this on the report",
		`location.pathname == '/reports/1' && !!document.querySelector('.flash') && document.querySelector('.flash').textContent.includes('fewer items like this')`,
		chromedp.Click(`[data-testid=report-item] [data-testid=feedback-less]`, chromedp.ByQuery))
	res, err = http.Get(base + "api/taste")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(body), `"signals":1`) {
		t.Fatalf("the feedback was not recorded: %s", body)
	}
	// The page stays within a phone's width.
	var wide bool
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(390, 844), chromedp.Navigate(base+"reports/1"),
		chromedp.WaitVisible(`[data-testid=report-item]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.documentElement.scrollWidth > window.innerWidth + 1`, &wide)); err != nil {
		t.Fatal(err)
	}
	if wide {
		t.Fatal("the report page scrolls sideways at 390 px")
	}

	// The briefing form: picking a folder chooses "The sources of a folder" as the scope.
	var folderChosen bool
	if err := chromedp.Run(ctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(base+"briefings"),
		chromedp.WaitVisible(`[data-testid=scope-folder-pick]`, chromedp.ByQuery),
		chromedp.Evaluate(`(() => { const s = document.querySelector('[data-testid=scope-folder-pick]'); s.dispatchEvent(new Event('change', {bubbles: true}));
			return document.querySelector('[data-testid=scope-folder]').checked && !document.querySelector('[data-testid=scope-all]').checked })()`, &folderChosen),
	); err != nil {
		t.Fatal(err)
	}
	if !folderChosen {
		t.Fatal("picking a folder did not choose the folder scope")
	}
}
