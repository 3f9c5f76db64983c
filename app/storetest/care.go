package storetest

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// CareStore is the upkeep's store, with the briefings' (reports keep items) and the sources'.
type CareStore interface {
	BriefingStore
	app.CareStore
	app.EnrichingStore
}

// Care runs the upkeep's suite: the retention prune (what it keeps, tombstones that keep a
// pruned entry from coming back, their expiry), backups, and the checks.
func Care(t *testing.T, open Open[CareStore]) {
	ctx := context.Background()
	me := app.DefaultUserID

	t.Run("a prune keeps starred, reported and processing items; a pruned entry does not come back", func(t *testing.T) {
		clock := NewClock(start)
		s := open(t, clock)
		src := newSource(t, s, "a", "")
		r := &app.FetchResult{}
		for _, g := range []string{"old1", "old2", "starred", "reported", "pending"} {
			r.Items = append(r.Items, app.Item{GUID: g, Title: g, Starred: g == "starred"})
		}
		_, err := s.FinishFetch(ctx, src, r, nil)
		must(t, "first fetch", err)
		src, _ = s.Source(ctx, me, src.ID)
		clock.Add(48 * time.Hour)
		var newIDs []int64
		_, err = s.FinishFetch(ctx, src, &app.FetchResult{Items: []app.Item{{GUID: "recent"}}}, func(_ context.Context, _ *sql.Tx, ids []int64, _ bool) error {
			newIDs = ids
			return nil
		})
		must(t, "second fetch", err)
		id := map[string]int64{}
		all, _ := s.Items(ctx, app.ItemFilter{UserID: me, Limit: 100})
		for _, it := range all {
			id[it.GUID] = it.ID
		}
		b := &app.Briefing{UserID: me, Name: "b", Frequency: "DAILY", Time: "07:00", Timezone: "UTC", ItemLimit: 10}
		must(t, "briefing", s.SaveBriefing(ctx, b))
		reported := id["reported"]
		must(t, "report", s.FinishBriefing(ctx, b, &app.Report{GeneratedAt: start, PeriodStart: start, PeriodEnd: start, Items: []app.ReportItem{{Rank: 1, ItemID: &reported, Title: "reported"}}}, nil))
		must(t, "pending", s.RetryItem(ctx, me, id["pending"], func(context.Context, *sql.Tx, app.PendingItem) error { return nil }))
		if len(newIDs) != 1 {
			t.Fatalf("setup: new %v", newIDs)
		}

		res, err := s.Prune(ctx, start.Add(24*time.Hour))
		must(t, "prune", err)
		if res.Items != 2 || res.Kept != 3 {
			t.Fatalf("pruned %+v, want 2 deleted and 3 kept", res)
		}
		left, _ := s.Items(ctx, app.ItemFilter{UserID: me, Limit: 100})
		got := map[string]bool{}
		for _, it := range left {
			got[it.GUID] = true
		}
		if len(left) != 4 || !got["starred"] || !got["reported"] || !got["pending"] || !got["recent"] {
			t.Fatalf("left %v", ids(left))
		}
		if again, err := s.Prune(ctx, start.Add(24*time.Hour)); err != nil || again.Items != 0 {
			t.Fatalf("a second prune: %+v, %v", again, err)
		}

		// The feed still carries old1: it is not stored again.
		src, _ = s.Source(ctx, me, src.ID)
		clock.Add(time.Hour)
		n, err := s.FinishFetch(ctx, src, &app.FetchResult{Items: []app.Item{{GUID: "old1"}, {GUID: "new"}}}, nil)
		must(t, "fetch after the prune", err)
		if n != 1 {
			t.Fatalf("after the prune a fetch stored %d items, want 1 (old1 is pruned)", n)
		}
		known, err := s.KnownItems(ctx, app.NewIdentityQuery(src.ID, []app.Item{{GUID: "old1"}, {GUID: "old2"}}))
		must(t, "known", err)
		if len(known) != 2 || known[0].PrunedAt == nil || known[1].PrunedAt == nil {
			t.Fatalf("tombstones %+v", known)
		}

		// Past the grace, a fetch that brings something but neither old entry expires both
		// tombstones (old1 was last offered an hour after the prune, old2 never).
		clock.Add(TombstoneGraceForTests + time.Hour)
		src, _ = s.Source(ctx, me, src.ID)
		_, err = s.FinishFetch(ctx, src, &app.FetchResult{Items: []app.Item{{GUID: "newer"}}}, nil)
		must(t, "a fetch past the grace", err)
		res, err = s.Prune(ctx, start.Add(24*time.Hour))
		must(t, "prune past the grace", err)
		if res.Tombstones != 2 {
			t.Fatalf("tombstones expired: %d, want 2", res.Tombstones)
		}
		n, err = s.FinishFetch(ctx, src, &app.FetchResult{Items: []app.Item{{GUID: "old1"}}}, nil)
		must(t, "old1 again", err)
		if n != 1 {
			t.Fatalf("an entry whose tombstone expired was not stored: %d", n)
		}
	})

	t.Run("a backup is written once, whole; the checks pass", func(t *testing.T) {
		s := open(t, NewClock(start))
		newSource(t, s, "a", "")
		dir := t.TempDir()
		path := filepath.Join(dir, "backup")
		must(t, "backup", s.Backup(ctx, path))
		if fi, err := os.Stat(path); err != nil || fi.Size() == 0 || fi.Mode().Perm()&0o077 != 0 {
			t.Fatalf("backup file: %v, %v", fi, err)
		}
		if err := s.Backup(ctx, path); err == nil {
			t.Fatal("a backup overwrote a file")
		}
		p, err := s.BackupRotate(ctx, dir, 2, start)
		must(t, "rotate", err)
		if p == "" {
			t.Fatal("no daily backup")
		}
		if again, err := s.BackupRotate(ctx, dir, 2, start.Add(time.Hour)); err != nil || again != "" {
			t.Fatalf("a second backup the same day: %q, %v", again, err)
		}
		if res, err := s.IntegrityCheck(ctx); err != nil || res != "ok" {
			t.Fatalf("integrity: %q, %v", res, err)
		}
		must(t, "vacuum", s.Vacuum(ctx))
		if _, err := s.IndexItems(ctx, 100); err != nil {
			t.Fatal(err)
		}
		if n, err := s.SourcesFetchedSince(ctx, start); err != nil || n != 0 {
			t.Fatalf("fetched since: %d, %v", n, err)
		}
	})
}

// TombstoneGraceForTests is both engines' TombstoneGrace (sqlite.TombstoneGrace,
// postgres.TombstoneGrace): each engine's test file checks that they agree.
const TombstoneGraceForTests = 30 * 24 * time.Hour
