package postgres_test

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/postgres"
	"github.com/morningdeck/morningdeck/postgres/pgtest"
)

// instances opens n pools on one new database: n instances of the app, as far as the database
// can tell.
func instances(t *testing.T, n int) []*postgres.DB {
	t.Helper()
	url := pgtest.URL(t)
	var dbs []*postgres.DB
	for range n {
		db, err := postgres.Open(context.Background(), postgres.Options{URL: url, MaxConns: 4})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = db.Close() })
		dbs = append(dbs, db)
	}
	return dbs
}

// together runs fn once on each of n goroutines, released at the same moment, and waits.
func together(n int, fn func(i int)) {
	var ready, wg sync.WaitGroup
	start := make(chan struct{})
	ready.Add(n)
	for i := range n {
		wg.Go(func() {
			ready.Done()
			<-start
			fn(i)
		})
	}
	ready.Wait()
	close(start)
	wg.Wait()
}

// TestRacesBetweenInstances: what the stores promise when several instances do the same thing
// at the same moment (each on its own pool): a period's briefing is queued once, a source
// queued once, a new item pended once, a folder made once, local mode's user taken over once,
// a model version re-scored once.
func TestRacesBetweenInstances(t *testing.T) {
	ctx := context.Background()
	const n = 8
	dbs := instances(t, 4)
	db := func(i int) *postgres.DB { return dbs[i%len(dbs)] }
	me := app.DefaultUserID

	t.Run("the first account takes over local mode's user once", func(t *testing.T) {
		var ids sync.Map
		var errs atomic.Int32
		together(n, func(i int) {
			u, err := db(i).CreateUser(ctx, fmt.Sprint("user", i), "hash", false)
			if err != nil {
				errs.Add(1)
				t.Errorf("create user %d: %v", i, err)
				return
			}
			ids.Store(u.ID, u.Admin)
		})
		users, err := dbs[0].Users(ctx)
		if err != nil {
			t.Fatal(err)
		}
		admins := 0
		for _, u := range users {
			if u.Admin {
				admins++
			}
		}
		if len(users) != n || admins != 1 || users[0].ID != me || !users[0].HasPassword {
			t.Fatalf("%d users, %d admins: %+v", len(users), admins, users)
		}
	})

	t.Run("one folder of a name", func(t *testing.T) {
		var ids sync.Map
		together(n, func(i int) {
			f, err := db(i).EnsureFolder(ctx, me, "News")
			if err != nil {
				t.Errorf("ensure folder %d: %v", i, err)
				return
			}
			ids.Store(f.ID, true)
		})
		count := 0
		ids.Range(func(any, any) bool { count++; return true })
		if count != 1 {
			t.Fatalf("%d folders called News", count)
		}
	})

	src := &app.Source{UserID: me, Type: app.SourceRSS, URL: "https://race.example/feed", RefreshIntervalMinutes: 60}
	if err := dbs[0].CreateSource(ctx, src, nil); err != nil {
		t.Fatal(err)
	}

	t.Run("a source is queued once", func(t *testing.T) {
		var queued atomic.Int32
		together(n, func(i int) {
			k, err := db(i).QueueDue(ctx, []int64{src.ID}, func(context.Context, *sql.Tx, int64) error { return nil })
			if err != nil {
				t.Errorf("queue %d: %v", i, err)
			}
			queued.Add(int32(k))
		})
		if queued.Load() != 1 {
			t.Fatalf("queued %d times", queued.Load())
		}
	})

	t.Run("a fetch's items are stored once, a new item pended once", func(t *testing.T) {
		first := *src
		first.LastFetchedAt = &time.Time{} // not a first import: items come NEW
		var stored atomic.Int32
		var news sync.Map
		together(n, func(i int) {
			k, err := db(i).FinishFetch(ctx, &first, &app.FetchResult{Items: []app.Item{{GUID: "g1"}, {GUID: "g2"}}}, func(_ context.Context, _ *sql.Tx, ids []int64, _ bool) error {
				for _, id := range ids {
					news.Store(id, true)
				}
				return nil
			})
			if err != nil {
				t.Errorf("finish fetch %d: %v", i, err)
			}
			stored.Add(int32(k))
		})
		if stored.Load() != 2 {
			t.Fatalf("%d items stored by %d fetches of the same two", stored.Load(), n)
		}
		var ids []int64
		news.Range(func(k, _ any) bool { ids = append(ids, k.(int64)); return true })
		var pended atomic.Int32
		together(n, func(i int) {
			k, err := db(i).PendAndEnqueue(ctx, ids, func(context.Context, *sql.Tx, app.PendingItem) error { return nil })
			if err != nil {
				t.Errorf("pend %d: %v", i, err)
			}
			pended.Add(int32(k))
		})
		if pended.Load() != 2 {
			t.Fatalf("%d pendings of 2 items", pended.Load())
		}
		var claimed atomic.Int32
		together(n, func(i int) {
			in, err := db(i).StartProcessing(ctx, ids[0], time.Hour)
			if err != nil {
				t.Errorf("start processing %d: %v", i, err)
			}
			if in != nil {
				claimed.Add(1)
			}
		})
		if claimed.Load() != 1 {
			t.Fatalf("an item's processing claimed %d times", claimed.Load())
		}
	})

	t.Run("a period's briefing is queued once", func(t *testing.T) {
		b := &app.Briefing{UserID: me, Name: "daily", Frequency: "DAILY", Time: "07:00", Timezone: "UTC", ItemLimit: 10}
		if err := dbs[0].SaveBriefing(ctx, b); err != nil {
			t.Fatal(err)
		}
		due := time.Now()
		var queued atomic.Int32
		together(n, func(i int) {
			ok, err := db(i).QueueBriefing(ctx, b.ID, &due, func(context.Context, *sql.Tx) error { return nil })
			if err != nil {
				t.Errorf("queue briefing %d: %v", i, err)
			}
			if ok {
				queued.Add(1)
			}
		})
		if queued.Load() != 1 {
			t.Fatalf("the period was queued %d times", queued.Load())
		}
	})

	t.Run("a model version is re-scored once", func(t *testing.T) {
		v, err := dbs[0].SaveReadingModel(ctx, me, []byte("m"))
		if err != nil {
			t.Fatal(err)
		}
		var started atomic.Int32
		together(n, func(i int) {
			ok, err := db(i).StartRescore(ctx, me, v)
			if err != nil {
				t.Errorf("start re-score %d: %v", i, err)
			}
			if ok {
				started.Add(1)
			}
		})
		if started.Load() != 1 {
			t.Fatalf("re-scored %d times", started.Load())
		}
	})
}

// TestDailyBackupOnce: instances making the day's backup at the same moment, each into a backup
// folder of its own (their machines'), make one between them; the next day another is made.
func TestDailyBackupOnce(t *testing.T) {
	ctx := context.Background()
	dbs := instances(t, 3)
	day := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	var made atomic.Int32
	together(len(dbs), func(i int) {
		path, err := dbs[i].BackupRotate(ctx, t.TempDir(), 3, day)
		if err != nil {
			t.Errorf("backup %d: %v", i, err)
		}
		if path != "" {
			made.Add(1)
		}
	})
	if made.Load() != 1 {
		t.Fatalf("%d backups of one day", made.Load())
	}
	if path, err := dbs[1].BackupRotate(ctx, t.TempDir(), 3, day.Add(24*time.Hour)); err != nil || path == "" {
		t.Fatalf("the next day's backup: %q, %v", path, err)
	}
}

// TestPruneOneAtATime: instances pruning at once delete each old item once between them, and
// leave one tombstone each.
func TestPruneOneAtATime(t *testing.T) {
	ctx := context.Background()
	dbs := instances(t, 3)
	src := &app.Source{UserID: app.DefaultUserID, Type: app.SourceRSS, URL: "https://prune.example/feed", RefreshIntervalMinutes: 60}
	if err := dbs[0].CreateSource(ctx, src, nil); err != nil {
		t.Fatal(err)
	}
	r := &app.FetchResult{}
	for i := range 3000 {
		r.Items = append(r.Items, app.Item{GUID: fmt.Sprint("g", i)})
	}
	if _, err := dbs[0].FinishFetch(ctx, src, r, nil); err != nil {
		t.Fatal(err)
	}
	var deleted atomic.Int32
	together(len(dbs), func(i int) {
		res, err := dbs[i].Prune(ctx, time.Now().Add(time.Hour))
		if err != nil {
			t.Errorf("prune %d: %v", i, err)
		}
		deleted.Add(int32(res.Items))
	})
	var items, tombstones int
	if err := dbs[0].SQL.QueryRowContext(ctx, `select (select count(*) from items), (select count(*) from item_tombstones)`).Scan(&items, &tombstones); err != nil {
		t.Fatal(err)
	}
	if deleted.Load() != 3000 || items != 0 || tombstones != 3000 {
		t.Fatalf("deleted %d (want 3000), %d items and %d tombstones left", deleted.Load(), items, tombstones)
	}
}
