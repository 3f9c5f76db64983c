package sqlite_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// TestDueSources: the scheduler gets the idle, not paused sources that are due, never fetched
// first then by when they were due, by searching a range of sources_due_idx (an index that a
// fetch's QUEUED → FETCHING step does not touch), never by sorting all sources.
func TestDueSources(t *testing.T) {
	ctx := context.Background()
	db := sqlitetest.New(t)
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	add := func(url, status, fetch string, next *time.Time) int64 {
		t.Helper()
		var nextAt any
		if next != nil {
			nextAt = sqlite.FormatTime(*next)
		}
		res, err := db.Write.Exec(`insert into sources (user_id, type, url, status, fetch_status, next_fetch_at) values (1, 'rss', ?, ?, ?, ?)`,
			url, status, fetch, nextAt)
		if err != nil {
			t.Fatal(err)
		}
		id, _ := res.LastInsertId()
		return id
	}
	at := func(d time.Duration) *time.Time { v := now.Add(d); return &v }
	late := add("https://late.example", "ACTIVE", "IDLE", at(-time.Minute))
	never := add("https://never.example", "ACTIVE", "IDLE", nil)
	older := add("https://older.example", "ERROR", "IDLE", at(-time.Hour))
	add("https://later.example", "ACTIVE", "IDLE", at(time.Minute))
	add("https://paused.example", "PAUSED", "IDLE", at(-time.Hour))
	add("https://queued.example", "ACTIVE", "QUEUED", at(-time.Hour))
	add("https://fetching.example", "ACTIVE", "FETCHING", nil)

	ids, err := db.DueSources(ctx, now, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 3 || ids[0] != never || ids[1] != older || ids[2] != late {
		t.Errorf("due = %v, want never %d, older %d, late %d", ids, never, older, late)
	}
	if ids, _ := db.DueSources(ctx, now, 1); len(ids) != 1 || ids[0] != never {
		t.Errorf("due, limit 1 = %v", ids)
	}

	joined := strings.Join(queryPlan(t, db, sqlite.DueSourcesQueryForTest, sqlite.FormatTime(now), 10), "\n")
	if !strings.Contains(joined, "SEARCH sources USING INDEX sources_due_idx") || strings.Contains(joined, "TEMP B-TREE") {
		t.Errorf("the due sources are not a range of sources_due_idx:\n%s", joined)
	}
}

// queryPlan is SQLite's plan for q with args, a line a step.
func queryPlan(t *testing.T, db *sqlite.DB, q string, args ...any) []string {
	t.Helper()
	rows, err := db.Read.QueryContext(context.Background(), "explain query plan "+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return plan
}
