package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
)

// KindRunBriefing is the job kind of a briefing run.
const KindRunBriefing = "run_briefing"

type briefingJob struct {
	BriefingID int64 `json:"briefingId"`
	RunAt      int64 `json:"runAtMs"` // unix milliseconds: the scheduled instant, or the time of "run now"
}

// BriefingStore is what the briefing pipeline needs from the database.
type BriefingStore interface {
	Briefings(ctx context.Context, userID int64) ([]*app.Briefing, error)
	QueueBriefing(ctx context.Context, id int64, dueAt *time.Time, enqueue func(ctx context.Context, tx *sql.Tx) error) (bool, error)
	StartBriefing(ctx context.Context, id int64) (*app.Briefing, error)
	Candidates(ctx context.Context, b *app.Briefing, from, to time.Time, limit int) ([]*app.Item, error)
	FinishBriefing(ctx context.Context, b *app.Briefing, r *app.Report, then app.TxFunc) error
	FailBriefing(ctx context.Context, id int64, msg string, then app.TxFunc) error
	Settings(ctx context.Context, userID int64) (*app.Settings, error)
}

// BriefingQueue is where briefing runs wait.
type BriefingQueue struct{ *Queue }

// NewBriefingQueue returns the briefing queue (2 workers by default).
func NewBriefingQueue(o Options) *BriefingQueue {
	o.Name = "briefing"
	o.Workers = orDefault(o.Workers, 2)
	return &BriefingQueue{New(o)}
}

// Run queues a run of the briefing now ("run now"): it reports false when it is already queued or running.
func (q *BriefingQueue) RunNow(ctx context.Context, store BriefingStore, id int64, now time.Time) (bool, error) {
	return store.QueueBriefing(ctx, id, nil, func(ctx context.Context, tx *sql.Tx) error {
		return q.SendTx(ctx, tx, KindRunBriefing, 1, briefingJob{BriefingID: id, RunAt: now.UnixMilli()}, SendOptions{Priority: 10})
	})
}

// BriefingScheduler queues the briefings whose scheduled time has passed in their own zone.
type BriefingScheduler struct {
	Store    BriefingStore
	Queue    *BriefingQueue
	Interval time.Duration // default 60s
	Log      *slog.Logger
	Clock    app.Clock
}

// Run runs a cycle at once and then every Interval until ctx is done.
func (s *BriefingScheduler) Run(ctx context.Context) {
	Every(ctx, orDefault(s.Interval, time.Minute), func() {
		if _, err := s.Cycle(ctx); err != nil && ctx.Err() == nil {
			logger(s.Log).Error("briefing scheduler cycle failed", "component", "scheduler", "error", err)
		}
	})
}

// Cycle queues every due briefing once for its period; users without credits are skipped.
func (s *BriefingScheduler) Cycle(ctx context.Context) (int, error) {
	log := logger(s.Log).With("component", "scheduler", "queue", "briefing")
	now := app.ClockOrSystem(s.Clock).Now()
	bs, err := s.Store.Briefings(ctx, 0)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, b := range bs {
		if b.Status != app.BriefingActive && b.Status != app.BriefingError {
			continue
		}
		sched, err := b.Schedule()
		if err != nil {
			log.Warn("briefing has an invalid schedule", "briefing", b.ID, "error", err)
			continue
		}
		dueAt, due := sched.Due(now, b.Since())
		if !due {
			continue
		}
		if st, err := s.Store.Settings(ctx, b.UserID); err != nil || st.Credits <= 0 {
			log.Info("briefing due but its user has no credits; waiting for the refill", "briefing", b.ID)
			continue
		}
		ok, err := s.Store.QueueBriefing(ctx, b.ID, &dueAt, func(ctx context.Context, tx *sql.Tx) error {
			return s.Queue.SendTx(ctx, tx, KindRunBriefing, 1, briefingJob{BriefingID: b.ID, RunAt: dueAt.UnixMilli()}, SendOptions{})
		})
		if err != nil {
			return n, err
		}
		if ok {
			n++
			log.Info("briefing queued", "briefing", b.ID, "scheduled", dueAt)
		}
	}
	return n, nil
}

// BriefingWorker writes reports.
type BriefingWorker struct {
	Store    BriefingStore
	Embedded *enrich.Embedded // re-scores for a briefing's own focus, groups stories, writes the overview
	Log      *slog.Logger
	Clock    app.Clock
	// Overview, when set, writes the report's opening paragraph (an LLM); "" or an error keeps
	// the embedded overview of counts and themes.
	Overview func(ctx context.Context, b *app.Briefing, r *app.Report) (string, error)
	// OnReport runs in the report's transaction (the email deliveries' seam).
	OnReport func(ctx context.Context, tx *sql.Tx, b *app.Briefing, r *app.Report) error
}

// Register makes w handle the queue's briefing jobs.
func (w *BriefingWorker) Register(q *BriefingQueue) { q.Register(KindRunBriefing, w.Handle) }

// Handle runs one briefing: select, rank, group, write the overview, store the report.
func (w *BriefingWorker) Handle(ctx context.Context, job Job) error {
	var p briefingJob
	if err := json.Unmarshal(job.Data, &p); err != nil || p.BriefingID == 0 {
		return Permanent(fmt.Errorf("bad briefing job payload %s", job.Data))
	}
	log := logger(w.Log).With("component", "briefing", "briefing", p.BriefingID, "job", job.ID, "attempt", job.Attempt)
	b, err := w.Store.StartBriefing(ctx, p.BriefingID)
	if err != nil || b == nil {
		return err
	}
	start := time.Now()
	r, err := w.report(ctx, b, time.UnixMilli(p.RunAt).UTC())
	if err != nil {
		if job.Attempt >= 3 {
			log.Error("briefing failed", "error", err)
			return w.Store.FailBriefing(ctx, b.ID, err.Error(), job.CompleteTx)
		}
		return err
	}
	if w.Overview != nil && len(r.Items) > 0 {
		if text, err := w.Overview(ctx, b, r); err != nil {
			log.Warn("the written overview failed; keeping the embedded one", "error", err)
		} else if text = strings.TrimSpace(text); text != "" {
			r.Overview = text
		}
	}
	then := func(ctx context.Context, tx *sql.Tx) error {
		if w.OnReport != nil {
			if err := w.OnReport(ctx, tx, b, r); err != nil {
				return err
			}
		}
		return job.CompleteTx(ctx, tx)
	}
	if err := w.Store.FinishBriefing(ctx, b, r, then); err != nil {
		return err
	}
	log.Info("report written", "report", r.ID, "items", len(r.Items), "duration", time.Since(start))
	return nil
}

// Preview computes the report the briefing would write now, without storing anything.
func (w *BriefingWorker) Preview(ctx context.Context, b *app.Briefing, now time.Time) (*app.Report, error) {
	return w.report(ctx, b, now)
}

type candidate struct {
	it     *app.Item
	score  int
	reason string
}

func (w *BriefingWorker) report(ctx context.Context, b *app.Briefing, runAt time.Time) (*app.Report, error) {
	sched, err := b.Schedule()
	if err != nil {
		return nil, err
	}
	from, to := sched.Period(runAt, b.LastExecutedAt)
	items, err := w.Store.Candidates(ctx, b, from, to, 500)
	if err != nil {
		return nil, err
	}
	interests := ""
	if st, err := w.Store.Settings(ctx, b.UserID); err == nil {
		interests = st.Interests
	}
	var cands []candidate
	for _, it := range items {
		c := candidate{it: it, reason: it.ScoreReasoning}
		if it.Score != nil {
			c.score = *it.Score
		}
		// A briefing with its own focus re-scores every item for it; items never enriched (a
		// source's first import) are scored for the user's interests.
		if w.Embedded != nil && (strings.TrimSpace(b.Focus) != "" || it.Score == nil) {
			focus := b.Focus
			if strings.TrimSpace(focus) == "" {
				focus = interests
			}
			c.score, c.reason = w.Embedded.Score(app.EnrichInput{Title: it.Title, Text: it.Text, PublishedAt: it.PublishedAt, Interests: focus, Now: runAt})
		}
		if c.score >= b.MinScore {
			cands = append(cands, c)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	stories := make([]enrich.Story, len(cands))
	for i, c := range cands {
		at := c.it.CreatedAt
		if c.it.PublishedAt != nil {
			at = *c.it.PublishedAt
		}
		stories[i] = enrich.Story{Title: c.it.Title, Lead: firstNonEmpty(c.it.Summary, c.it.Text), At: at}
	}
	stats := enrich.NewStats(50_000)
	if w.Embedded != nil {
		stats = w.Embedded.Stats()
	}
	groups := stats.GroupStories(stories, 0.25, 72*time.Hour)
	r := &app.Report{BriefingID: b.ID, UserID: b.UserID, GeneratedAt: app.ClockOrSystem(w.Clock).Now().UTC(), PeriodStart: from, PeriodEnd: to}
	for _, g := range groups {
		if len(r.Items) == b.ItemLimit {
			break
		}
		lead := cands[g[0]]
		id := lead.it.ID
		ri := app.ReportItem{Rank: len(r.Items) + 1, ItemID: &id, SourceName: lead.it.SourceName, Title: lead.it.Title, Link: lead.it.Link,
			Summary: firstNonEmpty(lead.it.Summary, enrich.Summarize(lead.it.Text, 60)), Score: lead.score, ScoreReasoning: lead.reason}
		for _, k := range g[1:] {
			o := cands[k].it
			ri.AlsoCoveredBy = append(ri.AlsoCoveredBy, app.Coverage{Title: o.Title, Link: o.Link, Source: o.SourceName})
		}
		r.Items = append(r.Items, ri)
	}
	r.Overview = overview(r, cands, from.In(sched.Location), to.In(sched.Location))
	return r, nil
}

// overview says, in a sentence or two, how many stories from how many sources and their main themes.
func overview(r *app.Report, cands []candidate, from, to time.Time) string {
	if len(r.Items) == 0 {
		return fmt.Sprintf("Nothing new between %s and %s that matches this briefing.", from.Format("Mon 2 Jan 15:04"), to.Format("Mon 2 Jan 15:04 MST"))
	}
	sources := map[string]bool{}
	themes := map[string]int{}
	for _, c := range cands {
		sources[c.it.SourceName] = true
		for _, t := range append(append([]string{}, c.it.Topics...), c.it.Tags...) {
			themes[t]++
		}
	}
	type kv struct {
		k string
		n int
	}
	var top []kv
	for k, n := range themes {
		if n > 1 {
			top = append(top, kv{k, n})
		}
	}
	sort.Slice(top, func(i, j int) bool { return top[i].n > top[j].n || top[i].n == top[j].n && top[i].k < top[j].k })
	out := fmt.Sprintf("%d %s from %d %s, chosen among %d new items.", len(r.Items), plural(len(r.Items), "story", "stories"),
		len(sources), plural(len(sources), "source", "sources"), len(cands))
	if len(top) > 0 {
		var names []string
		for i, t := range top {
			if i == 4 {
				break
			}
			names = append(names, fmt.Sprintf("%s (%d)", t.k, t.n))
		}
		out += " Main themes: " + strings.Join(names, ", ") + "."
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}
