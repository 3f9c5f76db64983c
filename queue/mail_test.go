package queue_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/app/feeds/mailtest"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// TestMailSourcePipeline: a mail folder is fetched through the fetch queue like any source:
// its first import (the latest N messages) is stored at once, DONE; a newsletter that arrives
// later is an item, NEW (for the processing pipeline), after the source's next interval; the
// messages stay unread on the server.
func TestMailSourcePipeline(t *testing.T) {
	s := mailtest.Start(t, "reader@example.org", "app-password", "Newsletters")
	day := time.Date(2026, 11, 27, 6, 0, 0, 0, time.UTC)
	for n := 1; n <= 4; n++ {
		d := day.Add(time.Duration(n) * time.Minute)
		s.Add(t, "Newsletters", mailtest.Newsletter("news@weekly.example", "The Weekly", n, d, "Rates, chips and coffee prices this week."), d)
	}
	clock := sqlitetest.NewClock(time.Now())
	db := sqlitetest.NewWithClock(t, clock)
	q := queue.NewFetchQueue(queue.FetchQueueOptions{Store: db, Capacity: 100, PollInterval: 20 * time.Millisecond})
	box, err := app.NewSecretBox(make([]byte, 32))
	if err != nil {
		t.Fatal(err)
	}
	sources := &app.Sources{Store: db, Queue: q, Fetches: db, Clock: clock,
		Mail: feeds.NewMail(feeds.MailOptions{Timeout: 10 * time.Second}), Mailboxes: db, Secrets: box}
	queue.HandleFetch(q, sources)
	p := &pipeline{db: db, q: q, clock: clock, sources: sources, sched: &dueSources{s: sources}}
	ctx := context.Background()
	mb := s.Mailbox("Newsletters")
	mb.FirstImport = 3
	every := 30
	src, err := sources.AddMail(ctx, app.AddMail{Mailbox: mb, Password: "app-password", RefreshIntervalMinutes: &every})
	if err != nil {
		t.Fatal(err)
	}
	if src.Type != app.SourceIMAP || src.URL != "imap://reader%40example.org@127.0.0.1:"+itoa(s.Port)+"/Newsletters?tls=none" {
		t.Errorf("source %s %q", src.Type, src.URL)
	}
	p.run(t)
	p.drain(t)
	items, err := db.Items(ctx, app.ItemFilter{UserID: app.DefaultUserID, SourceID: src.ID, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 3 || items[0].Title != "Issue 4: Rates, chips and coffee prices this" || items[0].Status != app.ItemDone {
		t.Fatalf("first import: %d items, first %+v", len(items), items[0])
	}
	if items[0].Extra[app.ExtraSender] != "news@weekly.example" || items[0].Extra[app.ExtraUnsubscribe] != "https://news.example/unsubscribe?id=4" || items[0].Author != "The Weekly" {
		t.Errorf("stored item: author %q extra %v", items[0].Author, items[0].Extra)
	}
	d := day.Add(time.Hour)
	s.Add(t, "Newsletters", mailtest.Newsletter("news@weekly.example", "The Weekly", 5, d, "A new issue arrives after the first import."), d)
	if n, _ := p.sched.Cycle(ctx); n != 0 {
		t.Fatalf("queued %d before the interval passed", n)
	}
	clock.Add(31 * time.Minute)
	if n, _ := p.sched.Cycle(ctx); n != 1 {
		t.Fatalf("after one interval queued %d, want the mail source", n)
	}
	p.drain(t)
	items, err = db.Items(ctx, app.ItemFilter{UserID: app.DefaultUserID, SourceID: src.ID, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 4 || items[0].GUID != "issue-5.news@weekly.example" || items[0].Status != app.ItemNew {
		t.Fatalf("after the interval: %d items, newest %q %s", len(items), items[0].GUID, items[0].Status)
	}
	got, err := db.Source(ctx, app.DefaultUserID, src.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.LastError != "" || got.Status != app.SourceActive {
		t.Errorf("source after fetch: %s %q", got.Status, got.LastError)
	}
	if seen, total := s.Seen(t, "Newsletters"); seen != 0 || total != 5 {
		t.Errorf("server: %d of %d seen", seen, total)
	}

	// A wrong password later (changed on the server side): the fetch fails with the reason, as any source's.
	if err := db.UpdateMailbox(ctx, app.DefaultUserID, src.ID, mb, box.Seal("changed")); err != nil {
		t.Fatal(err)
	}
	clock.Add(31 * time.Minute)
	if n, _ := p.sched.Cycle(ctx); n != 1 {
		t.Fatalf("queued %d", n)
	}
	p.drain(t)
	got, _ = db.Source(ctx, app.DefaultUserID, src.ID)
	if got.ErrorCount != 1 || got.LastError == "" {
		t.Errorf("a refused login: errors %d %q", got.ErrorCount, got.LastError)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
