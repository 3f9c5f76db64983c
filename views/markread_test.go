package views_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
)

// TestMarkReadForm: the Items page's "Mark all as read" form (POST /items/read) refuses a
// source or folder that is not an id, or not the user's, with a message that names it, and
// marks nothing: a malformed id once read as 0, "every item", and marked the user's whole
// river read.
func TestMarkReadForm(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	mine := e.createSource("https://mine.example/feed", "Mine")
	e.fetch(mine.ID, app.Item{GUID: "m1", Title: "Mine one"}, app.Item{GUID: "m2", Title: "Mine two"})
	if _, err := e.db.CreateUser(ctx, "me", "x", true); err != nil { // the first user with a password is user 1
		t.Fatal(err)
	}
	other, err := e.db.CreateUser(ctx, "other", "x", false)
	if err != nil {
		t.Fatal(err)
	}
	theirs := &app.Source{UserID: other.ID, Type: app.SourceRSS, URL: "https://theirs.example/feed", Name: "Theirs", RefreshIntervalMinutes: 60}
	if err := e.db.CreateSource(ctx, theirs, nil); err != nil {
		t.Fatal(err)
	}
	e.fetch(theirs.ID, app.Item{GUID: "t1", Title: "Theirs one"})
	theirFolder, err := e.db.EnsureFolder(ctx, other.ID, "Their folder")
	if err != nil {
		t.Fatal(err)
	}
	unread := func(userID int64) int {
		t.Helper()
		c, err := e.db.Counts(ctx, userID, 0)
		if err != nil {
			t.Fatal(err)
		}
		return c.Unread
	}
	if unread(1) != 2 || unread(other.ID) != 1 {
		t.Fatalf("seeded unread: %d and %d, want 2 and 1", unread(1), unread(other.ID))
	}
	for _, bad := range []struct {
		form   url.Values
		status int
		says   []string
	}{
		{url.Values{"source": {"abc"}}, 400, []string{"source must be an id", "abc"}},
		{url.Values{"folder": {"xyz"}}, 400, []string{"folder must be an id", "xyz"}},
		{url.Values{"source": {"1e3"}}, 400, []string{"source must be an id", "1e3"}},
		{url.Values{"source": {"-2"}}, 400, []string{"source must be an id", "-2"}},
		{url.Values{"source": {fmt.Sprint(theirs.ID)}}, 404, []string{fmt.Sprintf("Source %d not found", theirs.ID)}},
		{url.Values{"folder": {fmt.Sprint(theirFolder.ID)}}, 404, []string{fmt.Sprintf("No folder has the id %d", theirFolder.ID)}},
	} {
		bad.form.Set("return", "/items")
		res, body := e.form("/items/read", bad.form)
		if res.StatusCode != bad.status {
			t.Errorf("%v: status %d, want %d", bad.form, res.StatusCode, bad.status)
		}
		for _, s := range bad.says {
			if !strings.Contains(body, s) {
				t.Errorf("%v: the answer does not say %q: %.300s", bad.form, s, body)
			}
		}
		if n, m := unread(1), unread(other.ID); n != 2 || m != 1 {
			t.Fatalf("%v marked items read: %d and %d unread left, want 2 and 1", bad.form, n, m)
		}
	}
	// The page's own form: 0 is no source and no folder, every unread item of the user.
	if res, _ := e.form("/items/read", url.Values{"source": {"0"}, "folder": {"0"}}); res.StatusCode != 303 {
		t.Fatalf("mark all read: %d", res.StatusCode)
	}
	if n, m := unread(1), unread(other.ID); n != 0 || m != 1 {
		t.Fatalf("mark all read: %d and %d unread left, want 0 and 1 (another user's untouched)", n, m)
	}
}
