package views_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
)

// TestNavCounts: GET /fragments/counts answers the sidebar's counts as JSON (the texts as the
// badges show them), which follow a mark; an unchanged answer is a 304 for its ETag.
func TestNavCounts(t *testing.T) {
	e := newEnv(t)
	src := e.createSource("https://a.example/feed", "A")
	e.fetch(src.ID, app.Item{GUID: "1", Title: "One"}, app.Item{GUID: "2", Title: "Two"}, app.Item{GUID: "3", Title: "Three"})
	if code, body := e.json(http.MethodPatch, fmt.Sprintf("/api/sources/%d", src.ID), `{"folder":"News"}`); code != 200 {
		t.Fatalf("move to a folder: %d %s", code, body)
	}
	type counts struct {
		Unread      int    `json:"unread"`
		UnreadText  string `json:"unreadText"`
		UnreadTitle string `json:"unreadTitle"`
		Folders     []struct {
			ID     int64  `json:"id"`
			Unread int    `json:"unread"`
			Text   string `json:"text"`
		} `json:"folders"`
	}
	get := func() (counts, string) {
		t.Helper()
		res, body := e.get("/fragments/counts")
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") {
			t.Fatalf("%d %s", res.StatusCode, body)
		}
		var c counts
		if err := json.Unmarshal([]byte(body), &c); err != nil {
			t.Fatal(err)
		}
		return c, res.Header.Get("ETag")
	}
	c, tag := get()
	if c.Unread != 3 || c.UnreadText != "3" || c.UnreadTitle != "3 unread items" || len(c.Folders) != 1 || c.Folders[0].Unread != 3 || c.Folders[0].Text != "3" {
		t.Fatalf("counts %+v", c)
	}
	if res, _ := e.getIfNoneMatch("/fragments/counts", tag); res.StatusCode != http.StatusNotModified {
		t.Fatalf("unchanged counts: %d, want 304", res.StatusCode)
	}
	var id int64
	if err := e.db.Read.QueryRow(`select id from items where guid = '1'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	res, body := e.form(fmt.Sprintf("/items/%d/read", id), nil)
	if res.StatusCode >= 400 {
		t.Fatalf("mark read: %d %s", res.StatusCode, body)
	}
	if c, _ = get(); c.Unread != 2 || c.Folders[0].Unread != 2 {
		t.Fatalf("after a mark: %+v", c)
	}
}
