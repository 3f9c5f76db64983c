package sqlite_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// TestBriefingFolderScope: a briefing limited to a folder reads the items of that folder's
// sources only; the folder must be the user's; a folder and chosen sources together are refused;
// deleting the folder leaves the briefing covering every source.
func TestBriefingFolderScope(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC)
	db := sqlitetest.NewWithClock(t, sqlitetest.NewClock(now))
	svc := &app.Briefings{Store: db}
	var ids []int64
	for i, folder := range []string{"Tech", "Tech", "Cooking", ""} {
		src := &app.Source{UserID: 1, Type: app.SourceRSS, URL: fmt.Sprintf("http://s%d/feed", i), Name: fmt.Sprintf("S%d", i), RefreshIntervalMinutes: 15, Folder: folder}
		if err := db.CreateSource(ctx, src, nil); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, src.ID)
		at := now.Add(-time.Hour).Format("2006-01-02T15:04:05.000Z")
		if _, err := db.Write.Exec(`insert into items (source_id, user_id, guid, title, link, text_content, score, status, published_at, created_at)
			values (?, 1, 'g', ?, 'http://x', 'text', 50, 'DONE', ?, ?)`, src.ID, fmt.Sprintf("item of S%d", i), at, at); err != nil {
			t.Fatal(err)
		}
	}
	tech, err := db.EnsureFolder(ctx, 1, "tech")
	if err != nil {
		t.Fatal(err)
	}
	b := &app.Briefing{UserID: 1, Name: "Tech", FolderID: &tech.ID}
	if err := svc.Save(ctx, b); err != nil {
		t.Fatal(err)
	}
	got, err := db.Briefing(ctx, 1, b.ID)
	if err != nil || got.FolderID == nil || *got.FolderID != tech.ID || got.FolderName != "Tech" {
		t.Fatalf("stored briefing %+v, %v: want folder %d named Tech", got, err, tech.ID)
	}
	items, err := db.Candidates(ctx, got, now.Add(-24*time.Hour), now, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 2 || items[0].SourceID == ids[2] || items[1].SourceID == ids[2] || items[0].SourceID == ids[3] || items[1].SourceID == ids[3] {
		t.Fatalf("the Tech folder's briefing read %d items: %+v; want the 2 of its sources", len(items), items)
	}

	t.Run("a folder and chosen sources together are refused", func(t *testing.T) {
		both := &app.Briefing{UserID: 1, Name: "Both", FolderID: &tech.ID, SourceIDs: []int64{ids[2]}}
		if err := svc.Save(ctx, both); app.ErrorCode(err) != app.EINVALID {
			t.Fatalf("saved a briefing with a folder and sources: %v", err)
		}
	})
	t.Run("another user's folder is refused", func(t *testing.T) {
		if _, err := db.CreateUser(ctx, "me", "x", true); err != nil { // the first user with a password is user 1
			t.Fatal(err)
		}
		u, err := db.CreateUser(ctx, "other", "x", false)
		if err != nil {
			t.Fatal(err)
		}
		theirs, err := db.EnsureFolder(ctx, u.ID, "Theirs")
		if err != nil {
			t.Fatal(err)
		}
		mine := &app.Briefing{UserID: 1, Name: "Snoop", FolderID: &theirs.ID}
		if err := svc.Save(ctx, mine); app.ErrorCode(err) != app.EINVALID || app.ErrorMessage(err) != fmt.Sprintf("Folder %d not found.", theirs.ID) {
			t.Fatalf("saved a briefing over another user's folder: %v", err)
		}
	})
	t.Run("deleting the folder leaves the briefing over every source", func(t *testing.T) {
		if err := db.DeleteFolder(ctx, 1, tech.ID); err != nil {
			t.Fatal(err)
		}
		after, err := db.Briefing(ctx, 1, b.ID)
		if err != nil || after.FolderID != nil || after.FolderName != "" {
			t.Fatalf("after deleting its folder: %+v, %v", after, err)
		}
		items, err := db.Candidates(ctx, after, now.Add(-24*time.Hour), now, 100)
		if err != nil || len(items) != 4 {
			t.Fatalf("%d items, %v; want every source's 4", len(items), err)
		}
	})
}

// TestReportsWithItems: a briefing's feed reads its latest reports with their items in one
// call, each report as Report reads it alone, newest first, up to the limit.
func TestReportsWithItems(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC)
	db := sqlitetest.NewWithClock(t, sqlitetest.NewClock(now))
	b := &app.Briefing{UserID: 1, Name: "Morning", Frequency: "DAILY"}
	if err := (&app.Briefings{Store: db}).Save(ctx, b); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		at := now.Add(time.Duration(i) * time.Hour)
		rep := &app.Report{GeneratedAt: at, PeriodStart: at, PeriodEnd: at}
		for n := range i + 1 { // report i has i+1 stories
			rep.Items = append(rep.Items, app.ReportItem{Rank: n + 1, Title: fmt.Sprintf("Story %d of report %d", n+1, i), Score: 10 * n,
				AlsoCoveredBy: []app.Coverage{{Source: "Elsewhere", Title: "Same story", Link: "http://e/1"}}})
		}
		if err := db.FinishBriefing(ctx, b, rep, nil); err != nil {
			t.Fatal(err)
		}
	}
	got, err := db.ReportsWithItems(ctx, 1, b.ID, 2)
	if err != nil || len(got) != 2 {
		t.Fatalf("reports %v, %v: want 2", got, err)
	}
	for i, r := range got {
		want, err := db.Report(ctx, 1, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r, want) {
			t.Errorf("report %d: %+v\nwant as Report reads it: %+v", i, r, want)
		}
		if wantItems := 3 - i; len(r.Items) != wantItems {
			t.Errorf("report %d (newest first) has %d items, want %d", i, len(r.Items), wantItems)
		}
	}
	if got, err := db.ReportsWithItems(ctx, 2, b.ID, 10); err != nil || len(got) != 0 {
		t.Fatalf("another user reads %d reports, %v", len(got), err)
	}
}
