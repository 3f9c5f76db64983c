package sqlite_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// BenchmarkRetention simulates weeks of a busy installation with a daily prune and reports the
// database file's size per simulated day: it must level off once the retention window is full.
//
//	go test ./sqlite -run '^$' -bench Retention -benchtime 1x -timeout 30m
//
// 500 sources: 450 publish 10–30 items a day (a feed of their 30 latest entries), 50 publish one
// item every three days (a feed of 20 entries, so an entry stays listed for two months, long
// after it is pruned: the tombstones must keep it out). Each source is fetched once a day through
// FinishFetch, as the fetch worker stores it; items carry 2–5 KB of raw HTML, its sanitized copy
// and plain text (a 50,000-word Zipf vocabulary), are enriched (summary, tags, topics, score)
// and indexed for search (IndexItems). Each day
// 20 items are starred and a briefing references 10. At the end of each day Prune deletes what
// arrived more than RETENTION_KEEP days ago (default 7) while a probe measures how long a small
// write waits for the write connection.
//
// RETENTION_DAYS (default 45) sets the simulated days, RETENTION_SOURCES (500) the sources,
// RETENTION_DB a file to keep for inspection.
func BenchmarkRetention(b *testing.B) {
	simDays := envInt("RETENTION_DAYS", 45)
	keepDays := envInt("RETENTION_KEEP", 7)
	nSources := envInt("RETENTION_SOURCES", 500)
	for range b.N {
		runRetention(b, simDays, keepDays, nSources)
	}
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// corpus is a long text of Zipf-distributed words; items take slices of it.
type corpus struct {
	text string
	r    *rand.Rand
}

func newCorpus(size int) *corpus {
	r := rand.New(rand.NewPCG(3, 4))
	zipf := rand.NewZipf(r, 1.1, 1, 49_999)
	var sb strings.Builder
	sb.Grow(size + 16)
	for sb.Len() < size {
		if r.IntN(200) == 0 {
			sb.WriteString(vocabularyWords[r.IntN(len(vocabularyWords))])
		} else {
			sb.WriteString(simWord(zipf.Uint64()))
		}
		if r.IntN(14) == 0 {
			sb.WriteString(". ")
		} else {
			sb.WriteByte(' ')
		}
	}
	return &corpus{text: sb.String(), r: r}
}

// slice returns about n bytes of text, starting and ending at word boundaries.
func (c *corpus) slice(seed uint64, n int) string {
	start := int(seed % uint64(len(c.text)-n-64))
	for start < len(c.text) && c.text[start] != ' ' {
		start++
	}
	end := start + n
	for end < len(c.text) && c.text[end] != ' ' {
		end++
	}
	return strings.TrimSpace(c.text[start:end])
}

var vocabularyWords = strings.Fields(`election budget climate energy solar battery kernel browser privacy security
startup market inflation football tennis cycling recipe garden travel museum concert science physics vaccine`)

// simWord is word number n of a made-up vocabulary of 4 to 10 letters.
func simWord(n uint64) string {
	x := n*0x9E3779B97F4A7C15 + 77
	b := make([]byte, 4+x%7)
	for i := range b {
		x = x*6364136223846793005 + 1442695040888963407
		b[i] = byte('a' + (x>>33)%26)
	}
	return string(b)
}

type simSource struct {
	src    *app.Source
	perDay float64 // entries a day
	window int     // entries the feed lists
	phase  float64 // offset of the first entry, in days
}

// entries returns the entries the feed lists at day d (fractional), oldest first.
func (s *simSource) entries(c *corpus, d float64) []app.Item {
	last := int((d - s.phase) * s.perDay) // entries published so far, numbered from 0 (day phase)
	var out []app.Item
	for k := last - s.window + 1; k <= last; k++ {
		pub := day0.Add(time.Duration((s.phase + float64(k)/s.perDay) * 24 * float64(time.Hour)))
		seed := uint64(s.src.ID)<<32 ^ uint64(k+1_000_000)*0x9E3779B97F4A7C15
		size := 2000 + int(seed>>40%3000) // raw HTML 2–5 KB
		text := c.slice(seed, size*7/10)
		half := strings.LastIndexByte(text[:len(text)/2], ' ') + 1
		link := fmt.Sprintf("https://site%d.example.com/%d/%02d/post-%d-%s", s.src.ID, pub.Year(), pub.Month(), k, simWord(seed%5000))
		raw := `<div class="entry-content"><p>` + text[:half] + `</p><figure><img src="` + link + `/cover.jpg" alt=""></figure><p>` +
			text[half:] + ` <a href="` + link + `#more">Continue reading</a></p></div>`
		out = append(out, app.Item{
			GUID: link, Link: link, Title: c.slice(seed>>7, 60), Author: "Author " + simWord(seed%300),
			PublishedAt: &pub, RawContent: raw, CleanContent: raw, Text: text,
			Extra: map[string]any{"comments": link + "#comments"},
		})
	}
	return out
}

type dayFigures struct {
	day                   int
	items, kept, tombs    int
	fileMB, walMB, freeMB float64
	ftsMB, tombMB         float64 // -1 when not measured that day
	pruned, batches       int
	prune, maxWait        time.Duration
	longest               time.Duration
	compacted             bool
	dayTime               time.Duration
}

func runRetention(b *testing.B, simDays, keepDays, nSources int) {
	ctx := context.Background()
	clock := sqlitetest.NewClock(day0)
	path := os.Getenv("RETENTION_DB")
	if path == "" {
		// The sizes do not depend on the file system, the run time does: on this machine's
		// virtual disk a simulated day took 10 s, in memory (tmpfs) 4 s.
		dir := b.TempDir()
		if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() && os.Getenv("RETENTION_ON_DISK") == "" {
			if d, err := os.MkdirTemp("/dev/shm", "morningdeck-retention-"); err == nil {
				dir = d
				defer os.RemoveAll(d)
			}
		}
		path = dir + "/retention.db"
	} else {
		_ = os.Remove(path)
		_ = os.Remove(path + "-wal")
		_ = os.Remove(path + "-shm")
	}
	db, err := sqlite.Open(ctx, sqlite.Options{Path: path, Clock: clock})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	c := newCorpus(8 << 20)
	var sources []*simSource
	for i := range nSources {
		s := &simSource{src: &app.Source{UserID: 1, Type: app.SourceRSS, URL: fmt.Sprintf("https://site%d.example.com/feed", i), Name: fmt.Sprint("Site ", i), RefreshIntervalMinutes: 60}}
		if err := db.CreateSource(ctx, s.src, nil); err != nil {
			b.Fatal(err)
		}
		if i%10 == 9 {
			s.perDay, s.window, s.phase = 1.0/3, 20, float64(i%3)
		} else {
			s.perDay, s.window = float64(10+i%21), 30
		}
		sources = append(sources, s)
	}
	brief := &app.Briefing{UserID: 1, Name: "Daily", Frequency: "DAILY"}
	if err := (&app.Briefings{Store: db}).Save(ctx, brief); err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	var figs []dayFigures
	fmt.Printf("%d sources, retention %d days, %d days simulated, database %s\n", nSources, keepDays, simDays, path)
	fmt.Println("day   items  kept  tombstones  file MB  wal MB  free MB  fts MB  tomb MB  pruned  batches  prune s  longest batch ms  probe max wait ms  fts compacted  day s")
	b.ResetTimer()
	for d := range simDays {
		dayStart := time.Now()
		f := dayFigures{day: d + 1, ftsMB: -1, tombMB: -1}
		var firstID int64
		_ = db.Read.QueryRow(`select coalesce(max(id), 0) + 1 from items`).Scan(&firstID)
		// Fetch every source once, spread over the day.
		for i, s := range sources {
			at := float64(d) + float64(i)/float64(len(sources))
			clock.Set(day0.Add(time.Duration(at * 24 * float64(time.Hour))))
			if _, err := db.FinishFetch(ctx, s.src, &app.FetchResult{Items: s.entries(c, at)}, nil); err != nil {
				b.Fatal(err)
			}
			if s.src.LastFetchedAt == nil {
				now := clock.Now()
				s.src.LastFetchedAt = &now // later fetches store NEW items, as for the fetch worker
			}
		}
		// Enrichment of the day's items, 500 per transaction (it rewrites the rows).
		var lastID int64
		_ = db.Read.QueryRow(`select coalesce(max(id), 0) from items`).Scan(&lastID)
		for from := firstID; from <= lastID; from += 500 {
			_, err := db.Write.Exec(`update items set status = 'DONE', status_changed_at = created_at,
				summary = substr(text_content, 1, 320), tags = '["' || lower(substr(title, 1, 6)) || '","news"]',
				topics = '["Technology"]', score = (id * 37) % 100, score_reasoning = 'matches your interests: ' || substr(title, 1, 30),
				enriched_by = 'embedded', attempts = 1
				where id between ? and ? and enriched_by = ''`, from, min(from+499, lastID))
			if err != nil {
				b.Fatal(err)
			}
		}
		// The indexer (every 2 s in the app) mostly finds items already enriched: the embedded
		// enricher takes milliseconds an item.
		for {
			n, err := db.IndexItems(ctx, 2000)
			if err != nil {
				b.Fatal(err)
			}
			if n == 0 {
				break
			}
		}
		// The reader stars 20 items a day; a briefing references the day's 10 best.
		if lastID >= firstID {
			for range 20 {
				if _, err := db.Write.Exec(`update items set starred = 1 where id = ?`, firstID+r.Int64N(lastID-firstID+1)); err != nil {
					b.Fatal(err)
				}
			}
			rows, err := db.Read.Query(`select id, title, score from items where id >= ? order by score desc limit 10`, firstID)
			if err != nil {
				b.Fatal(err)
			}
			rep := &app.Report{GeneratedAt: clock.Now(), PeriodStart: clock.Now().Add(-24 * time.Hour), PeriodEnd: clock.Now()}
			for rows.Next() {
				var id int64
				var it app.ReportItem
				if err := rows.Scan(&id, &it.Title, &it.Score); err != nil {
					b.Fatal(err)
				}
				it.Rank, it.ItemID = len(rep.Items)+1, &id
				rep.Items = append(rep.Items, it)
			}
			rows.Close()
			if err := db.FinishBriefing(ctx, brief, rep, nil); err != nil {
				b.Fatal(err)
			}
		}
		// The daily prune, with a probe writing meanwhile.
		clock.Set(day0.Add(time.Duration(d)*24*time.Hour + 23*time.Hour + 59*time.Minute))
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				t0 := time.Now()
				if _, err := db.Write.Exec(`update users set timezone = timezone where id = 1`); err != nil {
					b.Error(err)
					return
				}
				f.maxWait = max(f.maxWait, time.Since(t0))
				time.Sleep(2 * time.Millisecond)
			}
		}()
		t0 := time.Now()
		res, err := db.Prune(ctx, clock.Now().Add(-time.Duration(keepDays)*24*time.Hour))
		f.prune = time.Since(t0)
		close(stop)
		wg.Wait()
		if err != nil {
			b.Fatal(err)
		}
		f.pruned, f.kept, f.batches, f.longest, f.compacted = res.Items, res.Kept, res.Batches, res.LongestBatch, res.SearchCompacted
		f.freeMB = float64(res.FreeBytes) / 1e6
		_ = db.Read.QueryRow(`select count(*) from items`).Scan(&f.items)
		_ = db.Read.QueryRow(`select count(*) from item_tombstones`).Scan(&f.tombs)
		f.fileMB = float64(fileSize(b, path)) / 1e6
		f.walMB = float64(fileSize(b, path+"-wal")) / 1e6
		if (d+1)%7 == 0 || d == simDays-1 {
			var fts, tombs int64
			_ = db.Read.QueryRow(`select coalesce(sum(pgsize) filter (where name like 'items_fts%'), 0),
				coalesce(sum(pgsize) filter (where name = 'item_tombstones'), 0) from dbstat where aggregate = 1`).Scan(&fts, &tombs)
			f.ftsMB, f.tombMB = float64(fts)/1e6, float64(tombs)/1e6
		}
		f.dayTime = time.Since(dayStart)
		figs = append(figs, f)
		fts, tomb := "     -", "      -"
		if f.ftsMB >= 0 {
			fts, tomb = fmt.Sprintf("%6.1f", f.ftsMB), fmt.Sprintf("%7.1f", f.tombMB)
		}
		compacted := ""
		if f.compacted {
			compacted = "yes"
		}
		fmt.Printf("%3d  %6d  %4d  %10d  %7.1f  %6.1f  %7.1f  %s  %s  %6d  %7d  %7.2f  %16.0f  %17.0f  %13s  %5.1f\n", f.day, f.items, f.kept, f.tombs,
			f.fileMB, f.walMB, f.freeMB, fts, tomb, f.pruned, f.batches, f.prune.Seconds(), float64(f.longest.Microseconds())/1000,
			float64(f.maxWait.Microseconds())/1000, compacted, f.dayTime.Seconds())
	}
	b.StopTimer()

	// No pruned entry came back: every item arrived within a day of its publication
	// (the first day's import aside).
	var resurrected int
	if err := db.Read.QueryRow(`select count(*) from items where created_at >= ? and julianday(created_at) - julianday(published_at) > 1.01`,
		sqlite.FormatTime(day0.Add(24*time.Hour))).Scan(&resurrected); err != nil {
		b.Fatal(err)
	}
	if resurrected != 0 {
		b.Fatalf("%d pruned entries came back as new items", resurrected)
	}
	var res string
	if err := db.Read.QueryRow(`pragma quick_check`).Scan(&res); err != nil || res != "ok" {
		b.Fatalf("quick_check: %s %v", res, err)
	}
	if _, err := db.Write.Exec(`insert into items_fts (items_fts, rank) values ('integrity-check', 1)`); err != nil {
		b.Fatalf("search index: %v", err)
	}
	t0 := time.Now()
	got, err := db.Items(ctx, app.ItemFilter{UserID: 1, Q: "solar battery"})
	if err != nil {
		b.Fatal(err)
	}
	searchTime := time.Since(t0)

	// A linear fit of the size over the last week (the steady state's slope), and extrapolations.
	var sb strings.Builder
	var maxMB float64
	for _, f := range figs {
		maxMB = max(maxMB, f.fileMB)
	}
	last := figs[len(figs)-1]
	n := min(7, len(figs)-1)
	slope := 0.0
	if n > 0 {
		slope = (last.fileMB - figs[len(figs)-1-n].fileMB) / float64(n)
	}
	day90 := last.fileMB + slope*float64(90-last.day)
	perItem := (last.fileMB - last.freeMB) * 1e6 / float64(last.items)
	// In the steady state a day's prune deletes what a day brings.
	var pruned int
	for _, f := range figs[len(figs)-n:] {
		pruned += f.pruned
	}
	itemsPerDay := float64(pruned) / float64(max(n, 1))
	fmt.Fprintf(&sb, "size slope over the last %d days: %+.2f MB/day; extrapolated to day 90: %.0f MB\n", n, slope, day90)
	fmt.Fprintf(&sb, "%.0f items/day, %.1f KB of file per live item: a %d-day retention would hold ≈ %.0f MB, a 90-day one ≈ %.0f MB\n",
		itemsPerDay, perItem/1e3, keepDays, perItem*itemsPerDay*float64(keepDays)/1e6, perItem*itemsPerDay*90/1e6)
	fmt.Fprintf(&sb, "search %q after %d days: %d results in %s; no pruned entry came back\n", "solar battery", simDays, len(got), searchTime.Round(time.Microsecond))
	// Printed rather than logged: a benchmark's log is cut after ten lines.
	fmt.Print(sb.String())
	b.ReportMetric(last.fileMB, "MB-final")
	b.ReportMetric(maxMB, "MB-max")
	b.ReportMetric(slope, "MB/day-slope")
	b.ReportMetric(day90, "MB-day90")
}
