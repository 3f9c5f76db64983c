package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/greader"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// TestReaderUnreadCounts: the Reader API's unread counts, read from indexes, agree with a plain
// pass over the items: per source the unread (not read, not hidden) count and the newest unread
// item's sort time (its published time, else when it was stored), and the unread items scoring
// at least the Top stories score; another user's items count for nobody else.
func TestReaderUnreadCounts(t *testing.T) {
	ctx := context.Background()
	db := sqlitetest.New(t)
	if _, err := db.CreateUser(ctx, "owner", "hash", true); err != nil { // takes over user 1
		t.Fatal(err)
	}
	other, err := db.CreateUser(ctx, "other", "hash", false)
	if err != nil {
		t.Fatal(err)
	}
	for s := range 5 {
		user := int64(1)
		if s == 4 {
			user = other.ID
		}
		src := &app.Source{UserID: user, Type: app.SourceRSS, URL: fmt.Sprintf("http://s%d/feed", s), RefreshIntervalMinutes: 15}
		if err := db.CreateSource(ctx, src, nil); err != nil {
			t.Fatal(err)
		}
		if s == 3 {
			continue // a source with no items
		}
		for j := range 12 {
			var published, readAt, score any
			if j%3 != 0 { // every third item has no published time: it sorts by when it was stored
				published = time.Date(2026, 11, 20+s, j, 0, 0, 0, time.UTC).Format("2006-01-02T15:04:05.000Z")
			}
			if (j%4 == 1 && s != 2) || (s == 2 && j != 6) {
				readAt = "2026-11-27T01:00:00.000Z" // source 2 keeps one old unread item
			}
			if j%5 != 4 {
				score = (j * 17 * (s + 1)) % 101
			}
			hidden := j == 11 // the newest item of each source, hidden by a filter
			if _, err := db.Write.Exec(`insert into items (source_id, user_id, guid, title, link, status, published_at, created_at, read_at, score, hidden)
				values (?, ?, ?, 't', 'http://x', 'DONE', ?, ?, ?, ?, ?)`, src.ID, user, fmt.Sprint(j), published,
				time.Date(2026, 11, 25, s, j, 0, 0, time.UTC).Format("2006-01-02T15:04:05.000Z"), readAt, score, hidden); err != nil {
				t.Fatal(err)
			}
		}
	}
	counts, newest, top, err := db.ReaderUnreadCounts(ctx, 1, greader.TopScore)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := db.Read.Query(`select source_id, count(*), max(coalesce(published_at, created_at)) from items
		where user_id = 1 and read_at is null and hidden = 0 group by source_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	want := map[int64]int{}
	for rows.Next() {
		var id int64
		var n int
		var at string
		if err := rows.Scan(&id, &n, &at); err != nil {
			t.Fatal(err)
		}
		want[id] = n
		if got := newest[id].UTC().Format("2006-01-02T15:04:05.000Z"); got != at {
			t.Errorf("source %d: newest unread %s, want %s", id, got, at)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(counts) != len(want) || len(want) != 3 {
		t.Fatalf("unread counts %v, want %v (3 sources with unread items)", counts, want)
	}
	for id, n := range want {
		if counts[id] != n {
			t.Errorf("source %d: %d unread, want %d", id, counts[id], n)
		}
	}
	var wantTop sql.NullInt64
	if err := db.Read.QueryRow(`select sum(score >= ?) from items where user_id = 1 and read_at is null and hidden = 0`, greader.TopScore).Scan(&wantTop); err != nil {
		t.Fatal(err)
	}
	if top != int(wantTop.Int64) || top == 0 {
		t.Errorf("%d unread top stories, want %d (and some)", top, wantTop.Int64)
	}
}
