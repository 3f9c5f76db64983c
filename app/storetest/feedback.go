package storetest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/morningdeck/morningdeck/app"
)

// FeedbackStore is the feedback and background scoring store, with the sources' (to make items).
type FeedbackStore interface {
	SourceStore
	app.FeedbackStore
	app.ScoringStore
}

// Feedback runs the feedback and scoring suite: events recorded once and cancelled, the reading
// model's versions, a re-score started once per version, and the background scores of a first
// import and of a re-score, each applied only where it may be.
func Feedback(t *testing.T, open Open[FeedbackStore]) {
	ctx := context.Background()
	me := app.DefaultUserID
	// setup: a source's first import of three unscored items (DONE, enriched by nobody).
	setup := func(t *testing.T) (FeedbackStore, *app.Source, []*app.Item) {
		s := open(t, NewClock(start))
		src := newSource(t, s, "a", "")
		_, err := s.FinishFetch(ctx, src, &app.FetchResult{Items: []app.Item{
			{GUID: "i1", Title: "one", Text: "text one"}, {GUID: "i2", Title: "two", Text: "text two"}, {GUID: "i3", Title: "three", UsualTopics: []string{"Go"},
				Extra: map[string]any{app.ExtraEnclosures: []app.Enclosure{{URL: "https://a.example/3.mp3", Type: "audio/mpeg", Medium: "audio"}}}},
		}}, nil)
		must(t, "fetch", err)
		items, err := s.Items(ctx, app.ItemFilter{UserID: me, Limit: 10})
		must(t, "items", err)
		if len(items) != 3 {
			t.Fatalf("items %v", ids(items))
		}
		slices.SortFunc(items, func(a, b *app.Item) int { return cmp.Compare(a.ID, b.ID) }) // i1, i2, i3
		return s, src, items
	}

	t.Run("an event is recorded once, cancelled by its opposite; the model has versions", func(t *testing.T) {
		s, _, items := setup(t)
		like := app.FeedbackEvent{ItemID: items[0].ID, Signal: "like", Keys: []string{"w:go", "s:1"}, Labels: []string{"go", "a"}}
		for i, want := range []bool{true, false} {
			changed, err := s.RecordFeedback(ctx, me, like, []string{"dislike"})
			must(t, "like", err)
			if changed != want {
				t.Fatalf("like %d: changed %v", i, changed)
			}
		}
		if has, err := s.HasFeedback(ctx, me, items[0].ID, "like"); err != nil || !has {
			t.Fatalf("has like: %v, %v", has, err)
		}
		changed, err := s.RecordFeedback(ctx, me, app.FeedbackEvent{ItemID: items[0].ID, Signal: "dislike"}, []string{"like"})
		must(t, "dislike", err)
		if has, _ := s.HasFeedback(ctx, me, items[0].ID, "like"); !changed || has {
			t.Fatalf("the dislike did not cancel the like (%v)", changed)
		}
		_, err = s.RecordFeedback(ctx, me, app.FeedbackEvent{ItemID: items[1].ID, Signal: "like", Keys: []string{"k"}}, nil)
		must(t, "like two", err)
		events, err := s.FeedbackEvents(ctx, me, 10)
		must(t, "events", err)
		if len(events) != 2 || events[0].Signal != "dislike" || events[1].ItemID != items[1].ID || fmt.Sprint(events[1].Keys, events[1].Labels) != "[k] []" {
			t.Fatalf("events %+v", events)
		}
		if last, _ := s.FeedbackEvents(ctx, me, 1); len(last) != 1 || last[0].ItemID != items[1].ID {
			t.Fatalf("the latest event %+v", last)
		}
		if n, err := s.FeedbackCount(ctx, me); err != nil || n != 2 {
			t.Fatalf("count %d, %v", n, err)
		}

		if m, v, err := s.ReadingModel(ctx, me); err != nil || m != nil || v != 0 {
			t.Fatalf("no model yet: %q %d %v", m, v, err)
		}
		v1, err := s.SaveReadingModel(ctx, me, []byte("model 1"))
		must(t, "save model", err)
		v2, err := s.SaveReadingModel(ctx, me, []byte("model 2"))
		must(t, "save model again", err)
		if m, v, err := s.ReadingModel(ctx, me); err != nil || string(m) != "model 2" || v != v2 || v1 != 1 || v2 != 2 {
			t.Fatalf("model %q v%d (saved v%d, v%d), %v", m, v, v1, v2, err)
		}
		for i, want := range []bool{true, false} {
			if ok, err := s.StartRescore(ctx, me, v2); err != nil || ok != want {
				t.Fatalf("start re-score %d: %v, %v", i, ok, err)
			}
		}
		v3, err := s.ResetFeedback(ctx, me)
		must(t, "reset", err)
		if m, v, _ := s.ReadingModel(ctx, me); v3 != 3 || v != 3 || len(m) != 0 {
			t.Fatalf("after the reset: %q v%d", m, v)
		}
		if n, _ := s.FeedbackCount(ctx, me); n != 0 {
			t.Fatalf("events after the reset: %d", n)
		}
		if ok, _ := s.StartRescore(ctx, me, v3); !ok {
			t.Fatal("the reset model was not re-scored")
		}
	})

	t.Run("a first import is scored once; a re-score changes the embedded scores only", func(t *testing.T) {
		s, src, items := setup(t)
		topics, err := s.UsualTopics(ctx, me, items[2].ID)
		must(t, "usual topics", err)
		if fmt.Sprint(topics) != "[Go]" {
			t.Fatalf("usual topics %v", topics)
		}
		srcs, err := s.UnscoredImportSources(ctx)
		must(t, "unscored sources", err)
		if fmt.Sprint(srcs) != fmt.Sprint([]int64{src.ID}) {
			t.Fatalf("unscored sources %v", srcs)
		}
		batch, err := s.ImportItems(ctx, src.ID, 2)
		must(t, "import items", err)
		if len(batch) != 2 || batch[0].Text != "text one" || batch[0].SourceName != "a" {
			t.Fatalf("import items %+v", batch)
		}
		if rest, _ := s.ImportItems(ctx, src.ID, 3); len(rest) != 3 || !rest[2].Audio() || rest[0].Audio() {
			t.Fatalf("import items: the episode is not known as one (%d items)", len(rest))
		}
		var ups []app.ScoreUpdate
		for _, it := range items {
			ups = append(ups, app.ScoreUpdate{ItemID: it.ID, Score: 50, Reasoning: "embedded",
				Enrichment: &app.Enrichment{Summary: "s " + it.GUID, Topics: []string{"Go"}, EnrichedBy: app.EnricherEmbedded},
				Effect:     app.FilterEffect{Star: it.GUID == "i1"}})
		}
		must(t, "save scores", s.SaveScores(ctx, ups))
		if srcs, _ := s.UnscoredImportSources(ctx); len(srcs) != 0 {
			t.Fatalf("still unscored %v", srcs)
		}
		ups[0].Score, ups[0].Enrichment.Summary = 99, "again"
		must(t, "save an enrichment again", s.SaveScores(ctx, ups[:1]))
		got, _ := s.Item(ctx, me, items[0].ID)
		if *got.Score != 50 || got.Summary != "s "+items[0].GUID || !got.Starred || got.EnrichedBy != app.EnricherEmbedded {
			t.Fatalf("an enrichment applied twice, or not at all: %+v", got)
		}
		must(t, "re-score", s.SaveScores(ctx, []app.ScoreUpdate{{ItemID: items[0].ID, Score: 70, Reasoning: "taste"}}))
		if got, _ = s.Item(ctx, me, items[0].ID); *got.Score != 70 || got.ScoreReasoning != "taste" {
			t.Fatalf("re-scored %+v", got)
		}
		re, err := s.RescoreItems(ctx, me, 1<<62, 10)
		must(t, "items to re-score", err)
		if len(re) != 3 || re[0].ID < re[1].ID {
			t.Fatalf("re-score items %v (newest first)", ids(re))
		}
		// The episode (i3) is known as one wherever it is scored (EnrichInput.Audio).
		if !re[0].Audio() || re[1].Audio() {
			t.Fatalf("re-score items: audio %v, %v; want the episode's only", re[0].Audio(), re[1].Audio())
		}
		if llm, err := s.RescoreLLMItems(ctx, me, 1<<62, 10); err != nil || len(llm) != 0 {
			t.Fatalf("LLM items %v, %v", llm, err)
		}
		yes := true
		_, err = s.UpdateItem(ctx, me, items[1].ID, app.ItemUpdate{Read: &yes})
		must(t, "read", err)
		aff, err := s.SourceAffinities(ctx, me)
		must(t, "affinities", err)
		// Of three items one starred, one read.
		if a := aff[src.ID]; a < 0.66 || a > 0.67 {
			t.Fatalf("affinity %v", aff)
		}
		if topics, err := s.UsualTopics(ctx, me+1, items[2].ID); err != nil || topics != nil {
			t.Fatalf("another user's usual topics %v, %v", topics, err)
		}
	})
}
