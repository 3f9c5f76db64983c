package queue_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

type briefingRig struct {
	db    *sqlite.DB
	q     *queue.BriefingQueue
	sched *app.Briefings
	clock *sqlitetest.Clock
}

func newBriefingRig(t *testing.T, now time.Time) *briefingRig {
	return newBriefingRigHook(t, now, nil)
}

// newBriefingRigHook is newBriefingRig with a report hook made from the database (email deliveries).
func newBriefingRigHook(t *testing.T, now time.Time, hook func(db *sqlite.DB) func(context.Context, *sql.Tx, *app.Briefing, *app.Report) error) *briefingRig {
	t.Helper()
	return newBriefingRigWith(t, now, hook, nil)
}

// newBriefingRigWith is newBriefingRigHook with a writer of overviews (an LLM's stand-in).
func newBriefingRigWith(t *testing.T, now time.Time, hook func(db *sqlite.DB) func(context.Context, *sql.Tx, *app.Briefing, *app.Report) error,
	overview func(context.Context, *app.Briefing, *app.Report) (string, error)) *briefingRig {
	t.Helper()
	clock := sqlitetest.NewClock(now)
	db := sqlitetest.NewWithClock(t, clock)
	q := queue.NewBriefingQueue(queue.Options{Store: db, PollInterval: 20 * time.Millisecond, BaseBackoff: 10 * time.Millisecond})
	w := &app.Briefings{Store: db, Queue: q, Ranker: enrich.Ranker{Embedded: enrich.NewEmbedded(enrich.EmbeddedOptions{})}, Clock: clock}
	if overview != nil {
		w.Writer = overviewFunc(overview)
	}
	if hook != nil {
		w.Emails = hook(db)
	}
	queue.HandleBriefings(q, w)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = q.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return &briefingRig{db: db, q: q, sched: w, clock: clock}
}

// item stores a DONE item with a score, published at pub, in a source named name.
func (r *briefingRig) item(t *testing.T, source, title, summary string, score int, pub time.Time) {
	t.Helper()
	ctx := context.Background()
	var sid int64
	if err := r.db.Read.QueryRow(`select id from sources where name = ?`, source).Scan(&sid); err != nil {
		src := &app.Source{UserID: 1, Type: app.SourceRSS, URL: "http://" + strings.ReplaceAll(source, " ", "") + "/feed", Name: source, RefreshIntervalMinutes: 15}
		if err := r.db.CreateSource(ctx, src, nil); err != nil {
			t.Fatal(err)
		}
		sid = src.ID
	}
	at := pub.UTC().Format("2006-01-02T15:04:05.000Z")
	_, err := r.db.Write.Exec(`insert into items (source_id, user_id, guid, title, link, summary, text_content, score, score_reasoning, status, published_at, created_at, tags)
		values (?, 1, ?, ?, ?, ?, ?, ?, 'r', 'DONE', ?, ?, '["transport"]')`, sid, title, title, "http://x/"+fmt.Sprint(len(title)), summary, summary, score, at, at)
	if err != nil {
		t.Fatal(err)
	}
}

func (r *briefingRig) waitReport(t *testing.T, briefingID int64, n int) []*app.Report {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		reps, err := r.db.Reports(context.Background(), 1, briefingID, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(reps) >= n {
			b, _ := r.db.Briefing(context.Background(), 1, briefingID)
			if b.Status == app.BriefingActive {
				return reps
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d reports, want %d", len(reps), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestBriefings(t *testing.T) {
	ctx := context.Background()
	// 08:00 in Brussels (07:00 UTC) on a Sunday in November.
	now := time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC)

	t.Run("a due briefing runs once for its period, however many schedulers look", func(t *testing.T) {
		r := newBriefingRig(t, now.Add(-2*time.Hour)) // created at 06:00 Brussels, before its 07:00 run
		due := &app.Briefing{UserID: 1, Name: "Morning", Time: "07:00", Timezone: "Europe/Brussels"}
		later := &app.Briefing{UserID: 1, Name: "Evening", Time: "19:00", Timezone: "Europe/Brussels"}
		for _, b := range []*app.Briefing{due, later} {
			if err := (&app.Briefings{Store: r.db}).Save(ctx, b); err != nil {
				t.Fatal(err)
			}
		}
		if n, _ := r.sched.QueueDue(ctx); n != 0 {
			t.Fatalf("queued %d before 07:00", n)
		}
		r.clock.Add(2 * time.Hour) // 08:00 Brussels
		other := &app.Briefings{Store: r.db, Queue: r.q, Clock: r.clock}
		n1, err1 := r.sched.QueueDue(ctx)
		n2, err2 := other.QueueDue(ctx)
		if err1 != nil || err2 != nil || n1+n2 != 1 {
			t.Fatalf("queued %d and %d (%v, %v), want one run in all", n1, n2, err1, err2)
		}
		r.waitReport(t, due.ID, 1)
		r.clock.Add(3 * time.Hour)
		if n, _ := r.sched.QueueDue(ctx); n != 0 {
			t.Fatalf("queued %d more the same day", n)
		}
		r.clock.Add(24 * time.Hour) // 11:00 the next morning: the morning one; the evening one waits for 19:00
		if n, _ := r.sched.QueueDue(ctx); n != 1 {
			t.Fatalf("the next morning queued %d, want 1", n)
		}
		r.waitReport(t, due.ID, 2)
		r.clock.Add(9 * time.Hour)
		if n, _ := r.sched.QueueDue(ctx); n != 1 {
			t.Fatalf("the next evening queued %d, want 1", n)
		}
	})

	t.Run("the report keeps the top items above the minimum score and groups one story's coverage", func(t *testing.T) {
		r := newBriefingRig(t, now)
		h := func(n int) time.Time { return now.Add(-time.Duration(n) * time.Hour) }
		r.item(t, "Le Soir", "Brussels council approves new tram line to the airport", "The Brussels regional council voted on Tuesday to build a tram line linking the city centre to Zaventem airport, with works starting in 2027 and a budget of 400 million euros.", 90, h(3))
		r.item(t, "Bruzz", "Tram to Zaventem gets the green light", "Regional councillors in Brussels approved plans for an airport tram on Tuesday. The 400 million euro line from the centre to Zaventem airport should open by 2030, with works from 2027.", 80, h(2))
		r.item(t, "Tech", "SQLite 3.50 released with faster JSON functions", "The SQLite project released version 3.50, bringing faster JSON functions and a query planner optimization.", 70, h(4))
		r.item(t, "Tech", "A minor library update", "Version 1.0.1 fixes a typo.", 10, h(5))
		r.item(t, "Tech", "Old news from last week", "This is old.", 95, h(24*6))
		b := &app.Briefing{UserID: 1, Name: "Morning", Time: "07:00", Timezone: "UTC", MinScore: 50, ItemLimit: 5}
		if err := (&app.Briefings{Store: r.db}).Save(ctx, b); err != nil {
			t.Fatal(err)
		}
		if ok, err := r.runNow(ctx, b.ID, now); !ok || err != nil {
			t.Fatalf("run now: %v %v", ok, err)
		}
		reps := r.waitReport(t, b.ID, 1)
		rep, err := r.db.Report(ctx, 1, reps[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Items) != 2 || rep.Items[0].Title != "Brussels council approves new tram line to the airport" || len(rep.Items[0].AlsoCoveredBy) != 1 ||
			rep.Items[0].AlsoCoveredBy[0].Source != "Bruzz" || rep.Items[1].Title != "SQLite 3.50 released with faster JSON functions" {
			t.Fatalf("report items %+v", rep.Items)
		}
		// The overview counts what the report shows: two stories, from Le Soir and Tech.
		if !strings.Contains(rep.Overview, "Two stories from two sources") || rep.PeriodEnd.Sub(rep.PeriodStart) != 24*time.Hour {
			t.Fatalf("overview %q, period %s–%s", rep.Overview, rep.PeriodStart, rep.PeriodEnd)
		}
		if ok, _ := r.runNow(ctx, b.ID, now); !ok {
			t.Fatal("run now refused after the run ended")
		}
	})

	t.Run("an item that ranks in the top N is never lost under another's lead", func(t *testing.T) {
		r := newBriefingRig(t, now)
		h := func(n int) time.Time { return now.Add(-time.Duration(n) * time.Hour) }
		r.item(t, "Le Soir", "Brussels council approves new tram line to the airport", "The Brussels regional council voted on Tuesday to build a tram line linking the city centre to Zaventem airport, with works starting in 2027 and a budget of 400 million euros.", 90, h(3))
		r.item(t, "Le Soir", "Airport tram line approved by Brussels council", "Brussels councillors voted on Tuesday for the tram line from the city centre to Zaventem airport: works start in 2027, the budget is 400 million euros.", 85, h(2))
		r.item(t, "Bruzz", "Tram to Zaventem gets the green light", "Regional councillors in Brussels approved plans for an airport tram on Tuesday. The 400 million euro line from the centre to Zaventem airport should open by 2030, with works from 2027.", 80, h(2))
		b := &app.Briefing{UserID: 1, Name: "Morning", Time: "07:00", Timezone: "UTC", MinScore: 50, ItemLimit: 5}
		if err := (&app.Briefings{Store: r.db}).Save(ctx, b); err != nil {
			t.Fatal(err)
		}
		if ok, err := r.runNow(ctx, b.ID, now); !ok || err != nil {
			t.Fatalf("run now: %v %v", ok, err)
		}
		reps := r.waitReport(t, b.ID, 1)
		rep, err := r.db.Report(ctx, 1, reps[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		listed := map[string]bool{}
		for _, it := range rep.Items {
			listed[it.Title] = true
			for _, c := range it.AlsoCoveredBy {
				listed[c.Title] = true
			}
		}
		for _, title := range []string{"Brussels council approves new tram line to the airport", "Airport tram line approved by Brussels council", "Tram to Zaventem gets the green light"} {
			if !listed[title] {
				t.Errorf("%q ranks in the top 5 but the report lost it: %+v", title, rep.Items)
			}
		}
	})

	t.Run("blog posts sharing a project's name are different stories, each kept (issue 25)", func(t *testing.T) {
		// A first briefing of a new user ("Go programming, SQLite, security vulnerabilities",
		// twenty tech feeds) once listed the FTS5 flaw and Litestream under the cgo-free driver
		// as "also covered by" — three stories sharing one name — and lost "SQLite 3.51 adds
		// faster JSON functions", scored 92.
		r := newBriefingRig(t, now)
		h := func(n int) time.Time { return now.Add(-time.Duration(n) * time.Hour) }
		r.item(t, "Go blog", "A cgo-free SQLite driver for Go", "modernc.org/sqlite is a port of SQLite to pure Go: programs that use SQLite build without a C compiler and cross-compile to any platform Go supports.", 88, h(5))
		r.item(t, "Security Week", "SQLite vulnerability in FTS5 allows out-of-bounds read", "A flaw in SQLite's FTS5 full-text search extension lets a crafted database read past the end of a buffer. SQLite 3.51.1 fixes it; applications that open untrusted databases should upgrade.", 90, h(4))
		r.item(t, "Fly blog", "Litestream 0.5: streaming SQLite replication to S3", "Litestream continuously replicates a SQLite database to S3-compatible object storage, and restores it to any point in time.", 80, h(3))
		r.item(t, "SQLite news", "SQLite 3.51 adds faster JSON functions", "The release of SQLite 3.51 makes the JSON functions faster and improves the query planner.", 92, h(2))
		rep := r.brief(t, &app.Briefing{UserID: 1, Name: "Morning", Time: "07:00", Timezone: "UTC", MinScore: 50, ItemLimit: 10}, now)
		var leads []string
		for _, it := range rep.Items {
			leads = append(leads, it.Title)
			if len(it.AlsoCoveredBy) > 0 {
				t.Errorf("%q lists %+v as the same story", it.Title, it.AlsoCoveredBy)
			}
		}
		want := []string{"SQLite 3.51 adds faster JSON functions", "SQLite vulnerability in FTS5 allows out-of-bounds read", "A cgo-free SQLite driver for Go", "Litestream 0.5: streaming SQLite replication to S3"}
		if strings.Join(leads, "|") != strings.Join(want, "|") {
			t.Fatalf("report stories %q, want four, best first: %q", leads, want)
		}
	})

	t.Run("a briefing that follows a topic keeps only the items classified under it", func(t *testing.T) {
		r := newBriefingRig(t, now)
		r.item(t, "Tech", "SQLite 3.50 released", "Faster JSON.", 70, now.Add(-time.Hour))
		r.item(t, "Tech", "A new bike lane", "Cycling news.", 90, now.Add(-time.Hour))
		if _, err := r.db.Write.Exec(`update items set topics = '["Databases"]' where title like 'SQLite%'`); err != nil {
			t.Fatal(err)
		}
		b := &app.Briefing{UserID: 1, Name: "DB", Time: "07:00", Timezone: "UTC", Topic: "databases"}
		if err := (&app.Briefings{Store: r.db}).Save(ctx, b); err != nil {
			t.Fatal(err)
		}
		if _, err := r.runNow(ctx, b.ID, now); err != nil {
			t.Fatal(err)
		}
		reps := r.waitReport(t, b.ID, 1)
		rep, _ := r.db.Report(ctx, 1, reps[0].ID)
		if len(rep.Items) != 1 || rep.Items[0].Title != "SQLite 3.50 released" {
			t.Fatalf("items %+v", rep.Items)
		}
	})

	t.Run("an empty period gives an honest 'nothing new' report", func(t *testing.T) {
		r := newBriefingRig(t, now)
		b := &app.Briefing{UserID: 1, Name: "Quiet", Time: "07:00", Timezone: "UTC"}
		if err := (&app.Briefings{Store: r.db}).Save(ctx, b); err != nil {
			t.Fatal(err)
		}
		if _, err := r.runNow(ctx, b.ID, now); err != nil {
			t.Fatal(err)
		}
		reps := r.waitReport(t, b.ID, 1)
		if !strings.HasPrefix(reps[0].Overview, "Nothing new") {
			t.Fatalf("overview %q", reps[0].Overview)
		}
	})

	t.Run("a written overview (LLM) replaces the embedded one; when it fails the embedded one stays", func(t *testing.T) {
		var calls atomic.Int32
		r := newBriefingRigWith(t, now, nil, func(_ context.Context, b *app.Briefing, rep *app.Report) (string, error) {
			if calls.Add(1) == 1 {
				return fmt.Sprintf("%s leads with %q among %d stories.", b.Name, rep.Items[0].Title, len(rep.Items)), nil
			}
			return "", errors.New("the LLM could not be reached")
		})
		r.item(t, "Le Soir", "Tram to the airport approved", "The council approved the tram.", 90, now.Add(-time.Hour))
		b := &app.Briefing{UserID: 1, Name: "Morning", Time: "07:00", Timezone: "UTC"}
		if err := (&app.Briefings{Store: r.db}).Save(ctx, b); err != nil {
			t.Fatal(err)
		}
		if _, err := r.runNow(ctx, b.ID, now); err != nil {
			t.Fatal(err)
		}
		reps := r.waitReport(t, b.ID, 1)
		if reps[0].Overview != `Morning leads with "Tram to the airport approved" among 1 stories.` {
			t.Fatalf("overview %q", reps[0].Overview)
		}
		r.item(t, "Le Soir", "Second tram line studied", "A study of a second line.", 90, now.Add(time.Hour))
		r.clock.Add(2 * time.Hour)
		if _, err := r.runNow(ctx, b.ID, r.clock.Now()); err != nil {
			t.Fatal(err)
		}
		reps = r.waitReport(t, b.ID, 2)
		if !strings.HasPrefix(reps[0].Overview, "One story from one source") {
			t.Fatalf("overview after a failure %q", reps[0].Overview)
		}
	})

	t.Run("a briefing created after today's time first runs tomorrow", func(t *testing.T) {
		r := newBriefingRig(t, now) // 08:00 Brussels
		b := &app.Briefing{UserID: 1, Name: "Late", Time: "07:00", Timezone: "Europe/Brussels"}
		if err := (&app.Briefings{Store: r.db}).Save(ctx, b); err != nil {
			t.Fatal(err)
		}
		if n, _ := r.sched.QueueDue(ctx); n != 0 {
			t.Fatal("ran for a period that began before it existed")
		}
		if next := b.NextRunAt(now); next == nil || !next.Equal(time.Date(2026, 11, 23, 6, 0, 0, 0, time.UTC)) {
			t.Fatalf("next run %v", next)
		}
	})

	t.Run("invalid briefings are refused with a clear message", func(t *testing.T) {
		r := newBriefingRig(t, now)
		for _, b := range []*app.Briefing{
			{UserID: 1, Name: ""}, {UserID: 1, Name: "x", Time: "7 o'clock"}, {UserID: 1, Name: "x", Timezone: "Nowhere"},
			{UserID: 1, Name: "x", ItemLimit: 500}, {UserID: 1, Name: "x", EmailEnabled: true}, {UserID: 1, Name: "x", Recipients: []string{"nope"}},
			{UserID: 1, Name: "x", SourceIDs: []int64{99}},
		} {
			if err := (&app.Briefings{Store: r.db}).Save(ctx, b); app.ErrorCode(err) != app.EINVALID {
				t.Errorf("%+v: %v", b, err)
			}
		}
	})
}

// overviewFunc is a function that writes overviews (an LLM's stand-in).
type overviewFunc func(context.Context, *app.Briefing, *app.Report) (string, error)

func (f overviewFunc) Overview(ctx context.Context, b *app.Briefing, r *app.Report) (string, error) {
	return f(ctx, b, r)
}

// runNow queues a run of briefing id as of at, as "run now" does.
// brief saves a briefing, runs it now and returns its first report (the steps of most tests here).
func (r *briefingRig) brief(t *testing.T, b *app.Briefing, at time.Time) *app.Report {
	t.Helper()
	ctx := context.Background()
	if err := (&app.Briefings{Store: r.db}).Save(ctx, b); err != nil {
		t.Fatal(err)
	}
	if ok, err := r.runNow(ctx, b.ID, at); !ok || err != nil {
		t.Fatalf("run now: %v %v", ok, err)
	}
	reps := r.waitReport(t, b.ID, 1)
	rep, err := r.db.Report(ctx, 1, reps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func (r *briefingRig) runNow(ctx context.Context, id int64, at time.Time) (bool, error) {
	return r.db.QueueBriefing(ctx, id, nil, func(ctx context.Context, tx *sql.Tx) error {
		return r.q.EnqueueTx(ctx, tx, app.BriefingJob{BriefingID: id, RunAt: at.UnixMilli()}, 10)
	})
}

// TestBriefingFocusCandidates: a focus briefing chooses among all the period's items by its
// focus, not among a slice cut by the stored score (issue 13: a Go post scored low for the
// user's interests never reached a Go-focused briefing when 500 better-scored items came first).
func TestBriefingFocusCandidates(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC)
	r := newBriefingRig(t, now)
	src := &app.Source{UserID: 1, Type: app.SourceRSS, URL: "http://kitchen/feed", Name: "Kitchen", RefreshIntervalMinutes: 15}
	if err := r.db.CreateSource(ctx, src, nil); err != nil {
		t.Fatal(err)
	}
	tx, err := r.db.Write.Begin()
	if err != nil {
		t.Fatal(err)
	}
	at := now.Add(-2 * time.Hour).Format("2006-01-02T15:04:05.000Z")
	for i := range 800 {
		if _, err := tx.Exec(`insert into items (source_id, user_id, guid, title, link, summary, text_content, score, score_reasoning, status, published_at, created_at)
			values (?, 1, ?, ?, ?, '', ?, 90, 'r', 'DONE', ?, ?)`, src.ID, fmt.Sprint("k", i), fmt.Sprintf("Recipe %d: a slow-roasted vegetable soup", i),
			fmt.Sprint("http://kitchen/", i), "Roast the vegetables, then simmer them in stock for an hour and blend until smooth.", at, at); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	r.item(t, "Go Blog", "Go 1.26 is released", "The Go team released Go 1.26: the Go programming language gets a faster garbage collector and generic type aliases; the go command and the toolchain improve too.", 5, now.Add(-time.Hour))
	b := &app.Briefing{UserID: 1, Name: "Go", Focus: "the Go programming language", Time: "07:00", Timezone: "UTC", ItemLimit: 3}
	if err := (&app.Briefings{Store: r.db}).Save(ctx, b); err != nil {
		t.Fatal(err)
	}
	if _, err := r.runNow(ctx, b.ID, now); err != nil {
		t.Fatal(err)
	}
	reps := r.waitReport(t, b.ID, 1)
	rep, err := r.db.Report(ctx, 1, reps[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Items) == 0 || rep.Items[0].Title != "Go 1.26 is released" {
		t.Fatalf("the Go post (stored score 5, below 800 items scored 90) is not the focus briefing's first story: %+v", rep.Items)
	}
}

// TestBriefingFocusUnderstood: a focus briefing chooses with the same understanding of its focus
// as the ranking (issue 25: "security vulnerabilities" chose two German podcast episodes, one
// titled "GSM Security", and left out the CVE and OpenSSH privilege-escalation items).
func TestBriefingFocusUnderstood(t *testing.T) {
	now := time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC)
	r := newBriefingRig(t, now)
	h := func(n int) time.Time { return now.Add(-time.Duration(n) * time.Hour) }
	r.item(t, "CRE", "CRE179 GSM Security", "Trotz UMTS und LTE ist GSM immer noch der in weiten Teilen der Welt dominierende Standard im Mobilfunkbereich - und wird diese Rolle auch so schnell nicht abgeben. Die GSM zugrunde liegenden Kryptografie-Standards sind über 20 Jahre alt und wurden in den letzten Jahren Stück für Stück zerlegt.", 80, h(3))
	r.item(t, "CRE", "CRE202 Hackerfilme", "Die Filmbranche ist fasziniert von Hackern und ihrer Kultur, doch ist das Bild des Hackers in der Öffentlichkeit auch stark geprägt von der Art, wie Hacker in Filmen der Traumfabriken präsentiert werden.", 80, h(3))
	r.item(t, "Security Week", "CVE-2026-1234: remote code execution in libpng's chunk parser", "A heap overflow in libpng lets a crafted image run code in any program that decodes it. The flaw is tracked as CVE-2026-1234; version 1.6.45 patches it and an exploit is public.", 40, h(2))
	r.item(t, "LWN", "OpenSSH 10.1 fixes a privilege escalation in sshd", "OpenSSH 10.1 fixes a vulnerability that let a local user escalate privileges to root through sshd's session handling. Administrators should upgrade.", 40, h(2))
	r.item(t, "Tech", "Kubernetes 1.35 adds in-place pod resizing", "The release lets a pod's CPU and memory change without a restart, and graduates sidecar containers to stable.", 85, h(1))
	r.item(t, "Tech", "Firefox 140 brings tab groups to everyone", "Mozilla's browser groups tabs by colour and name, and the new sidebar holds vertical tabs.", 85, h(1))
	rep := r.brief(t, &app.Briefing{UserID: 1, Name: "Security", Focus: "security vulnerabilities", Time: "07:00", Timezone: "UTC", ItemLimit: 3}, now)
	var got []string
	for _, it := range rep.Items {
		got = append(got, it.Title)
	}
	// The CVE item (it says neither "security" nor "vulnerability", but a CVE and remote code
	// execution are kinds of vulnerability: the lexicon's kinds) and the privilege escalation
	// (it says "vulnerability") come first; no podcast episode comes before them.
	if len(got) < 2 || !slices.ContainsFunc(got[:2], func(s string) bool { return strings.HasPrefix(s, "CVE-2026-1234") }) ||
		!slices.ContainsFunc(got[:2], func(s string) bool { return strings.HasPrefix(s, "OpenSSH") }) {
		t.Fatalf("the focus briefing's stories are %q, not the CVE and the OpenSSH items first", got)
	}
	// The reader who adds "CVE" as a word of their own gets the same two first.
	rep = r.brief(t, &app.Briefing{UserID: 1, Name: "Security and CVEs", Focus: "security vulnerabilities, CVE", Time: "07:00", Timezone: "UTC", ItemLimit: 3}, now)
	got = got[:0]
	for _, it := range rep.Items {
		got = append(got, it.Title)
	}
	if len(got) < 2 || !slices.ContainsFunc(got[:2], func(s string) bool { return strings.HasPrefix(s, "CVE-2026-1234") }) ||
		!slices.ContainsFunc(got[:2], func(s string) bool { return strings.HasPrefix(s, "OpenSSH") }) {
		t.Fatalf("with CVE in the focus, the stories are %q, not the CVE and the OpenSSH items first", got)
	}
}

// TestBriefingRunNowPreview: "Run now" writes a preview report, emailed like any other, that does
// not move the start of the next scheduled period.
func TestBriefingRunNowPreview(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 19, 0, 0, 0, time.UTC)
	var emailed atomic.Int32
	r := newBriefingRigHook(t, now, func(*sqlite.DB) func(context.Context, *sql.Tx, *app.Briefing, *app.Report) error {
		return func(context.Context, *sql.Tx, *app.Briefing, *app.Report) error { emailed.Add(1); return nil }
	})
	r.item(t, "Le Soir", "Tram to the airport approved", "The council approved the tram.", 90, now.Add(-time.Hour))
	b := &app.Briefing{UserID: 1, Name: "Morning", Time: "07:00", Timezone: "UTC", EmailEnabled: true, Recipients: []string{"a@example.com"}}
	if err := (&app.Briefings{Store: r.db}).Save(ctx, b); err != nil {
		t.Fatal(err)
	}
	before, _ := r.db.Briefing(ctx, 1, b.ID)
	if ok, err := r.sched.RunNow(ctx, b.ID); !ok || err != nil {
		t.Fatalf("run now: %v %v", ok, err)
	}
	reps := r.waitReport(t, b.ID, 1)
	if !reps[0].Preview || reps[0].Stories() != 1 {
		t.Fatalf("run now wrote %+v, want a preview of one story", reps[0])
	}
	after, _ := r.db.Briefing(ctx, 1, b.ID)
	if (before.LastExecutedAt == nil) != (after.LastExecutedAt == nil) || after.LastExecutedAt != nil && !after.LastExecutedAt.Equal(*before.LastExecutedAt) {
		t.Fatalf("run now moved the scheduled period: last run %v, was %v", after.LastExecutedAt, before.LastExecutedAt)
	}
	if emailed.Load() != 1 {
		t.Fatalf("the preview was emailed %d times, want once", emailed.Load())
	}
}
