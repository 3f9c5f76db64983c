package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// TestStatementCache: the writer's kept statements give the same answers as fresh ones when a
// query is run again while its rows are still open (a statement of its own then), when more
// texts are run than are kept, and after the schema changed under a kept statement.
func TestStatementCache(t *testing.T) {
	ctx := context.Background()
	db := sqlitetest.New(t)
	w := db.Write
	if _, err := w.Exec(`create table c (id integer primary key, v text)`); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := w.Exec(`insert into c (v) values (?)`, fmt.Sprint("v", i)); err != nil {
			t.Fatal(err)
		}
	}
	err := db.JobTx(ctx, func(tx *sql.Tx) error {
		const q = `select id from c where id >= ? order by id`
		outer, err := tx.QueryContext(ctx, q, 1)
		if err != nil {
			return err
		}
		defer outer.Close()
		n := 0
		for outer.Next() {
			var id int
			if err := outer.Scan(&id); err != nil {
				return err
			}
			// The same text while the outer rows are open.
			var inner int
			if err := tx.QueryRowContext(ctx, `select count(*) from (`+q+`)`, id).Scan(&inner); err != nil {
				return err
			}
			rows, err := tx.QueryContext(ctx, q, id)
			if err != nil {
				return err
			}
			m := 0
			for rows.Next() {
				m++
			}
			_ = rows.Close()
			if m != 5-id+1 || inner != m {
				return fmt.Errorf("from %d: %d and %d rows, want %d", id, m, inner, 5-id+1)
			}
			n++
		}
		if n != 5 {
			return fmt.Errorf("outer: %d rows", n)
		}
		return outer.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	// More texts than are kept, then the first ones again.
	for round := range 2 {
		for i := range 300 {
			var got string
			if err := w.QueryRow(fmt.Sprintf(`select v || '%d' from c where id = ?`, i), 1+i%5).Scan(&got); err != nil {
				t.Fatal(err)
			}
			if want := fmt.Sprintf("v%d%d", i%5, i); got != want {
				t.Fatalf("round %d: %q, want %q", round, got, want)
			}
		}
	}
	// A kept statement after the table changed.
	var cols int
	const q = `select * from c where id = 1`
	if err := w.QueryRow(`select count(*) from pragma_table_info('c')`).Scan(&cols); err != nil || cols != 2 {
		t.Fatal(cols, err)
	}
	row := func() []any {
		rows, err := w.Query(q)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		names, _ := rows.Columns()
		vals := make([]any, len(names))
		ptrs := make([]any, len(names))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		rows.Next()
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		return vals
	}
	if got := row(); len(got) != 2 {
		t.Fatalf("%v", got)
	}
	if _, err := w.Exec(`alter table c add column w text not null default 'w'`); err != nil {
		t.Fatal(err)
	}
	if got := row(); len(got) != 3 || fmt.Sprint(got[2]) != "w" {
		t.Fatalf("after the change: %v", got)
	}
}
