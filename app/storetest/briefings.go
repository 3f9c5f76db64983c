package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// BriefingStore is the briefings' store, with the deliveries of their reports and the sources'
// store (to make items).
type BriefingStore interface {
	SourceStore
	app.BriefingRunStore
	app.DeliveryStore
	app.UnsubscribeStore
}

// Briefings runs the briefings' suite: saving and listing, one run per period, the candidates
// of a run, its report, and the report's email deliveries, each sent once.
func Briefings(t *testing.T, open Open[BriefingStore]) {
	ctx := context.Background()
	me := app.DefaultUserID
	newBriefing := func(t *testing.T, s BriefingStore, name string, edit func(b *app.Briefing)) *app.Briefing {
		t.Helper()
		b := &app.Briefing{UserID: me, Name: name, Frequency: "DAILY", DayOfWeek: 1, Time: "07:00", Timezone: "UTC", ItemLimit: 10}
		if edit != nil {
			edit(b)
		}
		must(t, "save "+name, s.SaveBriefing(ctx, b))
		return b
	}

	t.Run("a briefing is saved on the user's sources and folder, listed by name, paused, deleted", func(t *testing.T) {
		s := open(t, NewClock(start))
		a := newSource(t, s, "a", "F")
		b := newBriefing(t, s, "morning", func(b *app.Briefing) {
			b.Focus, b.SourceIDs, b.FolderID, b.Topic, b.EmailEnabled, b.Recipients, b.MinScore = "go", []int64{a.ID}, &a.FolderID, "Go", true, []string{"me@example.com"}, 30
		})
		if b.ID == 0 || b.Status != app.BriefingActive || !b.CreatedAt.Equal(start) || b.FolderName != "F" {
			t.Fatalf("saved %+v", b)
		}
		got, err := s.Briefing(ctx, me, b.ID)
		must(t, "briefing", err)
		if !reflect.DeepEqual(got, b) {
			t.Fatalf("read back:\n%+v\nwant\n%+v", got, b)
		}
		if any, err := s.Briefing(ctx, 0, b.ID); err != nil || any.ID != b.ID {
			t.Fatalf("any user's: %+v, %v", any, err)
		}
		_, err = s.Briefing(ctx, me+1, b.ID)
		wantCode(t, "another user's briefing", err, app.ENOTFOUND)
		bad := &app.Briefing{UserID: me, Name: "x", Frequency: "DAILY", Time: "07:00", Timezone: "UTC", ItemLimit: 10, SourceIDs: []int64{a.ID, 9999}}
		wantCode(t, "a briefing on an unknown source", s.SaveBriefing(ctx, bad), app.EINVALID)
		other := int64(9999)
		bad.SourceIDs, bad.FolderID = nil, &other
		wantCode(t, "a briefing on an unknown folder", s.SaveBriefing(ctx, bad), app.EINVALID)
		newBriefing(t, s, "Evening", nil)
		b.Name = "zzz"
		must(t, "update", s.SaveBriefing(ctx, b))
		all, err := s.Briefings(ctx, me)
		must(t, "briefings", err)
		if len(all) != 2 || all[0].Name != "Evening" || all[1].Name != "zzz" {
			t.Fatalf("briefings %v", all)
		}
		if everyone, err := s.Briefings(ctx, 0); err != nil || len(everyone) != 2 {
			t.Fatalf("every user's: %d, %v", len(everyone), err)
		}
		must(t, "pause", s.SetBriefingPaused(ctx, me, b.ID, true))
		if got, _ = s.Briefing(ctx, me, b.ID); got.Status != app.BriefingPaused {
			t.Fatalf("paused: %s", got.Status)
		}
		must(t, "resume", s.SetBriefingPaused(ctx, me, b.ID, false))
		wantCode(t, "pause an unknown briefing", s.SetBriefingPaused(ctx, me, 9999, true), app.ENOTFOUND)
		queued, err := s.QueueBriefing(ctx, b.ID, nil, func(context.Context, *sql.Tx) error { return nil })
		if err != nil || !queued {
			t.Fatalf("queue: %v, %v", queued, err)
		}
		wantCode(t, "pause a queued briefing", s.SetBriefingPaused(ctx, me, b.ID, true), app.ECONFLICT)
		ghost := *b
		ghost.ID = 9999
		wantCode(t, "update an unknown briefing", s.SaveBriefing(ctx, &ghost), app.ENOTFOUND)
		must(t, "delete", s.DeleteBriefing(ctx, me, b.ID))
		wantCode(t, "delete again", s.DeleteBriefing(ctx, me, b.ID), app.ENOTFOUND)
	})

	t.Run("a period runs once: queued, started, finished with its report and deliveries", func(t *testing.T) {
		clock := NewClock(start)
		s := open(t, clock)
		a := newSource(t, s, "a", "")
		score := func(v int) *int { return &v }
		_, err := s.FinishFetch(ctx, a, &app.FetchResult{Items: []app.Item{
			{GUID: "x1", Title: "one", Text: "the first text", Summary: "sum one", Score: score(80), Topics: []string{"Go"}},
			{GUID: "x2", Title: "two", Score: score(20), UsualTopics: []string{"go"}},
			{GUID: "x3", Title: "three", Extra: map[string]any{app.ExtraEnclosures: []app.Enclosure{{URL: "https://a.example/x3.mp3", Type: "audio/mpeg", Medium: "audio"}}}},
		}}, nil)
		must(t, "fetch", err)
		b := newBriefing(t, s, "daily", func(b *app.Briefing) { b.EmailEnabled, b.Recipients = true, []string{"a@example.com", "b@example.com"} })
		due := start.Add(time.Hour)
		var enqueued int
		enqueue := func(_ context.Context, tx *sql.Tx) error { enqueued++; return nil }
		for i, want := range []bool{true, false} {
			queued, err := s.QueueBriefing(ctx, b.ID, &due, enqueue)
			must(t, "queue", err)
			if queued != want {
				t.Fatalf("queue %d: %v, want %v", i, queued, want)
			}
		}
		run, err := s.StartBriefing(ctx, b.ID)
		must(t, "start", err)
		if run == nil || run.Status != app.BriefingProcessing {
			t.Fatalf("started %+v", run)
		}

		// The candidates: items that arrived in the period, best first, by topic.
		from, to := start.Add(-time.Hour), start.Add(time.Hour)
		cands, err := s.Candidates(ctx, run, from, to, 10)
		must(t, "candidates", err)
		var titles []string
		for _, c := range cands {
			titles = append(titles, c.Title)
		}
		if fmt.Sprint(titles) != "[one two three]" || cands[0].SourceName != "a" || cands[0].Text != "the first text" || *cands[0].Score != 80 {
			t.Fatalf("candidates %v (%+v)", titles, cands[0])
		}
		if cands[0].Audio() || !cands[2].Audio() {
			t.Fatalf("candidates: the episode is not known as one (audio %v, %v)", cands[0].Audio(), cands[2].Audio())
		}
		if later, _ := s.Candidates(ctx, run, to, to.Add(time.Hour), 10); len(later) != 0 {
			t.Fatalf("candidates of a later period: %d", len(later))
		}
		topical := *run
		topical.Topic = "GO"
		if got, _ := s.Candidates(ctx, &topical, from, to, 10); len(got) != 2 {
			t.Fatalf("candidates on a topic (their own, or the source's usual): %d", len(got))
		}
		details, err := s.CandidateDetails(ctx, me, []int64{cands[0].ID, cands[1].ID})
		must(t, "details", err)
		if len(details) != 2 || details[cands[0].ID].Summary != "sum one" || fmt.Sprint(details[cands[0].ID].Topics) != "[Go]" {
			t.Fatalf("details %+v", details[cands[0].ID])
		}
		texts, err := s.CandidateTexts(ctx, me, []int64{cands[0].ID}, 5)
		must(t, "texts", err)
		if texts[cands[0].ID] != "the f" {
			t.Fatalf("texts %v", texts)
		}

		clock.Add(time.Minute)
		r := &app.Report{GeneratedAt: clock.Now(), PeriodStart: from, PeriodEnd: to, Overview: "all quiet", Items: []app.ReportItem{
			{Rank: 1, ItemID: &cands[0].ID, SourceName: "a", Title: "one", Link: "l", Summary: "s", Score: 80, AlsoCoveredBy: []app.Coverage{{Title: "elsewhere"}}},
			{Rank: 2, Title: "gone"},
		}}
		var deliveries []int64
		must(t, "finish", s.FinishBriefing(ctx, run, r, func(ctx context.Context, tx *sql.Tx) error {
			var err error
			deliveries, err = s.CreateDeliveriesTx(ctx, tx, r.ID, b.Recipients)
			if err != nil {
				return err
			}
			again, err := s.CreateDeliveriesTx(ctx, tx, r.ID, b.Recipients)
			if len(again) != 0 {
				return fmt.Errorf("deliveries made twice: %v", again)
			}
			return err
		}))
		if r.ID == 0 || len(deliveries) != 2 {
			t.Fatalf("report %d, deliveries %v", r.ID, deliveries)
		}
		got, err := s.Briefing(ctx, me, b.ID)
		must(t, "briefing after", err)
		if got.Status != app.BriefingActive || got.LastExecutedAt == nil || !got.LastExecutedAt.Equal(to) {
			t.Fatalf("after the run %+v", got)
		}
		if queued, err := s.QueueBriefing(ctx, b.ID, &due, enqueue); err != nil || queued {
			t.Fatalf("the same period queued again: %v, %v", queued, err)
		}
		next := to.Add(24 * time.Hour)
		if queued, err := s.QueueBriefing(ctx, b.ID, &next, enqueue); err != nil || !queued || enqueued != 2 {
			t.Fatalf("the next period: %v, %v (%d enqueued)", queued, err, enqueued)
		}

		rep, err := s.Report(ctx, me, r.ID)
		must(t, "report", err)
		if rep.Overview != "all quiet" || rep.ItemCount != 2 || len(rep.Items) != 2 || rep.Items[0].ItemID == nil || *rep.Items[0].ItemID != cands[0].ID ||
			rep.Items[1].ItemID != nil || rep.Items[0].AlsoCoveredBy[0].Title != "elsewhere" || !rep.GeneratedAt.Equal(start.Add(time.Minute)) || !rep.PeriodEnd.Equal(to) {
			t.Fatalf("report %+v", rep)
		}
		_, err = s.Report(ctx, me+1, r.ID)
		wantCode(t, "another user's report", err, app.ENOTFOUND)
		list, err := s.ReportsWithItems(ctx, me, b.ID, 5)
		must(t, "reports with items", err)
		if len(list) != 1 || len(list[0].Items) != 2 {
			t.Fatalf("reports with items %+v", list)
		}
		if n, err := s.MarkReportRead(ctx, me, r.ID); err != nil || n != 1 {
			t.Fatalf("mark the report read: %d, %v", n, err)
		}

		// Each email is sent once: a delivery started is not started again once sent.
		ds, err := s.Deliveries(ctx, r.ID)
		must(t, "deliveries", err)
		if len(ds) != 2 || ds[0].Recipient != "a@example.com" || ds[0].Status != app.DeliveryPending {
			t.Fatalf("deliveries %+v", ds)
		}
		d, err := s.StartDelivery(ctx, ds[0].ID)
		must(t, "start delivery", err)
		if d == nil || d.Status != app.DeliverySending || d.Attempts != 1 {
			t.Fatalf("started %+v", d)
		}
		if n, err := s.SentBy(ctx, me, start, ds[0].ID+1); err != nil || n != 1 {
			t.Fatalf("sent or being sent: %d, %v", n, err)
		}
		must(t, "sent", s.FinishDelivery(ctx, d.ID, app.DeliverySent, "", nil))
		if again, err := s.StartDelivery(ctx, d.ID); err != nil || again != nil {
			t.Fatalf("a sent delivery started again: %+v, %v", again, err)
		}
		if n, err := s.SentBy(ctx, me, start, 0); err != nil || n != 1 {
			t.Fatalf("sent: %d, %v", n, err)
		}
		wantCode(t, "resend a sent one", s.ResendDelivery(ctx, me, d.ID, func(context.Context, *sql.Tx) error { return nil }), app.ECONFLICT)
		_, err = s.StartDelivery(ctx, ds[1].ID)
		must(t, "start the second", err)
		must(t, "fail the second", s.FinishDelivery(ctx, ds[1].ID, app.DeliveryFailed, "550 no such user", nil))
		wantCode(t, "another user's resend", s.ResendDelivery(ctx, me+1, ds[1].ID, func(context.Context, *sql.Tx) error { return nil }), app.ECONFLICT)
		var resent bool
		must(t, "resend", s.ResendDelivery(ctx, me, ds[1].ID, func(context.Context, *sql.Tx) error { resent = true; return nil }))
		ds, _ = s.Deliveries(ctx, r.ID)
		if !resent || ds[1].Status != app.DeliveryPending || ds[1].Attempts != 0 || ds[0].SentAt == nil || !ds[0].SentAt.Equal(start.Add(time.Minute)) {
			t.Fatalf("after the resend %+v %+v", ds[0], ds[1])
		}
	})

	t.Run("a failed run is an error; a stuck one is reset; recipients unsubscribe", func(t *testing.T) {
		clock := NewClock(start)
		s := open(t, clock)
		b := newBriefing(t, s, "daily", func(b *app.Briefing) { b.EmailEnabled, b.Recipients = true, []string{"A@example.com", "b@example.com"} })
		_, err := s.QueueBriefing(ctx, b.ID, nil, func(context.Context, *sql.Tx) error { return nil })
		must(t, "queue", err)
		if got, _ := s.StartBriefing(ctx, 9999); got != nil {
			t.Fatalf("started an unknown briefing")
		}
		must(t, "fail", s.FailBriefing(ctx, b.ID, "LLM down", nil))
		got, _ := s.Briefing(ctx, me, b.ID)
		if got.Status != app.BriefingError || got.LastError != "LLM down" {
			t.Fatalf("failed %+v", got)
		}
		if started, _ := s.StartBriefing(ctx, b.ID); started != nil {
			t.Fatalf("an ERROR briefing was started")
		}
		// ERROR is queued again by the next period; a queued one whose job is lost is reset.
		_, err = s.QueueBriefing(ctx, b.ID, nil, func(context.Context, *sql.Tx) error { return nil })
		must(t, "queue again", err)
		clock.Add(time.Hour)
		ids, err := s.ResetStuckBriefings(ctx, clock.Now().Add(-time.Minute))
		must(t, "reset", err)
		if fmt.Sprint(ids) != fmt.Sprint([]int64{b.ID}) {
			t.Fatalf("reset %v", ids)
		}
		removed, err := s.RemoveRecipient(ctx, b.ID, " a@EXAMPLE.com ")
		must(t, "unsubscribe", err)
		if got, _ = s.Briefing(ctx, me, b.ID); !removed || fmt.Sprint(got.Recipients) != "[b@example.com]" || !got.EmailEnabled {
			t.Fatalf("after one unsubscribes: %v %+v", removed, got)
		}
		if removed, _ = s.RemoveRecipient(ctx, b.ID, "nobody@example.com"); removed {
			t.Fatal("removed someone who was not a recipient")
		}
		_, err = s.RemoveRecipient(ctx, b.ID, "b@example.com")
		must(t, "unsubscribe the last", err)
		if got, _ = s.Briefing(ctx, me, b.ID); len(got.Recipients) != 0 || got.EmailEnabled {
			t.Fatalf("after the last unsubscribes: %+v", got)
		}
		_, err = s.RemoveRecipient(ctx, 9999, "x@example.com")
		wantCode(t, "an unknown briefing", err, app.ENOTFOUND)
	})

	t.Run("reports are listed newest first; a preview leaves the period", func(t *testing.T) {
		clock := NewClock(start)
		s := open(t, clock)
		b := newBriefing(t, s, "daily", nil)
		var ids []int64
		for i := range 3 {
			r := &app.Report{GeneratedAt: start.Add(time.Duration(i) * time.Hour), PeriodStart: start, PeriodEnd: start.Add(time.Duration(i) * time.Hour), Preview: i == 2,
				Items: []app.ReportItem{{Rank: 1, Title: fmt.Sprint("story ", i)}}}
			must(t, "finish", s.FinishBriefing(ctx, b, r, nil))
			ids = append(ids, r.ID)
		}
		got, _ := s.Briefing(ctx, me, b.ID)
		if !got.LastExecutedAt.Equal(start.Add(time.Hour)) {
			t.Fatalf("a preview moved the period: %v", got.LastExecutedAt)
		}
		list, err := s.Reports(ctx, me, b.ID, 2)
		must(t, "reports", err)
		if len(list) != 2 || list[0].ID != ids[2] || list[1].ID != ids[1] || !list[0].Preview || list[0].ItemCount != 1 || list[0].Items != nil {
			t.Fatalf("reports %+v", list)
		}
		with, err := s.ReportsWithItems(ctx, me, b.ID, 10)
		must(t, "with items", err)
		var titles []string
		for _, r := range with {
			titles = append(titles, r.Items[0].Title)
		}
		sort.Strings(titles)
		if fmt.Sprint(titles) != "[story 0 story 1 story 2]" {
			t.Fatalf("with items %v", titles)
		}
		if other, _ := s.Reports(ctx, me+1, b.ID, 10); len(other) != 0 {
			t.Fatalf("another user's reports: %d", len(other))
		}
	})
}
