package views_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
)

// TestManySources: a subscription list of hundreds of sources is paged on the Sources page
// (100 at a time, findable by name or address, the failing and the paused apart), every page
// counts them without listing them, and the Items page does not offer hundreds of choices.
func TestManySources(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for i := range 350 {
		src := &app.Source{UserID: 1, Type: app.SourceRSS, URL: fmt.Sprintf("https://feeds.example/%03d.xml", i), Name: fmt.Sprintf("Source %03d", i), RefreshIntervalMinutes: 60}
		if err := e.db.CreateSource(ctx, src, nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.db.Write.Exec(`update sources set status = 'ERROR', error_count = 5, last_error = 'The server answered 500.' where name like 'Source %7'`); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.Write.Exec(`update sources set status = 'PAUSED' where name in ('Source 000', 'Source 001')`); err != nil {
		t.Fatal(err)
	}
	rows := func(body string) int { return strings.Count(body, `data-testid="source-row"`) }

	res, body := e.get("/sources")
	mustContain(t, res, body, 200, "1–100 of 350 sources", `href="/sources?offset=100"`, "All (350)", "Failing (35)", "Paused (2)", "Source 000", "Source 099")
	if n := rows(body); n != 100 || strings.Contains(body, "Source 100") {
		t.Fatalf("first page: %d rows", n)
	}
	// The live region polls this very page.
	if !strings.Contains(body, `hx-get="/fragments/sources"`) {
		t.Fatal("the live region does not poll the first page")
	}

	res, body = e.get("/sources?offset=300")
	mustContain(t, res, body, 200, "301–350 of 350 sources", `href="/sources?offset=200"`, "Source 349", `hx-get="/fragments/sources?offset=300"`)
	if n := rows(body); n != 50 || strings.Contains(body, `rel="next"`) {
		t.Fatalf("last page: %d rows", n)
	}
	res, body = e.get("/fragments/sources?offset=300")
	if res.StatusCode != 200 || rows(body) != 50 || !strings.Contains(body, "Source 300") {
		t.Fatalf("fragment of the last page: %d, %d rows", res.StatusCode, rows(body))
	}

	res, body = e.get("/sources?q=FEEDS.EXAMPLE/12")
	mustContain(t, res, body, 200, "Source 120", "Source 129")
	if n := rows(body); n != 10 {
		t.Fatalf("search by address: %d rows", n)
	}
	res, body = e.get("/sources?q=50%25_")
	mustContain(t, res, body, 200, "No source matches")

	res, body = e.get("/sources?show=errors")
	mustContain(t, res, body, 200, "35 failing sources", "Source 007", "The server answered 500.")
	if n := rows(body); n != 35 {
		t.Fatalf("failing sources: %d rows", n)
	}
	res, body = e.get("/sources?show=paused&q=001")
	mustContain(t, res, body, 200, "Source 001")
	if n := rows(body); n != 1 {
		t.Fatalf("paused matching 001: %d rows", n)
	}

	// Every page's navigation counts the failing sources.
	res, body = e.get("/")
	mustContain(t, res, body, 200, "350")

	// The Items page's picker: all sources but the current one are left to the Sources page.
	var id int64
	if err := e.db.Read.QueryRow(`select id from sources where name = 'Source 005'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	res, body = e.get(fmt.Sprintf("/items?source=%d", id))
	mustContain(t, res, body, 200, "Pick one of 350 sources", ">Source 005</option>")
	if n := strings.Count(body, "<option value=\"") - strings.Count(body, `<option value=""`); n > 20 {
		t.Fatalf("the items page offers %d options", n)
	}
}
