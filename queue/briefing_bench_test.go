package queue_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// BenchmarkFocusBriefing20000 builds a focus briefing over a day of 20,000 items in a real
// database: read the period's items, look the focus up in every one (the first pass), score
// the best few thousand for the focus, score the best again on their full text, group the
// stories, write the overview (issue 13's target: < 2 s). Titles
// are real headlines (testdata/corpus/stories/uci-dev.tsv); each text is about 3,000
// characters of other headlines.
func BenchmarkFocusBriefing20000(b *testing.B) {
	f, err := os.Open("../testdata/corpus/stories/uci-dev.tsv")
	if err != nil {
		b.Skip("corpus not found:", err)
	}
	var heads []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) == 6 && !strings.HasPrefix(cols[0], "#") {
			heads = append(heads, cols[5])
		}
	}
	f.Close()
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC)
	clock := sqlitetest.NewClock(now)
	db := sqlitetest.NewWithClock(b, clock)
	var sources []int64
	for i := range 50 {
		src := &app.Source{UserID: 1, Type: app.SourceRSS, URL: fmt.Sprintf("http://outlet%d/feed", i), Name: fmt.Sprintf("Outlet %d", i), RefreshIntervalMinutes: 15}
		if err := db.CreateSource(ctx, src, nil); err != nil {
			b.Fatal(err)
		}
		sources = append(sources, src.ID)
	}
	tx, err := db.Write.Begin()
	if err != nil {
		b.Fatal(err)
	}
	const n = 20_000
	for i := range n {
		var text strings.Builder
		for k := 0; text.Len() < 3000; k++ {
			text.WriteString(heads[(i*7+k*13)%len(heads)] + ". ")
		}
		at := now.Add(-time.Duration(i%1440+1) * time.Minute).Format("2006-01-02T15:04:05.000Z")
		if _, err := tx.Exec(`insert into items (source_id, user_id, guid, title, link, summary, text_content, score, score_reasoning, status, published_at, created_at, tags, topics)
			values (?, 1, ?, ?, ?, '', ?, ?, 'r', 'DONE', ?, ?, '["markets"]', '["Business"]')`, sources[i%len(sources)], fmt.Sprint("g", i),
			heads[i%len(heads)], fmt.Sprint("http://x/", i), text.String(), i%100, at, at); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	svc := &app.Briefings{Store: db, Ranker: enrich.Ranker{Embedded: enrich.NewEmbedded(enrich.EmbeddedOptions{})}, Clock: clock}
	br := &app.Briefing{UserID: 1, Name: "Markets", Focus: "stock markets and the Federal Reserve", Time: "07:00", Timezone: "UTC", ItemLimit: 10}
	if err := svc.Save(ctx, br); err != nil {
		b.Fatal(err)
	}
	br.CreatedAt = time.Time{} // a first run: the day before 07:00
	b.ResetTimer()
	cpu := cpuSeconds()
	for range b.N {
		r, err := svc.Preview(ctx, br)
		if err != nil {
			b.Fatal(err)
		}
		if len(r.Items) != 10 {
			b.Fatalf("%d stories, want 10", len(r.Items))
		}
		if !strings.Contains(r.Overview, "picked from 20000 new items") {
			b.Fatalf("overview %q: not every item of the day was considered", r.Overview)
		}
	}
	b.ReportMetric((cpuSeconds()-cpu)/float64(b.N), "cpu-s/op") // the machine may be shared
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
