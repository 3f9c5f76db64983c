package queue_test

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/app/feeds/feedtest"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// TestNotModifiedCycleWrites: what an all-304 cycle of 1,000 sources writes to the write-ahead
// log (its frames, with no checkpoint during the cycle), after a first ingestion, through the
// real queue, workers and database. Issue 26: 16-17 MB before, ~3 MB after.
//
//	MORNINGDECK_WALBYTES=1 go test ./queue -run NotModifiedCycleWrites -v
//
// MORNINGDECK_WALBYTES=commits lists each commit's pages by table and index.
func TestNotModifiedCycleWrites(t *testing.T) {
	if os.Getenv("MORNINGDECK_WALBYTES") == "" {
		t.Skip("set MORNINGDECK_WALBYTES=1")
	}
	const feedCount = 1000
	farm := feedtest.NewFarm(feedCount, 20)
	defer farm.Close()
	db := sqlitetest.New(t)
	ctx := context.Background()
	workers := 4 // MORNINGDECK_WALBYTES_WORKERS=8: as the server runs by default
	if n, err := strconv.Atoi(os.Getenv("MORNINGDECK_WALBYTES_WORKERS")); err == nil && n > 0 {
		workers = n
	}
	q := queue.NewFetchQueue(queue.FetchQueueOptions{Store: db, Capacity: 2000, Workers: workers, PollInterval: 10 * time.Millisecond})
	sources := &app.Sources{Store: db, Queue: q, Fetches: db, Fetcher: feeds.Adapter{Fetcher: feeds.New(feeds.Options{PerHost: 4})}}
	queue.HandleFetch(q, sources)
	for i := range feedCount {
		if _, err := db.Write.Exec(`insert into sources (user_id, type, url, name) values (1, 'rss', ?, '')`, farm.URL(i)); err != nil {
			t.Fatal(err)
		}
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { _ = q.Run(runCtx) }()
	wait := func() {
		for {
			var busy int
			_ = db.Read.QueryRow(`select count(*) from sources where fetch_status in ('QUEUED', 'FETCHING')`).Scan(&busy)
			if busy == 0 {
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	if _, err := sources.Refresh(ctx, 1); err != nil {
		t.Fatal(err)
	}
	wait()
	if _, err := db.Write.Exec(`pragma wal_autocheckpoint = 0`); err != nil {
		t.Fatal(err)
	}
	for c := range 3 {
		var b, f, d int
		if err := db.Write.QueryRow(`pragma wal_checkpoint(TRUNCATE)`).Scan(&b, &f, &d); err != nil || b != 0 {
			t.Fatal(b, err)
		}
		before := farm.NotMod.Load()
		start := time.Now()
		if _, err := sources.Refresh(ctx, 1); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(db.Path + "-wal"); err == nil {
			t.Logf("after queueing: %.2f MB", float64(fi.Size())/1e6)
		}
		wait()
		took := time.Since(start)
		fi, err := os.Stat(db.Path + "-wal")
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("cycle %d: %d 304s in %v, WAL %.2f MB (%d frames)", c, farm.NotMod.Load()-before, took, float64(fi.Size())/1e6, (fi.Size()-32)/4120)
		walFrames(t, db.Path, db.Read)
	}
}

// walFrames logs the log's commits and its frames by the table or index their page belongs to
// (dbstat), the most written first.
func walFrames(t *testing.T, path string, read *sql.DB) {
	b, err := os.ReadFile(path + "-wal")
	if err != nil || len(b) < 32 {
		return
	}
	const pageSize = 4096
	salt := b[16:24]
	pageOf := map[uint32]string{}
	rows, err := read.Query(`select name, pageno from dbstat`)
	if err != nil {
		t.Log(err)
		return
	}
	for rows.Next() {
		var name string
		var pg uint32
		if rows.Scan(&name, &pg) == nil {
			pageOf[pg] = name
		}
	}
	rows.Close()
	frames, commits := map[string]int{}, 0
	distinct := map[string]map[uint32]bool{}
	inCommit := map[string]int{}
	var kinds []string
	for off := 32; off+24+pageSize <= len(b); off += 24 + pageSize {
		h := b[off : off+24]
		if string(h[8:16]) != string(salt) {
			break // a frame of an earlier generation of the log
		}
		pg := binary.BigEndian.Uint32(h[0:4])
		name := pageOf[pg]
		if name == "" {
			name = "(free or new)"
		}
		inCommit[name]++
		if binary.BigEndian.Uint32(h[4:8]) != 0 {
			commits++
			if os.Getenv("MORNINGDECK_WALBYTES") == "commits" {
				ks := slices.Sorted(maps.Keys(inCommit))
				var k strings.Builder
				for _, n := range ks {
					fmt.Fprintf(&k, "%s:%d ", n, inCommit[n])
				}
				kinds = append(kinds, k.String())
			}
			clear(inCommit)
		}
		frames[name]++
		if distinct[name] == nil {
			distinct[name] = map[uint32]bool{}
		}
		distinct[name][pg] = true
	}
	names := slices.Collect(maps.Keys(frames))
	slices.SortFunc(names, func(a, b string) int { return frames[b] - frames[a] })
	var out strings.Builder
	fmt.Fprintf(&out, "%d commits;", commits)
	for _, n := range names {
		fmt.Fprintf(&out, " %s %d (%d pages);", n, frames[n], len(distinct[n]))
	}
	t.Log(out.String())
	for i, k := range kinds {
		t.Logf("commit %d: %s", i, k)
	}
}
