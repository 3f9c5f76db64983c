package sqlite_test

import (
	"context"
	"testing"

	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

func TestOpen(t *testing.T) {
	t.Run("migrates a new file and sets WAL, foreign keys and the default user", func(t *testing.T) {
		db := sqlitetest.New(t)
		ctx := context.Background()
		var mode string
		if err := db.Write.QueryRowContext(ctx, `pragma journal_mode`).Scan(&mode); err != nil || mode != "wal" {
			t.Fatalf("journal_mode = %q, %v", mode, err)
		}
		var fk int
		if err := db.Read.QueryRowContext(ctx, `pragma foreign_keys`).Scan(&fk); err != nil || fk != 1 {
			t.Fatalf("foreign_keys = %d, %v", fk, err)
		}
		var name string
		if err := db.Read.QueryRowContext(ctx, `select name from users where id = 1`).Scan(&name); err != nil || name != "local" {
			t.Fatalf("default user = %q, %v", name, err)
		}
		if _, err := db.Read.ExecContext(ctx, `insert into users (name) values ('x')`); err == nil {
			t.Fatal("the read pool accepted a write")
		}
	})
}
