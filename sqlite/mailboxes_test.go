package sqlite_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// TestMailboxes: a mail source is stored with its mailbox and sealed password apart (migration
// 0030): the mailbox is the user's only, a change of folder starts its cursor over, a nil sealed
// keeps the password, the folder's source leaves the senders that have their own source, and
// deleting the source deletes both. sources.type admits 'imap' and still refuses other words.
func TestMailboxes(t *testing.T) {
	ctx := context.Background()
	db := sqlitetest.New(t)
	m := app.Mailbox{Host: "imap.example.com", Port: 993, Security: app.MailTLS, Username: "me@example.com", Folder: "Newsletters", FirstImport: 50}
	src := &app.Source{UserID: app.DefaultUserID, Type: app.SourceIMAP, URL: m.URL(), Name: "Newsletters", RefreshIntervalMinutes: 15}
	if err := db.CreateMailSource(ctx, src, m, []byte("sealed-1"), nil); err != nil {
		t.Fatal(err)
	}
	one := m
	one.Sender = "crew@brew.example"
	own := &app.Source{UserID: app.DefaultUserID, Type: app.SourceIMAP, URL: one.URL(), Name: "Brew", RefreshIntervalMinutes: 15}
	if err := db.CreateMailSource(ctx, own, one, []byte("sealed-2"), nil); err != nil {
		t.Fatal(err)
	}
	got, sealed, err := db.MailAccount(ctx, src.ID)
	if err != nil || got.Folder != "Newsletters" || !bytes.Equal(sealed, []byte("sealed-1")) || len(got.Exclude) != 1 || got.Exclude[0] != "crew@brew.example" {
		t.Fatalf("mail account: %+v %q %v", got, sealed, err)
	}
	if _, err := db.Mailbox(ctx, app.DefaultUserID+1, src.ID); app.ErrorCode(err) != app.ENOTFOUND {
		t.Errorf("another user's look at the mailbox: %v", err)
	}
	if _, err := db.Write.ExecContext(ctx, `update sources set etag = '7:42' where id = ?`, src.ID); err != nil {
		t.Fatal(err)
	}
	moved := m
	moved.Folder, moved.MarkRead = "INBOX/News", true
	if err := db.UpdateMailbox(ctx, app.DefaultUserID, src.ID, moved, nil); err != nil {
		t.Fatal(err)
	}
	s, _ := db.Source(ctx, app.DefaultUserID, src.ID)
	got, sealed, _ = db.MailAccount(ctx, src.ID)
	if s.ETag != "" || s.URL != moved.URL() || got.Folder != "INBOX/News" || !got.MarkRead || !bytes.Equal(sealed, []byte("sealed-1")) {
		t.Errorf("after a move: etag %q url %q mailbox %+v sealed %q", s.ETag, s.URL, got, sealed)
	}
	if err := db.DeleteSource(ctx, app.DefaultUserID, src.ID); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := db.Read.QueryRowContext(ctx, `select (select count(*) from imap_sources where source_id = ?1) + (select count(*) from imap_secrets where source_id = ?1)`, src.ID).Scan(&n); err != nil || n != 0 {
		t.Errorf("after delete: %d rows left (%v)", n, err)
	}
	if _, err := db.Write.ExecContext(ctx, `insert into sources (user_id, type, url) values (1, 'gopher', 'x://y')`); err == nil {
		t.Error("sources.type took a type that does not exist")
	}
}

// TestMigration0030KeepsItems: a database from before migration 0030 (sources with items) is
// migrated: its sources and items are all there, with their foreign keys intact, and a mail
// source can be stored.
func TestMigration0030KeepsItems(t *testing.T) {
	ctx := context.Background()
	db := sqlitetest.New(t)
	src := newSource(t, db, "http://x/feed")
	fetch(t, db, src, "a", "b", "c")
	// Back to the schema before 0030.
	db2 := migrateAgain(t, db,
		`drop table imap_secrets`, `drop table imap_sources`, `delete from schema_migrations where version = 30`,
		`pragma writable_schema = on`,
		`update sqlite_schema set sql = replace(sql, 'check (type in (''rss'', ''web'', ''reddit'', ''imap''))', 'check (type in (''rss'', ''web'', ''reddit''))') where type = 'table' and name = 'sources'`,
		`pragma writable_schema = reset`,
	)
	var items, bad int
	var check string
	if err := db2.Read.QueryRowContext(ctx, `select count(*) from items where source_id = ?`, src.ID).Scan(&items); err != nil || items != 3 {
		t.Fatalf("items after the migration: %d (%v)", items, err)
	}
	if err := db2.Read.QueryRowContext(ctx, `select count(*) from pragma_foreign_key_check`).Scan(&bad); err != nil || bad != 0 {
		t.Errorf("foreign key problems: %d (%v)", bad, err)
	}
	if err := db2.Read.QueryRowContext(ctx, `pragma integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Errorf("integrity: %q (%v)", check, err)
	}
	m := app.Mailbox{Host: "imap.example.com", Port: 993, Security: app.MailTLS, Username: "u", Folder: "INBOX", FirstImport: 50}
	if err := db2.CreateMailSource(ctx, &app.Source{UserID: 1, Type: app.SourceIMAP, URL: m.URL(), RefreshIntervalMinutes: 15}, m, []byte("s"), nil); err != nil {
		t.Errorf("a mail source after the migration: %v", err)
	}
}

// migrateAgain runs stmts on db (taking its schema back to before a migration), closes it and
// opens the file again, which runs the migrations from there; the new handle is closed when the
// test ends.
func migrateAgain(t *testing.T, db *sqlite.DB, stmts ...string) *sqlite.DB {
	t.Helper()
	ctx := context.Background()
	for _, q := range stmts {
		if _, err := db.Write.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	path := db.Path
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db2, err := sqlite.Open(ctx, sqlite.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db2.Close() })
	return db2
}
