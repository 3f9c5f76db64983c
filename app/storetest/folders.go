package storetest

import (
	"context"
	"testing"

	"github.com/morningdeck/morningdeck/app"
)

// Folders runs the app.FolderStore suite (folders without sources; Sources covers their counts).
func Folders(t *testing.T, open Open[app.FolderStore]) {
	ctx := context.Background()
	id := app.DefaultUserID
	names := func(fs []*app.Folder) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Name)
		}
		return out
	}

	t.Run("a folder is made once, found by its name in any case", func(t *testing.T) {
		s := open(t, NewClock(start))
		tech, err := s.EnsureFolder(ctx, id, "Tech")
		must(t, "make", err)
		again, err := s.EnsureFolder(ctx, id, "TECH")
		must(t, "make again", err)
		if tech.ID == 0 || again.ID != tech.ID || again.Name != "Tech" || tech.UserID != id {
			t.Fatalf("made %+v, then %+v", tech, again)
		}
		// "émile" is not "Émile": SQLite's nocase folds ASCII letters only, and PostgreSQL's
		// store folds as it does (a SQLite database with both must migrate).
		for _, n := range []string{"news", "Art", "zines", "Émile", "émile"} {
			_, err := s.EnsureFolder(ctx, id, n)
			must(t, "make "+n, err)
		}
		all, err := s.Folders(ctx, id, 0)
		must(t, "folders", err)
		// By name in any case (ASCII letters: SQLite's nocase); a non-ASCII first letter last.
		if got, want := names(all), []string{"Art", "news", "Tech", "zines", "Émile", "émile"}; !equal(got, want) {
			t.Fatalf("folders %v, want %v", got, want)
		}
		for _, f := range all {
			if f.Sources != 0 || f.Unread != 0 {
				t.Fatalf("an empty folder's counts: %+v", f)
			}
		}
		unread, err := s.UnfiledUnread(ctx, id)
		must(t, "unfiled unread", err)
		if unread != 0 {
			t.Fatalf("unfiled unread %d", unread)
		}
	})

	t.Run("a folder is renamed, but not onto another's name", func(t *testing.T) {
		s := open(t, NewClock(start))
		a, err := s.EnsureFolder(ctx, id, "a")
		must(t, "make a", err)
		_, err = s.EnsureFolder(ctx, id, "b")
		must(t, "make b", err)
		r, err := s.RenameFolder(ctx, id, a.ID, "A")
		must(t, "rename in another case", err)
		if r.ID != a.ID || r.Name != "A" {
			t.Fatalf("renamed %+v", r)
		}
		_, err = s.RenameFolder(ctx, id, a.ID, "B")
		wantCode(t, "rename onto b", err, app.ECONFLICT)
		_, err = s.RenameFolder(ctx, id, 999, "c")
		wantCode(t, "rename an unknown folder", err, app.ENOTFOUND)
	})

	t.Run("a folder is deleted by its user only", func(t *testing.T) {
		s := open(t, NewClock(start))
		a, err := s.EnsureFolder(ctx, id, "a")
		must(t, "make", err)
		wantCode(t, "another user's delete", s.DeleteFolder(ctx, id+1, a.ID), app.ENOTFOUND)
		must(t, "delete", s.DeleteFolder(ctx, id, a.ID))
		wantCode(t, "delete again", s.DeleteFolder(ctx, id, a.ID), app.ENOTFOUND)
		all, err := s.Folders(ctx, id, 0)
		must(t, "folders", err)
		if len(all) != 0 {
			t.Fatalf("folders after the delete: %v", names(all))
		}
	})
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
