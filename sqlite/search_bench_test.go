package sqlite_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

var vocabulary = strings.Fields(`sqlite database queue worker scheduler feed article summary bridge council river
election budget climate energy solar battery rust golang python kernel linux browser privacy security password
startup funding market inflation football tennis cycling recipe garden travel museum concert festival science
physics biology vaccine hospital school teacher student library history archive satellite rocket mars telescope
camera phone laptop server cloud network router protocol standard release version update bug patch review`)

// BenchmarkSearch measures full-text search over 100,000 items (target p95 < 50 ms).
//
//	go test ./sqlite -run '^$' -bench Search -benchtime 200x
func BenchmarkSearch(b *testing.B) {
	ctx := context.Background()
	var db *sqlite.DB
	if path := os.Getenv("SEARCH_DB"); path != "" {
		var err error
		if db, err = sqlite.Open(ctx, sqlite.Options{Path: path}); err != nil {
			b.Fatal(err)
		}
	} else {
		db = sqlitetest.New(b)
	}
	// Text with a natural (Zipf) word distribution over a 50,000-word vocabulary; each of
	// the named topic words appears in about 1 % of the items.
	r := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(r, 1.1, 1, 49_999)
	words := func(n int) string {
		w := make([]string, n)
		for i := range w {
			if r.IntN(100) == 0 {
				w[i] = vocabulary[r.IntN(len(vocabulary))]
			} else {
				w[i] = pseudoWord(zipf.Uint64())
			}
		}
		return strings.Join(w, " ")
	}
	perSource := 1000
	if v := os.Getenv("SEARCH_ITEMS_PER_SOURCE"); v != "" {
		perSource, _ = strconv.Atoi(v)
	}
	const sources = 100
	var existing int
	_ = db.Read.QueryRow(`select count(*) from items`).Scan(&existing)
	if existing == 0 { // SEARCH_DB may point at a file seeded by an earlier run
		for s := range sources {
			if _, err := db.Write.Exec(`insert into sources (user_id, type, url, name) values (1, 'rss', ?, ?)`, fmt.Sprint("http://f/", s), fmt.Sprint("Feed ", s)); err != nil {
				b.Fatal(err)
			}
		}
		tx, _ := db.Write.Begin()
		stmt, _ := tx.Prepare(`insert into items (source_id, user_id, guid, title, text_content, summary, tags, status, published_at)
			values (?, 1, ?, ?, ?, ?, '["news"]', 'DONE', ?)`)
		base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		for i := range sources * perSource {
			if _, err := stmt.Exec(i%sources+1, fmt.Sprint(i), words(8), words(300), words(40), base.Add(time.Duration(i)*time.Minute).Format("2006-01-02T15:04:05.000Z")); err != nil {
				b.Fatal(err)
			}
		}
		_ = tx.Commit()
		start := time.Now()
		if n, err := db.IndexItems(ctx, 200_000); err != nil || n != sources*perSource {
			b.Fatalf("indexed %d: %v", n, err)
		}
		b.Logf("indexed 100,000 items in %s", time.Since(start).Round(time.Millisecond))
	}
	// Single rare and common words, two-word queries, a prefix, a phrase, and the most common word.
	queries := []string{"sqlite", "bridge council", "rust kernel", "mars", "solar batt", "privacy", "election", pseudoWord(0), pseudoWord(50) + " " + pseudoWord(3)}
	var lat []time.Duration
	var cpu time.Duration
	b.ResetTimer()
	for i := range b.N {
		q := queries[i%len(queries)]
		t0, c0 := time.Now(), cpuTime()
		items, err := db.Items(ctx, app.ItemFilter{UserID: 1, Q: q, Limit: 50})
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
		cpu += cpuTime() - c0
		if i < len(queries) {
			b.Logf("%q: %d results in %s", q, len(items), time.Since(t0).Round(time.Microsecond))
		}
		if len(items) == 0 {
			b.Fatalf("no results for %q", q)
		}
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-p50")
	b.ReportMetric(float64(lat[len(lat)*95/100].Microseconds())/1000, "ms-p95")
	// The process's CPU time per search: what a loaded machine (other programs taking the
	// cores) changes least, so the figure to compare two versions by.
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// pseudoWord is word number n of a made-up vocabulary: letters only, 4 to 9 of them, so prefixes
// are shared as in a real language rather than by construction.
func pseudoWord(n uint64) string {
	x := n*2654435761 + 12345
	l := 4 + int(x%6)
	b := make([]byte, l)
	for i := range b {
		x = x*6364136223846793005 + 1442695040888963407
		b[i] = byte('a' + (x>>33)%26)
	}
	return string(b)
}
