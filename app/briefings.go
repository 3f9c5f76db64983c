package app

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"
)

// BriefingRunStore is what running briefings needs from the database.
type BriefingRunStore interface {
	BriefingStore
	QueueBriefing(ctx context.Context, id int64, dueAt *time.Time, enqueue func(ctx context.Context, tx *sql.Tx) error) (bool, error)
	StartBriefing(ctx context.Context, id int64) (*Briefing, error)
	Candidates(ctx context.Context, b *Briefing, from, to time.Time, limit int) ([]*Item, error)
	FinishBriefing(ctx context.Context, b *Briefing, r *Report, then TxFunc) error
	FailBriefing(ctx context.Context, id int64, msg string, then TxFunc) error
	ResetStuckBriefings(ctx context.Context, cutoff time.Time) ([]int64, error)
	Settings(ctx context.Context, userID int64) (*Settings, error)
}

// BriefingQueue is where briefing runs wait.
type BriefingQueue interface {
	EnqueueTx(ctx context.Context, tx *sql.Tx, j BriefingJob, priority int) error
}

// Story is what story grouping compares: a title, the opening of the text, and when it was published.
type Story struct {
	Title string
	Lead  string
	At    time.Time
}

// Ranker scores items for a focus, groups reworded coverage of one story and summarizes a
// text; enrich.Ranker (the embedded enricher) is the real one.
type Ranker interface {
	Score(in EnrichInput) (int, string)
	// GroupStories groups stories in rank order whose similarity is at least threshold and that
	// were published within window of each other; each group lists indexes, the best first.
	GroupStories(stories []Story, threshold float64, window time.Duration) [][]int
	Summarize(text string, maxWords int) string
}

// OverviewWriter writes a report's opening paragraph (the user's LLM); "" keeps the embedded
// overview of counts and themes.
type OverviewWriter interface {
	Overview(ctx context.Context, b *Briefing, r *Report) (string, error)
}

// Briefings is the service behind briefings: saving them, scheduling and running them, and
// the reports they write.
type Briefings struct {
	Store  BriefingRunStore
	Queue  BriefingQueue
	Ranker Ranker         // nil: no re-scoring and no story grouping
	Writer OverviewWriter // nil: the embedded overview only
	// Emails, when set, queues a report's emails in the report's transaction (Deliveries.QueueTx).
	Emails func(ctx context.Context, tx *sql.Tx, b *Briefing, r *Report) error
	Log    *slog.Logger
	Clock  Clock
}

// Save validates and stores a briefing (ID 0: a new one).
func (s *Briefings) Save(ctx context.Context, b *Briefing) error {
	if err := b.Validate(); err != nil {
		return err
	}
	return s.Store.SaveBriefing(ctx, b)
}

// RunNow queues a run of the briefing now; it reports false when it is already queued or running.
func (s *Briefings) RunNow(ctx context.Context, id int64) (bool, error) {
	now := ClockOrSystem(s.Clock).Now()
	return s.Store.QueueBriefing(ctx, id, nil, func(ctx context.Context, tx *sql.Tx) error {
		return s.Queue.EnqueueTx(ctx, tx, BriefingJob{BriefingID: id, RunAt: now.UnixMilli()}, 10)
	})
}

// QueueDue queues every due briefing once for its period; users without credits are skipped.
func (s *Briefings) QueueDue(ctx context.Context) (int, error) {
	log := logOrDiscard(s.Log).With("component", "scheduler", "queue", "briefing")
	now := ClockOrSystem(s.Clock).Now()
	bs, err := s.Store.Briefings(ctx, 0)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, b := range bs {
		if b.Status != BriefingActive && b.Status != BriefingError {
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
			return s.Queue.EnqueueTx(ctx, tx, BriefingJob{BriefingID: b.ID, RunAt: dueAt.UnixMilli()}, 0)
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

// ResetStuck resets briefings QUEUED or PROCESSING since before cutoff whose job is gone.
func (s *Briefings) ResetStuck(ctx context.Context, cutoff time.Time) ([]int64, error) {
	return s.Store.ResetStuckBriefings(ctx, cutoff)
}

// Run runs one briefing: select, rank, group, write the overview, store the report and queue
// its emails, in one transaction. On the last attempt a failure is recorded on the briefing.
func (s *Briefings) Run(ctx context.Context, a Attempt, j BriefingJob) error {
	log := logOrDiscard(s.Log).With("component", "briefing", "briefing", j.BriefingID)
	b, err := s.Store.StartBriefing(ctx, j.BriefingID)
	if err != nil || b == nil {
		return err
	}
	start := time.Now()
	r, err := s.build(ctx, b, time.UnixMilli(j.RunAt).UTC())
	if err != nil {
		if a.Last {
			log.Error("briefing failed", "error", err)
			return s.Store.FailBriefing(ctx, b.ID, err.Error(), a.complete())
		}
		return err
	}
	if s.Writer != nil && len(r.Items) > 0 {
		if text, err := s.Writer.Overview(ctx, b, r); err != nil {
			log.Warn("the written overview failed; keeping the embedded one", "error", err)
		} else if text = strings.TrimSpace(text); text != "" {
			r.Overview = text
		}
	}
	then := func(ctx context.Context, tx *sql.Tx) error {
		if s.Emails != nil {
			if err := s.Emails(ctx, tx, b, r); err != nil {
				return err
			}
		}
		return a.complete()(ctx, tx)
	}
	if err := s.Store.FinishBriefing(ctx, b, r, then); err != nil {
		return err
	}
	log.Info("report written", "report", r.ID, "items", len(r.Items), "duration", time.Since(start))
	return nil
}

// Preview computes the report the briefing would write now, without storing anything.
func (s *Briefings) Preview(ctx context.Context, b *Briefing) (*Report, error) {
	return s.build(ctx, b, ClockOrSystem(s.Clock).Now())
}

type candidate struct {
	it     *Item
	score  int
	reason string
}

// build selects the period's candidates, re-scores them for the briefing's focus, groups the
// stories and writes the embedded overview.
func (s *Briefings) build(ctx context.Context, b *Briefing, runAt time.Time) (*Report, error) {
	sched, err := b.Schedule()
	if err != nil {
		return nil, err
	}
	from, to := sched.Period(runAt, b.LastExecutedAt)
	items, err := s.Store.Candidates(ctx, b, from, to, 500)
	if err != nil {
		return nil, err
	}
	interests := ""
	if st, err := s.Store.Settings(ctx, b.UserID); err == nil {
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
		if s.Ranker != nil && (strings.TrimSpace(b.Focus) != "" || it.Score == nil) {
			focus := b.Focus
			if strings.TrimSpace(focus) == "" {
				focus = interests
			}
			c.score, c.reason = s.Ranker.Score(EnrichInput{Title: it.Title, Text: it.Text, PublishedAt: it.PublishedAt, Interests: focus, Now: runAt})
		}
		if c.score >= b.MinScore {
			cands = append(cands, c)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].score > cands[j].score })
	var groups [][]int
	if s.Ranker != nil {
		stories := make([]Story, len(cands))
		for i, c := range cands {
			at := c.it.CreatedAt
			if c.it.PublishedAt != nil {
				at = *c.it.PublishedAt
			}
			stories[i] = Story{Title: c.it.Title, Lead: FirstNonEmpty(c.it.Summary, c.it.Text), At: at}
		}
		groups = s.Ranker.GroupStories(stories, 0.25, 72*time.Hour)
	} else {
		for i := range cands {
			groups = append(groups, []int{i})
		}
	}
	r := &Report{BriefingID: b.ID, UserID: b.UserID, GeneratedAt: ClockOrSystem(s.Clock).Now().UTC(), PeriodStart: from, PeriodEnd: to}
	for _, g := range groups {
		if len(r.Items) == b.ItemLimit {
			break
		}
		lead := cands[g[0]]
		id := lead.it.ID
		summary := lead.it.Summary
		if strings.TrimSpace(summary) == "" && s.Ranker != nil {
			summary = s.Ranker.Summarize(lead.it.Text, 60)
		}
		ri := ReportItem{Rank: len(r.Items) + 1, ItemID: &id, SourceName: lead.it.SourceName, Title: lead.it.Title, Link: lead.it.Link,
			Summary: summary, Score: lead.score, ScoreReasoning: lead.reason}
		for _, k := range g[1:] {
			o := cands[k].it
			ri.AlsoCoveredBy = append(ri.AlsoCoveredBy, Coverage{Title: o.Title, Link: o.Link, Source: o.SourceName})
		}
		r.Items = append(r.Items, ri)
	}
	r.Overview = overview(r, cands, from.In(sched.Location), to.In(sched.Location))
	return r, nil
}

// overview says, in a sentence or two, how many stories from how many sources and their main themes.
func overview(r *Report, cands []candidate, from, to time.Time) string {
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
	out := fmt.Sprintf("%d %s from %d %s, chosen among %d new items.", len(r.Items), Plural(len(r.Items), "story", "stories"),
		len(sources), Plural(len(sources), "source", "sources"), len(cands))
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

// Get is one of the user's briefings.
func (s *Briefings) Get(ctx context.Context, userID, id int64) (*Briefing, error) {
	return s.Store.Briefing(ctx, userID, id)
}

// List is the user's briefings.
func (s *Briefings) List(ctx context.Context, userID int64) ([]*Briefing, error) {
	return s.Store.Briefings(ctx, userID)
}

// Reports are a briefing's latest reports, newest first.
func (s *Briefings) Reports(ctx context.Context, userID, briefingID int64, limit int) ([]*Report, error) {
	return s.Store.Reports(ctx, userID, briefingID, limit)
}

// Report is one of the user's reports.
func (s *Briefings) Report(ctx context.Context, userID, id int64) (*Report, error) {
	return s.Store.Report(ctx, userID, id)
}

// Delete deletes one of the user's briefings and its reports.
func (s *Briefings) Delete(ctx context.Context, userID, id int64) error {
	return s.Store.DeleteBriefing(ctx, userID, id)
}

// SetPaused pauses or resumes one of the user's briefings.
func (s *Briefings) SetPaused(ctx context.Context, userID, id int64, paused bool) error {
	return s.Store.SetBriefingPaused(ctx, userID, id, paused)
}

// Owner is the user a briefing belongs to (for its feed, reached by token).
func (s *Briefings) Owner(ctx context.Context, id int64) (int64, error) {
	return s.Store.BriefingOwner(ctx, id)
}

// ReportWithBriefing is one of the user's reports with the briefing that wrote it.
func (s *Briefings) ReportWithBriefing(ctx context.Context, userID, id int64) (*Report, *Briefing, error) {
	r, err := s.Store.Report(ctx, userID, id)
	if err != nil {
		return nil, nil, err
	}
	b, err := s.Store.Briefing(ctx, userID, r.BriefingID)
	if err != nil {
		return nil, nil, err
	}
	return r, b, nil
}
