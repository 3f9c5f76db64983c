package views_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
	"github.com/morningdeck/morningdeck/views"
)

func TestAPI(t *testing.T) {
	t.Run("creates, lists, gets, updates, refreshes and deletes a source", func(t *testing.T) {
		e := newEnv(t)
		created := e.createSource("https://example.com/feed.xml", "Example")
		if created.ID == 0 || created.Type != "rss" || created.Status != "ACTIVE" || created.FetchStatus != "QUEUED" ||
			created.RefreshIntervalMinutes != 30 || created.QueuedAt == nil || created.LastFetchedAt != nil || created.Name != "Example" {
			t.Fatalf("created = %+v", created)
		}

		code, body := e.json(http.MethodGet, "/api/sources", "")
		list := decodeJSON[[]sourceJSON](t, body)
		if code != 200 || len(list) != 1 || list[0].ID != created.ID {
			t.Fatalf("list: %d %s", code, body)
		}
		path := fmt.Sprintf("/api/sources/%d", created.ID)
		code, body = e.json(http.MethodGet, path, "")
		if code != 200 || decodeJSON[sourceJSON](t, body).URL != "https://example.com/feed.xml" {
			t.Fatalf("get: %d %s", code, body)
		}

		code, body = e.json(http.MethodPatch, path, `{"name":"Renamed","refreshIntervalMinutes":60,"status":"PAUSED"}`)
		got := decodeJSON[sourceJSON](t, body)
		if code != 200 || got.Name != "Renamed" || got.RefreshIntervalMinutes != 60 || got.Status != "PAUSED" {
			t.Fatalf("patch: %d %s", code, body)
		}
		code, body = e.json(http.MethodPatch, path, `{"status":"ACTIVE","autoInterval":true}`)
		if code != 200 || decodeJSON[sourceJSON](t, body).Status != "ACTIVE" {
			t.Fatalf("patch resume: %d %s", code, body)
		}

		// Still queued from its creation: nothing more to queue.
		code, body = e.json(http.MethodPost, path+"/refresh", "")
		if code != http.StatusAccepted || !strings.Contains(body, `"queued"`) {
			t.Fatalf("refresh: %d %s", code, body)
		}
		e.fetch(created.ID)
		code, body = e.json(http.MethodPost, "/api/sources/refresh", "")
		if code != http.StatusAccepted || !strings.Contains(body, `"queued":1`) {
			t.Fatalf("refresh all: %d %s", code, body)
		}

		code, _ = e.json(http.MethodDelete, path, "")
		if code != http.StatusNoContent {
			t.Fatalf("delete: %d", code)
		}
		code, _ = e.json(http.MethodGet, path, "")
		if code != http.StatusNotFound {
			t.Fatalf("get after delete: %d", code)
		}
	})

	t.Run("lists a source's items with limit and offset, content clean", func(t *testing.T) {
		e := newEnv(t)
		src := e.createSource("https://example.com/feed.xml", "Example")
		now := time.Now().UTC()
		var items []app.Item
		for i := range 3 {
			p := now.Add(-time.Duration(i) * time.Hour)
			items = append(items, app.Item{GUID: fmt.Sprint("g", i), Title: fmt.Sprint("Item ", i), Link: "https://example.com/" + fmt.Sprint(i),
				PublishedAt: &p, RawContent: "<script>raw</script>", CleanContent: "<p>clean</p>"})
		}
		e.fetch(src.ID, items...)
		code, body := e.json(http.MethodGet, fmt.Sprintf("/api/sources/%d/items?limit=2&offset=1", src.ID), "")
		type itemJSON struct {
			ID          int64   `json:"id"`
			GUID        string  `json:"guid"`
			Title       string  `json:"title"`
			Link        string  `json:"link"`
			PublishedAt *string `json:"publishedAt"`
			Content     string  `json:"content"`
			Status      string  `json:"status"`
			CreatedAt   *string `json:"createdAt"`
		}
		got := decodeJSON[[]itemJSON](t, body)
		if code != 200 || len(got) != 2 {
			t.Fatalf("items: %d %s", code, body)
		}
		if got[0].Content != "<p>clean</p>" || got[0].PublishedAt == nil || got[0].CreatedAt == nil || got[0].GUID == "" || got[0].Status == "" {
			t.Fatalf("item = %+v", got[0])
		}
		if strings.Contains(body, "raw") {
			t.Fatalf("raw content leaked: %s", body)
		}
		if code, _ := e.json(http.MethodGet, fmt.Sprintf("/api/sources/%d/items?limit=abc", src.ID), ""); code != 400 {
			t.Fatalf("bad limit: %d", code)
		}
		if code, _ := e.json(http.MethodGet, "/api/sources/999/items", ""); code != 404 {
			t.Fatalf("items of unknown source: %d", code)
		}
	})

	tests := []struct {
		name     string
		method   string
		path     string
		body     string
		status   int
		contains string
	}{
		{"an interval of 0 is refused with the range", "POST", "/api/sources", `{"url":"https://a.example/feed","type":"rss","refreshIntervalMinutes":0}`, 400, "between 1 and 10080"},
		{"an interval of 20000 is refused with the range", "POST", "/api/sources", `{"url":"https://a.example/feed","type":"rss","refreshIntervalMinutes":20000}`, 400, "between 1 and 10080"},
		{"bad JSON is refused", "POST", "/api/sources", `{"url":`, 400, "JSON"},
		{"an unknown field is refused", "POST", "/api/sources", `{"url":"https://a.example/feed","colour":"red"}`, 400, "colour"},
		{"a wrong type is refused", "POST", "/api/sources", `{"url":"https://a.example/feed","type":"rss","refreshIntervalMinutes":"often"}`, 400, "refreshIntervalMinutes"},
		{"an empty body is refused", "POST", "/api/sources", ``, 400, "empty"},
		{"an unknown type is refused", "POST", "/api/sources", `{"url":"https://a.example/feed","type":"gopher"}`, 400, "gopher"},
		{"a missing URL is refused", "POST", "/api/sources", `{"type":"rss"}`, 400, "address"},
		{"an unknown id is not found", "GET", "/api/sources/12345", ``, 404, "not found"},
		{"a non-numeric id is not found", "GET", "/api/sources/abc", ``, 404, "not found"},
		{"patching an unknown id is not found", "PATCH", "/api/sources/12345", `{"name":"x"}`, 404, "not found"},
		{"deleting an unknown id is not found", "DELETE", "/api/sources/12345", ``, 404, "not found"},
		{"refreshing an unknown id is not found", "POST", "/api/sources/12345/refresh", ``, 404, "not found"},
		{"an unknown endpoint is not found", "GET", "/api/nothing", ``, 404, "No such API endpoint"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newEnv(t)
			code, body := e.json(tt.method, tt.path, tt.body)
			if code != tt.status {
				t.Fatalf("status %d, want %d: %s", code, tt.status, body)
			}
			msg := decodeJSON[map[string]string](t, body)["error"]
			if !strings.Contains(msg, tt.contains) {
				t.Fatalf("error %q does not mention %q", msg, tt.contains)
			}
		})
	}

	t.Run("a body over 1 MiB is refused", func(t *testing.T) {
		e := newEnv(t)
		big := `{"url":"https://a.example/feed","name":"` + strings.Repeat("x", 1<<20+10) + `"}`
		code, body := e.json(http.MethodPost, "/api/sources", big)
		if code != 400 || !strings.Contains(body, "1 MiB") {
			t.Fatalf("%d %s", code, body)
		}
	})

	t.Run("patching a bad interval or status is refused", func(t *testing.T) {
		e := newEnv(t)
		src := e.createSource("https://example.com/feed.xml", "Example")
		path := fmt.Sprintf("/api/sources/%d", src.ID)
		if code, body := e.json(http.MethodPatch, path, `{"refreshIntervalMinutes":0}`); code != 400 || !strings.Contains(body, "between 1 and 10080") {
			t.Fatalf("%d %s", code, body)
		}
		if code, body := e.json(http.MethodPatch, path, `{"status":"ERROR"}`); code != 400 {
			t.Fatalf("%d %s", code, body)
		}
	})

	t.Run("a duplicate URL is a conflict", func(t *testing.T) {
		e := newEnv(t)
		e.createSource("https://example.com/feed.xml", "Example")
		code, body := e.json(http.MethodPost, "/api/sources", `{"url":"https://example.com/feed.xml","type":"rss"}`)
		if code != http.StatusConflict || !strings.Contains(body, "already") {
			t.Fatalf("%d %s", code, body)
		}
	})
}

func TestSecurityHeaders(t *testing.T) {
	e := newEnv(t)
	for _, path := range []string{"/", "/sources", "/api/sources", "/nowhere"} {
		res, _ := e.get(path)
		if got := res.Header.Get("Content-Security-Policy"); !strings.Contains(got, "script-src 'self'") || !strings.Contains(got, "frame-ancestors 'none'") {
			t.Errorf("%s: CSP = %q", path, got)
		}
		if res.Header.Get("X-Content-Type-Options") != "nosniff" || res.Header.Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("%s: headers %v", path, res.Header)
		}
	}
}

func TestPages(t *testing.T) {
	t.Run("the first start is an onboarding page with the add form", func(t *testing.T) {
		e := newEnv(t)
		res, body := e.get("/")
		mustContain(t, res, body, 200, `data-testid="onboarding"`, `data-testid="add-source"`, `r/golang`, `data-testid="import-opml"`, `v-test`)
		if strings.Contains(body, "<script>") {
			t.Fatal("inline script on the page")
		}
	})

	t.Run("pages render with their data", func(t *testing.T) {
		e := newEnv(t)
		src := e.createSource("https://example.com/feed.xml", "Example Feed")
		p := time.Now().Add(-5 * time.Minute)
		e.fetch(src.ID, app.Item{GUID: "1", Title: "Hello world", Link: "https://example.com/1", Author: "Ann", PublishedAt: &p, CleanContent: "<p>Some <b>bold</b> text &amp; more.</p>", Text: "Some bold text & more."})

		res, body := e.get("/")
		mustContain(t, res, body, 200, `data-testid="item"`, "Hello world", "Some bold text &amp; more.", "Example Feed", `rel="noopener noreferrer"`)

		res, body = e.get("/items")
		mustContain(t, res, body, 200, `data-testid="item"`, "Hello world", `data-testid="item-filters"`)
		res, body = e.get(fmt.Sprintf("/items?source=%d", src.ID))
		mustContain(t, res, body, 200, `data-testid="item"`, "From Example Feed")

		res, body = e.get("/sources")
		mustContain(t, res, body, 200, `data-testid="add-source"`, `data-testid="source-row"`, `data-testid="status-badge"`, `data-testid="fetch-badge"`, "Example Feed", `hx-trigger="every 15s"`, `aria-current="page"`)

		res, body = e.get(fmt.Sprintf("/sources/%d", src.ID))
		mustContain(t, res, body, 200, `data-testid="source-title"`, `data-testid="item"`, "Hello world", `data-testid="edit-source"`)

		res, body = e.get("/fragments/sources")
		mustContain(t, res, body, 200, `id="sources-live"`, `data-testid="source-row"`)
		res, body = e.get(fmt.Sprintf("/fragments/sources/%d", src.ID))
		mustContain(t, res, body, 200, `id="source-live"`, "Hello world")

		res, body = e.get("/queues")
		mustContain(t, res, body, 200, `data-testid="coming-soon"`)
		res, body = e.get("/briefings")
		mustContain(t, res, body, 200, `data-testid="empty-briefings"`, `data-testid="briefing-form"`)
		res, body = e.get("/settings")
		mustContain(t, res, body, 200, `data-testid="settings-form"`, `data-testid="filter-form"`, `data-testid="credits"`)
	})

	t.Run("a queued source makes the table poll fast", func(t *testing.T) {
		e := newEnv(t)
		e.createSource("https://example.com/feed.xml", "Example")
		res, body := e.get("/sources")
		mustContain(t, res, body, 200, `hx-trigger="every 2s"`, `data-status="QUEUED"`)
	})

	t.Run("a source in error is counted in the sidebar and shows its error", func(t *testing.T) {
		e := newEnv(t)
		src := e.createSource("https://example.com/feed.xml", "Example")
		ctx := context.Background()
		for range app.ErrorThreshold {
			s, err := e.db.Source(ctx, app.DefaultUserID, src.ID)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.db.FailFetch(ctx, s, app.FailureHTTPStatus, "The server answered 500 Internal Server Error.", true, 0, nil); err != nil {
				t.Fatal(err)
			}
		}
		res, body := e.get("/sources")
		mustContain(t, res, body, 200, `data-testid="error-count"`, `data-status="ERROR"`, "The server answered 500", `data-testid="retry"`)
	})

	t.Run("a web page fetched without any article link has a hint, in the list and on its page", func(t *testing.T) {
		e := newEnv(t)
		code, body := e.json(http.MethodPost, "/api/sources", `{"url":"https://example.com/about","name":"About page","type":"web"}`)
		if code != http.StatusCreated {
			t.Fatalf("create: %d %s", code, body)
		}
		src := decodeJSON[sourceJSON](t, body)
		_, list := e.get("/sources")
		if strings.Contains(list, `data-testid="source-hint"`) {
			t.Fatal("a hint before the first fetch")
		}
		e.fetch(src.ID)
		for _, path := range []string{"/sources", fmt.Sprintf("/sources/%d", src.ID)} {
			res, body := e.get(path)
			mustContain(t, res, body, 200, `data-testid="source-hint"`, "This page shows no links that look like articles")
		}
	})

	t.Run("a feed read without error but with no items says so instead of staying silently empty", func(t *testing.T) {
		e := newEnv(t)
		src := e.createSource("https://example.com/empty.json", "Empty feed")
		e.fetch(src.ID)
		for _, path := range []string{"/sources", fmt.Sprintf("/sources/%d", src.ID)} {
			res, body := e.get(path)
			mustContain(t, res, body, 200, `data-testid="source-hint"`, "The feed was read but holds no items yet")
		}
	})

	t.Run("when most sources failed to connect, Today says the machine seems offline", func(t *testing.T) {
		e := newEnv(t)
		ctx := context.Background()
		fail := func(id int64, kind app.FetchFailure, msg string) {
			t.Helper()
			s, err := e.db.Source(ctx, app.DefaultUserID, id)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.db.FailFetch(ctx, s, kind, msg, true, 0, nil); err != nil {
				t.Fatal(err)
			}
		}
		a := e.createSource("https://a.example/feed.xml", "A")
		b := e.createSource("https://b.example/feed.xml", "B")
		c := e.createSource("https://c.example/feed.xml", "C")
		fail(a.ID, app.FailureHTTPStatus, "The server answered 404 Not Found.") // a source's fault: not offline
		_, body := e.get("/")
		if strings.Contains(body, `data-testid="offline-banner"`) {
			t.Fatal("one 404 is not being offline")
		}
		fail(b.ID, app.FailureDNS, "The host name b.example could not be found.")
		fail(c.ID, app.FailureConnect, "c.example:443 refused the connection.")
		res, body := e.get("/")
		mustContain(t, res, body, 200, `data-testid="offline-banner"`, "You seem to be offline:", "2 sources failed to connect in the last fetch", "could not be reached")
		if strings.Contains(body, "You have read everything") {
			t.Fatal("Today says everything was read while the sources could not be reached")
		}
	})

	t.Run("unknown pages and sources are 404", func(t *testing.T) {
		e := newEnv(t)
		for _, path := range []string{"/nowhere", "/sources/999", "/sources/abc"} {
			if res, _ := e.get(path); res.StatusCode != 404 {
				t.Errorf("%s: %d", path, res.StatusCode)
			}
		}
	})

	t.Run("titles with markup are escaped", func(t *testing.T) {
		e := newEnv(t)
		evil := "<script>alert(1)</script>"
		src := e.createSource("https://example.com/feed.xml", evil)
		e.fetch(src.ID, app.Item{GUID: "1", Title: evil, Link: "javascript:alert(1)", Author: evil, CleanContent: "<p>ok</p>"})
		for _, path := range []string{"/", "/items", "/sources", fmt.Sprintf("/sources/%d", src.ID)} {
			res, body := e.get(path)
			mustContain(t, res, body, 200, "&lt;script&gt;alert(1)&lt;/script&gt;")
			if strings.Contains(body, evil) || strings.Contains(body, `href="javascript:`) {
				t.Errorf("%s: unescaped markup or javascript link", path)
			}
		}
	})

	t.Run("static files are served with hashed names and a long cache", func(t *testing.T) {
		e := newEnv(t)
		_, body := e.get("/sources")
		i := strings.Index(body, `href="/static/app.`)
		if i < 0 {
			t.Fatal("no stylesheet link")
		}
		path := body[i+6 : i+6+strings.Index(body[i+6:], `"`)]
		res, css := e.get(path)
		if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Cache-Control"), "immutable") || !strings.Contains(css, "--accent") {
			t.Fatalf("%s: %d %v", path, res.StatusCode, res.Header)
		}
	})
}

func TestForms(t *testing.T) {
	t.Run("adding a source leads to its page, its fetch under way, with a flash", func(t *testing.T) {
		e := newEnv(t)
		res, _ := e.form("/sources", url.Values{"url": {"https://example.com/feed.xml"}, "type": {"rss"}, "interval": {"30"}})
		loc := res.Header.Get("Location")
		if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(loc, "/sources/") {
			t.Fatalf("%d %v", res.StatusCode, res.Header)
		}
		req, _ := http.NewRequest(http.MethodGet, e.srv.URL+loc, nil)
		for _, c := range res.Cookies() {
			req.AddCookie(c)
		}
		got, err := e.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(got.Body)
		_ = got.Body.Close()
		mustContain(t, got, string(b), 200, `data-testid="flash"`, "Source added", `data-testid="source-title"`, `data-testid="fetch-progress"`, "Waiting to be fetched…", `hx-trigger="every 2s"`)
	})

	tests := []struct {
		name     string
		vals     url.Values
		contains string
	}{
		{"an interval of 0", url.Values{"url": {"https://example.com/feed.xml"}, "type": {"rss"}, "interval": {"0"}}, "between 1 and 10080"},
		{"an interval of 20000", url.Values{"url": {"https://example.com/feed.xml"}, "type": {"rss"}, "interval": {"20000"}}, "between 1 and 10080"},
		{"an interval that is no number", url.Values{"url": {"https://example.com/feed.xml"}, "type": {"rss"}, "interval": {"often"}}, "whole number"},
		{"no address", url.Values{"type": {"rss"}}, "Enter the address"},
		{"a bad subreddit", url.Values{"url": {"r/x"}, "type": {"reddit"}}, "not a subreddit"},
	}
	for _, tt := range tests {
		t.Run("the add form is shown again with the problem: "+tt.name, func(t *testing.T) {
			e := newEnv(t)
			res, body := e.form("/sources", tt.vals)
			mustContain(t, res, body, http.StatusUnprocessableEntity, `data-testid="form-error"`, tt.contains, `data-testid="add-source"`)
			if u := tt.vals.Get("url"); u != "" && !strings.Contains(body, `value="`+u+`"`) {
				t.Errorf("the form lost the URL %q", u)
			}
		})
	}

	t.Run("pause, resume, refresh, edit and delete", func(t *testing.T) {
		e := newEnv(t)
		src := e.createSource("https://example.com/feed.xml", "Example")
		base := fmt.Sprintf("/sources/%d", src.ID)
		ctx := context.Background()
		status := func() *app.Source {
			s, err := e.db.Source(ctx, app.DefaultUserID, src.ID)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
		if res, _ := e.form(base+"/pause", nil); res.StatusCode != 303 || status().Status != app.SourcePaused {
			t.Fatalf("pause: %d", res.StatusCode)
		}
		if res, _ := e.form(base+"/resume", url.Values{"return": {base}}); res.StatusCode != 303 || res.Header.Get("Location") != base || status().Status != app.SourceActive {
			t.Fatalf("resume: %d %s", res.StatusCode, res.Header.Get("Location"))
		}
		e.fetch(src.ID)
		if res, _ := e.form(base+"/refresh", nil); res.StatusCode != 303 || status().FetchStatus != app.FetchQueued {
			t.Fatalf("refresh: %d", res.StatusCode)
		}
		if res, _ := e.form("/sources/refresh", nil); res.StatusCode != 303 {
			t.Fatalf("refresh all: %d", res.StatusCode)
		}

		res, body := e.form(base+"/edit", url.Values{"name": {"Renamed"}, "interval": {"20000"}})
		mustContain(t, res, body, 422, "between 1 and 10080", `value="20000"`)
		if res, _ := e.form(base+"/edit", url.Values{"name": {"Renamed"}, "interval": {"45"}, "auto": {"on"}}); res.StatusCode != 303 {
			t.Fatalf("edit: %d", res.StatusCode)
		}
		if s := status(); s.Name != "Renamed" || s.RefreshIntervalMinutes != 45 || !s.AutoInterval {
			t.Fatalf("after edit: %+v", s)
		}

		// Without the dialog's confirmation, delete asks on a page of its own.
		res, body = e.form(base+"/delete", nil)
		mustContain(t, res, body, 200, `data-testid="confirm-delete"`)
		if res, _ := e.form(base+"/delete", url.Values{"confirm": {"yes"}}); res.StatusCode != 303 {
			t.Fatalf("delete: %d", res.StatusCode)
		}
		if res, _ := e.get(base); res.StatusCode != 404 {
			t.Fatalf("after delete: %d", res.StatusCode)
		}
	})

	t.Run("OPML import reports what it did and export is an attachment", func(t *testing.T) {
		e := newEnv(t)
		var buf bytes.Buffer
		buf.WriteString("--B\r\nContent-Disposition: form-data; name=\"opml\"; filename=\"a.opml\"\r\nContent-Type: text/xml\r\n\r\n")
		buf.WriteString(`<opml><body><outline xmlUrl="https://a.example/feed"/><outline xmlUrl="https://b.example/feed"/></body></opml>`)
		buf.WriteString("\r\n--B--\r\n")
		res, _ := e.do(http.MethodPost, "/sources/import", "multipart/form-data; boundary=B", &buf)
		if res.StatusCode != 303 {
			t.Fatalf("import: %d", res.StatusCode)
		}
		var flash string
		for _, c := range res.Cookies() {
			if c.Name == "md_flash" {
				flash = c.Value
			}
		}
		if flash == "" {
			t.Fatal("no flash after import")
		}
		res, body := e.get("/sources/export.opml")
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Disposition"), "attachment") || !strings.Contains(body, `xmlUrl="https://b.example/feed"`) {
			t.Fatalf("export: %d %v", res.StatusCode, res.Header)
		}
	})
}

func mustContain(t *testing.T, res *http.Response, body string, status int, wants ...string) {
	t.Helper()
	if res.StatusCode != status {
		t.Fatalf("%s: status %d, want %d", res.Request.URL.Path, res.StatusCode, status)
	}
	for _, w := range wants {
		if !strings.Contains(body, w) {
			t.Errorf("%s: missing %q", res.Request.URL.Path, w)
		}
	}
}

// panicky is the real store, except that listing sources panics.
type panicky struct{ *sqlite.DB }

func (panicky) Sources(context.Context, int64) ([]*app.Source, error)        { panic("boom") }
func (panicky) SourceNames(context.Context, int64) ([]app.SourceName, error) { panic("boom") }

func TestPanicIsA500AndTheServerGoesOn(t *testing.T) {
	db := sqlitetest.New(t)
	q := queue.NewFetchQueue(queue.FetchQueueOptions{Store: db, Capacity: 1000})
	store := panicky{db}
	srv := httptest.NewServer(views.New(views.Options{Sources: &app.Sources{Store: store, Queue: q}}))
	defer srv.Close()
	for _, path := range []string{"/items", "/api/sources", "/items"} {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if res.StatusCode != 500 || res.Header.Get("Content-Security-Policy") == "" {
			t.Fatalf("%s: %d %v", path, res.StatusCode, res.Header)
		}
		if strings.Contains(string(b), "boom") {
			t.Fatalf("%s: the panic leaked: %s", path, b)
		}
	}
	// A page that needs no source list still works.
	res, err := http.Get(srv.URL + "/api/sources/1")
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != 404 {
		t.Fatalf("after panics: %d", res.StatusCode)
	}
}

// TestAPISourcesPagesAndETag: GET /api/sources gives a page when asked (limit, offset, q, show;
// a Link to the next), refuses a bad one with a sentence, and answers 304 without a body to a
// poller whose If-None-Match names the list as it still is.
func TestAPISourcesPagesAndETag(t *testing.T) {
	e := newEnv(t)
	for i := range 5 {
		e.createSource(fmt.Sprintf("https://pages%d.example/feed.xml", i), fmt.Sprintf("Pages %d", i))
	}
	e.createSource("https://other.example/feed.xml", "Other")

	res, body := e.do(http.MethodGet, "/api/sources?limit=2&offset=1&q=pages", "", nil)
	page := decodeJSON[[]sourceJSON](t, body)
	if res.StatusCode != 200 || len(page) != 2 || page[0].Name != "Pages 1" || page[1].Name != "Pages 2" {
		t.Fatalf("page: %d %s", res.StatusCode, body)
	}
	if link := res.Header.Get("Link"); !strings.Contains(link, "offset=3") || !strings.Contains(link, `rel="next"`) || !strings.Contains(link, "q=pages") {
		t.Errorf("Link = %q", link)
	}
	res, body = e.do(http.MethodGet, "/api/sources?limit=2&offset=4&q=pages", "", nil)
	if len(decodeJSON[[]sourceJSON](t, body)) != 1 || res.Header.Get("Link") != "" {
		t.Errorf("last page: %s, Link %q", body, res.Header.Get("Link"))
	}
	for _, bad := range []string{"limit=0", "limit=1001", "limit=x", "offset=-1", "show=everything"} {
		code, body := e.json(http.MethodGet, "/api/sources?"+bad, "")
		if code != http.StatusBadRequest || !strings.Contains(body, "must be") {
			t.Errorf("%s: %d %s", bad, code, body)
		}
	}

	res, body = e.do(http.MethodGet, "/api/sources", "", nil)
	tag := res.Header.Get("ETag")
	if res.StatusCode != 200 || tag == "" || len(decodeJSON[[]sourceJSON](t, body)) != 6 {
		t.Fatalf("list: %d, ETag %q, %s", res.StatusCode, tag, body)
	}
	poll := func() (*http.Response, string) { return e.getIfNoneMatch("/api/sources", tag) }
	if res, body := poll(); res.StatusCode != http.StatusNotModified || body != "" {
		t.Errorf("unchanged list polled: %d %q", res.StatusCode, body)
	}
	e.createSource("https://new.example/feed.xml", "New")
	if res, body := poll(); res.StatusCode != 200 || len(decodeJSON[[]sourceJSON](t, body)) != 7 || res.Header.Get("ETag") == tag {
		t.Errorf("changed list polled: %d, ETag %q, %s", res.StatusCode, res.Header.Get("ETag"), body)
	}
}

// TestSourcesFragmentETag: the Sources page's live list, polled while sources are busy, is
// 304 without a body when it has not changed since the poller's copy, and the list when it has.
func TestSourcesFragmentETag(t *testing.T) {
	e := newEnv(t)
	e.createSource("https://one.example/feed.xml", "One")
	res, body := e.do(http.MethodGet, "/fragments/sources", "", nil)
	tag := res.Header.Get("ETag")
	if res.StatusCode != 200 || tag == "" || !strings.Contains(body, "One") {
		t.Fatalf("fragment: %d, ETag %q", res.StatusCode, tag)
	}
	poll := func() (*http.Response, string) { return e.getIfNoneMatch("/fragments/sources", tag) }
	if res, body := poll(); res.StatusCode != http.StatusNotModified || body != "" {
		t.Errorf("unchanged fragment: %d %q", res.StatusCode, body)
	}
	e.createSource("https://two.example/feed.xml", "Two")
	if res, body := poll(); res.StatusCode != 200 || !strings.Contains(body, "Two") {
		t.Errorf("changed fragment: %d", res.StatusCode)
	}
}
