package sqlite_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/sqlite"
)

// fillDB makes a real database at path (migrated) with rows rows of about 2 KB in a table of
// their own and closes it.
func fillDB(t *testing.T, path string, rows int) {
	t.Helper()
	db, err := sqlite.Open(context.Background(), sqlite.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Write.Exec(`create table filler (x text)`); err != nil {
		t.Fatal(err)
	}
	tx, err := db.Write.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for i := range rows {
		if _, err := tx.Exec(`insert into filler values (?)`, strings.Repeat("row "+itoa(i)+" ", 200)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestOpenRefusesInteriorDamage (issue 27, N7): a database damaged in its interior pages (the
// header intact) is refused at start, with a message naming the file and what to do, and not
// a byte of it is written; an intact database of some size opens. On the old code the damaged
// file opened, the migrations and the workers wrote to it, and only the health check's
// background quick_check found the damage seconds later.
func TestOpenRefusesInteriorDamage(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()

	intact := filepath.Join(dir, "intact.db")
	fillDB(t, intact, 10_000) // ~25 MB
	db, err := sqlite.Open(ctx, sqlite.Options{Path: intact})
	if err != nil {
		t.Fatalf("an intact database is refused: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	path := filepath.Join(dir, "morningdeck.db")
	fillDB(t, path, 2_000)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	// Four pages in the middle of the file (the filler's b-tree), the header untouched.
	junk := bytes.Repeat([]byte("\xff\x13garbage"), 4*4096/9+1)[:4*4096]
	if _, err := f.WriteAt(junk, (st.Size()/4096/2)*4096); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	walBefore, _ := os.ReadFile(path + "-wal")
	db, err = sqlite.Open(ctx, sqlite.Options{Path: path})
	if err == nil {
		_ = db.Close()
		t.Fatal("a database damaged in its interior pages opened")
	}
	for _, want := range []string{"the database file " + path + " is damaged", "will not start on it", "restore a backup over it", "morningdeck backup"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not say %q:\n%v", want, err)
		}
	}
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(before, after) {
		t.Error("the damaged file was written to")
	}
	if walAfter, _ := os.ReadFile(path + "-wal"); !bytes.Equal(walBefore, walAfter) {
		t.Error("the WAL beside the damaged file was written to")
	}
}
