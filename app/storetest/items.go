package storetest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// Items runs the items' suite: the river's views, reading state, marking read, retrying,
// filter rules, search, icons and the known items of a fetch.
func Items(t *testing.T, open Open[SourceStore]) {
	ctx := context.Background()
	me := app.DefaultUserID
	list := func(t *testing.T, s SourceStore, f app.ItemFilter) string {
		t.Helper()
		f.UserID = me
		items, err := s.Items(ctx, f)
		must(t, fmt.Sprintf("items %+v", f), err)
		return strings.Join(ids(items), " ")
	}
	// river: source a (folder F) with a1..a3, source b (no folder) with b1, b2; published an
	// hour apart, a1 the oldest; b2 has no date (it sorts by when it was stored).
	river := func(t *testing.T) (SourceStore, *Clock, *app.Source, *app.Source) {
		clock := NewClock(start)
		s := open(t, clock)
		a := newSource(t, s, "a", "F")
		b := newSource(t, s, "b", "")
		at := func(h int) *time.Time { v := start.Add(time.Duration(h-10) * time.Hour); return &v }
		score := func(v int) *int { return &v }
		_, err := s.FinishFetch(ctx, a, &app.FetchResult{Items: []app.Item{
			{GUID: "a1", Title: "Go modules explained", PublishedAt: at(1), Score: score(40), Topics: []string{"Go"}, Tags: []string{"golang"}},
			{GUID: "a2", Title: "Golden retrievers", PublishedAt: at(2), Score: score(90), Text: "dogs of gold"},
			{GUID: "a3", Title: "Why C++ is hard", PublishedAt: at(3), Text: "templates in C++ and C", Summary: "a summary of C++"},
		}}, nil)
		must(t, "fetch a", err)
		_, err = s.FinishFetch(ctx, b, &app.FetchResult{Items: []app.Item{
			{GUID: "b1", Title: "Émile Zola's novels", PublishedAt: at(4), Score: score(70), Text: "naturalism"},
			{GUID: "b2", Title: "node.js streams", Text: "backpressure in node js"},
		}}, nil)
		must(t, "fetch b", err)
		return s, clock, a, b
	}
	byGUID := func(t *testing.T, s SourceStore, guid string) *app.Item {
		t.Helper()
		items, err := s.Items(ctx, app.ItemFilter{UserID: me, Limit: 500, Hidden: false})
		must(t, "items", err)
		hidden, err := s.Items(ctx, app.ItemFilter{UserID: me, Limit: 500, Hidden: true})
		must(t, "hidden items", err)
		for _, it := range append(items, hidden...) {
			if it.GUID == guid {
				return it
			}
		}
		t.Fatalf("no item %s", guid)
		return nil
	}

	t.Run("the river is newest first, by score, a page at a time, by source and folder", func(t *testing.T) {
		s, _, a, b := river(t)
		for _, tc := range []struct {
			f    app.ItemFilter
			want string
		}{
			{app.ItemFilter{}, "b2 b1 a3 a2 a1"},
			{app.ItemFilter{Limit: 2, Offset: 1}, "b1 a3"},
			{app.ItemFilter{Sort: "score"}, "a2 b1 a1 b2 a3"},
			{app.ItemFilter{MinScore: 50}, "b1 a2"},
			{app.ItemFilter{SourceID: a.ID}, "a3 a2 a1"},
			{app.ItemFilter{SourceID: b.ID, Limit: 1}, "b2"},
			{app.ItemFilter{FolderID: a.FolderID}, "a3 a2 a1"},
			{app.ItemFilter{FolderID: -1}, "b2 b1"},
			{app.ItemFilter{Topic: "go"}, "a1"},
			{app.ItemFilter{Tag: "GoLang"}, "a1"},
			{app.ItemFilter{Status: app.ItemDone}, "b2 b1 a3 a2 a1"},
			{app.ItemFilter{Status: app.ItemError}, ""},
		} {
			if got := list(t, s, tc.f); got != tc.want {
				t.Errorf("%+v: %s, want %s", tc.f, got, tc.want)
			}
		}
		it := byGUID(t, s, "a1")
		got, err := s.Item(ctx, me, it.ID)
		must(t, "item", err)
		if got.Title != "Go modules explained" || got.Score == nil || *got.Score != 40 || fmt.Sprint(got.Topics) != "[Go]" || got.SourceName != "a" ||
			got.PublishedAt == nil || !got.PublishedAt.Equal(start.Add(-9*time.Hour)) || !got.CreatedAt.Equal(start) {
			t.Fatalf("item %+v", got)
		}
		_, err = s.Item(ctx, me+1, it.ID)
		wantCode(t, "another user's item", err, app.ENOTFOUND)
	})

	t.Run("an item is read once, starred, hidden; the views and counts follow", func(t *testing.T) {
		s, clock, a, _ := river(t)
		yes, no := true, false
		a1, a2, b1 := byGUID(t, s, "a1"), byGUID(t, s, "a2"), byGUID(t, s, "b1")
		got, err := s.UpdateItem(ctx, me, a1.ID, app.ItemUpdate{Read: &yes})
		must(t, "read", err)
		if got.ReadAt == nil || !got.ReadAt.Equal(start) {
			t.Fatalf("read at %v", got.ReadAt)
		}
		clock.Add(time.Minute)
		if got, err = s.UpdateItem(ctx, me, a1.ID, app.ItemUpdate{Read: &yes}); err != nil || !got.ReadAt.Equal(start) {
			t.Fatalf("read again: %v, %v (the first read's time stays)", got.ReadAt, err)
		}
		_, err = s.UpdateItem(ctx, me, a2.ID, app.ItemUpdate{Starred: &yes})
		must(t, "star", err)
		_, err = s.UpdateItem(ctx, me, b1.ID, app.ItemUpdate{Hidden: &yes})
		must(t, "hide", err)
		_, err = s.UpdateItem(ctx, me+1, b1.ID, app.ItemUpdate{Hidden: &no})
		wantCode(t, "another user's update", err, app.ENOTFOUND)
		for _, tc := range []struct {
			f    app.ItemFilter
			want string
		}{
			{app.ItemFilter{}, "b2 a3 a2 a1"},
			{app.ItemFilter{Unread: true}, "b2 a3 a2"},
			{app.ItemFilter{Unread: true, ReadSince: start}, "b2 a3 a2 a1"},
			{app.ItemFilter{Unread: true, ReadSince: start.Add(time.Second)}, "b2 a3 a2"},
			{app.ItemFilter{Starred: true}, "a2"},
			{app.ItemFilter{Hidden: true}, "b1"},
		} {
			if got := list(t, s, tc.f); got != tc.want {
				t.Errorf("%+v: %s, want %s", tc.f, got, tc.want)
			}
		}
		c, err := s.Counts(ctx, me, 0)
		must(t, "counts", err)
		if c != (app.ItemCounts{Unread: 3, Starred: 1, Hidden: 1}) {
			t.Fatalf("counts %+v", c)
		}
		if c, err = s.Counts(ctx, me, 2); err != nil || c.Unread != 2 {
			t.Fatalf("capped counts %+v, %v", c, err)
		}
		src, err := s.Source(ctx, me, a.ID)
		must(t, "source", err)
		if src.Unread != 2 || src.ItemCount != 3 {
			t.Fatalf("source counts %+v", src)
		}
		if got, err = s.UpdateItem(ctx, me, a1.ID, app.ItemUpdate{Read: &no}); err != nil || got.ReadAt != nil {
			t.Fatalf("unread: %+v, %v", got, err)
		}
	})

	t.Run("mark read by scope", func(t *testing.T) {
		s, clock, a, _ := river(t)
		yes := true
		_, err := s.UpdateItem(ctx, me, byGUID(t, s, "a1").ID, app.ItemUpdate{Starred: &yes})
		must(t, "star", err)
		mark := func(scope app.ReadScope) int {
			t.Helper()
			n, err := s.MarkRead(ctx, me, scope)
			must(t, "mark read", err)
			return n
		}
		if n := mark(app.ReadScope{StarredOnly: true}); n != 1 {
			t.Fatalf("starred: %d", n)
		}
		if n := mark(app.ReadScope{MinScore: 60}); n != 2 {
			t.Fatalf("score 60+: %d", n)
		}
		if n := mark(app.ReadScope{FolderID: a.FolderID}); n != 1 {
			t.Fatalf("folder: %d", n)
		}
		if n := mark(app.ReadScope{Before: start.Add(-time.Second)}); n != 0 {
			t.Fatalf("before the items came: %d", n)
		}
		clock.Add(time.Minute)
		if n := mark(app.ReadScope{}); n != 1 {
			t.Fatalf("the rest: %d", n)
		}
		if got := list(t, s, app.ItemFilter{Unread: true}); got != "" {
			t.Fatalf("unread after marking all: %s", got)
		}
	})

	t.Run("an item is retried unless it is being processed; full text is marked", func(t *testing.T) {
		s, _, _, _ := river(t)
		a1 := byGUID(t, s, "a1")
		var got app.PendingItem
		must(t, "retry", s.RetryItem(ctx, me, a1.ID, func(_ context.Context, tx *sql.Tx, it app.PendingItem) error { got = it; return nil }))
		if got.ID != a1.ID || got.PublishedAt == nil || !got.PublishedAt.Equal(*a1.PublishedAt) {
			t.Fatalf("retried %+v", got)
		}
		if it, _ := s.Item(ctx, me, a1.ID); it.Status != app.ItemPending {
			t.Fatalf("status %s", it.Status)
		}
		wantCode(t, "retry a pending item", s.RetryItem(ctx, me, a1.ID, func(context.Context, *sql.Tx, app.PendingItem) error { return nil }), app.ECONFLICT)
		wantCode(t, "retry another user's item", s.RetryItem(ctx, me+1, a1.ID, func(context.Context, *sql.Tx, app.PendingItem) error { return nil }), app.ENOTFOUND)
		boom := errors.New("queue down")
		a2 := byGUID(t, s, "a2")
		if err := s.RetryItem(ctx, me, a2.ID, func(context.Context, *sql.Tx, app.PendingItem) error { return boom }); !errors.Is(err, boom) {
			t.Fatalf("a failing enqueue: %v", err)
		}
		if it, _ := s.Item(ctx, me, a2.ID); it.Status != app.ItemDone {
			t.Fatalf("after a failing enqueue the item is %s", it.Status)
		}
		it, err := s.SetFullText(ctx, me, a2.ID, "<p>the whole article</p>")
		must(t, "full text", err)
		if !it.FullText() || it.CleanContent != "<p>the whole article</p>" || it.Text != "dogs of gold" {
			t.Fatalf("full text %+v", it)
		}
		_, err = s.SetFullText(ctx, me+1, a2.ID, "x")
		wantCode(t, "another user's full text", err, app.ENOTFOUND)
	})

	t.Run("filter rules are the user's, on the user's sources", func(t *testing.T) {
		s, _, a, _ := river(t)
		f := &app.Filter{UserID: me, SourceID: &a.ID, Name: "no dogs", Field: "title", Match: "keywords", Pattern: "retriever", Action: "hide", Enabled: true}
		must(t, "create", s.CreateFilter(ctx, f))
		other := int64(9999)
		wantCode(t, "a rule on an unknown source", s.CreateFilter(ctx, &app.Filter{UserID: me, SourceID: &other, Field: "title", Match: "keywords", Pattern: "x", Action: "hide"}), app.EINVALID)
		all, err := s.Filters(ctx, me)
		must(t, "filters", err)
		if len(all) != 1 || all[0].ID != f.ID || *all[0].SourceID != a.ID || all[0].Pattern != "retriever" || !all[0].Enabled {
			t.Fatalf("filters %+v", all)
		}
		wantCode(t, "another user's delete", s.DeleteFilter(ctx, me+1, f.ID), app.ENOTFOUND)
		must(t, "delete", s.DeleteFilter(ctx, me, f.ID))
		if all, _ := s.Filters(ctx, me); len(all) != 0 {
			t.Fatalf("after the delete %+v", all)
		}
	})

	t.Run("a search matches every word as a prefix, whole words first", func(t *testing.T) {
		s, _, _, _ := river(t)
		if ix, ok := s.(indexer); ok {
			_, err := ix.IndexItems(ctx, 1000)
			must(t, "index", err)
		}
		for _, tc := range []struct{ q, want string }{
			{"go", "a1 a2"},      // "Go" whole before "Golden"
			{"gol", "a2 a1"},     // a prefix: in the title before in the tags (golang)
			{"modules go", "a1"}, // every word, any order
			{"emile", "b1"},      // accents folded
			{"ZOLA", "b1"},       // any case
			{"c++", "a3"},        // a literal: the word c, and "c++" in the text
			{"node.js", "b2"},    // the words node and js, together
			{`"modules explained"`, "a1"},
			{`"explained modules"`, ""},
			{"naturalism", "b1"}, // the text
			{"summary", "a3"},    // the summary
			{"golang", "a1"},     // the tags
			{"dogs gold", "a2"},
			{"nothing-like-this", ""},
		} {
			if got := list(t, s, app.ItemFilter{Q: tc.q}); got != tc.want {
				t.Errorf("search %q: %s, want %s", tc.q, got, tc.want)
			}
		}
		if got := list(t, s, app.ItemFilter{Q: "go", Sort: "date"}); got != "a2 a1" {
			t.Errorf("search by date: %s", got)
		}
		items, err := s.Items(ctx, app.ItemFilter{UserID: me, Q: "gold"})
		must(t, "search gold", err)
		if len(items) != 1 || items[0].Snippet != "dogs of \x01gold\x02" {
			t.Fatalf("snippet of gold: %q", ids(items))
		}
		_, err = s.Items(ctx, app.ItemFilter{UserID: me, Q: " !!! "})
		if !errors.Is(err, app.ErrNothingToSearch) {
			t.Fatalf("punctuation only: %v", err)
		}
		other, err := s.Items(ctx, app.ItemFilter{UserID: me + 1, Q: "go"})
		must(t, "another user's search", err)
		if len(other) != 0 {
			t.Fatalf("another user found %v", ids(other))
		}
	})

	t.Run("icons: stored, kept when a refresh finds none, due by age", func(t *testing.T) {
		s, _, a, b := river(t)
		due, err := s.IconsDue(ctx, start, 10)
		must(t, "due", err)
		if len(due) != 2 {
			t.Fatalf("due %v", due)
		}
		icon := &app.Icon{ContentType: "image/png", Data: []byte("\x89PNG\r\n\x1a\nxx"), ETag: `"i"`}
		must(t, "save", s.SaveIcon(ctx, a.ID, icon, "", start))
		must(t, "none", s.SaveIcon(ctx, b.ID, nil, "no icon", start))
		must(t, "unknown source", s.SaveIcon(ctx, 9999, icon, "", start))
		got, err := s.SourceIcon(ctx, me, a.ID)
		must(t, "icon", err)
		if got.ContentType != "image/png" || string(got.Data) != string(icon.Data) || got.ETag != `"i"` || !got.FetchedAt.Equal(start) {
			t.Fatalf("icon %+v", got)
		}
		_, err = s.SourceIcon(ctx, me, b.ID)
		wantCode(t, "a source without an icon", err, app.ENOTFOUND)
		_, err = s.SourceIcon(ctx, me+1, a.ID)
		wantCode(t, "another user's icon", err, app.ENOTFOUND)
		must(t, "refresh finds none", s.SaveIcon(ctx, a.ID, nil, "down", start.Add(time.Hour)))
		if got, err = s.SourceIcon(ctx, me, a.ID); err != nil || string(got.Data) != string(icon.Data) {
			t.Fatalf("kept icon: %+v, %v", got, err)
		}
		if src, _ := s.Source(ctx, me, a.ID); !src.HasIcon {
			t.Fatalf("the source has no icon")
		}
		due, err = s.IconsDue(ctx, start.Add(time.Minute), 10)
		must(t, "due later", err)
		if len(due) != 1 || due[0].ID != b.ID {
			t.Fatalf("due after a minute: %v", due)
		}
	})

	t.Run("the known items of a fetch, by key and by prefix", func(t *testing.T) {
		s, _, a, b := river(t)
		k1, k2 := app.IdentityKey("dup", "https://x.example/1"), app.IdentityKey("dup", "https://x.example/2")
		src, err := s.Source(ctx, me, a.ID)
		must(t, "source", err)
		_, err = s.FinishFetch(ctx, src, &app.FetchResult{Items: []app.Item{{GUID: k1, Title: "one"}, {GUID: k2, Title: "two"}}}, nil)
		must(t, "fetch keyed items", err)
		// b's items are not a's, whatever their keys.
		srcB, err := s.Source(ctx, me, b.ID)
		must(t, "source b", err)
		_, err = s.FinishFetch(ctx, srcB, &app.FetchResult{Items: []app.Item{{GUID: app.IdentityKey("dup", "https://x.example/3")}}}, nil)
		must(t, "fetch b", err)
		got, err := s.KnownItems(ctx, app.NewIdentityQuery(a.ID, []app.Item{{GUID: "a1"}, {GUID: "dup"}, {GUID: "new"}}))
		must(t, "known", err)
		var keys []string
		for _, k := range got {
			keys = append(keys, k.Key+"="+k.GUID+"/"+k.Title)
			if k.Key == "a1" && (k.Published == nil || !k.Published.Equal(start.Add(-9*time.Hour)) || k.PrunedAt != nil) {
				t.Fatalf("known a1: %+v", k)
			}
		}
		slices.Sort(keys)
		want := []string{"a1=a1/Go modules explained", k1 + "=dup/one", k2 + "=dup/two"}
		slices.Sort(want)
		if !slices.Equal(keys, want) {
			t.Fatalf("known %v, want %v", keys, want)
		}
		if got, err := s.KnownItems(ctx, app.IdentityQuery{SourceID: a.ID}); err != nil || len(got) != 0 {
			t.Fatalf("an empty query: %v, %v", got, err)
		}
	})
}
