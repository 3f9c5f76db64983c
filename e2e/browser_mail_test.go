package e2e_test

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/morningdeck/morningdeck/app/feeds/mailtest"
)

// TestBrowserMailFolder: a mail folder on a real IMAP server (go-imap's, in this process) is
// added through the web form, its newsletters become items that are ranked, the item page of a
// newsletter keeps no script, tracking pixel or remote form (as Chromium sees it) and offers its
// unsubscribe link, a briefing includes them, and the password shows nowhere.
func TestBrowserMailFolder(t *testing.T) {
	const password = "e2e-App-Password-4471"
	s := mailtest.Start(t, "reader@example.org", password, "Newsletters")
	now := time.Now()
	for _, name := range []string{"html-only.eml", "alternative-qp.eml", "latin1.eml", "related-cid.eml"} {
		b, err := os.ReadFile(filepath.Join(repoRoot, "app", "feeds", "testdata", "mail", name))
		if err != nil {
			t.Fatal(err)
		}
		// Dated today, so that a briefing of the last day covers them.
		b = bytes.Replace(b, []byte("Date: "), []byte("Date: "+now.Add(-time.Hour).Format(time.RFC1123Z)+"\r\nX-Old-Date: "), 1)
		s.Add(t, "Newsletters", b, now.Add(-time.Hour))
	}
	for n := 1; n <= 4; n++ {
		d := now.Add(time.Duration(n-6) * time.Hour)
		s.Add(t, "Newsletters", mailtest.Newsletter("news@weekly.example", "The Weekly", n, d,
			"The central bank held interest rates while chipmakers rallied and coffee prices rose."), d)
	}
	dir := t.TempDir()
	logs := &syncBuffer{}
	base, _ := startServerLog(t, dir, io.MultiWriter(logs, os.Stderr))
	ctx := browser(t)

	// The form: a wrong password first, said in plain words; then the right one.
	if err := chromedp.Run(ctx,
		chromedp.Navigate(base+"sources"),
		chromedp.WaitVisible(`[data-testid=add-mail] summary`, chromedp.ByQuery),
		chromedp.Click(`[data-testid=add-mail] summary`, chromedp.ByQuery),
		chromedp.WaitVisible(`#add-mail-host`, chromedp.ByQuery),
		chromedp.SendKeys(`#add-mail-host`, "127.0.0.1", chromedp.ByQuery),
		chromedp.SetValue(`#add-mail-security`, "plain", chromedp.ByQuery),
		chromedp.SendKeys(`#add-mail-port`, strconv.Itoa(s.Port), chromedp.ByQuery),
		chromedp.SendKeys(`#add-mail-user`, s.User, chromedp.ByQuery),
		chromedp.SendKeys(`#add-mail-password`, "not-"+password, chromedp.ByQuery),
		chromedp.SendKeys(`#add-mail-folder`, "Newsletters", chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	follow(t, ctx, "the refused login said", visibleJS(`[data-testid=mail-error]`),
		chromedp.Click(`[data-testid=add-mail-submit]`, chromedp.ByQuery))
	var said, typed string
	if err := chromedp.Run(ctx, chromedp.Text(`[data-testid=mail-error]`, &said, chromedp.ByQuery),
		chromedp.Value(`#add-mail-password`, &typed, chromedp.ByQuery)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(said, "refused the login") || typed != "" {
		t.Fatalf("error %q, password field %q", said, typed)
	}
	follow(t, ctx, "the mail folder's page", `location.pathname.match(/^\/sources\/\d+$/) && `+visibleJS(`[data-testid=mailbox]`),
		chromedp.SendKeys(`#add-mail-password`, password, chromedp.ByQuery),
		chromedp.Click(`[data-testid=add-mail-submit]`, chromedp.ByQuery))
	sourcePage := ""
	if err := chromedp.Run(ctx, chromedp.Location(&sourcePage)); err != nil {
		t.Fatal(err)
	}
	// Its newsletters arrive as items, ranked (the first import is scored by the embedded enricher).
	deadline := time.Now().Add(patience)
	for {
		var scored, items int
		_ = chromedp.Run(ctx, chromedp.Navigate(base+"items?show=all"), chromedp.WaitVisible(`[data-testid=item-filters]`, chromedp.ByQuery),
			chromedp.Evaluate(`document.querySelectorAll('[data-testid=item]').length`, &items),
			chromedp.Evaluate(`[...document.querySelectorAll('[data-testid=item] [data-testid=score]')].filter(e => /\d/.test(e.textContent)).length`, &scored))
		if items == 8 && scored == 8 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d items, %d scored; want 8 newsletters, ranked", items, scored)
		}
		time.Sleep(300 * time.Millisecond)
	}
	// The Morning Brew newsletter's page, as Chromium renders it.
	follow(t, ctx, "the newsletter's page", `document.querySelector('h1.reader-title') && document.querySelector('h1.reader-title').textContent.includes('Coffee, chips')`,
		chromedp.Evaluate(`[...document.querySelectorAll('[data-testid=item-title]')].find(a => a.textContent.includes('Coffee, chips')).click()`, nil))
	time.Sleep(500 * time.Millisecond) // let the page load what it would load
	var check struct {
		Scripts, Forms, Inputs, Iframes, Pixels, Handlers int
		Cookie, Unsubscribe, Sender, Text                 string
		Requests                                          []string
	}
	if err := chromedp.Run(ctx, chromedp.Evaluate(`(() => {
		const a = document.querySelector('[data-testid=item-page]');
		return {
			Scripts: a.querySelectorAll('script').length,
			Forms: document.querySelectorAll('form[action*="collect"], form[action^="http"]').length,
			Inputs: a.querySelectorAll('input[name=email]').length,
			Iframes: a.querySelectorAll('iframe').length,
			Pixels: [...a.querySelectorAll('img')].filter(i => i.src.includes('t.morningbrew') || (i.getAttribute('width') === '1')).length,
			Handlers: a.querySelectorAll('[onclick]').length,
			Cookie: document.cookie,
			Unsubscribe: (document.querySelector('[data-testid=unsubscribe]') || {}).href || '',
			Sender: (document.querySelector('[data-testid=item-sender]') || {}).textContent || '',
			Text: a.textContent,
			Requests: performance.getEntriesByType('resource').map(e => e.name),
		};
	})()`, &check)); err != nil {
		t.Fatal(err)
	}
	if check.Scripts+check.Forms+check.Inputs+check.Iframes+check.Pixels+check.Handlers != 0 || strings.Contains(check.Cookie, "tracked") {
		t.Errorf("the newsletter kept something: %+v", check)
	}
	for _, r := range check.Requests {
		if strings.Contains(r, "t.morningbrew") || strings.Contains(r, "collect.morningbrew") || strings.Contains(r, "ads.example") {
			t.Errorf("the page asked for %s", r)
		}
	}
	if check.Unsubscribe != "https://mail.morningbrew.example/unsubscribe?u=123&l=abc" || check.Sender != "crew@morningbrew.example" ||
		!strings.Contains(check.Text, "The Federal Reserve held rates steady") {
		t.Errorf("unsubscribe %q, sender %q, text %.300q", check.Unsubscribe, check.Sender, check.Text)
	}

	// A briefing includes them.
	if err := chromedp.Run(ctx,
		chromedp.Navigate(base+"briefings"),
		chromedp.WaitVisible(`[data-testid=briefing-form]`, chromedp.ByQuery),
		chromedp.SendKeys(`#b-name`, "Newsletters", chromedp.ByQuery),
		chromedp.Click(`[data-testid=create-briefing]`, chromedp.ByQuery),
		chromedp.WaitVisible(`[data-testid=run-now]`, chromedp.ByQuery),
	); err != nil {
		t.Fatal(err)
	}
	// The page still shows the creation's flash: wait for Run now's own answer, so that the
	// navigation below cannot cancel its POST (CI, under load: "no report appeared").
	follow(t, ctx, "Run now's answer", `(document.querySelector('[data-testid=flash]') || {textContent: ''}).textContent.includes('Running a preview')`,
		chromedp.Click(`[data-testid=run-now]`, chromedp.ByQuery))
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
	follow(t, ctx, "the latest report", visibleJS(`[data-testid=report]`),
		chromedp.Click(`[data-testid=latest-report]`, chromedp.ByQuery))
	var report string
	var stories int
	if err := chromedp.Run(ctx, chromedp.Text(`[data-testid=report]`, &report, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('[data-testid=report-item]').length`, &stories)); err != nil {
		t.Fatal(err)
	}
	newsletters := 0
	for _, title := range []string{"Coffee, chips and the Fed", "The AI Unbundling", "Résumé de la semaine", "Go 1.27 is out", "Issue "} {
		if strings.Contains(report, title) {
			newsletters++
		}
	}
	if stories == 0 || newsletters == 0 {
		t.Fatalf("the report has %d stories, %d of them newsletters: %.1000s", stories, newsletters, report)
	}

	// The password shows in no page, API answer, export or log line.
	for _, path := range []string{"sources", strings.TrimPrefix(sourcePage, base), "items?show=all", "api/sources", "sources/export.opml", "api/items?limit=50"} {
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if bytes.Contains(b, []byte(password)) {
			t.Errorf("GET /%s shows the password", path)
		}
	}
	if strings.Contains(logs.String(), password) {
		t.Error("the log shows the password")
	}
	db, err := os.ReadFile(filepath.Join(dir, "morningdeck.db"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(db, []byte(password)) {
		t.Error("the database file holds the password in the clear")
	}
}
