package postgres_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/morningdeck/morningdeck/postgres"
	"github.com/morningdeck/morningdeck/postgres/pgtest"
)

// TestMigrateTogether: instances started together on one empty database migrate it once (the
// advisory lock), and opening a migrated database runs nothing again.
func TestMigrateTogether(t *testing.T) {
	ctx := context.Background()
	url := pgtest.URL(t)
	var wg sync.WaitGroup
	dbs := make([]*postgres.DB, 4)
	errs := make([]error, 4)
	for i := range dbs {
		wg.Go(func() { dbs[i], errs[i] = postgres.Open(ctx, postgres.Options{URL: url, MaxConns: 2}) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("instance %d: %v", i, err)
		}
		defer dbs[i].Close()
	}
	var n, users int
	if err := dbs[0].SQL.QueryRowContext(ctx, `select count(*) from schema_migrations`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if err := dbs[0].SQL.QueryRowContext(ctx, `select count(*) from users`).Scan(&users); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir("migrations")
	if n != len(entries)+1 || users != 1 {
		t.Fatalf("%d migrations recorded (want %d: goqite's and %d files), %d users (want local mode's one)", n, len(entries)+1, len(entries), users)
	}
	again, err := postgres.Open(ctx, postgres.Options{URL: url})
	if err != nil {
		t.Fatal(err)
	}
	_ = again.Close()
}

// TestGoqiteSchema: postgres/goqite/schema_postgres.sql is still a verbatim copy of the module's
// schema_postgres.sql, and the migrated database has goqite's table, index and trigger, and ours
// that announces a message (migration 0012, no index of ours).
func TestGoqiteSchema(t *testing.T) {
	copied, err := os.ReadFile("goqite/schema_postgres.sql")
	if err != nil {
		t.Fatal(err)
	}
	var body []string
	header := true
	for _, line := range strings.SplitAfter(string(copied), "\n") {
		if header && strings.HasPrefix(line, "--") {
			continue
		}
		header = false
		body = append(body, line)
	}
	if dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "maragu.dev/goqite").Output(); err != nil {
		t.Logf("goqite's module not found (%v): the copy is not compared with it", err)
	} else if orig, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(dir)), "schema_postgres.sql")); err != nil {
		t.Logf("goqite's schema_postgres.sql not read: %v", err)
	} else if strings.Join(body, "") != string(orig) {
		t.Fatalf("postgres/goqite/schema_postgres.sql is no longer goqite's schema_postgres.sql:\n%s", orig)
	}
	db := pgtest.New(t)
	var objects []string
	rows, err := db.SQL.QueryContext(context.Background(), `select 'index ' || indexname from pg_indexes where tablename = 'goqite'
		union all select 'trigger ' || tgname from pg_trigger where tgrelid = 'goqite'::regclass and not tgisinternal order by 1`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var o string
		if err := rows.Scan(&o); err != nil {
			t.Fatal(err)
		}
		objects = append(objects, o)
	}
	if got, want := strings.Join(objects, ", "), "index goqite_pkey, index goqite_queue_priority_created_idx, trigger goqite_notify, trigger goqite_updated_timestamp"; got != want {
		t.Fatalf("goqite's objects: %s, want %s", got, want)
	}
}
