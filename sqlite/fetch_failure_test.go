package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// allFailures is every app.FetchFailure.
var allFailures = []app.FetchFailure{
	app.FailureDNS, app.FailureConnect, app.FailureTimeout, app.FailureNetwork, app.FailureCutShort,
	app.FailureTLS, app.FailureHTTPStatus, app.FailureTooLarge, app.FailureParse, app.FailureRedirects,
	app.FailureBlocked, app.FailureHostPaused, app.FailureOther,
}

// fetchFailure is the kind of failure stored with a source.
func fetchFailure(t *testing.T, db *sqlite.DB, id int64) app.FetchFailure {
	t.Helper()
	var kind string
	if err := db.Read.QueryRow(`select fetch_failure from sources where id = ?`, id).Scan(&kind); err != nil {
		t.Fatal(err)
	}
	return app.FetchFailure(kind)
}

// TestFetchFailureKinds: FailFetch stores the kind of the failure with its message, a successful
// fetch clears it, and the summary counts as unreachable the failing sources whose kind is
// Unreachable, reading sources_unreachable_idx alone.
func TestFetchFailureKinds(t *testing.T) {
	ctx := context.Background()
	db := sqlitetest.New(t)
	ids := map[app.FetchFailure]int64{}
	unreachable := 0
	for i, kind := range allFailures {
		src := &app.Source{UserID: 1, Type: app.SourceRSS, URL: fmt.Sprintf("http://s%d/feed", i), RefreshIntervalMinutes: 15}
		if err := db.CreateSource(ctx, src, nil); err != nil {
			t.Fatal(err)
		}
		if err := db.FailFetch(ctx, src, kind, "It failed: "+string(kind)+".", true, 0, nil); err != nil {
			t.Fatal(err)
		}
		if got := fetchFailure(t, db, src.ID); got != kind {
			t.Errorf("stored kind %q, want %q", got, kind)
		}
		ids[kind] = src.ID
		if kind.Unreachable() {
			unreachable++
		}
	}
	if unreachable != 4 {
		t.Fatalf("%d unreachable kinds, want dns, connect, timeout and network", unreachable)
	}
	summary := func() app.SourceSummary {
		t.Helper()
		s, err := db.SourceSummary(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := summary(); s.Unreachable != unreachable || s.Errors != len(allFailures) {
		t.Fatalf("summary %+v, want %d unreachable of %d failing", s, unreachable, len(allFailures))
	}

	// Not blamed (the machine seemed offline): the kind is stored all the same, but a source
	// that was not failing is not counted.
	extra := &app.Source{UserID: 1, Type: app.SourceRSS, URL: "http://unblamed/feed", RefreshIntervalMinutes: 15}
	if err := db.CreateSource(ctx, extra, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.FailFetch(ctx, extra, app.FailureDNS, "The host name unblamed could not be found.", false, 0, nil); err != nil {
		t.Fatal(err)
	}
	if got := fetchFailure(t, db, extra.ID); got != app.FailureDNS {
		t.Errorf("unblamed failure stored as %q", got)
	}
	if s := summary(); s.Unreachable != unreachable {
		t.Errorf("an unblamed failure counted: %+v", s)
	}

	// A fetch that succeeds clears the kind, and the source is no longer counted.
	src, err := db.Source(ctx, 1, ids[app.FailureDNS])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.FinishFetch(ctx, src, &app.FetchResult{NotModified: true}, nil); err != nil {
		t.Fatal(err)
	}
	if got := fetchFailure(t, db, src.ID); got != "" {
		t.Errorf("after a successful fetch the kind is %q", got)
	}
	if s := summary(); s.Unreachable != unreachable-1 {
		t.Errorf("after a successful fetch: %+v, want %d unreachable", s, unreachable-1)
	}

	plan := strings.Join(queryPlan(t, db, sqlite.SourceSummaryQueryForTest, 1), "\n")
	if !strings.Contains(plan, "COVERING INDEX sources_unreachable_idx") {
		t.Errorf("the unreachable count does not read sources_unreachable_idx:\n%s", plan)
	}
}

// TestFetchFailureMigration: migration 0025 gives the sources that failed before it the kind of
// their message, once, so the summary counts the same sources as the old patterns did.
func TestFetchFailureMigration(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	db, err := sqlite.Open(ctx, sqlite.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	// The messages app/feeds writes, and the kind each gets.
	cases := []struct {
		msg  string
		kind app.FetchFailure
	}{
		{"The host name example.org could not be found.", app.FailureDNS},
		{"Looking up the host name example.org timed out.", app.FailureTimeout},
		{"example.org did not answer within 30s.", app.FailureTimeout},
		{"example.org did not answer in time.", app.FailureTimeout},
		{"example.org:443 refused the connection.", app.FailureConnect},
		{"10.0.0.9:80 could not be reached.", app.FailureConnect},
		{"Could not connect to example.org:443.", app.FailureConnect},
		{"The connection to example.org failed.", app.FailureNetwork},
		{"The response was cut short or corrupted.", app.FailureCutShort},
		{"The secure connection to example.org failed: its certificate has expired or is not yet valid.", app.FailureTLS},
		{"The server answered 500 Internal Server Error.", app.FailureHTTPStatus},
		{"The response is larger than 10 MiB.", app.FailureTooLarge},
		{"The content is not a feed we can read: the response is empty.", app.FailureParse},
		{"Too many redirects (more than 5).", app.FailureOther},
		{"", ""},
	}
	ids := make([]int64, len(cases))
	for i := range cases {
		src := &app.Source{UserID: 1, Type: app.SourceRSS, URL: fmt.Sprintf("http://s%d/feed", i), RefreshIntervalMinutes: 15}
		if err := db.CreateSource(ctx, src, nil); err != nil {
			t.Fatal(err)
		}
		ids[i] = src.ID
	}
	// Back to the schema before 0025, with the rows as it left them.
	for _, q := range []string{
		`drop index sources_unreachable_idx`,
		`alter table sources drop column fetch_failure`,
		`delete from schema_migrations where version = 25`,
	} {
		if _, err := db.Write.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cases {
		if _, err := db.Write.Exec(`update sources set last_error = ?, error_count = ? where id = ?`, c.msg, min(len(c.msg), 1), ids[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = sqlite.Open(ctx, sqlite.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i, c := range cases {
		if got := fetchFailure(t, db, ids[i]); got != c.kind {
			t.Errorf("%q: kind %q, want %q", c.msg, got, c.kind)
		}
	}
	if s, err := db.SourceSummary(ctx, 1); err != nil || s.Unreachable != 8 {
		t.Errorf("summary %+v, %v; want the 8 unreachable sources the old patterns counted", s, err)
	}
}
