package sqlite_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// TestNavigationCounts: the counts every page shows. The source summary (read from an index,
// grouped by status) agrees with a plain count of the table over sources in every state; the
// unread counts stop at the cap asked for, and count everything without one.
func TestNavigationCounts(t *testing.T) {
	ctx := context.Background()
	db := sqlitetest.New(t)
	states := []struct {
		status, fetch string
		errors        int
		lastError     string
		kind          app.FetchFailure // stored with the message; the summary counts it
	}{
		{"ACTIVE", "IDLE", 0, "", ""},
		{"ACTIVE", "QUEUED", 0, "", ""},
		{"ACTIVE", "FETCHING", 0, "", ""},
		{"ACTIVE", "IDLE", 2, "example.org could not be found.", app.FailureDNS},
		{"ACTIVE", "IDLE", 1, "The server answered 500 Internal Server Error.", app.FailureHTTPStatus},
		{"ERROR", "IDLE", 9, "The connection to example.org failed.", app.FailureNetwork},
		{"ERROR", "QUEUED", 9, "Not a feed.", app.FailureParse},
		{"ACTIVE", "IDLE", 1, "feeds.example.org refused the connection.", app.FailureConnect},
		{"ACTIVE", "IDLE", 1, "10.0.0.9 could not be reached.", app.FailureConnect},
		{"ERROR", "IDLE", 5, "feeds.example.org did not answer within 30 s.", app.FailureTimeout},
		{"ACTIVE", "IDLE", 1, "Could not connect to feeds.example.org: network is unreachable.", app.FailureConnect},
		{"ACTIVE", "FETCHING", 1, "The server answered 404 Not Found.", app.FailureHTTPStatus},
		{"PAUSED", "IDLE", 0, "", ""},
		{"PAUSED", "IDLE", 3, "example.org timed out.", app.FailureTimeout},
	}
	for i, st := range states {
		folder := ""
		if i%2 == 0 {
			folder = "Even"
		}
		src := &app.Source{UserID: 1, Type: app.SourceRSS, URL: fmt.Sprintf("http://s%d/feed", i), RefreshIntervalMinutes: 15, Folder: folder}
		if err := db.CreateSource(ctx, src, nil); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Write.Exec(`update sources set status = ?, fetch_status = ?, error_count = ?, last_error = ?, fetch_failure = ? where id = ?`,
			st.status, st.fetch, st.errors, st.lastError, st.kind, src.ID); err != nil {
			t.Fatal(err)
		}
		for j := range 4 { // 4 items a source, 3 of them unread
			if _, err := db.Write.Exec(`insert into items (source_id, user_id, guid, title, link, status, created_at, read_at)
				values (?, 1, ?, 't', 'http://x', 'DONE', '2026-11-27T00:00:00.000Z', ?)`, src.ID, fmt.Sprint(j), map[bool]any{true: "2026-11-27T01:00:00.000Z"}[j == 3]); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Another user's sources count for nobody else.
	if _, err := db.CreateUser(ctx, "owner", "hash", true); err != nil { // takes over user 1
		t.Fatal(err)
	}
	u, err := db.CreateUser(ctx, "other", "hash", false)
	if err != nil || u.ID == 1 {
		t.Fatalf("second user %+v, %v", u, err)
	}
	other := &app.Source{UserID: u.ID, Type: app.SourceRSS, URL: "http://other/feed", RefreshIntervalMinutes: 15, Folder: "Even"}
	if err := db.CreateSource(ctx, other, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Write.Exec(`update sources set fetch_status = 'FETCHING', error_count = 1, last_error = 'x could not be found.', fetch_failure = 'dns' where id = ?`, other.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Write.Exec(`insert into items (source_id, user_id, guid, title, link, status, created_at) values (?, ?, 'g', 't', 'http://x', 'DONE', '2026-11-27T00:00:00.000Z')`, other.ID, u.ID); err != nil {
		t.Fatal(err)
	}

	got, err := db.SourceSummary(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	var want app.SourceSummary
	if err := db.Read.QueryRow(`select count(*), sum(status = 'ERROR' or error_count > 0), sum(status = 'PAUSED'),
		sum(fetch_status in ('QUEUED', 'FETCHING')),
		sum(status != 'PAUSED' and error_count > 0 and (last_error like '%could not be found.' or last_error like '%refused the connection.'
			or last_error like '%could not be reached.' or last_error like '%did not answer%' or last_error like '%timed out.'
			or last_error like 'Could not connect to %' or last_error like 'The connection to % failed.'))
		from sources where user_id = 1`).Scan(&want.Total, &want.Errors, &want.Paused, &want.Busy, &want.Unreachable); err != nil {
		t.Fatal(err)
	}
	if got != want || want != (app.SourceSummary{Total: 14, Errors: 10, Paused: 2, Busy: 4, Unreachable: 6}) {
		t.Fatalf("source summary %+v; the table says %+v", got, want)
	}

	for _, c := range []struct{ cap, want int }{{0, 42}, {-1, 42}, {10, 10}, {42, 42}, {1000, 42}} {
		counts, err := db.Counts(ctx, 1, c.cap)
		if err != nil || counts.Unread != c.want {
			t.Errorf("Counts(cap %d): unread %d, %v; want %d", c.cap, counts.Unread, err, c.want)
		}
		folders, err := db.Folders(ctx, 1, c.cap)
		if err != nil || len(folders) != 1 || folders[0].Name != "Even" || folders[0].Sources != 7 || folders[0].Unread != min(21, c.want) {
			t.Errorf("Folders(cap %d): %d folders %+v, %v; want Even with 7 sources and %d unread", c.cap, len(folders), folders, err, min(21, c.want))
		}
	}
}
