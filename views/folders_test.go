package views_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
)

type folderJSON struct {
	ID          int64  `json:"id"`
	Name        string `json:"name"`
	SourceCount int    `json:"sourceCount"`
	UnreadCount int    `json:"unreadCount"`
}

type sourceFolderJSON struct {
	ID          int64  `json:"id"`
	Folder      string `json:"folder"`
	UnreadCount int    `json:"unreadCount"`
}

func TestFoldersAPI(t *testing.T) {
	e := newEnv(t)
	code, body := e.json(http.MethodPost, "/api/sources", `{"url":"https://a.example/feed","type":"rss","folder":"  Tech  "}`)
	if code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, body)
	}
	a := decodeJSON[sourceFolderJSON](t, body)
	if a.Folder != "Tech" {
		t.Fatalf("folder %q, want Tech", a.Folder)
	}
	b := e.createSource("https://b.example/feed", "B")
	e.fetch(a.ID, app.Item{GUID: "1", Title: "one"}, app.Item{GUID: "2", Title: "two"})
	e.fetch(b.ID, app.Item{GUID: "3", Title: "three"})

	t.Run("moving a source to a folder of another case joins that folder", func(t *testing.T) {
		code, body := e.json(http.MethodPatch, fmt.Sprintf("/api/sources/%d", b.ID), `{"folder":"tech"}`)
		if code != http.StatusOK || decodeJSON[sourceFolderJSON](t, body).Folder != "Tech" {
			t.Fatalf("move: %d %s", code, body)
		}
		_, body = e.json(http.MethodGet, "/api/folders", "")
		fs := decodeJSON[[]folderJSON](t, body)
		if len(fs) != 1 || fs[0].Name != "Tech" || fs[0].SourceCount != 2 || fs[0].UnreadCount != 3 {
			t.Fatalf("folders %+v", fs)
		}
	})
	t.Run("the unread counts follow reading", func(t *testing.T) {
		items, err := e.db.Items(t.Context(), app.ItemFilter{UserID: 1, SourceID: a.ID, Limit: 10})
		if err != nil || len(items) != 2 {
			t.Fatalf("items %v %v", items, err)
		}
		if code, body := e.json(http.MethodPatch, fmt.Sprintf("/api/items/%d", items[0].ID), `{"read":true}`); code != http.StatusOK {
			t.Fatalf("read: %d %s", code, body)
		}
		_, body := e.json(http.MethodGet, fmt.Sprintf("/api/sources/%d", a.ID), "")
		if got := decodeJSON[sourceFolderJSON](t, body).UnreadCount; got != 1 {
			t.Errorf("source unread %d, want 1", got)
		}
		_, body = e.json(http.MethodGet, "/api/folders", "")
		if fs := decodeJSON[[]folderJSON](t, body); fs[0].UnreadCount != 2 {
			t.Errorf("folder unread %d, want 2", fs[0].UnreadCount)
		}
		// The folder filter of the river.
		its, err := e.db.Items(t.Context(), app.ItemFilter{UserID: 1, FolderID: decodeJSON[[]folderJSON](t, body)[0].ID, Limit: 10})
		if err != nil || len(its) != 3 {
			t.Errorf("folder items %d %v", len(its), err)
		}
	})
	t.Run("rename refuses an empty name and a taken one; delete keeps the sources", func(t *testing.T) {
		_, body := e.json(http.MethodGet, "/api/folders", "")
		id := decodeJSON[[]folderJSON](t, body)[0].ID
		if code, body := e.json(http.MethodPatch, fmt.Sprintf("/api/folders/%d", id), `{"name":"   "}`); code != http.StatusBadRequest || !strings.Contains(body, "needs a name") {
			t.Errorf("empty rename: %d %s", code, body)
		}
		if code, body := e.json(http.MethodPost, "/api/folders", `{"name":"News"}`); code != http.StatusCreated {
			t.Fatalf("create folder: %d %s", code, body)
		}
		if code, body := e.json(http.MethodPatch, fmt.Sprintf("/api/folders/%d", id), `{"name":"news"}`); code != http.StatusConflict {
			t.Errorf("taken rename: %d %s", code, body)
		}
		if code, body := e.json(http.MethodPatch, fmt.Sprintf("/api/folders/%d", id), `{"name":"Tech & Science"}`); code != http.StatusOK || !strings.Contains(body, "Tech \u0026 Science") && !strings.Contains(body, `Tech \u0026 Science`) {
			t.Errorf("rename: %d %s", code, body)
		}
		if code, body := e.json(http.MethodDelete, fmt.Sprintf("/api/folders/%d", id), ""); code != http.StatusNoContent {
			t.Fatalf("delete: %d %s", code, body)
		}
		_, body = e.json(http.MethodGet, fmt.Sprintf("/api/sources/%d", a.ID), "")
		if got := decodeJSON[sourceFolderJSON](t, body); got.Folder != "" {
			t.Errorf("source still in %q", got.Folder)
		}
		if code, _ := e.json(http.MethodDelete, fmt.Sprintf("/api/folders/%d", id), ""); code != http.StatusNotFound {
			t.Errorf("second delete: %d", code)
		}
	})
}

func TestOPMLKeepsFolders(t *testing.T) {
	e := newEnv(t)
	doc := `<?xml version="1.0"?><opml version="2.0"><head><title>x</title></head><body>
		<outline text="Loose" xmlUrl="https://loose.example/feed"/>
		<outline text="Tech"><outline text="Go" xmlUrl="https://go.example/feed"/>
			<outline text="Deeper"><outline text="Rust" xmlUrl="https://rust.example/feed"/></outline></outline>
		<outline title="News &amp; Views"><outline text="Paper" xmlUrl="https://paper.example/feed"/></outline>
	</body></opml>`
	var buf bytes.Buffer
	buf.WriteString("--B\r\nContent-Disposition: form-data; name=\"opml\"; filename=\"a.opml\"\r\nContent-Type: text/xml\r\n\r\n" + doc + "\r\n--B--\r\n")
	if res, _ := e.do(http.MethodPost, "/sources/import", "multipart/form-data; boundary=B", &buf); res.StatusCode != 303 {
		t.Fatalf("import: %d", res.StatusCode)
	}
	_, body := e.json(http.MethodGet, "/api/sources", "")
	got := map[string]string{}
	for _, s := range decodeJSON[[]struct {
		URL    string `json:"url"`
		Folder string `json:"folder"`
	}](t, body) {
		got[s.URL] = s.Folder
	}
	// Nested folders keep the outermost one: folders are one level deep.
	want := map[string]string{"https://loose.example/feed": "", "https://go.example/feed": "Tech", "https://rust.example/feed": "Tech", "https://paper.example/feed": "News & Views"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("after import %v, want %v", got, want)
	}
	_, opml := e.get("/sources/export.opml")
	entries, err := app.ParseOPML(strings.NewReader(opml))
	if err != nil {
		t.Fatal(err)
	}
	back := map[string]string{}
	for _, en := range entries {
		back[en.URL] = en.Folder
	}
	if fmt.Sprint(back) != fmt.Sprint(want) {
		t.Fatalf("export read back %v, want %v\n%s", back, want, opml)
	}
	if !strings.Contains(opml, `<outline text="Tech" title="Tech">`) {
		t.Errorf("no outline per folder:\n%s", opml)
	}
}

func TestFolderPages(t *testing.T) {
	e := newEnv(t)
	a := e.createSource("https://a.example/feed", "Alpha")
	b := e.createSource("https://b.example/feed", "Beta")
	e.fetch(a.ID, app.Item{GUID: "1", Title: "Alpha one"}, app.Item{GUID: "2", Title: "Alpha two"})
	e.fetch(b.ID, app.Item{GUID: "3", Title: "Beta three"})
	if res, _ := e.form(fmt.Sprintf("/sources/%d/edit", a.ID), url.Values{"name": {"Alpha"}, "interval": {"30"}, "folder": {"<Tech>"}}); res.StatusCode != 303 {
		t.Fatalf("edit: %d", res.StatusCode)
	}
	_, body := e.json(http.MethodGet, "/api/folders", "")
	fs := decodeJSON[[]folderJSON](t, body)
	if len(fs) != 1 || fs[0].Name != "<Tech>" {
		t.Fatalf("folders %+v", fs)
	}
	res, page := e.get("/items")
	mustContain(t, res, page, 200, `data-testid="nav-folders"`, `href="/items?folder=`+fmt.Sprint(fs[0].ID)+`"`, "&lt;Tech&gt;", `data-testid="folder-unread">2`)
	if strings.Contains(page, "<Tech>") {
		t.Error("folder name not escaped")
	}
	res, page = e.get(fmt.Sprintf("/items?folder=%d", fs[0].ID))
	mustContain(t, res, page, 200, "Alpha one", "Alpha two", "From the folder &lt;Tech&gt;")
	mustContain(t, res, page, 200, `data-testid="mark-all-read"`, "Mark folder as read", `name="folder" value="`+fmt.Sprint(fs[0].ID)+`"`,
		"Mark every unread item in the folder &lt;Tech&gt; as read?")
	if strings.Contains(page, "Beta three") {
		t.Error("the folder's river shows another folder's item")
	}
	res, page = e.get(fmt.Sprintf("/?folder=%d", fs[0].ID))
	mustContain(t, res, page, 200, "Alpha one", `data-testid="today-folder"`)
	if strings.Contains(page, "Beta three") {
		t.Error("Today of a folder shows another folder's item")
	}
	// Mark folder as read: the folder's items only.
	if res, _ := e.form("/items/read", url.Values{"source": {"0"}, "folder": {fmt.Sprint(fs[0].ID)}}); res.StatusCode != 303 {
		t.Fatalf("mark folder read: %d", res.StatusCode)
	}
	_, body = e.json(http.MethodGet, "/api/items?unread=true", "")
	if got := decodeJSON[[]struct{ Title string }](t, body); len(got) != 1 || got[0].Title != "Beta three" {
		t.Errorf("after marking the folder read, unread %+v, want Beta three only", got)
	}
	res, page = e.get(fmt.Sprintf("/sources/%d", a.ID))
	mustContain(t, res, page, 200, `data-testid="edit-folder"`, `value="&lt;Tech&gt;"`)
	res, page = e.get("/sources")
	mustContain(t, res, page, 200, `data-testid="source-folder"`)
	// An empty folder field takes the source out of its folder.
	if res, _ := e.form(fmt.Sprintf("/sources/%d/edit", a.ID), url.Values{"name": {"Alpha"}, "interval": {"30"}, "folder": {""}}); res.StatusCode != 303 {
		t.Fatalf("edit: %d", res.StatusCode)
	}
	_, body = e.json(http.MethodGet, fmt.Sprintf("/api/sources/%d", a.ID), "")
	if decodeJSON[sourceFolderJSON](t, body).Folder != "" {
		t.Error("still in a folder")
	}
}

// TestMarkReadAPI: POST /api/items/read marks a folder's, a source's or every unread item read
// and says how many; a bad or unknown id is a clear error that marks nothing.
func TestMarkReadAPI(t *testing.T) {
	e := newEnv(t)
	a := e.createSource("https://a.example/feed", "Alpha")
	b := e.createSource("https://b.example/feed", "Beta")
	c := e.createSource("https://c.example/feed", "Gamma")
	e.fetch(a.ID, app.Item{GUID: "1", Title: "Alpha one"}, app.Item{GUID: "2", Title: "Alpha two"})
	e.fetch(b.ID, app.Item{GUID: "3", Title: "Beta three"})
	e.fetch(c.ID, app.Item{GUID: "4", Title: "Gamma four"}, app.Item{GUID: "5", Title: "Gamma five"})
	if code, body := e.json(http.MethodPatch, fmt.Sprintf("/api/sources/%d", a.ID), `{"folder":"Tech"}`); code != 200 {
		t.Fatalf("move: %d %s", code, body)
	}
	_, body := e.json(http.MethodGet, "/api/folders", "")
	fs := decodeJSON[[]folderJSON](t, body)
	if len(fs) != 1 {
		t.Fatalf("folders %+v", fs)
	}
	for _, bad := range []struct {
		query string
		code  int
		says  string
	}{
		{"?folderId=abc", 400, "folderId must be an id"},
		{"?sourceId=-3", 400, "sourceId must be an id"},
		{fmt.Sprintf("?folderId=%d", fs[0].ID+100), 404, "No folder"},
		{fmt.Sprintf("?sourceId=%d", c.ID+100), 404, "not found"},
	} {
		if code, body := e.json(http.MethodPost, "/api/items/read"+bad.query, ""); code != bad.code || !strings.Contains(body, bad.says) {
			t.Errorf("%s: %d %s, want %d saying %q", bad.query, code, body, bad.code, bad.says)
		}
	}
	unread := func() int {
		_, body := e.json(http.MethodGet, "/api/items?unread=true", "")
		return len(decodeJSON[[]struct{ ID int64 }](t, body))
	}
	if n := unread(); n != 5 {
		t.Fatalf("a refused request marked items read: %d unread, want 5", n)
	}
	for _, step := range []struct {
		query        string
		marked, left int
	}{
		{fmt.Sprintf("?folderId=%d", fs[0].ID), 2, 3},
		{fmt.Sprintf("?sourceId=%d", c.ID), 2, 1},
		{"", 1, 0},
	} {
		code, body := e.json(http.MethodPost, "/api/items/read"+step.query, "")
		if code != 200 || !strings.Contains(body, fmt.Sprintf(`"marked":%d`, step.marked)) {
			t.Errorf("%q: %d %s, want %d marked", step.query, code, body, step.marked)
		}
		if n := unread(); n != step.left {
			t.Errorf("%q: %d unread left, want %d", step.query, n, step.left)
		}
	}
}
