package views_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
	"github.com/morningdeck/morningdeck/views"
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

	t.Run("every scored card says why on one line, and its badge still opens the reason", func(t *testing.T) {
		e := newEnv(t)
		seedItems(t, e)
		for _, path := range []string{"/items?show=all", "/"} {
			res, body := e.get(path)
			mustContain(t, res, body, 200, `<p class="reason-line" data-testid="reason-line" aria-hidden="true" title="Matches your interests: sqlite">Matches your interests: sqlite</p>`,
				`data-reason-toggle`, `data-testid="score-reason">Matches your interests: sqlite</span>`)
			if path == "/items?show=all" && strings.Count(body, `data-testid="reason-line"`) != strings.Count(body, `data-reason-toggle`) {
				t.Errorf("%s: %d reason lines for %d scored cards with a reason", path, strings.Count(body, `data-testid="reason-line"`), strings.Count(body, `data-reason-toggle`))
			}
		}
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

	t.Run("punctuation alone is nothing to search for, not every item", func(t *testing.T) {
		e := newEnv(t)
		seedItems(t, e)
		res, body := e.get("/items?q=%2B%2B%2B")
		mustContain(t, res, body, 200, `data-testid="search-error"`, "Nothing to search for: type a word")
		if strings.Contains(body, "Cycling in Brussels") || strings.Contains(body, "SQLite grows up") {
			t.Fatal("a punctuation-only search listed items")
		}
		if code, body := e.json("GET", "/api/items?q=...", ""); code != 400 || !strings.Contains(body, "Nothing to search for") {
			t.Fatalf("API: %d %s", code, body)
		}
	})

	t.Run("star and read toggle by form (redirect) and by htmx (the card, swapped in place)", func(t *testing.T) {
		e := newEnv(t)
		_, ids := seedItems(t, e)
		// A value that is neither true nor false is refused, not read as true.
		if res, body := e.form(fmt.Sprintf("/items/%d/star", ids["b"]), url.Values{"on": {"maybe"}}); res.StatusCode/100 != 4 || !strings.Contains(body, "on must be true or false") {
			t.Fatalf("star with on=maybe: %d %.300s", res.StatusCode, body)
		}
		if it, err := e.db.Item(context.Background(), 1, ids["b"]); err != nil || it.Starred {
			t.Fatalf("on=maybe starred the item: %+v %v", it, err)
		}
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
		if hres.StatusCode != 200 || !strings.Contains(frag, `class="item is-read is-starred"`) || strings.Contains(frag, "<html") ||
			!strings.Contains(frag, `id="unread-count" data-testid="unread-count" title="3 unread items" hx-swap-oob="true"`) {
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
	t.Run("a page whose advertised feed is gone says so instead of adding it", func(t *testing.T) {
		e := newEnvWithDetector(t)
		page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/" {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<html><head><title>Blog</title>
<link rel="alternate" type="application/rss+xml" title="Posts" href="/gone.xml"></head><body><p>hi</p></body></html>`)
		}))
		defer page.Close()
		res, body := e.form("/sources", url.Values{"url": {page.URL}})
		mustContain(t, res, body, 422, `data-testid="form-error"`, "advertises the feed "+page.URL+"/gone.xml, but it cannot be read: The server answered 404")
		if _, body := e.get("/sources"); strings.Contains(body, `data-testid="source-row"`) {
			t.Fatal("the source was added anyway")
		}
	})
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

// onlyOwnScripts fails when body has a <script> element other than the page's own (which all have a src).
func onlyOwnScripts(t *testing.T, where, body string) {
	t.Helper()
	for rest := body; ; {
		i := strings.Index(rest, "<script")
		if i < 0 {
			break
		}
		rest = rest[i+len("<script"):]
		if !strings.HasPrefix(rest, " src=") {
			t.Errorf("%s: a <script> from a feed was rendered: …%.80s", where, rest)
		}
	}
	if strings.Contains(body, "<b>bold</b>") {
		t.Errorf("%s: HTML in a summary was rendered", where)
	}
}

func TestReadingEscapesWhatFeedsWrote(t *testing.T) {
	t.Run("a script in a title, summary, tag or text is escaped on every page and in the API", func(t *testing.T) {
		e := newEnv(t)
		src, ids := seedItems(t, e)
		e.fetch(src.ID, app.Item{GUID: "e", Title: "<i>Planner</i> notes", Link: "javascript:alert(3)", Text: "Use <img src=x onerror=alert(2)> with the planner <script>alert(4)</script>"})
		if _, err := e.db.Write.Exec(`update items set topics = '["<script>t</script>"]', score = 60, score_reasoning = '<script>why()</script>' where guid = 'c'`); err != nil {
			t.Fatal(err)
		}
		if _, err := e.db.IndexItems(context.Background(), 100); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"/", "/items?show=all", "/items?show=all&sort=score", fmt.Sprintf("/items/%d", ids["c"]), "/items?q=weird", "/items?q=planner", "/items?tag=%3Cscript%3E"} {
			res, body := e.get(path)
			if res.StatusCode != 200 {
				t.Fatalf("%s: %d", path, res.StatusCode)
			}
			onlyOwnScripts(t, path, body)
		}
		_, body := e.get("/items?q=planner")
		mustContain(t, &http.Response{StatusCode: 200, Request: &http.Request{URL: &url.URL{Path: "/items?q=planner"}}}, body, 200,
			"<mark>planner</mark>", "&lt;img src=x onerror=alert(2)&gt;", "&lt;i&gt;Planner&lt;/i&gt; notes")
		if strings.Contains(body, "<img src=x") || strings.Contains(body, "<i>Planner") || strings.Contains(body, "javascript:alert") {
			t.Fatal("search results render feed HTML or a javascript: link")
		}
		_, body = e.get(fmt.Sprintf("/items/%d", ids["c"]))
		if !strings.Contains(body, "&lt;script&gt;alert(1)&lt;/script&gt; weird title") || !strings.Contains(body, "&lt;script&gt;why()&lt;/script&gt;") {
			t.Fatal("the item page does not show the escaped title and reason")
		}
		_, body = e.form("/settings/filters/preview", url.Values{"field": {"title"}, "match": {"keywords"}, "pattern": {"weird"}, "action": {"hide"}})
		onlyOwnScripts(t, "filter preview", body)
		if !strings.Contains(body, "&lt;script&gt;alert(1)") {
			t.Fatalf("preview: %s", body)
		}
		_, body = e.json("GET", fmt.Sprintf("/api/items/%d", ids["c"]), "")
		if strings.Contains(body, "<script>") || !strings.Contains(body, `\u003cscript\u003e`) {
			t.Fatalf("API: %s", body)
		}
	})
}

func TestReadingFrame(t *testing.T) {
	t.Run("the sidebar counts unread items, and marking all read respects the source filter", func(t *testing.T) {
		e := newEnv(t)
		src, _ := seedItems(t, e)
		other := e.createSource("https://other.example/feed", "Other")
		e.fetch(other.ID, app.Item{GUID: "o1", Title: "Elsewhere", Link: "https://other.example/1", Text: "x"})
		c, _ := e.db.Counts(context.Background(), 1, 0)
		res, body := e.get("/sources")
		mustContain(t, res, body, 200, `data-testid="unread-count"`, fmt.Sprintf(`title="%d unread items">%d`, c.Unread, c.Unread))

		res, _ = e.form("/items/read", url.Values{"source": {fmt.Sprint(src.ID)}, "return": {fmt.Sprintf("/items?source=%d", src.ID)}})
		if res.StatusCode != 303 || res.Header.Get("Location") != fmt.Sprintf("/items?source=%d", src.ID) {
			t.Fatalf("mark all read: %d %s", res.StatusCode, res.Header.Get("Location"))
		}
		_, body = e.get("/items")
		if !strings.Contains(body, "Elsewhere") || strings.Contains(body, "SQLite grows up") {
			t.Fatal("marking one source read touched another, or missed its own items")
		}
		mustContain(t, res, body, 303, `data-testid="unread-count"`)
		e.form("/items/read", url.Values{})
		if _, body = e.get("/items"); strings.Contains(body, `data-testid="unread-count"`) || !strings.Contains(body, "All caught up") {
			t.Fatal("with nothing unread, the count stays or the empty state is missing")
		}
	})

	t.Run("past 999 unread the sidebar says 999+, the folder's too, and the API counts them all", func(t *testing.T) {
		e := newEnv(t)
		src := e.createSource("https://many.example/feed", "Many")
		if code, body := e.json("PATCH", fmt.Sprintf("/api/sources/%d", src.ID), `{"folder":"Busy"}`); code != 200 {
			t.Fatalf("move to a folder: %d %s", code, body)
		}
		var items []app.Item
		for i := range app.NavUnreadCap + 5 {
			items = append(items, app.Item{GUID: fmt.Sprint(i), Title: fmt.Sprintf("Story %d", i), Link: fmt.Sprintf("https://many.example/%d", i), Text: "x"})
		}
		e.fetch(src.ID, items...)
		res, body := e.get("/sources")
		mustContain(t, res, body, 200, `title="more than 999 unread items">999+`, `title="Busy: more than 999 unread items"`)
		code, body := e.json("GET", "/api/folders", "")
		if code != 200 || !strings.Contains(body, fmt.Sprintf(`"unreadCount":%d`, app.NavUnreadCap+5)) {
			t.Fatalf("the API's folder count: %d %s", code, body)
		}
	})

	t.Run("pages keep the filters and say newer and older by date", func(t *testing.T) {
		e := newEnv(t)
		src := e.createSource("https://example.com/feed", "Example")
		var items []app.Item
		base := time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC)
		for i := range 35 {
			p := base.Add(time.Duration(i) * time.Hour)
			items = append(items, app.Item{GUID: fmt.Sprint(i), Title: fmt.Sprintf("Story %02d", i), Link: fmt.Sprintf("https://example.com/%d", i), Text: "x", PublishedAt: &p})
		}
		e.fetch(src.ID, items...)
		res, body := e.get("/items?show=all&tag=&sort=date")
		mustContain(t, res, body, 200, "Story 34", `href="/items?offset=30&amp;show=all&amp;sort=date"`, "Older →")
		if strings.Contains(body, "Story 04") || strings.Contains(body, `data-testid="newer"`) {
			t.Fatal("the first page shows the 31st item or a link to newer")
		}
		res, body = e.get("/items?offset=30&show=all&sort=date")
		mustContain(t, res, body, 200, "Story 04", "Story 00", `href="/items?show=all&amp;sort=date"`, "← Newer")
		if strings.Contains(body, "Story 05") || strings.Contains(body, `data-testid="older"`) {
			t.Fatal("the last page repeats the first or offers an older page")
		}
		_, body = e.get("/items?show=all&sort=score")
		mustContain(t, res, body, 200, "Next →")
	})

	t.Run("without the reading service the pages explain themselves and nothing panics", func(t *testing.T) {
		db := sqlitetest.New(t)
		q := queue.NewFetchQueue(queue.FetchQueueOptions{Store: db, Capacity: 10})
		srv := httptest.NewServer(views.New(views.Options{Sources: &app.Sources{Store: db, Queue: q}}))
		defer srv.Close()
		e := &env{t: t, db: db, srv: srv, c: &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
		res, body := e.get("/items")
		mustContain(t, res, body, 200, `data-testid="empty-items"`, "Add a source")
		res, body = e.get("/settings")
		mustContain(t, res, body, 200, `data-testid="coming-soon"`)
		for _, c := range []struct{ method, path string }{{"GET", "/items/1"}, {"POST", "/items/1/star"}, {"POST", "/items/read"}, {"POST", "/settings"}} {
			if res, _ := e.do(c.method, c.path, "application/x-www-form-urlencoded", strings.NewReader("")); res.StatusCode != 404 {
				t.Errorf("%s %s: %d", c.method, c.path, res.StatusCode)
			}
		}
		for _, p := range []string{"/api/items", "/api/settings", "/api/filters"} {
			if code, body := e.json("GET", p, ""); code != 404 || !strings.Contains(body, "not enabled") {
				t.Errorf("%s: %d %s", p, code, body)
			}
		}
	})
}

func TestSettingsEnricher(t *testing.T) {
	t.Run("the LLM choice is off until a model is configured, and the test button reports the outcome", func(t *testing.T) {
		e := newEnv(t)
		res, body := e.get("/settings")
		mustContain(t, res, body, 200, `value="llm" disabled`, "No LLM is configured yet")
		if strings.Contains(body, `data-testid="test-llm"`) {
			t.Fatal("test button without a TestLLM")
		}
		res, _ = e.form("/settings", url.Values{"llmModel": {"llama3.2"}, "llmBaseUrl": {"http://127.0.0.1:11434/v1"}, "llmApiKey": {"sk-secret"}})
		if res.StatusCode != 303 {
			t.Fatalf("save: %d", res.StatusCode)
		}
		res, body = e.get("/settings")
		mustContain(t, res, body, 200, "Your LLM: <code>llama3.2</code>", "http://127.0.0.1:11434/v1")
		if strings.Contains(body, `value="llm" disabled`) || strings.Contains(body, "sk-secret") {
			t.Fatal("the LLM choice stays off, or the key is shown")
		}
		if code, body := e.json("GET", "/api/settings", ""); code != 200 || strings.Contains(body, "sk-secret") || !strings.Contains(body, `"llmApiKeySet":true`) {
			t.Fatalf("API settings: %d %s", code, body)
		}

		db := sqlitetest.New(t)
		pq := queue.NewProcessQueue(queue.ProcessQueueOptions{Store: db})
		fail := true
		srv := httptest.NewServer(views.New(views.Options{Sources: &app.Sources{Store: db},
			Reading: &app.Reading{Store: db, Queue: pq}, Settings: &app.UserSettings{Store: db},
			Enricher: views.EnricherInfo{Default: "llm", LLMConfigured: true, LLMModel: "qwen2.5", LLMBaseURL: "http://llm.local/v1"},
			TestLLM: func(context.Context, int64) error {
				if fail {
					return errors.New("connection refused")
				}
				return nil
			}}))
		defer srv.Close()
		jar, _ := cookiejar.New(nil)
		c := &http.Client{Jar: jar}
		page := func(method, path string) string {
			req, _ := http.NewRequest(method, srv.URL+path, nil)
			res, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			return string(b)
		}
		body = page("GET", "/settings")
		for _, want := range []string{`data-testid="test-llm"`, "The server's LLM: <code>qwen2.5</code>", "http://llm.local/v1", `value="llm" checked`} {
			if !strings.Contains(body, want) {
				t.Errorf("settings lack %q", want)
			}
		}
		if body = page("POST", "/settings/test-llm"); !strings.Contains(body, "The LLM test failed: connection refused") {
			t.Fatal("a failed test is not reported")
		}
		fail = false
		if body = page("POST", "/settings/test-llm"); !strings.Contains(body, "The LLM answered") {
			t.Fatal("a passed test is not reported")
		}
	})
}
