package sqlite_test

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// TestGoqiteSchema: the migrations give goqite's table exactly goqite's own schema (its table,
// index and trigger as sqlite/goqite/schema_sqlite.sql creates them), and that file is still a
// verbatim copy of the module's schema_sqlite.sql.
func TestGoqiteSchema(t *testing.T) {
	ctx := context.Background()
	copied, err := os.ReadFile("goqite/schema_sqlite.sql")
	if err != nil {
		t.Fatal(err)
	}
	// The copy, less its header of comments, is the module's file.
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
	} else if orig, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(dir)), "schema_sqlite.sql")); err != nil {
		t.Logf("goqite's schema_sqlite.sql not read: %v", err)
	} else if strings.Join(body, "") != string(orig) {
		t.Fatalf("sqlite/goqite/schema_sqlite.sql is no longer goqite's schema_sqlite.sql:\n%s", orig)
	}

	schema := func(db *sql.DB) map[string]string {
		rows, err := db.QueryContext(ctx, `select type || ' ' || name, sql from sqlite_master where tbl_name = 'goqite' and sql is not null`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string]string{}
		for rows.Next() {
			var name, q string
			if err := rows.Scan(&name, &q); err != nil {
				t.Fatal(err)
			}
			out[name] = strings.Join(strings.Fields(q), " ")
		}
		return out
	}
	ref, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "goqite.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close()
	if _, err := ref.ExecContext(ctx, string(copied)); err != nil {
		t.Fatal(err)
	}
	want := schema(ref)
	got := schema(sqlitetest.New(t).Read)
	if len(want) != 3 {
		t.Fatalf("goqite's schema has %d objects: %v", len(want), want)
	}
	for name, q := range want {
		if got[name] != q {
			t.Errorf("%s: migrated %q, goqite's %q", name, got[name], q)
		}
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("%s: not in goqite's schema", name)
		}
	}
}
