package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// EnrichingStore is the processing pipeline's store with the sources' (to make items).
type EnrichingStore interface {
	SourceStore
	app.EnrichingStore
	SetCredits(ctx context.Context, userID int64, credits int) error
}

// Enriching runs the processing pipeline's suite: new items pended and queued once, processing
// claimed once, results stored with the filters' effect and a credit spent, failures retried
// then dead, stuck items reset.
func Enriching(t *testing.T, open Open[EnrichingStore]) {
	ctx := context.Background()
	me := app.DefaultUserID
	// setup: a source with a first import (DONE) and a second fetch of new items n1..n3 (NEW).
	setup := func(t *testing.T) (EnrichingStore, *Clock, map[string]int64) {
		clock := NewClock(start)
		s := open(t, clock)
		src := newSource(t, s, "a", "")
		src, _ = fetched(t, s, src, "old")
		clock.Add(time.Minute)
		var newIDs []int64
		r := &app.FetchResult{Items: []app.Item{
			{GUID: "n1", Title: "one", Text: "the text of one"},
			{GUID: "n2", Title: "two", PublishedAt: &start},
			{GUID: "n3", Title: "three", Hidden: true},
		}}
		_, err := s.FinishFetch(ctx, src, r, func(_ context.Context, _ *sql.Tx, ids []int64, first bool) error {
			newIDs = ids
			return nil
		})
		must(t, "second fetch", err)
		items, err := s.Items(ctx, app.ItemFilter{UserID: me, Limit: 100})
		must(t, "items", err)
		hidden, err := s.Items(ctx, app.ItemFilter{UserID: me, Limit: 100, Hidden: true})
		must(t, "hidden", err)
		byGUID := map[string]int64{}
		for _, it := range append(items, hidden...) {
			byGUID[it.GUID] = it.ID
		}
		if len(newIDs) != 3 || len(byGUID) != 4 {
			t.Fatalf("setup: new %v, items %v", newIDs, byGUID)
		}
		return s, clock, byGUID
	}
	status := func(t *testing.T, s EnrichingStore, id int64) *app.Item {
		t.Helper()
		it, err := s.Item(ctx, me, id)
		must(t, "item", err)
		return it
	}

	t.Run("new items are pended and queued once, while their user has credits", func(t *testing.T) {
		s, _, id := setup(t)
		newItems, err := s.NewItems(ctx, 10)
		must(t, "new items", err)
		if len(newItems) != 2 { // the hidden one is never processed
			t.Fatalf("new items %v", newItems)
		}
		var queued []app.PendingItem
		enqueue := func(_ context.Context, tx *sql.Tx, it app.PendingItem) error { queued = append(queued, it); return nil }
		n, err := s.PendAndEnqueue(ctx, []int64{id["n1"], id["n2"], id["n3"], id["old"]}, enqueue)
		must(t, "pend", err)
		if n != 2 || len(queued) != 2 || queued[0].ID != id["n1"] || queued[1].ID != id["n2"] ||
			queued[0].PublishedAt != nil || queued[1].PublishedAt == nil || !queued[1].PublishedAt.Equal(start) {
			t.Fatalf("pended %d: %+v", n, queued)
		}
		if st := status(t, s, id["n1"]).Status; st != app.ItemPending {
			t.Fatalf("n1 is %s", st)
		}
		if n, err = s.PendAndEnqueue(ctx, []int64{id["n1"]}, enqueue); err != nil || n != 0 {
			t.Fatalf("pended again: %d, %v", n, err)
		}
		if newItems, _ = s.NewItems(ctx, 10); len(newItems) != 0 {
			t.Fatalf("new items after pending: %v", newItems)
		}
	})

	t.Run("without credits items stay new; a full queue leaves the item new", func(t *testing.T) {
		s, _, id := setup(t)
		must(t, "no credits", s.SetCredits(ctx, me, 0))
		if got, err := s.NewItems(ctx, 10); err != nil || len(got) != 0 {
			t.Fatalf("new items without credits: %v, %v", got, err)
		}
		var tx int
		n, err := s.PendAndEnqueue(ctx, []int64{id["n1"]}, func(context.Context, *sql.Tx, app.PendingItem) error { tx++; return nil })
		if err != nil || n != 0 || tx != 0 {
			t.Fatalf("pended without credits: %d, %v", n, err)
		}
		must(t, "credits", s.SetCredits(ctx, me, 5))
		n, err = s.PendAndEnqueue(ctx, []int64{id["n1"], id["n2"]}, func(context.Context, *sql.Tx, app.PendingItem) error { return app.ErrQueueFull })
		if err != nil || n != 0 {
			t.Fatalf("a full queue: %d, %v", n, err)
		}
		if st := status(t, s, id["n1"]).Status; st != app.ItemNew {
			t.Fatalf("n1 after a full queue is %s", st)
		}
	})

	t.Run("processing is claimed once, stored with the filters' effect, one credit spent", func(t *testing.T) {
		s, clock, id := setup(t)
		in, err := s.StartProcessing(ctx, id["n1"], time.Minute)
		must(t, "start", err)
		if in == nil || in.Item.ID != id["n1"] || in.Settings.Credits != 1000 || in.Item.Status != app.ItemProcessing {
			t.Fatalf("start: %+v", in)
		}
		if again, err := s.StartProcessing(ctx, id["n1"], time.Minute); err != nil || again != nil {
			t.Fatalf("claimed twice: %+v, %v", again, err)
		}
		clock.Add(2 * time.Minute) // a worker that died: the claim is stale
		in, err = s.StartProcessing(ctx, id["n1"], time.Minute)
		must(t, "start a stale claim", err)
		if in == nil {
			t.Fatal("a stale claim was not taken over")
		}
		r := app.ProcessResult{
			Enrichment:   &app.Enrichment{Summary: "sum", Tags: []string{"t"}, Topics: []string{"Go"}, Score: 95, Reasoning: "good", EnrichedBy: "embedded", PromptTokens: 3},
			Text:         "the article's text",
			ArticleError: "",
			Base:         &app.Enrichment{Score: 150, Reasoning: "llm"},
			Effect:       app.FilterEffect{Star: true, Read: true, ScoreDelta: 10, Matched: []string{"boost"}},
		}
		var ran bool
		must(t, "finish", s.FinishProcessing(ctx, in.Item, r, func(context.Context, *sql.Tx) error { ran = true; return nil }))
		it := status(t, s, id["n1"])
		if !ran || it.Status != app.ItemDone || it.Summary != "sum" || fmt.Sprint(it.Tags) != "[t]" || fmt.Sprint(it.Topics) != "[Go]" ||
			it.Score == nil || *it.Score != 100 || it.ScoreReasoning != "good · filter: boost" || it.EnrichedBy != "embedded" ||
			it.Text != "the article's text" || !it.Starred || it.ReadAt == nil || it.Attempts != 1 {
			t.Fatalf("after processing: %+v", it)
		}
		set, err := s.Settings(ctx, me)
		must(t, "settings", err)
		if set.Credits != 999 {
			t.Fatalf("credits %d, want 999", set.Credits)
		}
		// A second finish (a redelivered job) stores nothing and spends nothing.
		must(t, "finish again", s.FinishProcessing(ctx, in.Item, r, nil))
		if set, _ = s.Settings(ctx, me); set.Credits != 999 {
			t.Fatalf("credits after a second finish %d", set.Credits)
		}
		// The summary may be the text itself; the article error is kept in Extra.
		in2, err := s.StartProcessing(ctx, id["n2"], time.Minute)
		must(t, "start n2", err)
		must(t, "finish n2", s.FinishProcessing(ctx, in2.Item, app.ProcessResult{Enrichment: &app.Enrichment{Summary: "two's own text", Score: 10}, Text: "two's own text", ArticleError: "HTTP 404"}, nil))
		it = status(t, s, id["n2"])
		if it.Summary != "two's own text" || it.Text != "two's own text" || it.Extra[app.ExtraArticleError] != "HTTP 404" {
			t.Fatalf("n2: summary %q text %q extra %v", it.Summary, it.Text, it.Extra)
		}
		// Without credits, a claimed item goes back to NEW.
		must(t, "no credits", s.SetCredits(ctx, me, 0))
		in3, err := s.StartProcessing(ctx, id["old"], time.Minute) // DONE: nothing to do
		if err != nil || in3 != nil {
			t.Fatalf("a done item was claimed: %+v, %v", in3, err)
		}
		_, err = s.PendAndEnqueue(ctx, nil, nil)
		must(t, "pend nothing", err)
	})

	t.Run("a failed attempt is retried, the last one is an error; stuck items are reset", func(t *testing.T) {
		s, clock, id := setup(t)
		_, err := s.StartProcessing(ctx, id["n1"], time.Minute)
		must(t, "start", err)
		must(t, "fail", s.FailProcessing(ctx, id["n1"], "LLM down", false, nil))
		it := status(t, s, id["n1"])
		if it.Status != app.ItemPending || it.LastError != "LLM down" || it.Attempts != 1 {
			t.Fatalf("after a failure: %+v", it)
		}
		must(t, "fail for good", s.FailProcessing(ctx, id["n1"], "LLM still down", true, nil))
		if it = status(t, s, id["n1"]); it.Status != app.ItemError || it.Attempts != 2 {
			t.Fatalf("after the last failure: %+v", it)
		}
		// n2 pending, its job lost: reset to NEW once its change is older than the cutoff.
		_, err = s.PendAndEnqueue(ctx, []int64{id["n2"]}, func(context.Context, *sql.Tx, app.PendingItem) error { return nil })
		must(t, "pend n2", err)
		reset, err := s.ResetStuckItems(ctx, clock.Now().Add(-time.Minute))
		must(t, "reset, too soon", err)
		if len(reset) != 0 {
			t.Fatalf("reset too soon: %v", reset)
		}
		clock.Add(time.Hour)
		reset, err = s.ResetStuckItems(ctx, clock.Now().Add(-time.Minute))
		must(t, "reset", err)
		if fmt.Sprint(reset) != fmt.Sprint([]int64{id["n2"]}) || status(t, s, id["n2"]).Status != app.ItemNew {
			t.Fatalf("reset %v", reset)
		}
		texts, err := s.RecentTexts(ctx, 2)
		must(t, "recent texts", err)
		if len(texts) != 2 || texts[0] != "three " {
			t.Fatalf("recent texts %q", texts)
		}
	})
}
