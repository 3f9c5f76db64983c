package app_test

import (
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/app/taste"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// Learning from the reader, the back catalogue scored and honest topics (issue 12), on a real
// database with the real embedded enricher and the real process queue.

type learning struct {
	db  *sqlite.DB
	emb *enrich.Embedded
	fb  *app.Feedback
	en  *app.Enriching
	pq  *queue.ProcessQueue
}

func newLearning(t testing.TB) *learning {
	db := sqlitetest.New(t)
	emb := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	pq := queue.NewProcessQueue(queue.ProcessQueueOptions{Store: db})
	fb := &app.Feedback{Store: db, Trainer: taste.Trainer{E: emb}, Queue: pq}
	en := &app.Enriching{Store: db, Queue: pq, Enrichers: &enrich.Chooser{Default: app.EnricherEmbedded, Embedded: emb, Settings: db},
		Observer: emb.Stats(), Tastes: fb, Offline: emb, Scoring: db, Imports: pq}
	return &learning{db: db, emb: emb, fb: fb, en: en, pq: pq}
}

// corpusItems parses the shared corpus's feeds with the real parser and returns n items (the
// corpus repeated, each copy with its own guid and link, when n is larger).
func corpusItems(t testing.TB, n int) []app.Item {
	t.Helper()
	dir := "../testdata/corpus/feeds"
	files, err := filepath.Glob(filepath.Join(dir, "*.xml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("the corpus %s is missing (%v)", dir, err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	f := feeds.New(feeds.Options{})
	var all []app.Item
	for _, file := range files {
		res, err := f.Fetch(context.Background(), feeds.Request{URL: srv.URL + "/" + filepath.Base(file), Type: app.SourceRSS})
		if err != nil {
			continue
		}
		all = append(all, res.Items...)
	}
	if len(all) < 100 {
		t.Fatalf("only %d corpus items", len(all))
	}
	out := make([]app.Item, 0, n)
	for i := 0; len(out) < n; i++ {
		it := all[i%len(all)]
		it.GUID = fmt.Sprintf("corpus-%d", i)
		it.Link = fmt.Sprintf("https://corpus.invalid/%d", i)
		out = append(out, it)
	}
	return out
}

func (l *learning) source(t testing.TB, url string) *app.Source {
	t.Helper()
	src := &app.Source{UserID: app.DefaultUserID, Type: app.SourceRSS, URL: url, Name: url, RefreshIntervalMinutes: 60}
	if err := l.db.CreateSource(context.Background(), src, nil); err != nil {
		t.Fatal(err)
	}
	return src
}

// importItems stores items as a fetch of src does, queueing the first import's scoring as the
// Sources service's FirstImport does.
func (l *learning) importItems(t testing.TB, src *app.Source, items []app.Item) (first bool) {
	t.Helper()
	_, err := l.db.FinishFetch(context.Background(), src, &app.FetchResult{Items: items}, func(ctx context.Context, tx *sql.Tx, ids []int64, f bool) error {
		first = f
		if f {
			return l.pq.EnqueueImportTx(ctx, tx, src.ID)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	src.LastFetchedAt = &now
	return first
}

func (l *learning) count(t testing.TB, where string, args ...any) int {
	t.Helper()
	var n int
	if err := l.db.Read.QueryRow(`select count(*) from items where `+where, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func (l *learning) setInterests(t testing.TB, interests string, topics []app.Topic) {
	t.Helper()
	enricher := app.EnricherLLM // the LLM is the user's choice: the back catalogue must still not go to it
	if _, err := l.db.UpdateSettings(context.Background(), app.DefaultUserID, app.SettingsUpdate{Interests: &interests, Topics: &topics, Enricher: &enricher}); err != nil {
		t.Fatal(err)
	}
}

func bakingItems() []app.Item {
	var out []app.Item
	for i, title := range []string{"Sourdough starter: feeding schedules for a lively levain", "Sourdough loaves with an open crumb: hydration and levain",
		"Why your sourdough levain smells of acetone", "Rye sourdough and the levain that lifts it"} {
		out = append(out, app.Item{GUID: fmt.Sprint("bake-", i), Link: fmt.Sprint("https://bake.example/", i), Title: title,
			Text: title + ". A sourdough levain needs flour, water and patience; the crumb of the loaf shows the hydration and the fermentation of the levain. Bakers feed the starter twice a day."})
	}
	return out
}

func (l *learning) item(t testing.TB, link string) *app.Item {
	t.Helper()
	var id int64
	if err := l.db.Read.QueryRow(`select id from items where link = ?`, link).Scan(&id); err != nil {
		t.Fatal(link, err)
	}
	it, err := l.db.Item(context.Background(), app.DefaultUserID, id)
	if err != nil {
		t.Fatal(err)
	}
	return it
}

func TestFeedbackRescoresSimilarItemsAndResets(t *testing.T) {
	l := newLearning(t)
	ctx := context.Background()
	l.setInterests(t, "the Go programming language", nil)
	news := l.source(t, "https://news.example/feed")
	l.importItems(t, news, corpusItems(t, 300))
	bake := l.source(t, "https://bake.example/feed")
	l.importItems(t, bake, bakingItems())
	for _, s := range []*app.Source{news, bake} {
		if _, err := l.en.ScoreImport(ctx, s.ID); err != nil {
			t.Fatal(err)
		}
	}
	liked, similar := l.item(t, "https://bake.example/0"), l.item(t, "https://bake.example/1")
	before := *similar.Score

	if err := l.fb.Record(ctx, app.DefaultUserID, liked.ID, "nonsense"); app.ErrorCode(err) != app.EINVALID {
		t.Errorf("an unknown signal: %v", err)
	}
	if err := l.fb.Record(ctx, app.DefaultUserID, 999999, app.SignalMore); app.ErrorCode(err) != app.ENOTFOUND {
		t.Errorf("feedback on a missing item: %v", err)
	}
	if err := l.fb.Record(ctx, app.DefaultUserID, liked.ID, app.SignalMore); err != nil {
		t.Fatal(err)
	}
	if size, _ := l.pq.Size(ctx); size == 0 {
		t.Error("feedback queued no re-scoring")
	}
	_, version, err := l.fb.TasteFor(ctx, app.DefaultUserID)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := l.en.Rescore(ctx, app.DefaultUserID, version); err != nil || n < 300 {
		t.Fatalf("Rescore = %d, %v", n, err)
	}
	if n, _ := l.en.Rescore(ctx, app.DefaultUserID, version); n != 0 {
		t.Errorf("a second job for the same version re-scored %d items", n)
	}
	up := l.item(t, similar.Link)
	if *up.Score <= before || !strings.Contains(up.ScoreReasoning, "you liked similar items") {
		t.Errorf("after 'more like this' on a sourdough item, another one: %d → %d %q", before, *up.Score, up.ScoreReasoning)
	}
	learned, err := l.fb.Learned(ctx, app.DefaultUserID)
	if err != nil || learned.Signals != 1 {
		t.Fatalf("Learned = %+v, %v", learned, err)
	}

	// "Less like this" cancels "more" and moves it below where it started.
	if err := l.fb.Record(ctx, app.DefaultUserID, liked.ID, app.SignalLess); err != nil {
		t.Fatal(err)
	}
	if err := l.fb.Record(ctx, app.DefaultUserID, l.item(t, "https://bake.example/2").ID, app.SignalLess); err != nil {
		t.Fatal(err)
	}
	_, version, _ = l.fb.TasteFor(ctx, app.DefaultUserID)
	if _, err := l.en.Rescore(ctx, app.DefaultUserID, version); err != nil {
		t.Fatal(err)
	}
	down := l.item(t, similar.Link)
	if *down.Score >= before || !strings.Contains(down.ScoreReasoning, "less interest in similar items") {
		t.Errorf("after 'less like this': %d → %d %q", before, *down.Score, down.ScoreReasoning)
	}
	if learned, _ = l.fb.Learned(ctx, app.DefaultUserID); learned.Signals != 2 || len(learned.Negative) == 0 {
		t.Errorf("after more then less on one item and less on another: %+v", learned)
	}

	if err := l.fb.Reset(ctx, app.DefaultUserID); err != nil {
		t.Fatal(err)
	}
	_, version, _ = l.fb.TasteFor(ctx, app.DefaultUserID)
	if _, err := l.en.Rescore(ctx, app.DefaultUserID, version); err != nil {
		t.Fatal(err)
	}
	reset := l.item(t, similar.Link)
	if *reset.Score != before || strings.Contains(reset.ScoreReasoning, "similar items") {
		t.Errorf("after reset: %d (was %d) %q", *reset.Score, before, reset.ScoreReasoning)
	}
	if learned, _ = l.fb.Learned(ctx, app.DefaultUserID); learned.Signals != 0 || len(learned.Positive)+len(learned.Negative) != 0 {
		t.Errorf("after reset: %+v", learned)
	}
}

func TestImplicitSignals(t *testing.T) {
	l := newLearning(t)
	ctx := context.Background()
	src := l.source(t, "https://bake.example/feed")
	l.importItems(t, src, bakingItems())
	r := &app.Reading{Store: l.db, Queue: l.pq, Feedback: l.fb}
	a, b, c := l.item(t, "https://bake.example/0"), l.item(t, "https://bake.example/1"), l.item(t, "https://bake.example/2")
	yes := true
	if _, err := r.Open(ctx, app.DefaultUserID, a.ID); err != nil {
		t.Fatal(err)
	}
	r.Update(ctx, app.DefaultUserID, a.ID, app.ItemUpdate{Starred: &yes})
	r.Update(ctx, app.DefaultUserID, a.ID, app.ItemUpdate{Read: &yes}) // opened already: not "unopened"
	r.Update(ctx, app.DefaultUserID, b.ID, app.ItemUpdate{Hidden: &yes})
	r.Update(ctx, app.DefaultUserID, c.ID, app.ItemUpdate{Read: &yes})
	want := map[string]bool{fmt.Sprint(a.ID, app.SignalOpened): true, fmt.Sprint(a.ID, app.SignalStarred): true,
		fmt.Sprint(b.ID, app.SignalHidden): true, fmt.Sprint(c.ID, app.SignalReadUnopened): true}
	events, err := l.db.FeedbackEvents(ctx, app.DefaultUserID, 100)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, e := range events {
		got[fmt.Sprint(e.ItemID, e.Signal)] = true
		if len(e.Keys) == 0 {
			t.Errorf("event %s has no features", e.Signal)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("events %v, want %v", got, want)
	}
}

func TestTopicsAreHonestAndEnrichAgrees(t *testing.T) {
	l := newLearning(t)
	ctx := context.Background()
	l.setInterests(t, "security", []app.Topic{{Name: "Security", Keywords: []string{"vulnerability", "exploit", "malware"}}})
	enricher := app.EnricherEmbedded
	l.db.UpdateSettings(ctx, app.DefaultUserID, app.SettingsUpdate{Enricher: &enricher})
	src := l.source(t, "https://sec.example/feed")
	l.importItems(t, src, nil)
	var items []app.Item
	for i := range 3 {
		items = append(items, app.Item{GUID: fmt.Sprint("s", i), Link: fmt.Sprint("https://sec.example/s", i), Title: fmt.Sprintf("A new exploit for vulnerability %d", i),
			Text: "Researchers found a vulnerability; the exploit spreads malware through unpatched servers."})
	}
	items = append(items, app.Item{GUID: "body", Link: "https://sec.example/body", Title: "Body shaming is wrong",
		Text: "An essay about kindness, bodies and how we talk about each other at the dinner table."})
	l.importItems(t, src, items)
	for _, it := range items {
		id := l.item(t, it.Link).ID
		if _, err := l.en.Process(ctx, app.Attempt{Last: true}, id, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	sec, body := l.item(t, "https://sec.example/s2"), l.item(t, "https://sec.example/body")
	if fmt.Sprint(sec.Topics) != "[Security]" {
		t.Errorf("a security item's topics: %v", sec.Topics)
	}
	if len(body.Topics) != 0 {
		t.Errorf("an item matching no topic got %v as its own topics", body.Topics)
	}
	usual, err := l.db.UsualTopics(ctx, app.DefaultUserID, body.ID)
	if err != nil || fmt.Sprint(usual) != "[Security]" {
		t.Errorf("usual topics stored %v, %v", usual, err)
	}
	if got := l.fb.UsualTopics(ctx, app.DefaultUserID, body); fmt.Sprint(got) != "[Security]" {
		t.Errorf("Feedback.UsualTopics = %v", got)
	}
	// enrich ID shows what was stored.
	for _, it := range []*app.Item{sec, body} {
		_, res, err := l.en.Try(ctx, app.DefaultUserID, it.ID)
		if err != nil {
			t.Fatal(err)
		}
		stored, _ := l.db.UsualTopics(ctx, app.DefaultUserID, it.ID)
		if fmt.Sprint(res.Topics) != fmt.Sprint(it.Topics) || fmt.Sprint(res.UsualTopics) != fmt.Sprint(stored) ||
			res.Score != *it.Score || res.Reasoning != it.ScoreReasoning {
			t.Errorf("enrich %q: topics %v usual %v score %d %q; stored %v %v %d %q", it.Title, res.Topics, res.UsualTopics, res.Score, res.Reasoning,
				it.Topics, stored, *it.Score, it.ScoreReasoning)
		}
	}
	// A filter on the topic includes the item by its source's usual topic.
	f := &app.Filter{Field: "topics", Match: "keywords", Pattern: "security", Action: "star", Enabled: true}
	if err := f.Validate(); err != nil {
		t.Fatal(err)
	}
	body.UsualTopics = usual
	if !f.Matches(body) {
		t.Error("a topic filter does not see the usual topic")
	}
}

// BenchmarkRescore1000 re-scores 1,000 unread items after one "more like this": what a
// feedback click costs in the background.
func BenchmarkRescore1000(b *testing.B) {
	l := newLearning(b)
	ctx := context.Background()
	l.setInterests(b, "the Go programming language\nApple Mac hardware", nil)
	src := l.source(b, "https://rescore.example/feed")
	l.importItems(b, src, corpusItems(b, 1000))
	if _, err := l.en.ScoreImport(ctx, src.ID); err != nil {
		b.Fatal(err)
	}
	var id int64
	l.db.Read.QueryRow(`select id from items order by id limit 1`).Scan(&id)
	b.ResetTimer()
	for i := range b.N {
		signal := app.SignalMore
		if i%2 == 1 {
			signal = app.SignalLess
		}
		if err := l.fb.Record(ctx, app.DefaultUserID, id, signal); err != nil {
			b.Fatal(err)
		}
		_, v, _ := l.fb.TasteFor(ctx, app.DefaultUserID)
		if n, err := l.en.Rescore(ctx, app.DefaultUserID, v); err != nil || n != 1000 {
			b.Fatalf("Rescore = %d, %v", n, err)
		}
	}
}

// A back catalogue stored unscored (before this version, or after its job was dead-lettered) is
// queued for scoring at start.
func TestUnscoredImportsQueuedAtStart(t *testing.T) {
	l := newLearning(t)
	ctx := context.Background()
	src := l.source(t, "https://old.example/feed")
	if _, err := l.db.FinishFetch(ctx, src, &app.FetchResult{Items: bakingItems()}, nil); err != nil { // no job, as before issue 12
		t.Fatal(err)
	}
	l.source(t, "https://empty.example/feed")
	if n, err := l.en.QueueUnscoredImports(ctx); err != nil || n != 1 {
		t.Fatalf("QueueUnscoredImports = %d, %v; want the one source with unscored items", n, err)
	}
	if size, _ := l.pq.Size(ctx); size != 1 {
		t.Fatalf("%d jobs queued", size)
	}
	if n, err := l.en.ScoreImport(ctx, src.ID); err != nil || n != 4 {
		t.Fatalf("ScoreImport = %d, %v", n, err)
	}
	if n, _ := l.en.QueueUnscoredImports(ctx); n != 0 {
		t.Errorf("%d sources queued after scoring", n)
	}
}

// The job of an explicit signal applies the current model even when an implicit signal came
// after it (whose job waits a minute), and that later job then has nothing to do.
func TestRescoreJobAppliesTheCurrentModel(t *testing.T) {
	l := newLearning(t)
	ctx := context.Background()
	src := l.source(t, "https://bake.example/feed")
	l.importItems(t, src, bakingItems())
	if _, err := l.en.ScoreImport(ctx, src.ID); err != nil {
		t.Fatal(err)
	}
	if err := l.fb.Record(ctx, app.DefaultUserID, l.item(t, "https://bake.example/0").ID, app.SignalMore); err != nil {
		t.Fatal(err)
	}
	_, explicit, _ := l.fb.TasteFor(ctx, app.DefaultUserID)
	l.fb.Signal(ctx, app.DefaultUserID, l.item(t, "https://bake.example/3").ID, app.SignalOpened)
	_, implicit, _ := l.fb.TasteFor(ctx, app.DefaultUserID)
	if implicit <= explicit {
		t.Fatalf("versions %d then %d", explicit, implicit)
	}
	if n, err := l.en.Rescore(ctx, app.DefaultUserID, explicit); err != nil || n == 0 {
		t.Fatalf("the explicit signal's job: %d, %v", n, err)
	}
	if n, _ := l.en.Rescore(ctx, app.DefaultUserID, implicit); n != 0 {
		t.Errorf("the implicit signal's job re-scored %d items again", n)
	}
	if r := l.item(t, "https://bake.example/1").ScoreReasoning; !strings.Contains(r, "you liked similar items") {
		t.Errorf("reason after re-scoring: %q", r)
	}
}

// An item an LLM enriched keeps the LLM's score as its base, and the reading model applies to
// it at enrichment and again after every change of the model (issue 12), from that base.
func TestFeedbackRescoresItemsAnLLMEnriched(t *testing.T) {
	l := newLearning(t)
	ctx := context.Background()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":"{\"summary\":\"About sourdough.\",\"tags\":[\"sourdough\"],\"topics\":[],\"score\":60,\"reasoning\":\"About baking bread.\"}"}}],"usage":{"prompt_tokens":10,"completion_tokens":5}}`))
	}))
	defer srv.Close()
	l.en.Enrichers = &enrich.Chooser{Default: app.EnricherLLM, Embedded: l.emb, Settings: l.db, LLM: enrich.LLMOptions{BaseURL: srv.URL, Model: "m"}}
	l.setInterests(t, "baking bread", nil) // the user's enricher is the LLM
	src := l.source(t, "https://bake.example/feed")
	l.importItems(t, src, nil)
	l.importItems(t, src, bakingItems()) // new items: processed by the LLM
	for _, it := range bakingItems() {
		if _, err := l.en.Process(ctx, app.Attempt{Last: true}, l.item(t, it.Link).ID, time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	similar := l.item(t, "https://bake.example/1")
	if similar.EnrichedBy == app.EnricherEmbedded || similar.Score == nil || *similar.Score != 60 {
		t.Fatalf("before any feedback the LLM's score is stored: %q %v", similar.EnrichedBy, similar.Score)
	}
	rescore := func() *app.Item {
		t.Helper()
		_, version, err := l.fb.TasteFor(ctx, app.DefaultUserID)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.en.Rescore(ctx, app.DefaultUserID, version); err != nil {
			t.Fatal(err)
		}
		return l.item(t, similar.Link)
	}
	if err := l.fb.Record(ctx, app.DefaultUserID, l.item(t, "https://bake.example/0").ID, app.SignalMore); err != nil {
		t.Fatal(err)
	}
	up := rescore()
	if *up.Score <= 60 || !strings.HasPrefix(up.ScoreReasoning, "About baking bread") || !strings.Contains(up.ScoreReasoning, "you liked similar items") {
		t.Errorf("after 'more like this' on a similar item: %d %q", *up.Score, up.ScoreReasoning)
	}
	again := rescore() // the same model again: from the LLM's score, not compounding
	if *again.Score != *up.Score || again.ScoreReasoning != up.ScoreReasoning {
		t.Errorf("a second re-score moved it: %d %q, then %d %q", *up.Score, up.ScoreReasoning, *again.Score, again.ScoreReasoning)
	}
	if err := l.fb.Reset(ctx, app.DefaultUserID); err != nil {
		t.Fatal(err)
	}
	if reset := rescore(); *reset.Score != 60 || reset.ScoreReasoning != "About baking bread." {
		t.Errorf("after reset: %d %q, want the LLM's 60 %q", *reset.Score, reset.ScoreReasoning, "About baking bread.")
	}
	// A new item the LLM enriches after feedback gets the model's adjustment at once.
	if err := l.fb.Record(ctx, app.DefaultUserID, l.item(t, "https://bake.example/0").ID, app.SignalMore); err != nil {
		t.Fatal(err)
	}
	late := app.Item{GUID: "bake-late", Link: "https://bake.example/late", Title: "A sourdough levain for rye loaves",
		Text: "A sourdough levain needs flour, water and patience; the crumb of the loaf shows the hydration of the levain."}
	l.importItems(t, src, []app.Item{late})
	if _, err := l.en.Process(ctx, app.Attempt{Last: true}, l.item(t, late.Link).ID, time.Minute); err != nil {
		t.Fatal(err)
	}
	if got := l.item(t, late.Link); got.Score == nil || *got.Score <= 60 || !strings.Contains(got.ScoreReasoning, "you liked similar items") {
		t.Errorf("a new LLM item after feedback: %v %q", got.Score, got.ScoreReasoning)
	}
}

// A new user adds sources, then writes their interests: the back catalogue, scored before there
// were any interests, is scored again so the list re-ranks at once; a change that leaves the
// interests and topics as they were queues nothing.
func TestChangingInterestsRescoresTheUnreadItems(t *testing.T) {
	l := newLearning(t)
	ctx := context.Background()
	settings := &app.UserSettings{Store: l.db, Rescorer: l.fb}
	bake := l.source(t, "https://bake.example/feed")
	l.importItems(t, bake, bakingItems())
	news := l.source(t, "https://news.example/feed")
	l.importItems(t, news, corpusItems(t, 120))
	for _, s := range []*app.Source{bake, news} {
		if _, err := l.en.ScoreImport(ctx, s.ID); err != nil {
			t.Fatal(err)
		}
	}
	loaf := l.item(t, "https://bake.example/1")
	if strings.Contains(loaf.ScoreReasoning, "sourdough") {
		t.Fatalf("before any interest, the reason already names one: %q", loaf.ScoreReasoning)
	}
	queued, _ := l.pq.Size(ctx)

	interests := "sourdough baking"
	if _, err := settings.Update(ctx, app.DefaultUserID, app.SettingsUpdate{Interests: &interests}); err != nil {
		t.Fatal(err)
	}
	if size, _ := l.pq.Size(ctx); size != queued+1 {
		t.Fatalf("changing the interests queued %d jobs, want one re-score", size-queued)
	}
	_, version, err := l.fb.TasteFor(ctx, app.DefaultUserID)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := l.en.Rescore(ctx, app.DefaultUserID, version); err != nil || n < 120 {
		t.Fatalf("Rescore = %d, %v", n, err)
	}
	after := l.item(t, loaf.Link)
	if *after.Score <= *loaf.Score || !strings.Contains(after.ScoreReasoning, "sourdough") {
		t.Errorf("after writing the interest %q: %d %q → %d %q", interests, *loaf.Score, loaf.ScoreReasoning, *after.Score, after.ScoreReasoning)
	}

	queued, _ = l.pq.Size(ctx)
	zone := "Europe/Paris"
	if _, err := settings.Update(ctx, app.DefaultUserID, app.SettingsUpdate{Interests: &interests, Timezone: &zone}); err != nil {
		t.Fatal(err)
	}
	if size, _ := l.pq.Size(ctx); size != queued {
		t.Errorf("saving the same interests queued %d jobs, want none", size-queued)
	}
}

// A feedback event keeps the terms of the user's interests the item matched, so the model
// learns which parts of an interest the reader cares for.
func TestFeedbackEventsKeepTheInterestTermsMatched(t *testing.T) {
	l := newLearning(t)
	ctx := context.Background()
	l.setInterests(t, "sourdough and rye bread", nil)
	src := l.source(t, "https://bake.example/feed")
	l.importItems(t, src, bakingItems())
	rye := l.item(t, "https://bake.example/3")
	if err := l.fb.Record(ctx, app.DefaultUserID, rye.ID, app.SignalMore); err != nil {
		t.Fatal(err)
	}
	events, err := l.db.FeedbackEvents(ctx, app.DefaultUserID, 10)
	if err != nil || len(events) != 1 {
		t.Fatalf("events %v, %v", events, err)
	}
	if !slices.Contains(events[0].Keys, "i:sourdough") {
		t.Fatalf("the event's features %v lack the interest term it matched", events[0].Keys)
	}
}

// TestEpisodesAreReadAsPodcasts: an item with an audio enclosure is a podcast's episode, though
// its title and notes seldom say so; the interest "podcasts" finds it, and with the same score
// whichever path scores it (its fetch's first import, a re-score, a preview), since each reads
// the enclosure from the store.
func TestEpisodesAreReadAsPodcasts(t *testing.T) {
	l := newLearning(t)
	ctx := context.Background()
	interests := "podcasts"
	settings := &app.UserSettings{Store: l.db, Rescorer: l.fb} // as the Settings page saves them: a re-score is due
	if _, err := settings.Update(ctx, app.DefaultUserID, app.SettingsUpdate{Interests: &interests}); err != nil {
		t.Fatal(err)
	}
	src := l.source(t, "https://talk.example/feed")
	var items []app.Item
	for i, title := range []string{"Episode 42: the history of durum wheat", "Slow bread and fast ovens", "Episode 43: milling at home", "A note on kitchen scales"} {
		it := app.Item{GUID: fmt.Sprint("talk-", i), Link: fmt.Sprint("https://talk.example/", i), Title: title,
			Text: title + ". We talk about flour, grain and the people who mill it, and answer questions from listeners about baking."}
		if i%2 == 0 {
			it.Extra = map[string]any{app.ExtraEnclosures: []app.Enclosure{{URL: fmt.Sprint("https://talk.example/", i, ".mp3"), Type: "audio/mpeg", Medium: "audio"}}}
		}
		items = append(items, it)
	}
	if !l.importItems(t, src, items) {
		t.Fatal("not a first import")
	}
	if _, err := l.en.ScoreImport(ctx, src.ID); err != nil {
		t.Fatal(err)
	}
	first := map[string]int{}
	for _, it := range items {
		got := l.item(t, it.Link)
		first[it.Link] = *got.Score
		if episode := it.Extra != nil; episode != strings.Contains(got.ScoreReasoning, "podcast") {
			t.Errorf("%q (episode %v) scored %d: %q", it.Title, episode, *got.Score, got.ScoreReasoning)
		}
		_, res, err := l.en.Try(ctx, app.DefaultUserID, got.ID)
		if err != nil {
			t.Fatal(err)
		}
		if d := res.Score - first[it.Link]; d < -2 || d > 2 {
			t.Errorf("%q: %d in its first import, %d in a preview", it.Title, first[it.Link], res.Score)
		}
	}
	for _, ep := range []int{0, 2} {
		for _, other := range []int{1, 3} {
			if first[items[ep].Link] <= first[items[other].Link] {
				t.Errorf("episode %q %d, not above %q %d", items[ep].Title, first[items[ep].Link], items[other].Title, first[items[other].Link])
			}
		}
	}
	_, version, err := l.fb.TasteFor(ctx, app.DefaultUserID)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := l.en.Rescore(ctx, app.DefaultUserID, version); err != nil || n != len(items) {
		t.Fatalf("Rescore = %d, %v", n, err)
	}
	for _, it := range items {
		if got := *l.item(t, it.Link).Score; got-first[it.Link] < -2 || got-first[it.Link] > 2 {
			t.Errorf("%q: %d in its first import, %d re-scored", it.Title, first[it.Link], got)
		}
	}
}
