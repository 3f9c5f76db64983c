package app_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// opmlOf is an OPML file of n feeds, those from i >= inFolderFrom in folder "F<i>".
func opmlOf(n, inFolderFrom int) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><opml version="2.0"><body>`)
	for i := range n {
		feed := fmt.Sprintf(`<outline type="rss" text="f%d" xmlUrl="https://feeds.example/%d.xml"/>`, i, i)
		if i >= inFolderFrom {
			feed = fmt.Sprintf(`<outline text="F%d">%s</outline>`, i, feed)
		}
		b.WriteString(feed)
	}
	b.WriteString(`</body></opml>`)
	return b.String()
}

// Issue 27, N8: per-account limits, enforced by the services whatever the door (web, API,
// Reader API, CLI), with a message that says which limit; on the old code an account could add
// without end (20,000 sources from one OPML file).
func TestPerAccountLimits(t *testing.T) {
	ctx := context.Background()
	var other int64 // another account
	setup := func(t *testing.T, l app.Limits) (*app.Sources, *app.Briefings, int64) {
		db := sqlitetest.New(t)
		first, err := db.CreateUser(ctx, "first", "x", true)
		if err != nil {
			t.Fatal(err)
		}
		other = first.ID
		u, err := db.CreateUser(ctx, "second", "x", false)
		if err != nil {
			t.Fatal(err)
		}
		return &app.Sources{Store: db, Queue: queue.NewFetchQueue(queue.FetchQueueOptions{Store: db}), Limits: l},
			&app.Briefings{Store: db, Limits: l}, u.ID
	}
	add := func(s *app.Sources, user int64, i int, folder string) error {
		_, err := s.Add(ctx, app.AddSource{UserID: user, URL: fmt.Sprintf("https://feeds.example/%d.xml", i), Type: app.SourceRSS, Folder: folder})
		return err
	}
	forbidden := func(t *testing.T, err error, want string) {
		t.Helper()
		if app.ErrorCode(err) != app.EFORBIDDEN || !strings.Contains(app.ErrorMessage(err), want) {
			t.Errorf("%v: want it refused with %q", err, want)
		}
	}

	t.Run("sources", func(t *testing.T) {
		s, _, user := setup(t, app.Limits{Sources: 2})
		for i := range 2 {
			if err := add(s, user, i, ""); err != nil {
				t.Fatal(err)
			}
		}
		forbidden(t, add(s, user, 2, ""), "This account follows 2 sources, the most this server allows (--max-sources-per-user)")
		// Another account has its own count.
		if err := add(s, other, 9, ""); err != nil {
			t.Errorf("another account: %v", err)
		}
	})

	t.Run("folders", func(t *testing.T) {
		s, _, user := setup(t, app.Limits{Folders: 1})
		if _, err := s.CreateFolder(ctx, user, "News"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateFolder(ctx, user, " news "); err != nil {
			t.Errorf("the folder it has, spelled otherwise: %v", err)
		}
		const msg = "This account has 1 folder, the most this server allows (--max-folders-per-user)"
		_, err := s.CreateFolder(ctx, user, "Tech")
		forbidden(t, err, msg)
		forbidden(t, add(s, user, 1, "Tech"), msg)
		if err := add(s, user, 2, "News"); err != nil {
			t.Fatalf("into the folder it has: %v", err)
		}
		srcs, _ := s.List(ctx, user)
		_, err = s.Move(ctx, user, srcs[0].ID, "Tech")
		forbidden(t, err, msg)
	})

	t.Run("briefings", func(t *testing.T) {
		_, b, user := setup(t, app.Limits{Briefings: 1})
		if err := b.Save(ctx, &app.Briefing{UserID: user, Name: "Morning"}); err != nil {
			t.Fatal(err)
		}
		forbidden(t, b.Save(ctx, &app.Briefing{UserID: user, Name: "Evening"}), "This account has 1 briefing, the most this server allows (--max-briefings-per-user)")
		bs, _ := b.List(ctx, user)
		if len(bs) != 1 {
			t.Fatalf("%d briefings", len(bs))
		}
		bs[0].Name = "Morning, renamed" // changing one it has is not making another
		if err := b.Save(ctx, bs[0]); err != nil {
			t.Errorf("saving the one it has: %v", err)
		}
	})

	t.Run("an OPML import stops at the limit and says how many it skipped", func(t *testing.T) {
		s, _, user := setup(t, app.Limits{Sources: 4, Folders: 1})
		if err := add(s, user, 100, ""); err != nil {
			t.Fatal(err)
		}
		res, err := s.ImportOPML(ctx, user, strings.NewReader(opmlOf(8, 1)), nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Added != 3 || res.OverLimit != 5 || res.Skipped != 5 {
			t.Errorf("added %d, over the limit %d, skipped %d; want 3, 5, 5", res.Added, res.OverLimit, res.Skipped)
		}
		if len(res.Errors) < 2 || res.Errors[0] != "5 sources were not added: an account may follow at most 4 sources on this server (--max-sources-per-user)" ||
			res.Errors[1] != "1 source was added in no folder: an account may have at most 1 folder on this server (--max-folders-per-user)" {
			t.Errorf("errors: %q", res.Errors)
		}
		if fs, _ := s.Folders(ctx, user, 1); len(fs) != 1 {
			t.Errorf("%d folders, want 1", len(fs))
		}
	})

	t.Run("an OPML file over the size limit is refused unread", func(t *testing.T) {
		s, _, user := setup(t, app.Limits{OPMLBytes: 1000})
		_, err := s.ImportOPML(ctx, user, strings.NewReader(opmlOf(30, 30)), nil)
		if app.ErrorCode(err) != app.EINVALID || !strings.Contains(app.ErrorMessage(err), "The OPML file is larger than 1000 bytes, the most this server accepts (--max-opml-bytes).") {
			t.Errorf("%v", err)
		}
		if res, err := s.ImportOPML(ctx, user, strings.NewReader(opmlOf(3, 3)), nil); err != nil || res.Added != 3 {
			t.Errorf("a small file: %+v %v", res, err)
		}
	})
}
