package storetest

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// Accounts runs the app.AccountStore suite.
func Accounts(t *testing.T, open Open[app.AccountStore]) {
	ctx := context.Background()

	t.Run("a new database has local mode's user, an admin without a password", func(t *testing.T) {
		s := open(t, NewClock(start))
		users, err := s.Users(ctx)
		must(t, "users", err)
		if len(users) != 1 || users[0].ID != app.DefaultUserID || users[0].Name != "local" || !users[0].Admin || users[0].HasPassword {
			t.Fatalf("users: %+v", users)
		}
	})

	t.Run("the first account takes over the default user, the next ones are new", func(t *testing.T) {
		clock := NewClock(start)
		s := open(t, clock)
		alice, err := s.CreateUser(ctx, "alice", "hash-a", false)
		must(t, "create alice", err)
		if alice.ID != app.DefaultUserID || !alice.Admin || !alice.HasPassword || alice.Name != "alice" {
			t.Fatalf("alice: %+v", alice)
		}
		clock.Add(time.Hour)
		bob, err := s.CreateUser(ctx, "bob", "hash-b", false)
		must(t, "create bob", err)
		if bob.ID == app.DefaultUserID || bob.Admin || !bob.HasPassword || !bob.CreatedAt.Equal(start.Add(time.Hour)) {
			t.Fatalf("bob: %+v (created at %v, want %v)", bob, bob.CreatedAt, start.Add(time.Hour))
		}
		carol, err := s.CreateUser(ctx, "carol", "hash-c", true)
		must(t, "create carol", err)
		if !carol.Admin || carol.ID <= bob.ID {
			t.Fatalf("carol: %+v", carol)
		}
		_, err = s.CreateUser(ctx, "BOB", "hash", false)
		wantCode(t, "a name taken in another case", err, app.ECONFLICT)

		u, hash, err := s.UserByName(ctx, "Alice")
		must(t, "alice by name", err)
		if u.ID != alice.ID || hash != "hash-a" {
			t.Fatalf("by name: %+v %q", u, hash)
		}
		_, _, err = s.UserByName(ctx, "dave")
		wantCode(t, "unknown name", err, app.ENOTFOUND)
		u, err = s.UserByID(ctx, bob.ID)
		must(t, "bob by id", err)
		if *u != *bob {
			t.Fatalf("by id: %+v, want %+v", u, bob)
		}
		_, err = s.UserByID(ctx, 999)
		wantCode(t, "unknown id", err, app.ENOTFOUND)
		users, err := s.Users(ctx)
		must(t, "users", err)
		if len(users) != 3 || users[0].Name != "alice" || users[1].Name != "bob" || users[2].Name != "carol" {
			t.Fatalf("users in id order: %+v", users)
		}
		// Names fold ASCII letters only (SQLite's nocase), on both engines.
		emile, err := s.CreateUser(ctx, "Émile", "hash-e", false)
		must(t, "create Émile", err)
		_, _, err = s.UserByName(ctx, "émile")
		wantCode(t, "a name in another case of a non-ASCII letter", err, app.ENOTFOUND)
		if u, _, err := s.UserByName(ctx, "ÉMILE"); err != nil || u.ID != emile.ID {
			t.Fatalf("Émile by ÉMILE: %+v, %v", u, err)
		}
	})

	t.Run("a session lasts until it expires or ends", func(t *testing.T) {
		s := open(t, NewClock(start))
		u, err := s.CreateUser(ctx, "alice", "h", false)
		must(t, "create", err)
		must(t, "session", s.CreateSession(ctx, u.ID, "sess-1", start.Add(time.Hour)))
		got, err := s.SessionUser(ctx, "sess-1", start.Add(59*time.Minute))
		must(t, "live session", err)
		if got.ID != u.ID {
			t.Fatalf("session user %+v", got)
		}
		_, err = s.SessionUser(ctx, "sess-1", start.Add(time.Hour))
		wantCode(t, "expired session", err, app.EUNAUTHORIZED)
		_, err = s.SessionUser(ctx, "sess-2", start)
		wantCode(t, "unknown session", err, app.EUNAUTHORIZED)
		must(t, "end", s.DeleteSession(ctx, "sess-1"))
		_, err = s.SessionUser(ctx, "sess-1", start)
		wantCode(t, "ended session", err, app.EUNAUTHORIZED)
	})

	t.Run("an API token names its user, notes its use and can be revoked", func(t *testing.T) {
		s := open(t, NewClock(start))
		u, err := s.CreateUser(ctx, "alice", "h", false)
		must(t, "create", err)
		tok, err := s.CreateAPIToken(ctx, u.ID, "newsboat", "tok-hash")
		must(t, "token", err)
		if tok.ID == 0 || tok.Name != "newsboat" || !tok.CreatedAt.Equal(start) || tok.LastUsedAt != nil {
			t.Fatalf("token: %+v", tok)
		}
		_, err = s.CreateAPIToken(ctx, 999, "x", "other-hash")
		wantCode(t, "a token of an unknown user", err, app.ENOTFOUND)
		used := start.Add(2 * time.Minute)
		got, err := s.TokenUser(ctx, "tok-hash", used)
		must(t, "token user", err)
		if got.ID != u.ID {
			t.Fatalf("token user %+v", got)
		}
		// Used again within the minute: the use noted stays the first.
		_, err = s.TokenUser(ctx, "tok-hash", used.Add(30*time.Second))
		must(t, "token user again", err)
		list, err := s.APITokens(ctx, u.ID)
		must(t, "tokens", err)
		if len(list) != 1 || list[0].ID != tok.ID || list[0].LastUsedAt == nil || !list[0].LastUsedAt.Equal(used) {
			t.Fatalf("tokens: %+v (last used %v, want %v)", list, list[0].LastUsedAt, used)
		}
		_, err = s.TokenUser(ctx, "nope", used)
		wantCode(t, "unknown token", err, app.EUNAUTHORIZED)
		wantCode(t, "another user's token", s.DeleteAPIToken(ctx, u.ID+1, tok.ID), app.ENOTFOUND)
		must(t, "revoke", s.DeleteAPIToken(ctx, u.ID, tok.ID))
		wantCode(t, "revoke again", s.DeleteAPIToken(ctx, u.ID, tok.ID), app.ENOTFOUND)
		_, err = s.TokenUser(ctx, "tok-hash", used)
		wantCode(t, "revoked token", err, app.EUNAUTHORIZED)
	})

	t.Run("a new password ends the user's sessions and revokes their tokens", func(t *testing.T) {
		s := open(t, NewClock(start))
		u, err := s.CreateUser(ctx, "alice", "old", false)
		must(t, "create", err)
		must(t, "session", s.CreateSession(ctx, u.ID, "sess", start.Add(time.Hour)))
		_, err = s.CreateAPIToken(ctx, u.ID, "cli", "tok")
		must(t, "token", err)
		must(t, "set password", s.SetPassword(ctx, u.ID, "new"))
		if _, hash, err := s.UserByName(ctx, "alice"); err != nil || hash != "new" {
			t.Fatalf("hash %q, %v", hash, err)
		}
		_, err = s.SessionUser(ctx, "sess", start)
		wantCode(t, "session after the change", err, app.EUNAUTHORIZED)
		_, err = s.TokenUser(ctx, "tok", start)
		wantCode(t, "token after the change", err, app.EUNAUTHORIZED)
		wantCode(t, "unknown user", s.SetPassword(ctx, 999, "x"), app.ENOTFOUND)
	})

	t.Run("the last admin cannot be deleted, others can", func(t *testing.T) {
		s := open(t, NewClock(start))
		admin, err := s.CreateUser(ctx, "alice", "h", false)
		must(t, "create admin", err)
		bob, err := s.CreateUser(ctx, "bob", "h", false)
		must(t, "create bob", err)
		must(t, "session", s.CreateSession(ctx, bob.ID, "bob-sess", start.Add(time.Hour)))
		wantCode(t, "delete the last admin", s.DeleteUser(ctx, admin.ID), app.ECONFLICT)
		must(t, "delete bob", s.DeleteUser(ctx, bob.ID))
		_, err = s.UserByID(ctx, bob.ID)
		wantCode(t, "deleted user", err, app.ENOTFOUND)
		_, err = s.SessionUser(ctx, "bob-sess", start)
		wantCode(t, "a deleted user's session", err, app.EUNAUTHORIZED)
		wantCode(t, "delete again", s.DeleteUser(ctx, bob.ID), app.ENOTFOUND)
		carol, err := s.CreateUser(ctx, "carol", "h", true)
		must(t, "create carol", err)
		must(t, "delete an admin who is not the last", s.DeleteUser(ctx, admin.ID))
		wantCode(t, "delete the last admin, again", s.DeleteUser(ctx, carol.ID), app.ECONFLICT)
	})

	t.Run("the installation's secrets are made once, 32 random bytes each", func(t *testing.T) {
		s := open(t, NewClock(start))
		feed, err := s.Secret(ctx, "feed")
		must(t, "feed secret", err)
		unsub, err := s.Secret(ctx, "unsubscribe")
		must(t, "unsubscribe secret", err)
		again, err := s.Secret(ctx, "feed")
		must(t, "feed secret again", err)
		if len(feed) != 32 || len(unsub) != 32 || bytes.Equal(feed, unsub) || !bytes.Equal(feed, again) {
			t.Fatalf("secrets %x %x %x", feed, unsub, again)
		}
		if _, err := s.Secret(ctx, "nope"); err == nil {
			t.Fatal("an unknown secret was found")
		}
	})
}
