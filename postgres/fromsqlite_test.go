package postgres_test

import (
	"context"
	"database/sql"
	"errors"
	"reflect"
	"testing"
	"time"

	"maragu.dev/goqite"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/postgres"
	"github.com/morningdeck/morningdeck/postgres/pgtest"
	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// fullSQLite makes a SQLite database with something in every table the copy moves, through
// the stores (and goqite for the queue), the way the app fills it.
func fullSQLite(t *testing.T) *sqlite.DB {
	t.Helper()
	ctx := context.Background()
	start := time.Date(2026, 3, 1, 8, 0, 0, 123_000_000, time.UTC)
	clock := sqlitetest.NewClock(start)
	db := sqlitetest.NewWithClock(t, clock)
	must := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	alice, err := db.CreateUser(ctx, "alice", "hash-a", false)
	must("alice", err)
	bob, err := db.CreateUser(ctx, "bob", "hash-b", false)
	must("bob", err)
	must("session", db.CreateSession(ctx, bob.ID, "sess", start.Add(24*time.Hour)))
	_, err = db.CreateAPIToken(ctx, alice.ID, "newsboat", "tok")
	must("token", err)
	interests, yes := "compilers", true
	_, err = db.UpdateSettings(ctx, alice.ID, app.SettingsUpdate{Interests: &interests, MarkReadOnScroll: &yes, Topics: &[]app.Topic{{Name: "Go", Keywords: []string{"golang"}}}})
	must("settings", err)
	a := &app.Source{UserID: alice.ID, Type: app.SourceRSS, URL: "https://a.example/feed", Name: "A", Folder: "Tech", RefreshIntervalMinutes: 30}
	must("source a", db.CreateSource(ctx, a, nil))
	// Two folders whose names differ only in the case of a non-ASCII letter are two in SQLite
	// (collate nocase folds ASCII only), and must be two after the copy.
	for _, n := range []string{"Émile", "émile"} {
		_, err := db.EnsureFolder(ctx, alice.ID, n)
		must("folder "+n, err)
	}
	b := &app.Source{UserID: bob.ID, Type: app.SourceWeb, URL: "https://b.example/", RefreshIntervalMinutes: 60, AutoInterval: true}
	must("source b", db.CreateSource(ctx, b, nil))
	box := app.Mailbox{Host: "imap.example", Port: 993, Security: app.MailTLS, Username: "bob", Folder: "Newsletters", MarkRead: true, FirstImport: 50}
	mail := &app.Source{UserID: bob.ID, Type: app.SourceIMAP, URL: box.URL(), RefreshIntervalMinutes: 60}
	must("mail source", db.CreateMailSource(ctx, mail, box, []byte("sealed\x00bytes"), nil))
	must("icon", db.SaveIcon(ctx, a.ID, &app.Icon{ContentType: "image/png", Data: []byte("\x89PNG\r\n\x1a\n\x00\x01"), ETag: `"i"`}, "", start))
	score := func(v int) *int { return &v }
	pub := start.Add(-time.Hour)
	_, err = db.FinishFetch(ctx, a, &app.FetchResult{Title: "Feed A", ETag: `"e"`, Items: []app.Item{
		{GUID: "old", Title: "Old news", Text: "old text"},
		{GUID: "a1", Title: "Go 1.26", Link: "https://a.example/1", Author: "Rob", PublishedAt: &pub, CleanContent: "<p>Go</p>", Text: "Go is out",
			Summary: "Go is out", Score: score(80), Topics: []string{"Go"}, Tags: []string{"go"}, EnrichedBy: "embedded", Extra: map[string]any{"thumbnail": "https://a.example/t.png"}},
		{GUID: "a2", Title: "Hidden", Hidden: true, Starred: true, Score: score(10)},
	}}, nil)
	must("fetch a", err)
	src, _ := db.Source(ctx, alice.ID, a.ID)
	clock.Add(time.Minute)
	_, err = db.FinishFetch(ctx, src, &app.FetchResult{Items: []app.Item{{GUID: "a3", Title: "New", Text: "fresh"}}}, nil)
	must("fetch a again", err)
	items, err := db.Items(ctx, app.ItemFilter{UserID: alice.ID, Limit: 100})
	must("items", err)
	ids := map[string]int64{}
	for _, it := range items {
		ids[it.GUID] = it.ID
	}
	_, err = db.UpdateItem(ctx, alice.ID, ids["a1"], app.ItemUpdate{Read: &yes})
	must("read", err)
	must("filter", db.CreateFilter(ctx, &app.Filter{UserID: alice.ID, SourceID: &a.ID, Name: "no ads", Field: "title", Match: "keywords", Pattern: "sponsored", Action: "hide", Enabled: true}))
	br := &app.Briefing{UserID: alice.ID, Name: "Morning", Frequency: "DAILY", Time: "07:00", Timezone: "Europe/Paris", ItemLimit: 5, EmailEnabled: true, Recipients: []string{"a@example.com"}, SourceIDs: []int64{a.ID}}
	must("briefing", db.SaveBriefing(ctx, br))
	a1 := ids["a1"]
	rep := &app.Report{GeneratedAt: start, PeriodStart: start.Add(-24 * time.Hour), PeriodEnd: start, Overview: "quiet", Items: []app.ReportItem{
		{Rank: 1, ItemID: &a1, SourceName: "A", Title: "Go 1.26", Summary: "Go is out", Score: 80, AlsoCoveredBy: []app.Coverage{{Title: "elsewhere", Link: "https://c.example"}}}}}
	must("report", db.FinishBriefing(ctx, br, rep, func(ctx context.Context, tx *sql.Tx) error {
		_, err := db.CreateDeliveriesTx(ctx, tx, rep.ID, br.Recipients)
		return err
	}))
	_, err = db.RecordFeedback(ctx, alice.ID, app.FeedbackEvent{ItemID: a1, Signal: "like", Keys: []string{"w:go"}, Labels: []string{"go"}}, nil)
	must("feedback", err)
	_, err = db.SaveReadingModel(ctx, alice.ID, []byte(`{"w":1}`))
	must("model", err)
	q := goqite.New(goqite.NewOpts{DB: db.Write, Name: "fetch"})
	must("job", q.Send(ctx, goqite.Message{Body: []byte(`{"kind":"fetch","data":{"sourceId":2}}`)}))
	must("dead job", db.JobTx(ctx, func(tx *sql.Tx) error {
		if err := db.DeadLetterJob(ctx, tx, app.DeadJob{ID: "m_dead", Queue: "fetch", Kind: "fetch", Body: []byte(`{"x":1}`), Attempts: 3, Error: "boom", FailedAt: start}); err != nil {
			return err
		}
		return db.CountJobs(ctx, tx, "fetch", start, 5, 1)
	}))
	must("pause", db.SetQueuePaused(ctx, "email", true))
	// old is pruned: a tombstone.
	clock.Add(48 * time.Hour)
	_, err = db.Prune(ctx, start.Add(30*time.Second))
	must("prune", err)
	return db
}

// TestCopyFromSQLite: a SQLite database with something in every table is copied into an empty
// PostgreSQL database, interrupted and resumed; every table's rows verify equal (count and
// checksum), the stores read the same things from both, new rows get new ids, and a changed
// row fails the verification.
func TestCopyFromSQLite(t *testing.T) {
	ctx := context.Background()
	lite := fullSQLite(t)
	pg := pgtest.New(t)

	opts := postgres.CopyOptions{Batch: 2}
	postgres.StopAfter(&opts, 3)
	if _, err := pg.CopyFromSQLite(ctx, lite.Read, opts); !errors.Is(err, postgres.ErrStopped) {
		t.Fatalf("the interrupted copy: %v", err)
	}
	res, err := pg.CopyFromSQLite(ctx, lite.Read, postgres.CopyOptions{Batch: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Resumed {
		t.Fatal("the second copy did not resume the first")
	}
	if _, err := pg.CopyFromSQLite(ctx, lite.Read, postgres.CopyOptions{}); err == nil {
		t.Fatal("a finished copy was copied again")
	}
	checks, err := pg.VerifyFromSQLite(ctx, lite.Read)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		if !c.Equal {
			t.Errorf("%s: SQLite %d rows (%x), PostgreSQL %d rows (%x)", c.Table, c.SQLiteRows, c.SQLiteSum, c.PGRows, c.PGSum)
		}
		if c.SQLiteRows == 0 && c.Table != "sessions" {
			t.Errorf("%s: nothing to copy: the test's database should have a row of it", c.Table)
		}
	}

	// The stores read the same from both.
	same := func(what string, get func(s store) (any, error)) {
		t.Helper()
		a, err := get(lite)
		if err != nil {
			t.Fatalf("%s from SQLite: %v", what, err)
		}
		b, err := get(pg)
		if err != nil {
			t.Fatalf("%s from PostgreSQL: %v", what, err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s differ:\nSQLite     %+v\nPostgreSQL %+v", what, a, b)
		}
	}
	same("users", func(s store) (any, error) { return s.Users(ctx) })
	same("settings", func(s store) (any, error) { return s.Settings(ctx, 1) })
	same("tokens", func(s store) (any, error) { return s.APITokens(ctx, 1) })
	same("secret", func(s store) (any, error) { return s.Secret(ctx, "unsubscribe") })
	same("sources", func(s store) (any, error) { return s.Sources(ctx, 1) })
	same("folders", func(s store) (any, error) { return s.Folders(ctx, 1, 0) })
	same("items", func(s store) (any, error) { return s.Items(ctx, app.ItemFilter{UserID: 1, Limit: 100}) })
	same("hidden items", func(s store) (any, error) { return s.Items(ctx, app.ItemFilter{UserID: 1, Hidden: true, Limit: 100}) })
	same("icon", func(s store) (any, error) { return s.SourceIcon(ctx, 1, 1) })
	same("filters", func(s store) (any, error) { return s.Filters(ctx, 1) })
	same("briefings", func(s store) (any, error) { return s.Briefings(ctx, 1) })
	same("reports", func(s store) (any, error) { return s.ReportsWithItems(ctx, 1, 1, 10) })
	same("deliveries", func(s store) (any, error) { return s.Deliveries(ctx, 1) })
	same("feedback", func(s store) (any, error) { return s.FeedbackEvents(ctx, 1, 10) })
	same("known items", func(s store) (any, error) {
		return s.KnownItems(ctx, app.NewIdentityQuery(1, []app.Item{{GUID: "old"}, {GUID: "a1"}}))
	})
	same("dead jobs", func(s store) (any, error) { return s.DeadJobs(ctx, "fetch", 10) })
	same("paused", func(s store) (any, error) { return s.QueuePaused(ctx, "email") })
	same("mail account", func(s store) (any, error) {
		m, sealed, err := s.MailAccount(ctx, 3)
		return []any{m, sealed}, err
	})
	same("queue size", func(s store) (any, error) { return s.QueueSize(ctx, "fetch") })
	same("session", func(s store) (any, error) {
		return s.SessionUser(ctx, "sess", time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	})
	if !t.Failed() {
		t.Log("the stores read the same from both")
	}

	// New rows go on after the copied ids.
	c := &app.Source{UserID: 1, Type: app.SourceRSS, URL: "https://c.example/feed", RefreshIntervalMinutes: 60}
	if err := pg.CreateSource(ctx, c, nil); err != nil || c.ID != 4 {
		t.Fatalf("a new source: id %d, %v", c.ID, err)
	}
	if _, err := pg.CreateUser(ctx, "carol", "h", false); err != nil {
		t.Fatalf("a new user: %v", err)
	}

	if _, err := pg.SQL.ExecContext(ctx, `update items set title = 'changed' where guid = 'a1'`); err != nil {
		t.Fatal(err)
	}
	checks, err = pg.VerifyFromSQLite(ctx, lite.Read)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checks {
		if c.Table == "items" && c.Equal {
			t.Error("a changed item passed the verification")
		}
	}
}

// store is what TestCopyFromSQLite reads from both engines.
type store interface {
	app.AccountStore
	app.SettingsStore
	app.MailboxStore
	app.SourceStore
	app.FilterStore
	app.BriefingStore
	app.DeliveryStore
	app.FeedbackStore
	app.IdentityStore
	DeadJobs(ctx context.Context, queue string, limit int) ([]app.DeadJob, error)
	QueuePaused(ctx context.Context, queue string) (bool, error)
	QueueSize(ctx context.Context, queue string) (int, error)
}

// sqliteOnly are SQLite's tables the copy leaves, each for a reason: the migrations' record (this
// database has its own), and FTS5's index and its bookkeeping (search here is a column of items).
var sqliteOnly = map[string]bool{"schema_migrations": true, "sqlite_sequence": true, "fts_state": true, "fts_stale": true, "search_compaction": true,
	"health": true, "items_fts": true, "items_fts_data": true, "items_fts_idx": true, "items_fts_docsize": true, "items_fts_config": true}

// TestCopyCoversSQLite: every table and column of a migrated SQLite database is copied (or named
// above as SQLite's own): a column added to SQLite fails this test until the copy moves it.
func TestCopyCoversSQLite(t *testing.T) {
	ctx := context.Background()
	lite := sqlitetest.New(t)
	copied := postgres.CopiedColumns()
	rows, err := lite.Read.QueryContext(ctx, `select name from sqlite_master where type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	rows.Close()
	for _, table := range tables {
		if sqliteOnly[table] {
			continue
		}
		cols, ok := copied[table]
		if !ok {
			t.Errorf("SQLite's table %s is not copied", table)
			continue
		}
		have := map[string]bool{}
		for _, c := range cols {
			have[c] = true
		}
		info, err := lite.Read.QueryContext(ctx, `select name from pragma_table_info(?)`, table)
		if err != nil {
			t.Fatal(err)
		}
		for info.Next() {
			var col string
			if err := info.Scan(&col); err != nil {
				t.Fatal(err)
			}
			if !have[col] {
				t.Errorf("SQLite's column %s.%s is not copied", table, col)
			}
		}
		info.Close()
	}
}
