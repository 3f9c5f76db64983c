package app

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
)

// BriefingRunStore is what running briefings needs from the database.
type BriefingRunStore interface {
	BriefingStore
	QueueBriefing(ctx context.Context, id int64, dueAt *time.Time, enqueue func(ctx context.Context, tx *sql.Tx) error) (bool, error)
	StartBriefing(ctx context.Context, id int64) (*Briefing, error)
	// Candidates are the period's items, read lean: Text holds only its first CandidateOpening characters.
	Candidates(ctx context.Context, b *Briefing, from, to time.Time, limit int) ([]*Item, error)
	// CandidateTexts are the texts of items, cut to maxChars characters.
	CandidateTexts(ctx context.Context, userID int64, ids []int64, maxChars int) (map[int64]string, error)
	// CandidateDetails are the summary, tags and topics of items (the chosen stories), by id.
	CandidateDetails(ctx context.Context, userID int64, ids []int64) (map[int64]*Item, error)
	// MarkReportRead marks the report's stories read; it returns how many were unread.
	MarkReportRead(ctx context.Context, userID, reportID int64) (int, error)
	FinishBriefing(ctx context.Context, b *Briefing, r *Report, then TxFunc) error
	FailBriefing(ctx context.Context, id int64, msg string, then TxFunc) error
	ResetStuckBriefings(ctx context.Context, cutoff time.Time) ([]int64, error)
	Settings(ctx context.Context, userID int64) (*Settings, error)
}

// BriefingQueue is where briefing runs wait.
type BriefingQueue interface {
	EnqueueTx(ctx context.Context, tx *sql.Tx, j BriefingJob, priority int) error
}

// Story is what story grouping compares: a title, the opening of the text (not its summary),
// when it was published, and the outlet that published it.
type Story struct {
	Title  string
	Lead   string
	At     time.Time
	Source string
}

// Ranker scores items for a focus, groups reworded coverage of one story and summarizes a
// text; enrich.Ranker (the embedded enricher) is the real one. Score is called concurrently.
type Ranker interface {
	Score(in EnrichInput) (int, string)
	// Group groups reworded coverage of one event among stories in rank order; each group
	// lists indexes in rank order, its lead first.
	Group(stories []Story) [][]int
	// AlsoCovered picks from a group's members the other outlets' stories to show under the
	// lead: one per source other than the lead's, in rank order, at most limit.
	AlsoCovered(stories []Story, members []int, limit int) []int
	Summarize(text string, maxWords int) string
}

// FocusFilter is a Ranker's cheap first pass over a period's items (enrich.Ranker has one):
// Prefilter returns how well a title and the opening of a text match the focus by its words
// alone (0: none of them; the order only matters), or nil when the focus has nothing to look for.
type FocusFilter interface {
	Prefilter(focus string) func(title, opening string) float64
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
	// Limits bound each account's briefings (Limits.Briefings).
	Limits Limits
}

// Save validates and stores a briefing (ID 0: a new one).
func (s *Briefings) Save(ctx context.Context, b *Briefing) error {
	if err := b.Validate(); err != nil {
		return err
	}
	if b.ID == 0 {
		have, err := s.Store.Briefings(ctx, cmp.Or(b.UserID, DefaultUserID)) // 0 would list everyone's
		if err != nil {
			return err
		}
		if max := s.Limits.briefings(); len(have) >= max {
			return Errorf(EFORBIDDEN, "This account has %d %s, the most this server allows (--max-briefings-per-user): delete one to make another.", max, Plural(max, "briefing", "briefings"))
		}
	}
	return s.Store.SaveBriefing(ctx, b)
}

// RunNow queues a preview run of the briefing now: it writes a report of the period so far
// (marked as a preview, and emailed like any report) without moving the start of the next
// scheduled period, so trying a briefing in the evening does not thin the next morning's edition.
// It reports false when the briefing is already queued or running.
func (s *Briefings) RunNow(ctx context.Context, id int64) (bool, error) {
	now := ClockOrSystem(s.Clock).Now()
	return s.Store.QueueBriefing(ctx, id, nil, func(ctx context.Context, tx *sql.Tx) error {
		return s.Queue.EnqueueTx(ctx, tx, BriefingJob{BriefingID: id, RunAt: now.UnixMilli(), Preview: true}, 10)
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
	if r != nil {
		r.Preview = j.Preview
	}
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
	skip   bool // left out by the first pass
}

// How a briefing chooses its stories among a period's items.
const (
	// CandidateOpening is how many characters of each item's text the first ranking reads:
	// enough for the title and lead paragraph, which say what a story is about, and cheap
	// enough to score 20,000 items in well under a second of CPU.
	CandidateOpening = 200
	// candidateLimit bounds the items a period is read with (a busy week of a large collection).
	candidateLimit = 100_000
	// rescoreTop: the best items of the first ranking are scored again on their full text.
	rescoreTop = 300
	// groupTop: story grouping runs over the best candidates only.
	groupTop = 1000
	// maxRescoredText is what the ranker reads of a text (enrich's own cut).
	maxRescoredText = 8000
	// prefilterFrom: with more items than this to score, a first pass (FocusFilter) looks the
	// focus's words up in every item's title and opening, and the ranker scores only the best
	// prefilterTop items that match and the prefilterOthers best-stored ones that match none
	// (so that a focus few items mention still fills its report). The ranker costs about
	// 0.1 ms per item, the first pass a few microseconds.
	prefilterFrom   = 3000
	prefilterTop    = 2500
	prefilterOthers = 300
)

// build selects the period's items, ranks them (for the briefing's focus when it has one:
// every item of the period, not a slice cut by the stored score), groups the stories and
// writes the embedded overview.
func (s *Briefings) build(ctx context.Context, b *Briefing, runAt time.Time) (*Report, error) {
	sched, err := b.Schedule()
	if err != nil {
		return nil, err
	}
	from, to := sched.Period(runAt, b.LastExecutedAt)
	items, err := s.Store.Candidates(ctx, b, from, to, candidateLimit)
	if err != nil {
		return nil, err
	}
	interests := ""
	if st, err := s.Store.Settings(ctx, b.UserID); err == nil {
		interests = st.Interests
	}
	cands, err := s.rank(ctx, b, items, interests, runAt)
	if err != nil {
		return nil, err
	}
	var groups [][]int
	var stories []Story
	top := cands[:min(len(cands), groupTop)]
	if s.Ranker != nil {
		stories = make([]Story, len(top))
		for i, c := range top {
			at := c.it.CreatedAt
			if c.it.PublishedAt != nil {
				at = *c.it.PublishedAt
			}
			stories[i] = Story{Title: c.it.Title, Lead: c.it.Text, At: at, Source: c.it.SourceName}
		}
		groups = s.Ranker.Group(stories)
	} else {
		for i := range top {
			groups = append(groups, []int{i})
		}
	}
	r := &Report{BriefingID: b.ID, UserID: b.UserID, GeneratedAt: ClockOrSystem(s.Clock).Now().UTC(), PeriodStart: from, PeriodEnd: to}
	var chosen []*Item
	for _, g := range groups {
		if len(r.Items) == b.ItemLimit {
			break
		}
		lead := top[g[0]]
		id := lead.it.ID
		ri := ReportItem{Rank: len(r.Items) + 1, ItemID: &id, SourceName: lead.it.SourceName, Title: lead.it.Title, Link: lead.it.Link,
			Score: lead.score, ScoreReasoning: lead.reason}
		var also []int
		if s.Ranker != nil {
			also = s.Ranker.AlsoCovered(stories, g, 5)
		}
		also = keepTopMembers(also, g, b.ItemLimit)
		for _, k := range also {
			o := top[k].it
			oid := o.ID
			ri.AlsoCoveredBy = append(ri.AlsoCoveredBy, Coverage{ItemID: &oid, Title: o.Title, Link: o.Link, Source: o.SourceName})
		}
		r.Items = append(r.Items, ri)
		chosen = append(chosen, lead.it)
	}
	if err := s.details(ctx, b.UserID, chosen); err != nil {
		return nil, err
	}
	for i := range r.Items {
		if strings.TrimSpace(r.Items[i].Summary) == "" {
			r.Items[i].Summary = chosen[i].Summary
			if strings.TrimSpace(r.Items[i].Summary) == "" && s.Ranker != nil {
				r.Items[i].Summary = s.Ranker.Summarize(readText(chosen[i].Text), 60)
			}
		}
	}
	r.Overview = overview(r, chosen, len(items), from.In(sched.Location), to.In(sched.Location))
	return r, nil
}

// keepTopMembers adds to also the members of a group (after its lead) that rank in the
// report's top n: AlsoCovered shows one story an outlet, but a story that would have been in
// the report on its own is never lost under another's lead (it is listed under it).
func keepTopMembers(also, group []int, n int) []int {
	shown := map[int]bool{}
	for _, k := range also {
		shown[k] = true
	}
	for _, k := range group[1:] {
		if k < n && !shown[k] {
			also = append(also, k)
			shown[k] = true
		}
	}
	sort.Ints(also)
	return also
}

// readText is a candidate's text as read from the store, which cuts it at CandidateOpening or
// maxRescoredText characters, mid-word: a text of either length is taken as cut, and ends at
// its last whole word with "…" (a summary of it said "Update your Go toolcha").
func readText(text string) string {
	if n := utf8.RuneCountInString(text); n == CandidateOpening || n == maxRescoredText {
		return Shorten(text, n-1)
	}
	return text
}

// details reads the summary, tags and topics of the chosen stories (Candidates reads items lean).
func (s *Briefings) details(ctx context.Context, userID int64, chosen []*Item) error {
	if len(chosen) == 0 {
		return nil
	}
	ids := make([]int64, len(chosen))
	for i, it := range chosen {
		ids[i] = it.ID
	}
	more, err := s.Store.CandidateDetails(ctx, userID, ids)
	if err != nil {
		return err
	}
	for _, it := range chosen {
		if d, ok := more[it.ID]; ok {
			it.Summary, it.Tags, it.Topics = d.Summary, d.Tags, d.Topics
		}
	}
	return nil
}

// rank scores the items and returns those at or above the briefing's minimum score, best
// first. A briefing with a focus scores the items for it; otherwise the stored scores (the
// user's interests) stand, and items never scored are scored for the interests. So that tens
// of thousands of items take well under a second, scoring is in passes: when there are more
// than prefilterFrom items to score, a first pass looks the focus's words up in every item's
// title and opening and keeps the best (prefilter); the ranker scores those on their title
// and opening; the best rescoreTop are scored again on their full text. Items the first pass
// leaves out are considered (they count in the overview) but not reported.
func (s *Briefings) rank(ctx context.Context, b *Briefing, items []*Item, interests string, runAt time.Time) ([]candidate, error) {
	focus := strings.TrimSpace(b.Focus)
	if focus == "" {
		focus = interests
	}
	cands := make([]candidate, len(items))
	var rescore []int
	for i, it := range items {
		cands[i] = candidate{it: it, reason: it.ScoreReasoning}
		if it.Score != nil {
			cands[i].score = *it.Score
		}
		if s.Ranker != nil && (strings.TrimSpace(b.Focus) != "" || it.Score == nil) {
			rescore = append(rescore, i)
		}
	}
	score := func(idx []int) {
		parallel(len(idx), func(k int) {
			c := &cands[idx[k]]
			in := c.it.enrichInput()
			in.Interests, in.Now = focus, runAt
			c.score, c.reason = s.Ranker.Score(in)
		})
	}
	if len(rescore) > prefilterFrom {
		// Every item is considered by the first pass; the ranker reads the ones it keeps.
		keep := s.prefilter(focus, cands, rescore)
		logOrDiscard(s.Log).Debug("briefing first pass", "briefing", b.ID, "items", len(rescore), "kept", len(keep))
		kept := make(map[int]bool, len(keep))
		for _, i := range keep {
			kept[i] = true
		}
		for _, i := range rescore {
			if !kept[i] {
				cands[i].skip = true
			}
		}
		rescore = keep
	}
	score(rescore)
	if len(rescore) > 0 {
		// The second pass: the best of the first, on their full text.
		sort.SliceStable(rescore, func(i, j int) bool { return cands[rescore[i]].score > cands[rescore[j]].score })
		best := rescore[:min(len(rescore), rescoreTop)]
		ids := make([]int64, len(best))
		for k, i := range best {
			ids[k] = cands[i].it.ID
		}
		texts, err := s.Store.CandidateTexts(ctx, b.UserID, ids, maxRescoredText)
		if err != nil {
			return nil, err
		}
		for _, i := range best {
			if t, ok := texts[cands[i].it.ID]; ok {
				cands[i].it.Text = t
			}
		}
		score(best)
	}
	out := cands[:0]
	for _, c := range cands {
		if !c.skip && c.score >= b.MinScore {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out, nil
}

// prefilter picks among the items idx (in stored order: best stored score first) those the
// ranker should score for focus: the prefilterTop that match it best by the first pass, then
// the prefilterOthers first of those matching none. Without a first pass (a ranker without
// one, or a focus of filler words only) it keeps the first prefilterTop+prefilterOthers.
func (s *Briefings) prefilter(focus string, cands []candidate, idx []int) []int {
	var match func(title, opening string) float64
	if f, ok := s.Ranker.(FocusFilter); ok {
		match = f.Prefilter(focus)
	}
	if match == nil {
		return idx[:min(len(idx), prefilterTop+prefilterOthers)]
	}
	pf := make([]float64, len(idx))
	parallel(len(idx), func(k int) {
		it := cands[idx[k]].it
		pf[k] = match(it.Title, it.Text)
	})
	var matching, others []int
	for k := range idx {
		if pf[k] > 0 {
			matching = append(matching, k)
		} else if len(others) < prefilterOthers {
			others = append(others, k)
		}
	}
	sort.SliceStable(matching, func(a, b int) bool { return pf[matching[a]] > pf[matching[b]] })
	keep := make([]int, 0, min(len(matching), prefilterTop)+len(others))
	for _, k := range matching[:min(len(matching), prefilterTop)] {
		keep = append(keep, idx[k])
	}
	for _, k := range others {
		keep = append(keep, idx[k])
	}
	return keep
}

// parallel calls f(0..n-1) on as many goroutines as there are CPUs.
func parallel(n int, f func(int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				f(i)
			}
		}()
	}
	wg.Wait()
}

// boilerplateThemes are tags feeds put on posts that say nothing of what they are about.
var boilerplateThemes = map[string]bool{
	"sponsor": true, "sponsored": true, "sponsors": true, "sponsorship": true, "ad": true, "ads": true, "advert": true,
	"advertisement": true, "advertising": true, "promoted": true, "promotion": true, "partner": true, "partner content": true,
	"affiliate": true, "deals": true, "deal": true, "newsletter": true, "uncategorized": true, "uncategorised": true,
	"general": true, "news": true, "featured": true, "top stories": true, "blog": true, "home": true, "misc": true, "other": true,
}

// overview says, in a sentence or two a person would write, how many stories the report shows
// from how many sources, and what several of them are about (the chosen stories' own topics
// and tags: never all the candidates', never sponsor or boilerplate tags).
func overview(r *Report, chosen []*Item, considered int, from, to time.Time) string {
	if len(r.Items) == 0 {
		return fmt.Sprintf("Nothing new between %s and %s that matches this briefing.", from.Format("Mon 2 Jan 15:04"), to.Format("Mon 2 Jan 15:04 MST"))
	}
	sources := map[string]bool{}
	for _, it := range r.Items {
		sources[strings.ToLower(strings.TrimSpace(it.SourceName))] = true
	}
	themes := map[string]int{}
	names := map[string]string{}
	for _, it := range chosen {
		seen := map[string]bool{}
		for _, t := range append(append([]string{}, it.Topics...), it.Tags...) {
			k := strings.ToLower(strings.TrimSpace(t))
			if k == "" || seen[k] || boilerplateThemes[k] || strings.Contains(k, "sponsor") {
				continue
			}
			seen[k] = true
			themes[k]++
			if _, ok := names[k]; !ok {
				names[k] = strings.TrimSpace(t)
			}
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
	n := len(r.Items)
	out := fmt.Sprintf("%s %s from %s %s", numberWord(n, true), Plural(n, "story", "stories"), numberWord(len(sources), false), Plural(len(sources), "source", "sources"))
	if considered > n {
		out += fmt.Sprintf(", picked from %d new items", considered)
	}
	out += "."
	if len(top) > 3 {
		top = top[:3]
	}
	// "All of them are about Go and security. Three are about Apple and two about Linux."
	var all, some []string
	for _, t := range top {
		if t.n == n {
			all = append(all, names[t.k])
		} else if len(some) == 0 {
			some = append(some, fmt.Sprintf("%s are about %s", numberWord(t.n, false), names[t.k]))
		} else {
			some = append(some, fmt.Sprintf("%s about %s", numberWord(t.n, false), names[t.k]))
		}
	}
	if len(all) > 0 {
		out += " All of them are about " + AndList(all) + "."
	}
	if len(some) > 0 {
		if len(all) == 0 {
			some[0] = strings.Replace(some[0], " are about ", " of them are about ", 1)
		}
		out += " " + upperFirst(AndList(some)) + "."
	}
	return out
}

// AndList joins "a", "b" and "c" as "a, b and c".
func AndList(parts []string) string {
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// numberWord writes small numbers in words, as a person would ("Three stories", "from two sources").
func numberWord(n int, capital bool) string {
	words := []string{"no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}
	if n < 0 || n >= len(words) {
		return fmt.Sprint(n)
	}
	if capital {
		return upperFirst(words[n])
	}
	return words[n]
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	r, size := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[size:]
}

// OpenReport is one of the user's reports with its briefing, as a reader opens it: when the
// briefing says so, its stories are marked read.
func (s *Briefings) OpenReport(ctx context.Context, userID, id int64) (*Report, *Briefing, error) {
	r, b, err := s.ReportWithBriefing(ctx, userID, id)
	if err != nil {
		return nil, nil, err
	}
	if b.MarkRead && len(r.Items) > 0 {
		if _, err := s.Store.MarkReportRead(ctx, userID, id); err != nil {
			return nil, nil, err
		}
	}
	return r, b, nil
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

// Feed is one of the user's briefings with its latest reports (up to limit, newest first), each
// with its stories: what the briefing's Atom feed shows. userID 0 is whoever owns it (a feed
// reader that showed the feed's token).
func (s *Briefings) Feed(ctx context.Context, userID, id int64, limit int) (*Briefing, []*Report, error) {
	b, err := s.Store.Briefing(ctx, userID, id)
	if err != nil {
		return nil, nil, err
	}
	reports, err := s.Store.ReportsWithItems(ctx, b.UserID, id, limit)
	if err != nil {
		return nil, nil, err
	}
	return b, reports, nil
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
