package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/greader"
)

// ReaderStore is the Reader API's store with the sources' (to make items).
type ReaderStore interface {
	SourceStore
	greader.Store
}

// Reader runs the Reader API store's suite: streams paged with their continuation in both
// orders and filtered, items by ids, reading state of many items, unread counts.
func Reader(t *testing.T, open Open[ReaderStore]) {
	ctx := context.Background()
	me := app.DefaultUserID

	t.Run("a stream is paged newest or oldest first, each item once, filtered", func(t *testing.T) {
		clock := NewClock(start)
		s := open(t, clock)
		a := newSource(t, s, "a", "F")
		b := newSource(t, s, "b", "")
		at := func(h int) *time.Time { v := start.Add(time.Duration(h) * time.Hour); return &v }
		score := func(v int) *int { return &v }
		// Two items share a sort time: the id orders them.
		_, err := s.FinishFetch(ctx, a, &app.FetchResult{Items: []app.Item{
			{GUID: "a1", PublishedAt: at(-5), Score: score(90)}, {GUID: "a2", PublishedAt: at(-3)}, {GUID: "a3", PublishedAt: at(-3), Starred: true},
			{GUID: "a4", PublishedAt: at(-1), Hidden: true},
		}}, nil)
		must(t, "fetch a", err)
		clock.Add(time.Hour)
		_, err = s.FinishFetch(ctx, b, &app.FetchResult{Items: []app.Item{{GUID: "b1", PublishedAt: at(-4)}, {GUID: "b2"}}}, nil)
		must(t, "fetch b", err)

		guids := map[int64]string{}
		all, err := s.Items(ctx, app.ItemFilter{UserID: me, Limit: 100})
		must(t, "items", err)
		for _, it := range all {
			guids[it.ID] = it.GUID
		}
		page := func(st greader.Stream, n int) string {
			t.Helper()
			var out []string
			for range 10 {
				refs, sorts, err := s.ReaderRefs(ctx, me, &st, n)
				must(t, "refs", err)
				for _, r := range refs {
					out = append(out, guids[r.ID])
				}
				if len(refs) < n {
					break
				}
				st.AfterSort, st.AfterID = sorts[len(sorts)-1], refs[len(refs)-1].ID
				out = append(out, "|")
			}
			return strings.TrimSuffix(strings.Join(out, " "), " |") // a full last page is followed by an empty one
		}
		for _, tc := range []struct {
			name string
			st   greader.Stream
			want string
		}{
			{"newest first", greader.Stream{}, "b2 a3 a2 | b1 a1"},
			{"oldest first", greader.Stream{OldestFirst: true}, "a1 b1 a2 | a3 b2"},
			{"a source", greader.Stream{SourceID: b.ID}, "b2 b1"},
			{"a folder", greader.Stream{FolderID: a.FolderID}, "a3 a2 a1"},
			{"starred", greader.Stream{StarState: 1}, "a3"},
			{"not starred", greader.Stream{StarState: 2}, "b2 a2 b1 | a1"},
			{"scored 80+", greader.Stream{MinScore: 80}, "a1"},
			{"fetched since", greader.Stream{Oldest: start.Add(time.Minute)}, "b2 b1"},
			{"fetched until", greader.Stream{Newest: start}, "a3 a2 a1"},
		} {
			if got := page(tc.st, 3); got != tc.want {
				t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
			}
		}

		byGUID := map[string]int64{}
		for id, g := range guids {
			byGUID[g] = id
		}
		items, err := s.ReaderItems(ctx, me, []int64{byGUID["b1"], byGUID["a1"], byGUID["b1"], 9999})
		must(t, "reader items", err)
		if len(items) != 2 || items[0].GUID != "b1" || items[1].GUID != "a1" || items[1].SourceName != "a" {
			t.Fatalf("reader items %v", ids(items))
		}
		if other, _ := s.ReaderItems(ctx, me+1, []int64{byGUID["a1"]}); len(other) != 0 {
			t.Fatalf("another user's items %v", ids(other))
		}

		yes, no := true, false
		n, err := s.SetItemsState(ctx, me, []int64{byGUID["a1"], byGUID["a2"], 9999}, &yes, &yes)
		must(t, "set state", err)
		if n != 2 {
			t.Fatalf("set state of %d items", n)
		}
		if got := page(greader.Stream{ReadState: 2}, 10); got != "a2 a1" {
			t.Errorf("read: %s", got)
		}
		if got := page(greader.Stream{ReadState: 1, StarState: 1}, 10); got != "a3" {
			t.Errorf("unread starred: %s", got)
		}
		counts, newest, top, err := s.ReaderUnreadCounts(ctx, me, 80)
		must(t, "unread counts", err)
		if counts[a.ID] != 1 || counts[b.ID] != 2 || !newest[a.ID].Equal(*at(-3)) || !newest[b.ID].Equal(start.Add(time.Hour)) || top != 0 {
			t.Fatalf("unread counts %v, newest %v, top %d", counts, newest, top)
		}
		_, err = s.SetItemsState(ctx, me, []int64{byGUID["a1"]}, &no, nil)
		must(t, "unread a1", err)
		if _, _, top, _ = s.ReaderUnreadCounts(ctx, me, 80); top != 1 {
			t.Fatalf("top after a1 is unread: %d", top)
		}
		id, err := s.SourceIDByURL(ctx, me, a.URL)
		must(t, "source by url", err)
		if id != a.ID {
			t.Fatalf("source by url %d", id)
		}
		_, err = s.SourceIDByURL(ctx, me+1, a.URL)
		wantCode(t, "another user's source", err, app.ENOTFOUND)
	})
}
