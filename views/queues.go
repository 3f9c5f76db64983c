package views

import (
	"cmp"
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// Health is the app's health: the /healthz answer and the Queues page's summary. Problems are
// faults (the database unreadable, damaged or its disk full, a worker stuck past its timeout):
// /healthz answers 503. Backlog is work waiting (a queue over its capacity during a large
// import, entities waiting in a transitional state): reported with 200, status "busy", so that
// an uptime monitor does not restart an app that is only busy (issue 27).
type Health struct {
	OK       bool     `json:"ok"`
	Status   string   `json:"status"` // ok, busy or unhealthy
	Problems []string `json:"problems"`
	Backlog  []string `json:"backlog,omitempty"`
}

// HealthLimits: a queue above CapacityShare of its capacity, or more than MaxStuck stuck
// entities, is reported as a backlog.
const (
	healthCapacityShare = 0.9
	healthMaxStuck      = 10
)

// healthReport checks the database (afresh when fresh, see checkDB), every queue's fill and the
// stuck entities.
func (s *Server) healthReport(ctx context.Context, fresh bool) (Health, []app.QueueInfo, []app.StuckEntity) {
	a := s.opts.Queues
	h := Health{OK: true, Status: "ok", Problems: []string{}}
	fail := func(format string, args ...any) {
		h.OK, h.Status = false, "unhealthy"
		h.Problems = append(h.Problems, fmt.Sprintf(format, args...))
	}
	busy := func(format string, args ...any) {
		if h.OK {
			h.Status = "busy"
		}
		h.Backlog = append(h.Backlog, fmt.Sprintf(format, args...))
	}
	if err := s.checkDB(ctx, fresh); err != nil {
		fail("database: %v", err)
		return h, nil, nil
	}
	qs, err := a.Queues(ctx)
	if err != nil {
		fail("queues: %v", err)
	}
	for _, p := range a.Pinned() {
		fail("a %s worker has been running a %s job for %s, past its %s timeout: it does not end (restart Morning Deck; the job is tried again)",
			p.Queue, p.Kind, p.Running.Round(time.Second), p.Timeout)
	}
	for _, q := range qs {
		if q.Capacity > 0 && float64(q.Size()) > healthCapacityShare*float64(q.Capacity) {
			busy("queue %s holds %d jobs, its scheduler's capacity is %d: %s", q.Name, q.Size(), q.Capacity, backlogWork(q))
		}
	}
	stuck, err := a.Stuck(ctx)
	if err != nil {
		fail("stuck entities: %v", err)
	}
	if len(stuck) > healthMaxStuck {
		busy("%d entities have waited in a transitional state past the recovery's threshold (more than %d); the recovery puts them back", len(stuck), healthMaxStuck)
	}
	return h, qs, stuck
}

// backlogWork says what a queue's backlog is, in words.
func backlogWork(q app.QueueInfo) string {
	switch n := q.Size(); q.Name {
	case "fetch":
		return "fetching " + countWords(n, "source", "sources") + " (an import or a refresh of many sources), worked through in turn"
	case "process":
		return "processing " + countWords(n, "new item", "new items") + ", worked through in turn"
	default:
		return countWords(n, "job", "jobs") + " waiting, worked through in turn"
	}
}

// healthCache keeps the last health verdict for the layout's banner, which every page shows:
// checked at most every healthEvery; and the last database check, which the banner and the
// Queues page share.
type healthCache struct {
	mu       sync.Mutex
	at       time.Time
	problems []string

	dbMu sync.Mutex
	dbAt time.Time // the last database check that passed
}

const healthEvery = 10 * time.Second

// checkDB is the database check (a read, a committed write, the integrity verdict), made
// afresh when fresh (the health endpoint) and otherwise at most every healthEvery: the banner of
// every page and the Queues page, which refreshes itself, would each commit a write, waiting
// for the fetchers' writes. A failed check is not kept: the next page checks again.
func (s *Server) checkDB(ctx context.Context, fresh bool) error {
	c := &s.health
	c.dbMu.Lock()
	recent := !c.dbAt.IsZero() && time.Since(c.dbAt) < healthEvery
	c.dbMu.Unlock()
	if recent && !fresh {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	err := s.opts.Queues.Check(ctx) // not under the lock: a slow check holds up no other page
	c.dbMu.Lock()
	c.dbAt = time.Time{}
	if err == nil {
		c.dbAt = time.Now()
	}
	c.dbMu.Unlock()
	return err
}

// trouble is what the banner says: the health check's problems that stop the app from working
// (the database, pinned workers), not the Queues page's warnings (a full or stuck queue).
func (s *Server) trouble(ctx context.Context) []string {
	if s.opts.Queues == nil {
		return nil
	}
	c := &s.health
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.at.IsZero() && time.Since(c.at) < healthEvery {
		return c.problems
	}
	c.problems = nil
	if err := s.checkDB(ctx, false); err != nil { // bounded by checkDB's own timeout
		c.problems = append(c.problems, "database: "+err.Error())
	}
	for _, p := range s.opts.Queues.Pinned() {
		c.problems = append(c.problems, fmt.Sprintf("a %s worker has been running one job for %s, past its %s timeout", p.Queue, p.Running.Round(time.Second), p.Timeout))
	}
	c.at = time.Now()
	return c.problems
}

// healthz answers 200 when healthy, 503 with the reasons otherwise.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	if s.opts.Queues == nil {
		writeJSON(w, http.StatusOK, Health{OK: true, Status: "ok", Problems: []string{}})
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
	defer cancel()
	h, _, _ := s.healthReport(ctx, true)
	if !h.OK {
		// The banner looks again at the next page rather than keep an older verdict.
		s.health.mu.Lock()
		s.health.at = time.Time{}
		s.health.mu.Unlock()
	}
	status := http.StatusOK
	if !h.OK {
		status = http.StatusServiceUnavailable
	}
	writeJSON(w, status, h)
}

// QueueStatsJSON is one queue in /admin/queue-stats.
type QueueStatsJSON struct {
	Pending    int  `json:"pending"`    // ready and delayed
	Processing int  `json:"processing"` // in flight
	Completed  int  `json:"completed"`  // done in the last hour
	Failed     int  `json:"failed"`     // dead, waiting for retry or discard
	Capacity   int  `json:"capacity"`   // 0: unbounded
	Paused     bool `json:"paused"`
}

func (s *Server) apiQueueStats(w http.ResponseWriter, r *http.Request) {
	if s.opts.Queues == nil {
		writeJSON(w, http.StatusOK, map[string]QueueStatsJSON{})
		return
	}
	qs, err := s.opts.Queues.Queues(r.Context())
	if err != nil {
		s.apiError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, QueueStats(qs))
}

// QueueStats is the /admin/queue-stats answer (and `queue stats --json`).
func QueueStats(qs []app.QueueInfo) map[string]QueueStatsJSON {
	out := map[string]QueueStatsJSON{}
	for _, q := range qs {
		out[q.Name] = QueueStatsJSON{Pending: q.Ready + q.Delayed, Processing: q.InFlight, Completed: q.DoneLastHour, Failed: q.Dead,
			Capacity: q.Capacity, Paused: q.Paused}
	}
	return out
}

// QueuesView is the data of the Queues page.
type QueuesView struct {
	Health Health
	Queues []QueueView
	Stuck  []StuckView
	Failed []FailedView
}

// QueueView is one queue's card.
type QueueView struct {
	app.QueueInfo
	Label, About string
	Oldest       string // "3 min", or "" when nothing waits
	Spark        Sparkline
}

// Sparkline is a small inline SVG chart of jobs done per minute.
type Sparkline struct {
	Points string // polyline points in a 120×28 box
	Max    int
	Total  int
}

func sparkline(v []int) Sparkline {
	sp := Sparkline{}
	for _, n := range v {
		sp.Max, sp.Total = max(sp.Max, n), sp.Total+n
	}
	if len(v) < 2 {
		return sp
	}
	var b strings.Builder
	for i, n := range v {
		x := float64(i) * 120 / float64(len(v)-1)
		y := 27.0
		if sp.Max > 0 {
			y = 27 - float64(n)*25/float64(sp.Max)
		}
		fmt.Fprintf(&b, "%.1f,%.1f ", x, y)
	}
	sp.Points = strings.TrimSpace(b.String())
	return sp
}

// StuckView is an entity left in a transitional state.
type StuckView struct {
	app.StuckEntity
	Href  string
	Since TimeView
}

// FailedView is a failed job with its actions.
type FailedView struct {
	app.FailedJob
	At TimeView
}

// Action is the form action of this failed job's button.
func (f FailedView) Action(verb string) string {
	return "/queues/" + f.Queue + "/failed/" + f.ID + "/" + verb
}

var queueAbout = map[string][2]string{
	"fetch":    {"Fetching", "Sources due for a refresh, fetched by the fetch workers."},
	"process":  {"Processing", "New items waiting for a summary, tags, topics and a score."},
	"briefing": {"Briefings", "Briefings due to write their report."},
	"email":    {"Email", "Report emails waiting to be sent."},
}

func (s *Server) queuesView(r *http.Request) QueuesView {
	h, qs, stuck := s.healthReport(r.Context(), false)
	v := QueuesView{Health: h}
	for _, q := range qs {
		about := queueAbout[q.Name]
		qv := QueueView{QueueInfo: q, Label: cmp.Or(about[0], q.Name), About: about[1], Spark: sparkline(q.Throughput)}
		if q.Ready > 0 {
			qv.Oldest = shortDuration(q.OldestReady)
		}
		v.Queues = append(v.Queues, qv)
	}
	for _, e := range stuck {
		since := e.Since
		sv := StuckView{StuckEntity: e, Since: s.timeView(&since)}
		switch e.Kind {
		case "source":
			sv.Href = fmt.Sprintf("/sources/%d", e.ID)
		case "item":
			sv.Href = fmt.Sprintf("/items/%d", e.ID)
		case "briefing":
			sv.Href = fmt.Sprintf("/briefings/%d/edit", e.ID)
		}
		v.Stuck = append(v.Stuck, sv)
	}
	failed, err := s.opts.Queues.Failed(r.Context(), "", 100)
	if err != nil {
		v.Health.OK, v.Health.Status = false, "unhealthy"
		v.Health.Problems = append(v.Health.Problems, "failed jobs: "+err.Error())
	}
	for _, f := range failed {
		at := f.FailedAt
		v.Failed = append(v.Failed, FailedView{FailedJob: f, At: s.timeView(&at)})
	}
	return v
}

// shortDuration is "45 s", "3 min", "2 h 5 min", "3 days".
func shortDuration(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%d min", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%d h %d min", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%d days", int(d.Hours()/24))
}

func (s *Server) queuesPage(w http.ResponseWriter, r *http.Request) {
	if s.opts.Queues == nil {
		s.comingSoon("queues")(w, r)
		return
	}
	s.render(w, r, queuesPage(s.page(w, r, "queues", "Queues"), s.queuesView(r)))
}

func (s *Server) queuesFragment(w http.ResponseWriter, r *http.Request) {
	if s.opts.Queues == nil {
		s.notFound(w, r)
		return
	}
	s.render(w, r, queuesLive(s.queuesView(r)))
}

// queueAction handles the Queues page's buttons: pause, resume, retry-all, and retry or
// discard of one failed job.
func (s *Server) queueAction(verb string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if s.opts.Queues == nil {
			s.notFound(w, r)
			return
		}
		ctx, q, id := r.Context(), r.PathValue("queue"), r.PathValue("id")
		var err error
		var msg string
		switch verb {
		case "pause":
			err, msg = s.opts.Queues.SetPaused(ctx, q, true), "Queue "+q+" paused: it keeps accepting work and runs none of it until resumed."
		case "resume":
			err, msg = s.opts.Queues.SetPaused(ctx, q, false), "Queue "+q+" resumed."
		case "retry":
			err, msg = s.opts.Queues.Retry(ctx, q, id), "Job sent back to the "+q+" queue."
		case "discard":
			err, msg = s.opts.Queues.Discard(ctx, q, id), "Failed job discarded."
		case "retry-all":
			var n int
			n, err = s.opts.Queues.RetryAll(ctx, q)
			msg = fmt.Sprintf("%s sent back to the %s queue.", countWords(n, "job", "jobs"), q)
		}
		if err != nil {
			if app.ErrorCode(err) == app.ENOTFOUND {
				s.redirect(w, r, "/queues", flashError(app.ErrorMessage(err)))
				return
			}
			s.serverError(w, r, err)
			return
		}
		s.redirect(w, r, "/queues", flashSuccess(msg))
	}
}
