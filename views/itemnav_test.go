package views_test

import (
	"fmt"
	"html"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// hrefOf returns the href of the link with this data-testid, unescaped; "" when there is none.
func hrefOf(page, testid string) string {
	m := regexp.MustCompile(`<a[^>]*href="([^"]*)"[^>]*data-testid="` + testid + `"`).FindStringSubmatch(page)
	if m == nil {
		return ""
	}
	return html.UnescapeString(m[1])
}

func TestItemNextPrevious(t *testing.T) {
	e := newEnv(t)
	a := e.createSource("https://a.example/feed", "A")
	b := e.createSource("https://b.example/feed", "B")
	day := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var its []app.Item
	for i := range 4 {
		p := day.Add(time.Duration(i) * time.Hour)
		its = append(its, app.Item{GUID: fmt.Sprint(i), Title: fmt.Sprintf("A%d", i), PublishedAt: &p})
	}
	e.fetch(a.ID, its...)
	p := day.Add(90 * time.Minute)
	e.fetch(b.ID, app.Item{GUID: "b", Title: "B-between", PublishedAt: &p})

	// The unread list of source A, newest first: A3 A2 A1 A0. Opening each marks it read.
	res, page := e.get(fmt.Sprintf("/items?source=%d", a.ID))
	mustContain(t, res, page, 200, "A3")
	first := regexp.MustCompile(`href="(/items/\d+\?[^"]*)"[^>]*data-testid="item-title"`).FindStringSubmatch(page)
	if first == nil {
		t.Fatalf("the first card has no link with its list:\n%s", page)
	}
	href := html.UnescapeString(first[1])
	var seen []string
	for range 6 {
		res, page := e.get(href)
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d", href, res.StatusCode)
		}
		title := regexp.MustCompile(`<h1 class="reader-title">([^<]*)</h1>`).FindStringSubmatch(page)[1]
		seen = append(seen, title)
		if back := hrefOf(page, "item-back"); back != fmt.Sprintf("/items?source=%d", a.ID) {
			t.Errorf("back to %q", back)
		}
		if len(seen) > 1 && hrefOf(page, "item-prev") == "" {
			t.Errorf("%s has no previous", title)
		}
		href = hrefOf(page, "item-next")
		if href == "" {
			break
		}
	}
	if got := strings.Join(seen, " "); got != "A3 A2 A1 A0" {
		t.Fatalf("next through the unread list of A: %s", got)
	}

	// All items (read ones stay in the list), every source: prev goes back the same way.
	res, page = e.get("/items?show=all")
	last := regexp.MustCompile(`href="(/items/\d+\?[^"]*pos=4[^"]*)"`).FindStringSubmatch(page)
	if last == nil {
		t.Fatalf("no fifth card in the list of all:\n%s", page)
	}
	href = html.UnescapeString(last[1])
	seen = nil
	for range 6 {
		_, page := e.get(href)
		seen = append(seen, regexp.MustCompile(`<h1 class="reader-title">([^<]*)</h1>`).FindStringSubmatch(page)[1])
		if href = hrefOf(page, "item-prev"); href == "" {
			break
		}
	}
	if got := strings.Join(seen, " "); got != "A0 A1 B-between A2 A3" {
		t.Fatalf("previous through all items: %s", got)
	}
	// Opened without a list (a bookmark): no pager, no error.
	res, page = e.get(regexp.MustCompile(`/items/\d+`).FindString(href + "/items/1"))
	if res.StatusCode != 200 || strings.Contains(page, `data-testid="item-nav"`) {
		t.Errorf("an item without a list: %d, pager shown %v", res.StatusCode, strings.Contains(page, `data-testid="item-nav"`))
	}
	// A hand-edited place is harmless.
	if res, _ := e.get("/items/1?pos=-5&show=bogus&minScore=abc"); res.StatusCode != 200 {
		t.Errorf("odd list parameters: %d", res.StatusCode)
	}
}
