package queue_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/app/feeds/mailtest"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// newsletterBodies makes n newsletter bodies of real text: each is five items of the test
// corpus's feeds (their titles and sanitized content), as a digest newsletter lists stories.
func newsletterBodies(b testing.TB, n int) []string {
	dir := "../testdata/corpus/feeds"
	files, _ := filepath.Glob(filepath.Join(dir, "*.xml"))
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	f := feeds.New(feeds.Options{})
	var items []app.Item
	for _, file := range files {
		res, err := f.Fetch(context.Background(), feeds.Request{URL: srv.URL + "/" + filepath.Base(file), Type: app.SourceRSS})
		if err == nil {
			items = append(items, res.Items...)
		}
	}
	if len(items) < 100 {
		b.Fatalf("the corpus gave %d items", len(items))
	}
	out := make([]string, n)
	for i := range out {
		var s strings.Builder
		for j := 0; j < 5; j++ {
			it := items[(i*5+j)%len(items)]
			content := it.CleanContent
			if len(content) > 3000 {
				content = content[:strings.LastIndex(content[:3000], " ")] + "…"
			}
			fmt.Fprintf(&s, "<h2><a href=\"%s\">%s</a></h2><div>%s</div>\n", it.Link, it.Title, content)
		}
		out[i] = s.String()
	}
	return out
}

// BenchmarkMailFolderImport: a folder of 1,000 newsletters added as a source (the folder
// checked, then its first import of 1,000 through the fetch queue) and ranked by the embedded
// enricher in that fetch, as serve wires it; the target is 10 s. One op is one whole import
// into a new database; the IMAP server (go-imap's, in process, on loopback) is set up once.
func BenchmarkMailFolderImport(b *testing.B) {
	const n = 1000
	s := mailtest.Start(b, "reader@example.org", "pw", "Newsletters")
	bodies := newsletterBodies(b, n)
	start := time.Now().Add(-n * time.Hour)
	senders := []string{"crew@morningbrew.example", "email@stratechery.example", "peter@golangweekly.example", "lettre@cafe.example", "news@weekly.example"}
	for i, body := range bodies {
		d := start.Add(time.Duration(i) * time.Hour)
		s.Add(b, "Newsletters", mailtest.Newsletter(senders[i%len(senders)], "Sender "+fmt.Sprint(i%len(senders)), i, d, body), d)
	}
	emb := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	box, _ := app.NewSecretBox(make([]byte, 32))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		db := sqlitetest.New(b)
		q := queue.NewFetchQueue(queue.FetchQueueOptions{Store: db, Capacity: 100, PollInterval: 10 * time.Millisecond})
		pq := queue.NewProcessQueue(queue.ProcessQueueOptions{Store: db})
		en := &app.Enriching{Store: db, Queue: pq, Enrichers: &enrich.Chooser{Default: app.EnricherEmbedded, Embedded: emb, Settings: db},
			Observer: emb.Stats(), Offline: emb, Scoring: db, Imports: pq}
		sources := &app.Sources{Store: db, Queue: q, Fetches: db, Mail: feeds.NewMail(feeds.MailOptions{PerFetch: n}), Mailboxes: db, Secrets: box,
			NewItems: en.Pend, FirstImport: pq.EnqueueImportTx, ScoreFirst: en.ScoreFirstImport}
		queue.HandleFetch(q, sources)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { _ = q.Run(ctx); close(done) }()
		mb := s.Mailbox("Newsletters")
		mb.FirstImport = n
		b.StartTimer()
		began, cpuBefore := time.Now(), cpuTime()
		src, err := sources.AddMail(context.Background(), app.AddMail{Mailbox: mb, Password: "pw"})
		if err != nil {
			b.Fatal(err)
		}
		for {
			var stored, ranked int
			if err := db.Read.QueryRow(`select count(*), count(score) from items where source_id = ?`, src.ID).Scan(&stored, &ranked); err != nil {
				b.Fatal(err)
			}
			if ranked == n {
				break
			}
			if time.Since(began) > 2*time.Minute {
				b.Fatalf("%d stored, %d ranked after 2 min", stored, ranked)
			}
			time.Sleep(5 * time.Millisecond)
		}
		took, cpu := time.Since(began), cpuTime()-cpuBefore
		b.StopTimer()
		b.ReportMetric(took.Seconds(), "s/import")
		// The CPU the whole process spent (the in-process IMAP server's included): what the
		// import costs whatever else the machine runs.
		b.ReportMetric(cpu.Seconds(), "cpu-s/import")
		cancel()
		<-done
		b.StartTimer()
	}
}

// cpuTime is the CPU time (user and system) this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
