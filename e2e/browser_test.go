package e2e_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/morningdeck/morningdeck/app/feeds/feedtest"
)

// browser starts headless Chromium (Debian's package; `make test` installs it) and returns a
// context for chromedp actions, cancelled when the test ends.
func browser(t *testing.T) context.Context {
	t.Helper()
	var path string
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		missingTool(t, "no Chromium found: `make test` installs Debian's chromium package")
	}
	// Not t.TempDir: Chromium's helper processes (crashpad) can still write into the profile for
	// a moment after the browser is gone, which fails t.TempDir's cleanup. Remove it ourselves,
	// retrying for a few seconds.
	profile, err := os.MkdirTemp("", "morningdeck-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path), chromedp.NoSandbox, chromedp.Headless, chromedp.DisableGPU,
		chromedp.UserDataDir(profile), chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("no-first-run", true), chromedp.Flag("disable-quic", true),
		chromedp.WSURLReadTimeout(3*time.Minute),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	var ctx context.Context
	var cancels []context.CancelFunc
	t.Cleanup(func() {
		if ctx != nil {
			_ = chromedp.Cancel(ctx) // closes the browser gracefully and waits for it
		}
		for i := len(cancels) - 1; i >= 0; i-- {
			cancels[i]()
		}
		cancelAlloc()
		for i := 0; ; i++ {
			err := os.RemoveAll(profile)
			if err == nil {
				return
			}
			if i == 50 {
				t.Logf("leaving Chromium profile %s: %v", profile, err)
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	// Start-up on a busy machine can exceed chromedp's default wait for the DevTools address:
	// the allocator waits longer (WSURLReadTimeout) and a failed start is retried. There is no
	// short overall deadline: waits poll for conditions up to patience, and go test's -timeout
	// bounds the whole run.
	for attempt := 1; attempt <= 3; attempt++ {
		// chromedp logs CDP events it does not know (newer Chromium) as errors; they are noise here.
		c, cancel := chromedp.NewContext(allocCtx, chromedp.WithErrorf(func(string, ...any) {}))
		cancels = append(cancels, cancel)
		if err = chromedp.Run(c); err == nil {
			ctx = c
			return ctx
		}
		t.Logf("start chromium (attempt %d): %v", attempt, err)
		cancel()
	}
	t.Fatalf("start chromium: %v", err)
	return nil
}

// patience is how long a test waits for a condition before it fails: generous, because
// waits poll and return as soon as the condition holds, so only a real failure waits this long.
const patience = 3 * time.Minute

// navigating tells the errors of a script run while the page is being replaced (a click that
// submits a form, a link) from real failures: the next poll runs on the new page.
func navigating(err error) bool {
	msg := err.Error()
	for _, s := range []string{"Inspected target navigated or closed", "Execution context was destroyed", "Cannot find context with specified id", "Cannot find default execution context"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// waitFor polls a JavaScript expression until it is true, across a navigation.
func waitFor(t *testing.T, ctx context.Context, what, expr string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		var ok bool
		if err := chromedp.Run(ctx, chromedp.Evaluate(expr, &ok)); err != nil && !navigating(err) {
			t.Fatalf("%s: %v", what, err)
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			var html string
			_ = chromedp.Run(ctx, chromedp.OuterHTML("main", &html, chromedp.ByQuery))
			t.Fatalf("timed out waiting for %s; page: %.2000s", what, html)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// follow runs actions that load another page (a click on a link or a submit button, a key that
// opens a page) and waits until that page has loaded and ready (a JavaScript expression) holds
// on it. The page being left is marked first, so that nothing on it (the same fields, the same
// heading, the same address) passes for the new page while the new one is still on its way, and
// no read that follows can run on the old page or be cut off by the navigation.
func follow(t *testing.T, ctx context.Context, what, ready string, actions ...chromedp.Action) {
	t.Helper()
	if err := chromedp.Run(ctx, chromedp.Evaluate(`window.__leaving = true`, nil)); err != nil {
		t.Fatalf("%s: mark the page being left: %v", what, err)
	}
	if err := chromedp.Run(ctx, actions...); err != nil && !navigating(err) {
		t.Fatalf("%s: %v", what, err)
	}
	waitFor(t, ctx, what, `!window.__leaving && document.readyState == 'complete' && (`+ready+`)`, patience)
}

// visibleJS is a JavaScript expression: the page has an element matching the CSS selector sel, and
// it is visible (what chromedp.WaitVisible waits for).
func visibleJS(sel string) string {
	return `((e) => e !== null && e.checkVisibility())(document.querySelector(` + jsString(sel) + `))`
}

func TestBrowser(t *testing.T) {
	t.Run("adding a feed through the form leads to its page, its fetch live and then its items", func(t *testing.T) {
		farm := feedtest.NewFarm(1, 12)
		defer farm.Close()
		// Every request is slow, so the fetch is visibly QUEUED or FETCHING for a while.
		slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(1500 * time.Millisecond)
			farm.Config.Handler.ServeHTTP(w, r)
		}))
		defer slow.Close()
		base, _ := startServer(t, t.TempDir())
		ctx := browser(t)
		if err := chromedp.Run(ctx,
			chromedp.Navigate(base+"sources"),
			chromedp.WaitVisible(`#add-url`, chromedp.ByQuery),
			chromedp.SendKeys(`#add-url`, slow.URL+"/feed/0.xml", chromedp.ByQuery),
		); err != nil {
			t.Fatal(err)
		}
		// Not the sources table: the new source's own page, its fetch under way.
		follow(t, ctx, "the new source's page", `location.pathname == '/sources/1' && `+visibleJS(`[data-testid=flash]`),
			chromedp.Click(`form[data-testid=add-source] button[type=submit]`, chromedp.ByQuery))
		var flash string
		_ = chromedp.Run(ctx, chromedp.Text(`[data-testid=flash]`, &flash, chromedp.ByQuery))
		if !strings.Contains(flash, "added") {
			t.Fatalf("flash %q", flash)
		}
		// Mark this page; a reload would lose the mark.
		_ = chromedp.Run(ctx, chromedp.Evaluate(`window.__notReloaded = true`, nil))
		waitFor(t, ctx, "the fetch's progress", `document.querySelector('[data-testid=fetch-progress]') !== null || document.querySelector('[data-testid=fetch-badge]').dataset.status != 'IDLE'`, patience)
		waitFor(t, ctx, "the fetch badge to come back to IDLE", `document.querySelector('[data-testid=fetch-badge]').dataset.status == 'IDLE'`, patience)
		waitFor(t, ctx, "the source's 12 items", `document.querySelectorAll('[data-testid=item]').length == 12`, patience)
		var notReloaded bool
		_ = chromedp.Run(ctx, chromedp.Evaluate(`window.__notReloaded === true && !document.querySelector('[data-testid=fetch-progress]')`, &notReloaded))
		if !notReloaded {
			t.Fatal("the page was reloaded or still shows the fetch's progress; the status and items should update in place")
		}
		// The sources table has it too, with its count.
		follow(t, ctx, "the sources table", `document.querySelector('[data-testid=source-row]') !== null`,
			chromedp.Navigate(base+"sources"))
		waitFor(t, ctx, "the item count", `document.querySelector('[data-testid=source-row]').innerText.includes('12')`, patience)
	})

	t.Run("script in feed titles and content never runs and injects nothing", func(t *testing.T) {
		evil := `<img src=x onerror=alert(1)><script>alert(2)</script>`
		feed := fmt.Sprintf(`<?xml version="1.0"?><rss version="2.0"><channel><title>%s</title><link>http://example.com/</link>
<item><title>%s</title><link>javascript:alert(3)</link><guid>1</guid><author>%s</author><description><![CDATA[<p onclick="alert(4)">Body</p><script>alert(5)</script><img src="x" onerror="alert(6)"><a href="javascript:alert(7)">link</a>]]></description></item>
</channel></rss>`, htmlEscape(evil), htmlEscape(evil), htmlEscape(evil))
		js, _ := json.Marshal(evil)
		reddit := fmt.Sprintf(`{"kind":"Listing","data":{"children":[{"kind":"t3","data":{"id":"x1","name":"t3_x1","title":%s,"selftext":%s,
"author":%s,"permalink":"/r/evil/comments/x1/","url":"javascript:alert(8)","created_utc":1763880000,"score":5,"num_comments":2}}]}}`, js, js, js)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/r/") {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(reddit))
				return
			}
			w.Header().Set("Content-Type", "application/rss+xml")
			_, _ = w.Write([]byte(feed))
		}))
		defer srv.Close()
		dir := t.TempDir()
		mustRun(t, dir, "source", "add", srv.URL+"/feed", "--type", "rss")
		mustRun(t, dir, "source", "add", srv.URL+"/r/evil", "--type", "reddit")
		// OPML attributes carry the payload too.
		opml := filepath.Join(t.TempDir(), "evil.opml")
		if err := os.WriteFile(opml, []byte(`<?xml version="1.0"?><opml version="2.0"><body><outline text="`+htmlEscape(evil)+`" title="`+htmlEscape(evil)+
			`" type="rss" xmlUrl="`+srv.URL+`/feed2" htmlUrl="javascript:alert(9)"/></body></opml>`), 0o600); err != nil {
			t.Fatal(err)
		}
		mustRun(t, dir, "import", "opml", opml)
		mustRun(t, dir, "fetch")
		// What an LLM wrote (summary, reason, tags) and a user's briefing name are hostile as well.
		db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "morningdeck.db")+"?_pragma=busy_timeout(5000)")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`update items set summary = ?, score = 90, score_reasoning = ?, tags = ?, topics = ?, enriched_by = 'llm:evil'`,
			evil, evil, `["<script>alert(10)</script>"]`, `["<img src=x onerror=alert(11)>"]`); err != nil {
			t.Fatal(err)
		}
		_ = db.Close()
		mustRun(t, dir, "brief", "add", evil, "--time", "07:00", "--timezone", "UTC")
		mustRun(t, dir, "brief", "run", "1")
		base, _ := startServer(t, dir)
		ctx := browser(t)
		var dialogs atomic.Int64
		chromedp.ListenTarget(ctx, func(ev any) {
			if _, ok := ev.(*page.EventJavascriptDialogOpening); ok {
				dialogs.Add(1)
				go func() { _ = chromedp.Run(ctx, page.HandleJavaScriptDialog(false)) }()
			}
		})
		for _, path := range []string{"", "sources", "sources/1", "sources/2", "sources/3", "items", "items/1", "items/2", "briefings", "briefings/1/edit", "reports/1"} {
			var injected int
			var text string
			if err := chromedp.Run(ctx,
				chromedp.Navigate(base+path),
				chromedp.WaitReady(`body`, chromedp.ByQuery),
				chromedp.Sleep(300*time.Millisecond),
				chromedp.Evaluate(`document.querySelectorAll('img[src="x"], main script, [onerror], [onclick], a[href^="javascript:"]').length`, &injected),
				chromedp.Text(`main`, &text, chromedp.ByQuery),
			); err != nil {
				t.Fatal(err)
			}
			if injected != 0 {
				t.Errorf("/%s: %d injected elements", path, injected)
			}
			if (path == "items" || path == "sources/1") && !strings.Contains(text, "Body") {
				t.Errorf("/%s: the item is not shown: %.300s", path, text)
			}
		}
		if n := dialogs.Load(); n != 0 {
			t.Fatalf("%d JavaScript dialogs opened", n)
		}
	})

	t.Run("delete asks in a dialog: cancel keeps the source, confirm deletes it", func(t *testing.T) {
		farm := feedtest.NewFarm(1, 3)
		defer farm.Close()
		dir := t.TempDir()
		mustRun(t, dir, "source", "add", farm.URL(0), "--type", "rss")
		base, _ := startServer(t, dir)
		ctx := browser(t)
		var open bool
		if err := chromedp.Run(ctx,
			chromedp.Navigate(base+"sources"),
			// The row's actions are in its menu.
			chromedp.Click(`[data-testid=source-menu] summary`, chromedp.ByQuery),
			chromedp.WaitVisible(`[data-testid=delete]`, chromedp.ByQuery),
			chromedp.Click(`[data-testid=delete]`, chromedp.ByQuery),
			chromedp.WaitVisible(`#confirm-dialog`, chromedp.ByQuery),
			chromedp.Evaluate(`document.getElementById('confirm-dialog').open`, &open),
			chromedp.Click(`#confirm-dialog button[value=cancel]`, chromedp.ByQuery),
			chromedp.Sleep(300*time.Millisecond),
		); err != nil {
			t.Fatal(err)
		}
		if !open {
			t.Fatal("no dialog opened")
		}
		if n := len(listSources(t, dir)); n != 1 {
			t.Fatalf("cancel deleted the source (%d left)", n)
		}
		if err := chromedp.Run(ctx,
			chromedp.Evaluate(`document.querySelector('[data-testid=source-menu]').open = true`, nil),
			chromedp.WaitVisible(`[data-testid=delete]`, chromedp.ByQuery),
			chromedp.Click(`[data-testid=delete]`, chromedp.ByQuery),
			chromedp.WaitVisible(`#confirm-dialog`, chromedp.ByQuery),
			chromedp.Click(`#confirm-dialog button[value=confirm]`, chromedp.ByQuery),
			chromedp.WaitVisible(`[data-testid=flash]`, chromedp.ByQuery),
		); err != nil {
			t.Fatal(err)
		}
		if n := len(listSources(t, dir)); n != 0 {
			t.Fatalf("confirm left %d sources", n)
		}
	})
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

func TestBrowserReading(t *testing.T) {
	t.Run("filter, search, open an item and star it, by mouse and by keyboard", func(t *testing.T) {
		farm := feedtest.NewFarm(1, 5)
		defer farm.Close()
		dir := t.TempDir()
		mustRun(t, dir, "source", "add", farm.URL(0), "--type", "rss")
		mustRun(t, dir, "fetch") // the back catalogue: 5 items, scored by the embedded enricher in the background
		farm.Bump(0)
		farm.Bump(0)
		mustRun(t, dir, "source", "refresh", "--all") // two new items, enriched by the server's workers
		base, _ := startServer(t, dir)
		ctx := browser(t)

		// Every item gets scored within a couple of seconds, the back catalogue too: their score badges appear.
		deadline := time.Now().Add(patience)
		for {
			var scored int
			if err := chromedp.Run(ctx,
				chromedp.Navigate(base+"items?show=all"),
				chromedp.WaitVisible(`[data-testid=item-filters]`, chromedp.ByQuery),
				chromedp.Evaluate(`document.querySelectorAll('[data-testid=score]').length`, &scored),
			); err != nil {
				t.Fatal(err)
			}
			if scored == 7 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%d items scored, want all 7", scored)
			}
			time.Sleep(300 * time.Millisecond)
		}

		// Filter by minimum score through the form: only the items scored at least the best score stay.
		var shown, best, atBest int
		if err := chromedp.Run(ctx, chromedp.Evaluate(`Math.max(...[...document.querySelectorAll('[data-testid=score]')].map(e => parseInt(e.textContent.replace(/\D/g, ''))))`, &best),
			chromedp.Evaluate(`[...document.querySelectorAll('[data-testid=score]')].filter(e => parseInt(e.textContent.replace(/\D/g, '')) >= Math.max(...[...document.querySelectorAll('[data-testid=score]')].map(e => parseInt(e.textContent.replace(/\D/g, ''))))).length`, &atBest)); err != nil {
			t.Fatal(err)
		}
		// The filtered page has the same filters as this one: wait for the new page, not a field.
		follow(t, ctx, "the items filtered by minimum score", visibleJS(`[data-testid=item-filters]`),
			chromedp.SetValue(`#filter-min`, strconv.Itoa(best), chromedp.ByQuery),
			chromedp.Submit(`#filter-min`, chromedp.ByQuery))
		var loc string
		if err := chromedp.Run(ctx,
			chromedp.Evaluate(`document.querySelectorAll('[data-testid=item]').length`, &shown),
			chromedp.Location(&loc),
		); err != nil {
			t.Fatal(err)
		}
		if shown != atBest || !strings.Contains(loc, "minScore="+strconv.Itoa(best)) {
			t.Fatalf("%d items at %s, want the %d scored %d and the filter in the URL", shown, loc, atBest, best)
		}

		// Search: the snippet marks the match. The search index is built every 2 s.
		deadline = time.Now().Add(patience)
		for {
			var marks int
			if err := chromedp.Run(ctx,
				chromedp.Navigate(base+"items"),
				chromedp.WaitVisible(`#filter-q`, chromedp.ByQuery),
			); err != nil {
				t.Fatal(err)
			}
			// The results have the same filters as this page: wait for the new page.
			follow(t, ctx, "the search's results", visibleJS(`[data-testid=item-filters]`),
				chromedp.SendKeys(`#filter-q`, "Story 6\n", chromedp.ByQuery))
			if err := chromedp.Run(ctx,
				chromedp.Evaluate(`document.querySelectorAll('[data-testid=snippet] mark').length`, &marks),
			); err != nil {
				t.Fatal(err)
			}
			if marks > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the search never showed a highlighted snippet")
			}
			time.Sleep(500 * time.Millisecond)
		}

		// Open the first result: the item page shows it and marks it read.
		var readPressed string
		follow(t, ctx, "the item's page", visibleJS(`[data-testid=item-page]`),
			chromedp.Click(`[data-testid=item-title]`, chromedp.ByQuery))
		if err := chromedp.Run(ctx,
			chromedp.AttributeValue(`[data-testid=toggle-read]`, "aria-pressed", &readPressed, nil, chromedp.ByQuery),
		); err != nil {
			t.Fatal(err)
		}
		if readPressed != "true" {
			t.Fatal("opening the item did not mark it read")
		}

		// Star by mouse on the list: the card is swapped in place.
		if err := chromedp.Run(ctx,
			chromedp.Navigate(base+"items?show=all"),
			chromedp.WaitVisible(`[data-testid=toggle-star]`, chromedp.ByQuery),
			chromedp.Click(`[data-testid=toggle-star]`, chromedp.ByQuery),
		); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, "the star to show pressed", `document.querySelector('[data-testid=toggle-star]').getAttribute('aria-pressed') == 'true'`, patience)

		// By keyboard: j moves to the second card, s stars it.
		if err := chromedp.Run(ctx, chromedp.KeyEvent("j"), chromedp.KeyEvent("j"), chromedp.KeyEvent("s")); err != nil {
			t.Fatal(err)
		}
		waitFor(t, ctx, "the second card to be starred", `document.querySelectorAll('[data-testid=item]')[1].querySelector('[data-testid=toggle-star]').getAttribute('aria-pressed') == 'true'`, patience)
		var starred int
		if err := chromedp.Run(ctx,
			chromedp.Navigate(base+"items?show=starred"),
			chromedp.WaitVisible(`[data-testid=item-filters]`, chromedp.ByQuery),
			chromedp.Evaluate(`document.querySelectorAll('[data-testid=item]').length`, &starred),
		); err != nil {
			t.Fatal(err)
		}
		if starred != 2 {
			t.Fatalf("%d starred items, want 2", starred)
		}
	})
}

func TestBrowserBriefing(t *testing.T) {
	t.Run("create a briefing, run it now and read its report", func(t *testing.T) {
		farm := feedtest.NewFarm(1, 4)
		defer farm.Close()
		dir := t.TempDir()
		mustRun(t, dir, "source", "add", farm.URL(0), "--type", "rss")
		mustRun(t, dir, "fetch")
		farm.Bump(0)
		farm.Bump(0)
		mustRun(t, dir, "source", "refresh", "--all")
		base, _ := startServer(t, dir)
		ctx := browser(t)
		if err := chromedp.Run(ctx,
			chromedp.Navigate(base+"briefings"),
			chromedp.WaitVisible(`[data-testid=briefing-form]`, chromedp.ByQuery),
			chromedp.SendKeys(`#b-name`, "Morning farm", chromedp.ByQuery),
			chromedp.SetValue(`#b-tz`, "Europe/Brussels", chromedp.ByQuery),
			chromedp.Click(`[data-testid=create-briefing]`, chromedp.ByQuery),
			chromedp.WaitVisible(`[data-testid=briefing]`, chromedp.ByQuery),
		); err != nil {
			t.Fatal(err)
		}
		var next string
		_ = chromedp.Run(ctx, chromedp.Text(`[data-testid=next-run]`, &next, chromedp.ByQuery))
		if !strings.Contains(next, "Europe/Brussels") {
			t.Fatalf("next run %q", next)
		}
		// Wait for the two new items to be enriched, then run the briefing.
		deadline := time.Now().Add(patience)
		for {
			var scored int
			_ = chromedp.Run(ctx, chromedp.Navigate(base+"items?show=all"), chromedp.WaitVisible(`[data-testid=item-filters]`, chromedp.ByQuery),
				chromedp.Evaluate(`document.querySelectorAll('[data-testid=score]').length`, &scored))
			if scored == 6 { // the back catalogue (4, embedded) and the 2 new items
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("items were not enriched")
			}
			time.Sleep(300 * time.Millisecond)
		}
		if err := chromedp.Run(ctx,
			chromedp.Navigate(base+"briefings"),
			chromedp.WaitVisible(`[data-testid=run-now]`, chromedp.ByQuery),
			chromedp.Click(`[data-testid=run-now]`, chromedp.ByQuery),
			chromedp.WaitVisible(`[data-testid=flash]`, chromedp.ByQuery),
		); err != nil {
			t.Fatal(err)
		}
		deadline = time.Now().Add(patience)
		for {
			var has bool
			_ = chromedp.Run(ctx, chromedp.Navigate(base+"briefings"), chromedp.WaitVisible(`[data-testid=briefing]`, chromedp.ByQuery),
				chromedp.Evaluate(`!!document.querySelector('[data-testid=latest-report]')`, &has))
			if has {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no report appeared")
			}
			time.Sleep(300 * time.Millisecond)
		}
		var items int
		var overview string
		// The report's page, whole: its stories come after its overview.
		follow(t, ctx, "the latest report", visibleJS(`[data-testid=report]`),
			chromedp.Click(`[data-testid=latest-report]`, chromedp.ByQuery))
		if err := chromedp.Run(ctx,
			chromedp.Text(`[data-testid=overview]`, &overview, chromedp.ByQuery),
			chromedp.Evaluate(`document.querySelectorAll('[data-testid=report-item]').length`, &items),
		); err != nil {
			t.Fatal(err)
		}
		// The farm's items are near-verbatim copies of one text from one source, so they group into
		// one story, and "Also covered by" (other outlets only) stays empty.
		if items < 1 || !strings.Contains(overview, "from one source") || !strings.Contains(overview, "picked from 6 new items") {
			t.Fatalf("%d report items, overview %q", items, overview)
		}
		// Run now wrote a preview: the Briefings page lists it with its date in the briefing's
		// zone and its story count, and says it is a preview.
		var row string
		if err := chromedp.Run(ctx, chromedp.Navigate(base+"briefings"), chromedp.WaitVisible(`[data-testid=recent-reports]`, chromedp.ByQuery),
			chromedp.Text(`[data-testid=report-row]`, &row, chromedp.ByQuery)); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(row, "CET") || !strings.Contains(row, fmt.Sprintf("%d %s", items, map[bool]string{true: "story", false: "stories"}[items == 1])) || !strings.Contains(row, "preview") {
			t.Fatalf("recent report row %q", row)
		}
		// Opening a report marks its stories read when the briefing says so. The Briefings page
		// has the new-briefing form, with the same fields (mark-read too) as the edit page: wait
		// for the edit page itself, and for each page after it.
		follow(t, ctx, "the briefing's edit page", `location.pathname.endsWith('/edit') && `+visibleJS(`[data-testid=mark-read]`),
			chromedp.Click(`[data-testid=edit-briefing]`, chromedp.ByQuery))
		follow(t, ctx, "the briefing saved", visibleJS(`[data-testid=flash]`),
			chromedp.Click(`[data-testid=mark-read]`, chromedp.ByQuery),
			chromedp.Submit(`[data-testid=briefing-form]`, chromedp.ByQuery))
		follow(t, ctx, "the latest report", visibleJS(`[data-testid=report]`),
			chromedp.Click(`[data-testid=latest-report]`, chromedp.ByQuery))
		// Each story links to its page in the app and to the original.
		var href, orig string
		var ok bool
		if err := chromedp.Run(ctx,
			chromedp.AttributeValue(`[data-testid=report-item-link]`, "href", &href, &ok, chromedp.ByQuery),
			chromedp.Evaluate(`(document.querySelector('[data-testid=report-original]')||{}).href||''`, &orig),
		); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(href, "/items/") || !strings.HasPrefix(orig, "http://") {
			t.Fatalf("story links %q (app) and %q (original)", href, orig)
		}
		res, err := http.Get(base + "api" + href)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || !strings.Contains(string(body), `"read":true`) {
			t.Fatalf("the story was not marked read on opening the report: %s %s", res.Status, body)
		}
		// The report has an h1 as well: wait for the page the link leads to.
		follow(t, ctx, "the story's page", visibleJS(`h1`),
			chromedp.Click(`[data-testid=report-item-link]`, chromedp.ByQuery))
		var title string
		if err := chromedp.Run(ctx, chromedp.Location(&title)); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(title, href) {
			t.Fatalf("the story's link led to %q, want %q", title, href)
		}
	})
}

func TestBrowserQueues(t *testing.T) {
	t.Run("the Queues page shows a failed job; Retry sends it back and the page updates by itself as it runs", func(t *testing.T) {
		farm := feedtest.NewFarm(1, 5)
		defer farm.Close()
		dir := t.TempDir()
		mustRun(t, dir, "source", "add", farm.URL(0), "--type", "rss")
		// The source's fetch job failed its last attempt (as if the site had been down).
		db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "morningdeck.db")+"?_pragma=busy_timeout(5000)")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(`insert into queue_dead (id, queue, kind, body, attempts, error, failed_at)
			select id, 'fetch', 'fetch_source', body, 3, 'The server answered 503 Service Unavailable.', strftime('%Y-%m-%dT%H:%M:%fZ', 'now') from goqite where queue = 'fetch' or queue glob 'fetch#*';
			delete from goqite where queue = 'fetch' or queue glob 'fetch#*'`); err != nil {
			t.Fatal(err)
		}
		_ = db.Close()
		base, _ := startServer(t, dir)
		ctx := browser(t)
		var row string
		if err := chromedp.Run(ctx,
			chromedp.Navigate(base+"queues"),
			chromedp.WaitVisible(`[data-testid=failed-job]`, chromedp.ByQuery),
			chromedp.Text(`[data-testid=failed-job]`, &row, chromedp.ByQuery),
		); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(row, "fetch_source source 1") || !strings.Contains(row, "503 Service Unavailable") {
			t.Fatalf("failed job row %q", row)
		}
		waitFor(t, ctx, "the failed count in the sidebar", `document.querySelector('[data-testid=failed-count]').innerText.startsWith('1')`, patience)
		var flash string
		if err := chromedp.Run(ctx,
			chromedp.Click(`[data-testid=job-retry]`, chromedp.ByQuery),
			chromedp.WaitVisible(`[data-testid=flash]`, chromedp.ByQuery),
			chromedp.Text(`[data-testid=flash]`, &flash, chromedp.ByQuery),
		); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(flash, "sent back to the fetch queue") {
			t.Fatalf("flash %q", flash)
		}
		_ = chromedp.Run(ctx, chromedp.Evaluate(`window.__notReloaded = true`, nil))
		waitFor(t, ctx, "no failed job", `document.querySelector('[data-testid=no-failed]') !== null`, patience)
		waitFor(t, ctx, "the fetch counted as done, live", `document.querySelector('[data-queue=fetch] [data-testid=q-done]').innerText == '1'`, patience)
		var notReloaded bool
		_ = chromedp.Run(ctx, chromedp.Evaluate(`window.__notReloaded === true`, &notReloaded))
		if !notReloaded {
			t.Fatal("the page was reloaded; it should update in place")
		}
		if s := listSources(t, dir); s[0].ItemCount != 5 {
			t.Fatalf("the retried fetch did not run: %+v", s[0])
		}
		// Pause from the page: the card says so, in words.
		// The page being left polls its cards: one swapped in after the pause already has Resume.
		// Wait for the new page.
		follow(t, ctx, "the Queues page after Pause", visibleJS(`[data-queue=process] [data-testid=queue-resume]`),
			chromedp.Click(`[data-queue=process] [data-testid=queue-pause]`, chromedp.ByQuery))
		var status string
		if err := chromedp.Run(ctx,
			chromedp.Text(`[data-queue=process] [data-testid=queue-status]`, &status, chromedp.ByQuery),
		); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(status, "Paused") {
			t.Fatalf("status %q", status)
		}
	})
}
