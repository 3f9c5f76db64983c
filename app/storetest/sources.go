package storetest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// SourceStore is what the sources' and items' suites drive: the sources with their folders and
// icons, their fetching, and the items read from them.
type SourceStore interface {
	app.SourceStore
	app.FetchStore
	app.ItemStore
	app.FilterStore
	CountItems(ctx context.Context, userID, sourceID int64) (int, error)
	SetFullText(ctx context.Context, userID, id int64, html string) (*app.Item, error)
}

// indexer is an engine whose search index is filled by a job of its own (SQLite's FTS5 table):
// the suite runs it before it searches.
type indexer interface {
	IndexItems(ctx context.Context, batch int) (int, error)
}

// newSource adds an idle rss source of user 1 called name (url from name) in folder.
func newSource(t *testing.T, s SourceStore, name, folder string) *app.Source {
	t.Helper()
	src := &app.Source{UserID: app.DefaultUserID, Type: app.SourceRSS, URL: "https://" + name + ".example/feed", Name: name, Folder: folder, RefreshIntervalMinutes: 60}
	must(t, "create source "+name, s.CreateSource(context.Background(), src, nil))
	return src
}

// fetched stores a successful fetch of src with items of those GUIDs (titled "title <guid>"),
// and returns src as it is after.
func fetched(t *testing.T, s SourceStore, src *app.Source, guids ...string) (*app.Source, int) {
	t.Helper()
	ctx := context.Background()
	r := &app.FetchResult{Title: "Feed of " + src.URL, ETag: `"e1"`}
	for _, g := range guids {
		r.Items = append(r.Items, app.Item{GUID: g, Title: "title " + g, Link: "https://x.example/" + g, Text: "text of " + g})
	}
	n, err := s.FinishFetch(ctx, src, r, nil)
	must(t, "finish fetch", err)
	after, err := s.Source(ctx, src.UserID, src.ID)
	must(t, "source after the fetch", err)
	return after, n
}

func ids(items []*app.Item) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.GUID)
	}
	return out
}

// Sources runs the sources' suite: creating, listing, updating, deleting, queueing and fetching
// sources, and the folders' counts.
func Sources(t *testing.T, open Open[SourceStore]) {
	ctx := context.Background()
	me := app.DefaultUserID

	t.Run("a source is created in its folder, once, in the transaction of its first job", func(t *testing.T) {
		clock := NewClock(start)
		s := open(t, clock)
		var ran bool
		src := &app.Source{UserID: me, Type: app.SourceRSS, URL: "https://a.example/feed", Folder: "Tech", RefreshIntervalMinutes: 15, FetchStatus: app.FetchQueued}
		must(t, "create", s.CreateSource(ctx, src, func(ctx context.Context, tx *sql.Tx) error {
			ran = tx != nil
			return nil
		}))
		if !ran || src.ID == 0 || src.FolderID == 0 || !src.CreatedAt.Equal(start) || src.QueuedAt == nil || !src.QueuedAt.Equal(start) {
			t.Fatalf("created %+v (then ran: %v)", src, ran)
		}
		again := &app.Source{UserID: me, Type: app.SourceRSS, URL: "https://a.example/feed", RefreshIntervalMinutes: 15}
		wantCode(t, "the same address again", s.CreateSource(ctx, again, nil), app.ECONFLICT)
		failing := &app.Source{UserID: me, Type: app.SourceRSS, URL: "https://b.example/feed", RefreshIntervalMinutes: 15}
		boom := errors.New("queue down")
		if err := s.CreateSource(ctx, failing, func(context.Context, *sql.Tx) error { return boom }); !errors.Is(err, boom) {
			t.Fatalf("a failing first job: %v", err)
		}
		all, err := s.Sources(ctx, me)
		must(t, "sources", err)
		if len(all) != 1 {
			t.Fatalf("a source whose first job failed was kept: %d sources", len(all))
		}
		got, err := s.Source(ctx, me, src.ID)
		must(t, "source", err)
		if got.Folder != "Tech" || got.FolderID != src.FolderID || got.FetchStatus != app.FetchQueued || got.Status != app.SourceActive ||
			got.RefreshIntervalMinutes != 15 || got.AutoInterval || got.ItemCount != 0 || got.HasIcon {
			t.Fatalf("source %+v", got)
		}
		_, err = s.Source(ctx, me+1, src.ID)
		wantCode(t, "another user's source", err, app.ENOTFOUND)
		folders, err := s.Folders(ctx, me, 0)
		must(t, "folders", err)
		if len(folders) != 1 || folders[0].Name != "Tech" || folders[0].Sources != 1 {
			t.Fatalf("folders %+v", folders)
		}
	})

	t.Run("sources are listed by name, a page at a time, filtered and counted", func(t *testing.T) {
		s := open(t, NewClock(start))
		b := newSource(t, s, "beta", "")
		a := newSource(t, s, "Alpha", "News")
		c := newSource(t, s, "gamma_50%", "News")
		noName := &app.Source{UserID: me, Type: app.SourceWeb, URL: "https://zz.example/", RefreshIntervalMinutes: 60}
		must(t, "create unnamed", s.CreateSource(ctx, noName, nil))
		paused := app.SourcePaused
		_, err := s.UpdateSource(ctx, me, b.ID, app.SourceUpdate{Status: &paused})
		must(t, "pause beta", err)
		must(t, "fail gamma", s.FailFetch(ctx, c, app.FetchFailure("dns"), "no such host", true, 0, nil))

		names, err := s.SourceNames(ctx, me)
		must(t, "names", err)
		if got := fmt.Sprint(names); got != fmt.Sprint([]app.SourceName{{ID: noName.ID, Name: noName.URL}, {ID: a.ID, Name: "Alpha"}, {ID: b.ID, Name: "beta"}, {ID: c.ID, Name: "gamma_50%"}}) {
			t.Fatalf("names %s", got)
		}
		list := func(f app.SourceFilter) string {
			t.Helper()
			f.UserID = me
			l, err := s.SourceList(ctx, f)
			must(t, "list", err)
			var out []string
			for _, x := range l {
				out = append(out, app.FirstNonEmpty(x.Name, x.URL))
			}
			return fmt.Sprint(out)
		}
		for _, tc := range []struct {
			f    app.SourceFilter
			want string
		}{
			{app.SourceFilter{Limit: 10}, "[https://zz.example/ Alpha beta gamma_50%]"},
			{app.SourceFilter{Limit: 2, Offset: 1}, "[Alpha beta]"},
			{app.SourceFilter{Limit: 10, Q: "ALPHA"}, "[Alpha]"},
			{app.SourceFilter{Limit: 10, Q: "zz.example"}, "[https://zz.example/]"},
			{app.SourceFilter{Limit: 10, Q: "_50%"}, "[gamma_50%]"},
			{app.SourceFilter{Limit: 10, Q: "a%5"}, "[]"}, // % is a character, not a wildcard
			{app.SourceFilter{Limit: 10, FolderID: a.FolderID}, "[Alpha gamma_50%]"},
			{app.SourceFilter{Limit: 10, Show: "errors"}, "[gamma_50%]"},
			{app.SourceFilter{Limit: 10, Show: "paused"}, "[beta]"},
		} {
			if got := list(tc.f); got != tc.want {
				t.Errorf("list %+v: %s, want %s", tc.f, got, tc.want)
			}
		}
		sum, err := s.SourceSummary(ctx, me)
		must(t, "summary", err)
		if sum != (app.SourceSummary{Total: 4, Errors: 1, Paused: 1, Busy: 0, Unreachable: 1}) {
			t.Fatalf("summary %+v", sum)
		}
		must(t, "delete", s.DeleteSource(ctx, me, a.ID))
		wantCode(t, "delete again", s.DeleteSource(ctx, me, a.ID), app.ENOTFOUND)
		folders, err := s.Folders(ctx, me, 0)
		must(t, "folders", err)
		if len(folders) != 1 || folders[0].Sources != 1 {
			t.Fatalf("folders after the delete: %+v", folders)
		}
		must(t, "delete the folder", s.DeleteFolder(ctx, me, folders[0].ID))
		if got, err := s.Source(ctx, me, c.ID); err != nil || got.FolderID != 0 || got.Folder != "" {
			t.Fatalf("a source of a deleted folder: %+v, %v", got, err)
		}
	})

	t.Run("an update renames, moves, paces, pauses and resumes a source", func(t *testing.T) {
		clock := NewClock(start)
		s := open(t, clock)
		src := newSource(t, s, "a", "")
		src, _ = fetched(t, s, src, "g1")
		name, folder, interval, auto := "Renamed", "Later", 120, true
		got, err := s.UpdateSource(ctx, me, src.ID, app.SourceUpdate{Name: &name, Folder: &folder, RefreshIntervalMinutes: &interval, AutoInterval: &auto})
		must(t, "update", err)
		if got.Name != name || got.Folder != folder || got.RefreshIntervalMinutes != 120 || !got.AutoInterval ||
			got.NextFetchAt == nil || !got.NextFetchAt.Equal(start.Add(2*time.Hour)) {
			t.Fatalf("updated %+v (next fetch %v)", got, got.NextFetchAt)
		}
		none := ""
		if got, err = s.UpdateSource(ctx, me, src.ID, app.SourceUpdate{Folder: &none}); err != nil || got.FolderID != 0 {
			t.Fatalf("out of its folder: %+v, %v", got, err)
		}
		paused, active := app.SourcePaused, app.SourceActive
		if got, err = s.UpdateSource(ctx, me, src.ID, app.SourceUpdate{Status: &paused}); err != nil || got.Status != app.SourcePaused {
			t.Fatalf("paused: %+v, %v", got, err)
		}
		if got, err = s.UpdateSource(ctx, me, src.ID, app.SourceUpdate{Status: &active}); err != nil || got.Status != app.SourceActive || got.NextFetchAt != nil {
			t.Fatalf("resumed: %+v, %v", got, err)
		}
		_, err = s.UpdateSource(ctx, me+1, src.ID, app.SourceUpdate{Name: &name})
		wantCode(t, "another user's update", err, app.ENOTFOUND)
	})

	t.Run("a source is queued once, and due ones the never-fetched first", func(t *testing.T) {
		clock := NewClock(start)
		s := open(t, clock)
		a := newSource(t, s, "a", "")
		b := newSource(t, s, "b", "")
		c := newSource(t, s, "c", "")
		a, _ = fetched(t, s, a) // next fetch in an hour
		paused := app.SourcePaused
		_, err := s.UpdateSource(ctx, me, c.ID, app.SourceUpdate{Status: &paused})
		must(t, "pause c", err)

		due, err := s.DueSources(ctx, start, 10)
		must(t, "due now", err)
		if fmt.Sprint(due) != fmt.Sprint([]int64{b.ID}) {
			t.Fatalf("due now: %v, want [%d]", due, b.ID)
		}
		due, err = s.DueSources(ctx, start.Add(2*time.Hour), 10)
		must(t, "due later", err)
		if fmt.Sprint(due) != fmt.Sprint([]int64{b.ID, a.ID}) {
			t.Fatalf("due in two hours: %v, want [%d %d] (the never-fetched first)", due, b.ID, a.ID)
		}

		var enqueued []int64
		enqueue := func(_ context.Context, tx *sql.Tx, id int64) error {
			if tx == nil {
				return errors.New("no transaction")
			}
			enqueued = append(enqueued, id)
			return nil
		}
		n, err := s.QueueSources(ctx, me, nil, enqueue)
		must(t, "queue all", err)
		if n != 2 || len(enqueued) != 2 {
			t.Fatalf("queued %d (%v): the paused one was queued, or an idle one was not", n, enqueued)
		}
		n, err = s.QueueSources(ctx, me, []int64{a.ID}, enqueue)
		must(t, "queue a again", err)
		if n != 0 || len(enqueued) != 2 {
			t.Fatalf("a queued source was queued again: %d", n)
		}
		_, err = s.QueueSources(ctx, me, []int64{9999}, enqueue)
		wantCode(t, "queue an unknown source", err, app.ENOTFOUND)
		sum, err := s.SourceSummary(ctx, me)
		must(t, "summary", err)
		if sum.Busy != 2 {
			t.Fatalf("busy %d, want 2", sum.Busy)
		}
		if due, err := s.DueSources(ctx, start.Add(2*time.Hour), 10); err != nil || len(due) != 0 {
			t.Fatalf("queued sources are due: %v, %v", due, err)
		}

		// A paused source whose fetch was queued goes back to IDLE when its job comes.
		d := newSource(t, s, "d", "")
		n, err = s.QueueDue(ctx, []int64{d.ID}, enqueue)
		must(t, "queue d", err)
		if n != 1 {
			t.Fatalf("queue due: %d", n)
		}
		_, err = s.UpdateSource(ctx, me, d.ID, app.SourceUpdate{Status: &paused})
		must(t, "pause d", err)
		got, err := s.StartFetch(ctx, d.ID, time.Minute)
		must(t, "start a paused one", err)
		if got != nil {
			t.Fatalf("a paused source was fetched: %+v", got)
		}
		if d, err = s.Source(ctx, me, d.ID); err != nil || d.FetchStatus != app.FetchIdle {
			t.Fatalf("the paused source after its job: %+v, %v", d, err)
		}
		got, err = s.StartFetch(ctx, b.ID, time.Minute)
		must(t, "start b", err)
		if got == nil || got.ID != b.ID || got.URL != b.URL {
			t.Fatalf("start b: %+v", got)
		}
		if got, err = s.StartFetch(ctx, 9999, time.Minute); err != nil || got != nil {
			t.Fatalf("start a deleted source: %+v, %v", got, err)
		}

		// A full queue: the source whose job did not fit is idle again, the rest waits.
		e := newSource(t, s, "e", "")
		f := newSource(t, s, "f", "")
		n, err = s.QueueDue(ctx, []int64{e.ID, f.ID}, func(_ context.Context, _ *sql.Tx, id int64) error {
			if id == f.ID {
				return app.ErrQueueFull
			}
			return nil
		})
		must(t, "queue due, full", err)
		e, _ = s.Source(ctx, me, e.ID)
		f, _ = s.Source(ctx, me, f.ID)
		if n != 1 || e.FetchStatus != app.FetchQueued || f.FetchStatus != app.FetchIdle || f.QueuedAt != nil {
			t.Fatalf("a full queue: %d queued, e %s, f %s", n, e.FetchStatus, f.FetchStatus)
		}
	})

	t.Run("a fetch stores each item once; a first import's are done, later ones new", func(t *testing.T) {
		clock := NewClock(start)
		s := open(t, clock)
		src := newSource(t, s, "", "News") // no name: it takes the feed's title
		var firsts []bool
		then := func(_ context.Context, tx *sql.Tx, ids []int64, first bool) error {
			firsts = append(firsts, first)
			return nil
		}
		r := &app.FetchResult{Title: "The Feed", ETag: `"v1"`, LastModified: "Mon, 02 Jan 2026 15:04:05 GMT", Items: []app.Item{
			{GUID: "g1", Title: "one", Text: "first"}, {GUID: "g2", Title: "two"}, {GUID: "g1", Title: "one again"},
		}}
		n, err := s.FinishFetch(ctx, src, r, then)
		must(t, "first fetch", err)
		src, err = s.Source(ctx, me, src.ID)
		must(t, "source", err)
		if n != 2 || src.Name != "The Feed" || src.ETag != `"v1"` || src.ItemCount != 2 || src.Unread != 2 ||
			src.LastFetchedAt == nil || !src.LastFetchedAt.Equal(start) || src.NextFetchAt == nil || !src.NextFetchAt.Equal(start.Add(time.Hour)) {
			t.Fatalf("after the first fetch (%d new): %+v", n, src)
		}
		clock.Add(time.Hour)
		n, err = s.FinishFetch(ctx, src, &app.FetchResult{ETag: `"v2"`, Items: []app.Item{{GUID: "g2"}, {GUID: "g3", Title: "three"}}}, then)
		must(t, "second fetch", err)
		if n != 1 || fmt.Sprint(firsts) != "[true false]" {
			t.Fatalf("second fetch: %d new, firsts %v", n, firsts)
		}
		items, err := s.Items(ctx, app.ItemFilter{UserID: me})
		must(t, "items", err)
		if len(items) != 3 {
			t.Fatalf("items %v", ids(items))
		}
		status := map[string]app.ItemStatus{}
		for _, it := range items {
			status[it.GUID] = it.Status
			if it.SourceName != "The Feed" || it.SourceID != src.ID || it.UserID != me {
				t.Fatalf("item %+v", it)
			}
		}
		if status["g1"] != app.ItemDone || status["g2"] != app.ItemDone || status["g3"] != app.ItemNew {
			t.Fatalf("statuses %v", status)
		}
		// A 304 keeps the validators and the items.
		src, _ = s.Source(ctx, me, src.ID)
		if n, err = s.FinishFetch(ctx, src, &app.FetchResult{NotModified: true}, nil); err != nil || n != 0 {
			t.Fatalf("304: %d, %v", n, err)
		}
		src, _ = s.Source(ctx, me, src.ID)
		if src.ETag != `"v2"` || src.ItemCount != 3 {
			t.Fatalf("after a 304: %+v", src)
		}
		folders, err := s.Folders(ctx, me, 2)
		must(t, "folders", err)
		if len(folders) != 1 || folders[0].Unread != 2 {
			t.Fatalf("a folder's unread count, capped at 2: %+v", folders)
		}
		if n, err := s.UnfiledUnread(ctx, me); err != nil || n != 0 {
			t.Fatalf("unfiled unread %d, %v", n, err)
		}
		if n, err := s.CountItems(ctx, me, src.ID); err != nil || n != 3 {
			t.Fatalf("count %d, %v", n, err)
		}
		if n, err := s.CountItems(ctx, me+1, src.ID); err != nil || n != 0 {
			t.Fatalf("another user's count %d, %v", n, err)
		}
		// A source deleted while it was fetched: nothing is stored, then still runs.
		must(t, "delete", s.DeleteSource(ctx, me, src.ID))
		firsts = nil
		if n, err = s.FinishFetch(ctx, src, &app.FetchResult{Items: []app.Item{{GUID: "g9"}}}, then); err != nil || n != 0 || len(firsts) != 1 {
			t.Fatalf("a deleted source's fetch: %d, %v, %v", n, err, firsts)
		}
	})

	t.Run("a failing source backs off and is in error at the threshold", func(t *testing.T) {
		clock := NewClock(start)
		s := open(t, clock)
		src := newSource(t, s, "a", "")
		for i := 1; i <= app.ErrorThreshold; i++ {
			must(t, "fail", s.FailFetch(ctx, src, app.FetchFailure("http"), "HTTP 500", true, 0, nil))
			src, _ = s.Source(ctx, me, src.ID)
			wait := app.Backoff(time.Hour, i)
			if src.ErrorCount != i || src.LastError != "HTTP 500" || src.NextFetchAt == nil || !src.NextFetchAt.Equal(start.Add(wait)) {
				t.Fatalf("failure %d: %+v (next %v, want %v)", i, src, src.NextFetchAt, start.Add(wait))
			}
			if want := app.SourceActive; i >= app.ErrorThreshold {
				if src.Status != app.SourceError {
					t.Fatalf("failure %d: status %s", i, src.Status)
				}
			} else if src.Status != want {
				t.Fatalf("failure %d: status %s", i, src.Status)
			}
		}
		// Offline (not the source's fault): the count stays; a Retry-After longer than the
		// backoff is kept.
		must(t, "fail offline", s.FailFetch(ctx, src, app.FetchFailure("network"), "offline", false, 48*time.Hour, nil))
		src, _ = s.Source(ctx, me, src.ID)
		if src.ErrorCount != app.ErrorThreshold || !src.NextFetchAt.Equal(start.Add(48*time.Hour)) {
			t.Fatalf("offline failure: %+v", src)
		}
		src, _ = fetched(t, s, src)
		if src.Status != app.SourceActive || src.ErrorCount != 0 || src.LastError != "" {
			t.Fatalf("after a success: %+v", src)
		}
	})
}
