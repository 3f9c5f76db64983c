package views_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
)

// Folders are the Reader API's labels: the apps list them, show a folder's stream and its
// unread count, and move, rename and remove folders.
func TestGReaderFolders(t *testing.T) {
	dir := corpusFeeds(t)
	e := newEnv(t)
	feedSrv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(feedSrv.Close)
	ctx := context.Background()
	a := ingest(t, e.db, feedSrv, app.DefaultUserID, "PaulDixExplainsNothing.xml")
	b := ingest(t, e.db, feedSrv, app.DefaultUserID, "SamRuby.xml")
	c := clientLogin(t, e.srv.URL, "me", "x")
	const api = gr + "/reader/api/0/"

	c.ok(http.MethodPost, api+"subscription/edit", url.Values{"s": {"feed/" + a.URL}, "ac": {"edit"}, "a": {"user/-/label/Tech"}})
	if src, _ := e.db.Source(ctx, 1, a.ID); src.Folder != "Tech" {
		t.Fatalf("after a=: folder %q", src.Folder)
	}
	subs := c.ok(http.MethodGet, api+"subscription/list", url.Values{"output": {"json"}})
	if !strings.Contains(subs, `"categories":[{"id":"user/-/label/Tech","label":"Tech"}]`) {
		t.Fatalf("subscription/list: %s", subs)
	}
	if tags := c.ok(http.MethodGet, api+"tag/list", url.Values{"output": {"json"}}); !strings.Contains(tags, `{"id":"user/-/label/Tech","type":"folder"}`) {
		t.Fatalf("tag/list: %s", tags)
	}
	inA := itemIDsOf(t, e.db, app.ItemFilter{UserID: 1, SourceID: a.ID, Limit: 500})
	if got := c.ids(url.Values{"s": {"user/-/label/tech"}, "n": {"1000"}}); !sameSet(got, inA) {
		t.Fatalf("label stream %v, want %v", got, inA)
	}
	counts := c.ok(http.MethodGet, api+"unread-count", url.Values{"output": {"json"}})
	if !strings.Contains(counts, `"id":"user/-/label/Tech","count":5`) {
		t.Fatalf("unread-count: %s", counts)
	}
	c.ok(http.MethodPost, api+"mark-all-as-read", url.Values{"s": {"user/-/label/Tech"}})
	if n := len(itemIDsOf(t, e.db, app.ItemFilter{UserID: 1, SourceID: a.ID, Unread: true, Limit: 500})); n != 0 {
		t.Errorf("%d unread left in the folder", n)
	}
	if n := len(itemIDsOf(t, e.db, app.ItemFilter{UserID: 1, SourceID: b.ID, Unread: true, Limit: 500})); n == 0 {
		t.Error("marking a folder read marked another source read")
	}
	c.ok(http.MethodPost, api+"rename-tag", url.Values{"s": {"user/-/label/Tech"}, "dest": {"user/-/label/Science"}})
	if src, _ := e.db.Source(ctx, 1, a.ID); src.Folder != "Science" {
		t.Fatalf("after rename-tag: %q", src.Folder)
	}
	c.ok(http.MethodPost, api+"subscription/edit", url.Values{"s": {"feed/" + a.URL}, "ac": {"edit"}, "r": {"user/-/label/Science"}})
	if src, _ := e.db.Source(ctx, 1, a.ID); src.Folder != "" {
		t.Fatalf("after r=: %q", src.Folder)
	}
	c.ok(http.MethodPost, api+"disable-tag", url.Values{"s": {"user/-/label/Science"}})
	if fs, _ := e.db.Folders(ctx, 1, 0); len(fs) != 0 {
		t.Fatalf("after disable-tag: %+v", fs)
	}
	c.fails(http.StatusNotFound, "No folder", http.MethodPost, api+"rename-tag", url.Values{"s": {"user/-/label/Nope"}, "dest": {"user/-/label/X"}})
	c.fails(http.StatusBadRequest, "needs a name", http.MethodPost, api+"subscription/edit", url.Values{"s": {"feed/" + b.URL}, "ac": {"edit"}, "a": {"user/-/label/ "}})
}
