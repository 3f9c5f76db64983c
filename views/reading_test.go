package views_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
)

// seedItems stores a source with four items, enriched as the processing pipeline would, and indexes them.
func seedItems(t *testing.T, e *env) (src sourceJSON, ids map[string]int64) {
	t.Helper()
	src = e.createSource("https://example.com/feed", "Example Feed")
	e.fetch(src.ID,
		app.Item{GUID: "a", Title: "SQLite grows up", Link: "https://example.com/a", Text: "SQLite now has a faster query planner.", CleanContent: "<p>SQLite now has a faster query planner.</p>"},
		app.Item{GUID: "b", Title: "Cycling in Brussels", Link: "https://example.com/b", Text: "New bike lanes open.", CleanContent: "<p>New bike lanes open.</p>"},
		app.Item{GUID: "c", Title: "<script>alert(1)</script> weird title", Link: "https://example.com/c", Text: "Plain.", CleanContent: "<p>Plain.</p>"},
		app.Item{GUID: "d", Title: "Broken item", Link: "https://example.com/d", Text: "x", CleanContent: "<p>x</p>"},
	)
	ids = map[string]int64{}
	rows, err := e.db.Read.Query(`select guid, id from items`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var g string
		var id int64
		_ = rows.Scan(&g, &id)
		ids[g] = id
	}
	rows.Close()
	for _, stmt := range []string{
		`update items set summary = 'The planner is faster.', tags = '["sqlite","query planner"]', topics = '["Databases"]', score = 88, score_reasoning = 'Matches your interests: sqlite' where guid = 'a'`,
		`update items set summary = 'Lanes.', tags = '["bike"]', score = 35, score_reasoning = 'No match' where guid = 'b'`,
		`update items set summary = '<b>bold</b> summary', tags = '["<script>"]', score = 50 where guid = 'c'`,
		`update items set status = 'ERROR', attempts = 3, last_error = 'The LLM answered 500' where guid = 'd'`,
	} {
		if _, err := e.db.Write.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := e.db.IndexItems(context.Background(), 100); err != nil {
		t.Fatal(err)
	}
	return src, ids
}

func TestReadingPages(t *testing.T) {
	t.Run("the items page filters by the URL, sorts by score, and escapes what feeds wrote", func(t *testing.T) {
		e := newEnv(t)
		seedItems(t, e)
		res, body := e.get("/items?show=all&sort=score")
		mustContain(t, res, body, 200, `data-testid="score"`, "Matches your interests: sqlite", `href="/items?show=all&amp;tag=query+planner"`)
		if strings.Index(body, "SQLite grows up") > strings.Index(body, "Cycling in Brussels") {
			t.Fatal("sorting by score put the 35 above the 88")
		}
		if strings.Contains(body, "<script>alert(1)</script>") || strings.Contains(body, "<b>bold</b>") || !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt;") {
			t.Fatal("feed text is not escaped")
		}
		_, body = e.get("/items?show=all&minScore=60")
		if !strings.Contains(body, "SQLite grows up") || strings.Contains(body, "Cycling in Brussels") {
			t.Fatal("min score 60 kept the 35")
		}
		_, body = e.get("/items?tag=bike")
		if strings.Contains(body, "SQLite grows up") || !strings.Contains(body, "Cycling in Brussels") {
			t.Fatal("tag filter")
		}
		_, body = e.get("/items?show=errors")
		mustContain(t, res, body, 200, `data-testid="item-error"`, "The LLM answered 500", `data-testid="retry-item"`)
	})

	t.Run("search shows highlighted snippets", func(t *testing.T) {
		e := newEnv(t)
		seedItems(t, e)
		res, body := e.get("/items?q=planner")
		mustContain(t, res, body, 200, `data-testid="snippet"`, "<mark>planner</mark>", "SQLite grows up")
		if strings.Contains(body, "Cycling in Brussels") {
			t.Fatal("search returned a non-matching item")
		}
	})

	t.Run("star and read toggle by form (redirect) and by htmx (the card, swapped in place)", func(t *testing.T) {
		e := newEnv(t)
		_, ids := seedItems(t, e)
		res, _ := e.form(fmt.Sprintf("/items/%d/star", ids["a"]), url.Values{"on": {"true"}, "return": {"/items?show=all"}})
		if res.StatusCode != 303 || res.Header.Get("Location") != "/items?show=all" {
			t.Fatalf("star: %d %s", res.StatusCode, res.Header.Get("Location"))
		}
		req, _ := http.NewRequest(http.MethodPost, e.srv.URL+fmt.Sprintf("/items/%d/read", ids["a"]), strings.NewReader("on=true&return=/items"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("HX-Request", "true")
		hres, err := e.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer hres.Body.Close()
		raw, _ := io.ReadAll(hres.Body)
		frag := string(raw)
		if hres.StatusCode != 200 || !strings.Contains(frag, `class="item is-read is-starred"`) || strings.Contains(frag, "<html") {
			t.Fatalf("htmx fragment %d: %.300s", hres.StatusCode, frag)
		}
		_, body := e.get("/items?show=starred")
		if !strings.Contains(body, "SQLite grows up") || strings.Contains(body, "Cycling") {
			t.Fatal("starred view")
		}
		_, body = e.get("/items")
		if strings.Contains(body, "SQLite grows up") {
			t.Fatal("the unread view shows a read item")
		}
	})

	t.Run("the item page marks the item read and renders only its clean content", func(t *testing.T) {
		e := newEnv(t)
		_, ids := seedItems(t, e)
		if _, err := e.db.Write.Exec(`update items set raw_content = '<script>raw()</script>' where id = ?`, ids["a"]); err != nil {
			t.Fatal(err)
		}
		res, body := e.get(fmt.Sprintf("/items/%d", ids["a"]))
		mustContain(t, res, body, 200, `data-testid="item-page"`, "<p>SQLite now has a faster query planner.</p>", "The planner is faster.", `data-testid="link-out"`)
		if strings.Contains(body, "raw()") {
			t.Fatal("raw content rendered")
		}
		it, _ := e.db.Item(context.Background(), 1, ids["a"])
		if it.ReadAt == nil {
			t.Fatal("opening did not mark it read")
		}
		res, _ = e.get("/items/999999")
		if res.StatusCode != 404 {
			t.Fatalf("unknown item: %d", res.StatusCode)
		}
	})

	t.Run("retrying a failed item makes it PENDING with a processing job", func(t *testing.T) {
		e := newEnv(t)
		_, ids := seedItems(t, e)
		res, _ := e.form(fmt.Sprintf("/items/%d/retry", ids["d"]), url.Values{})
		if res.StatusCode != 303 {
			t.Fatalf("retry: %d", res.StatusCode)
		}
		var status string
		var jobs int
		_ = e.db.Read.QueryRow(`select status from items where id = ?`, ids["d"]).Scan(&status)
		_ = e.db.Read.QueryRow(`select count(*) from goqite where queue = 'process'`).Scan(&jobs)
		if status != "PENDING" || jobs != 1 {
			t.Fatalf("status %s, %d jobs", status, jobs)
		}
	})

	t.Run("settings save interests and topics; a bad time zone is shown with the input kept", func(t *testing.T) {
		e := newEnv(t)
		res, _ := e.form("/settings", url.Values{"interests": {"sqlite, go"}, "topics": {"Databases: sqlite, postgres\nCycling: bike"}, "enricher": {"embedded"}, "dailyCredits": {"500"}, "timezone": {"Europe/Brussels"}})
		if res.StatusCode != 303 {
			t.Fatalf("save: %d", res.StatusCode)
		}
		st, _ := e.db.Settings(context.Background(), 1)
		if st.Interests != "sqlite, go" || len(st.Topics) != 2 || st.Topics[0].Keywords[1] != "postgres" || st.DailyCredits != 500 || st.Timezone != "Europe/Brussels" {
			t.Fatalf("settings %+v", st)
		}
		res, body := e.form("/settings", url.Values{"interests": {"kept input"}, "timezone": {"Mars/Olympus"}})
		mustContain(t, res, body, 422, "Unknown time zone", "kept input")
	})

	t.Run("filter rules: preview counts matches live, an invalid regex is explained, add and delete", func(t *testing.T) {
		e := newEnv(t)
		seedItems(t, e)
		res, body := e.form("/settings/filters/preview", url.Values{"field": {"title"}, "match": {"keywords"}, "pattern": {"cycling, sqlite"}, "action": {"hide"}})
		mustContain(t, res, body, 200, "<strong>2</strong>")
		_, body = e.form("/settings/filters/preview", url.Values{"field": {"title"}, "match": {"regex"}, "pattern": {"(unclosed"}, "action": {"hide"}})
		if !strings.Contains(body, "regular expression is not valid") {
			t.Fatalf("invalid regex: %s", body)
		}
		res, _ = e.form("/settings/filters", url.Values{"field": {"title"}, "match": {"keywords"}, "pattern": {"sponsored"}, "action": {"score"}, "scoreDelta": {"-30"}})
		if res.StatusCode != 303 {
			t.Fatalf("add: %d", res.StatusCode)
		}
		_, body = e.get("/settings")
		mustContain(t, res, body, 303, `data-testid="filters"`, "sponsored", "score -30")
		fs, _ := e.db.Filters(context.Background(), 1)
		res, _ = e.form(fmt.Sprintf("/settings/filters/%d/delete", fs[0].ID), url.Values{"confirm": {"yes"}})
		if fs2, _ := e.db.Filters(context.Background(), 1); res.StatusCode != 303 || len(fs2) != 0 {
			t.Fatalf("delete: %d, %d left", res.StatusCode, len(fs2))
		}
	})
}

func TestReadingAPI(t *testing.T) {
	t.Run("GET /api/items filters, searches and validates", func(t *testing.T) {
		e := newEnv(t)
		src, _ := seedItems(t, e)
		code, body := e.json("GET", "/api/items?minScore=40&sort=score", "")
		items := decodeJSON[[]map[string]any](t, body)
		if code != 200 || len(items) != 2 || items[0]["title"] != "SQLite grows up" || items[0]["score"].(float64) != 88 {
			t.Fatalf("%d %s", code, body)
		}
		for _, k := range []string{"summary", "tags", "topics", "scoreReasoning", "enrichedBy", "attempts", "lastError", "read", "starred", "content", "sourceId", "guid"} {
			if _, ok := items[0][k]; !ok {
				t.Errorf("item lacks %q", k)
			}
		}
		_, body = e.json("GET", fmt.Sprintf("/api/items?q=planner&sourceId=%d", src.ID), "")
		if items := decodeJSON[[]map[string]any](t, body); len(items) != 1 || !strings.Contains(items[0]["snippet"].(string), "«planner»") {
			t.Fatalf("search: %s", body)
		}
		_, body = e.json("GET", "/api/items?status=error", "")
		if items := decodeJSON[[]map[string]any](t, body); len(items) != 1 || items[0]["lastError"] != "The LLM answered 500" {
			t.Fatalf("status filter: %s", body)
		}
		for _, q := range []string{"minScore=abc", "minScore=101", "limit=-1", "limit=501", "status=FOO", "sourceId=x", "unread=maybe", "sort=random"} {
			if code, body := e.json("GET", "/api/items?"+q, ""); code != 400 || !strings.Contains(body, `"error"`) {
				t.Errorf("%s: %d %s", q, code, body)
			}
		}
	})

	t.Run("PATCH /api/items/{id} marks read and starred; retry answers 202, then 409 while pending", func(t *testing.T) {
		e := newEnv(t)
		_, ids := seedItems(t, e)
		code, body := e.json("PATCH", fmt.Sprintf("/api/items/%d", ids["a"]), `{"read": true, "starred": true}`)
		if code != 200 || !strings.Contains(body, `"read":true`) || !strings.Contains(body, `"starred":true`) {
			t.Fatalf("%d %s", code, body)
		}
		if code, _ := e.json("PATCH", fmt.Sprintf("/api/items/%d", ids["a"]), `{"bogus": 1}`); code != 400 {
			t.Fatalf("unknown field: %d", code)
		}
		if code, _ := e.json("GET", "/api/items/424242", ""); code != 404 {
			t.Fatalf("unknown item: %d", code)
		}
		if code, _ := e.json("POST", fmt.Sprintf("/api/items/%d/retry", ids["d"]), ""); code != 202 {
			t.Fatalf("retry: %d", code)
		}
		if code, _ := e.json("POST", fmt.Sprintf("/api/items/%d/retry", ids["d"]), ""); code != 409 {
			t.Fatalf("second retry: %d", code)
		}
	})

	t.Run("settings and filters over the API", func(t *testing.T) {
		e := newEnv(t)
		seedItems(t, e)
		code, body := e.json("PATCH", "/api/settings", `{"interests": "ruby rails", "topics": [{"name": "Ruby", "keywords": ["rails", "gem"]}], "dailyCredits": 200}`)
		if code != 200 || !strings.Contains(body, `"interests":"ruby rails"`) || !strings.Contains(body, `"dailyCredits":200`) {
			t.Fatalf("%d %s", code, body)
		}
		for _, bad := range []string{`{"enricher": "magic"}`, `{"timezone": "Nowhere/Land"}`, `{"dailyCredits": -1}`, `{"topics": [{"name": ""}]}`, `{"credits": 5}`, `[]`} {
			if code, body := e.json("PATCH", "/api/settings", bad); code != 400 {
				t.Errorf("%s: %d %s", bad, code, body)
			}
		}
		code, body = e.json("POST", "/api/filters/preview", `{"field": "any", "match": "keywords", "pattern": "sqlite", "action": "star"}`)
		if code != 200 || !strings.Contains(body, `"matches":1`) {
			t.Fatalf("preview: %d %s", code, body)
		}
		code, body = e.json("POST", "/api/filters", `{"field": "title", "match": "regex", "pattern": "^Broken", "action": "hide"}`)
		if code != 201 {
			t.Fatalf("create: %d %s", code, body)
		}
		if code, body := e.json("POST", "/api/filters", `{"field": "title", "match": "regex", "pattern": "(", "action": "hide"}`); code != 400 || !strings.Contains(body, "not valid") {
			t.Fatalf("bad regex: %d %s", code, body)
		}
		_, body = e.json("GET", "/api/filters", "")
		fs := decodeJSON[[]map[string]any](t, body)
		if len(fs) != 1 {
			t.Fatalf("filters: %s", body)
		}
		if code, _ := e.json("DELETE", fmt.Sprintf("/api/filters/%v", fs[0]["id"]), ""); code != 204 {
			t.Fatalf("delete: %d", code)
		}
		if code, _ := e.json("DELETE", "/api/filters/77", ""); code != 404 {
			t.Fatalf("delete unknown: %d", code)
		}
	})
}

func TestFeedChoice(t *testing.T) {
	t.Run("a page offering two feeds asks which one, and the pick is followed", func(t *testing.T) {
		e := newEnvWithDetector(t)
		page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<html><head><title>Blog</title>
<link rel="alternate" type="application/rss+xml" title="Posts" href="/posts.xml">
<link rel="alternate" type="application/atom+xml" title="Comments" href="/comments.xml"></head><body><p>hi</p></body></html>`)
		}))
		defer page.Close()
		res, body := e.form("/sources", url.Values{"url": {page.URL}})
		mustContain(t, res, body, 200, `data-testid="feed-choice"`, "This page offers 2 feeds", page.URL+"/posts.xml", page.URL+"/comments.xml", "Posts", "Comments")
		res, _ = e.form("/sources", url.Values{"url": {page.URL + "/comments.xml"}, "type": {"rss"}})
		if res.StatusCode != 303 {
			t.Fatalf("picking a feed: %d", res.StatusCode)
		}
		srcs, _ := e.db.Sources(context.Background(), 1)
		if len(srcs) != 1 || srcs[0].URL != page.URL+"/comments.xml" || srcs[0].Type != app.SourceRSS {
			t.Fatalf("sources %+v", srcs)
		}
	})
}
