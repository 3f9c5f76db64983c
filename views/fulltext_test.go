package views_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
)

// TestFullText: Full text (POST /items/{id}/fulltext) reads the linked page's article with
// readability, sanitized, stores it as the item's content and shows it: on the item's page
// without JavaScript, in place of the page's article or in the card with htmx; a page that
// cannot be read says why, and the item keeps the feed's text.
func TestFullText(t *testing.T) {
	para := strings.Repeat("The council voted on Tuesday to rebuild the old harbour bridge, after years of debate about its cost and its look. ", 6)
	pages := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/gone" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><html><head><title>Bridge</title></head><body><nav>Home · News · Sport</nav>
<article><h1>The bridge</h1><p>%s</p><p>%s</p><p onclick="alert(1)">Residents will be asked their view.<script>alert(2)</script></p></article>
<footer>© The Paper</footer></body></html>`, para, para)
	}))
	defer pages.Close()
	e := newEnvWithFetcher(t, feeds.New(feeds.Options{}))
	src := e.createSource("https://paper.example/feed", "Paper")
	e.fetch(src.ID,
		app.Item{GUID: "a", Title: "Bridge A", Link: pages.URL + "/a", Text: "A short summary."},
		app.Item{GUID: "b", Title: "Bridge B", Link: pages.URL + "/b", Text: "A short summary."},
		app.Item{GUID: "c", Title: "Bridge C", Link: pages.URL + "/c", Text: "A short summary."},
		app.Item{GUID: "gone", Title: "Gone", Link: pages.URL + "/gone", Text: "The feed's text."})
	id := func(guid string) int64 {
		var n int64
		if err := e.db.Read.QueryRow(`select id from items where guid = ?`, guid).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	htmx := func(guid, target string) string {
		t.Helper()
		res, body := e.send(http.MethodPost, fmt.Sprintf("/items/%d/fulltext", id(guid)),
			http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Hx-Request": {"true"}, "Hx-Target": {target}},
			strings.NewReader(url.Values{"return": {"/items"}}.Encode()))
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d %s", guid, res.StatusCode, body)
		}
		return body
	}

	_, page := e.get(fmt.Sprintf("/items/%d", id("a")))
	if !strings.Contains(page, `data-testid="fulltext"`) || strings.Contains(page, "harbour bridge") {
		t.Fatal("the item page offers no Full text, or has the article already")
	}
	// Without JavaScript: the form leads to the item's page, which shows the article.
	res, _ := e.form(fmt.Sprintf("/items/%d/fulltext", id("a")), url.Values{"return": {"/items"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != fmt.Sprintf("/items/%d", id("a")) {
		t.Fatalf("form: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	_, page = e.get(fmt.Sprintf("/items/%d", id("a")))
	for _, want := range []string{"harbour bridge", "Residents will be asked their view.", `data-testid="full-text-note"`} {
		if !strings.Contains(page, want) {
			t.Fatalf("the item page after Full text lacks %q", want)
		}
	}
	for _, bad := range []string{"alert(1)", "alert(2)", "Home · News · Sport", `data-testid="fulltext"`} {
		if strings.Contains(page, bad) {
			t.Fatalf("the item page after Full text has %q", bad)
		}
	}
	// With htmx: the item page's article in place, or the card opened on the article.
	frag := htmx("b", fmt.Sprintf("article-%d", id("b")))
	if !strings.HasPrefix(strings.TrimSpace(frag), `<div id="article-`) || !strings.Contains(frag, "harbour bridge") || strings.Contains(frag, "<script") {
		t.Fatalf("article fragment: %.300s", frag)
	}
	card := htmx("c", fmt.Sprintf("item-%d", id("c")))
	if !strings.Contains(card, `data-testid="item"`) || !strings.Contains(card, "<details open") || !strings.Contains(card, "harbour bridge") || strings.Contains(card, `data-testid="fulltext"`) {
		t.Fatalf("card: %.600s", card)
	}
	// A page that cannot be read: why, and the feed's text stays.
	frag = htmx("gone", fmt.Sprintf("article-%d", id("gone")))
	if !strings.Contains(frag, `data-testid="fulltext-error"`) || !strings.Contains(frag, "The page could not be read") || !strings.Contains(frag, "The feed&#39;s text.") {
		t.Fatalf("a page that cannot be read: %.600s", frag)
	}
	res, _ = e.form(fmt.Sprintf("/items/%d/fulltext", id("gone")), nil)
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("form, a page that cannot be read: %d", res.StatusCode)
	}
}
