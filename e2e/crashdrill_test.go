package e2e_test

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/morningdeck/morningdeck/app/feeds/feedtest"
)

// TestCrashDrill is the crash drill: a farm of 200 feeds, the real binary as a subprocess,
// kill -9 at random moments aimed at fetching, processing, briefing (run now and scheduled)
// and email delivery to a real SMTP server, restart, repeat; then one last restart that drains
// everything, and checks on the database file and the mailbox:
//
//   - no source, item, briefing or delivery left in a transitional state, no job left in a
//     queue or dead-lettered;
//   - every item stored exactly once and every item the farm served is stored;
//   - every item that arrived after its source's first import is DONE and enriched, the
//     first import is scored by the embedded enricher (no credit), and one credit was spent
//     per enrichment;
//   - one report per scheduled briefing period, one report per acknowledged "run now";
//   - one delivery per (report, recipient), all SENT, each received by the SMTP server; a
//     duplicate (the documented window between the server's OK and the SENT mark) is counted
//     and reported, not hidden;
//   - PRAGMA quick_check after every kill, integrity_check and foreign_key_check at the end.
//
// The short form (at least 5 kill cycles, ~60–90 s) runs in `make test`. The long form:
//
//	MORNINGDECK_DRILL_CYCLES=20 go test -run TestCrashDrill -timeout 30m -v ./e2e
//
// MORNINGDECK_DRILL_SEED replays the random choices of an earlier run (its seed is logged);
// MORNINGDECK_DRILL_LOG=FILE keeps the app's log, MORNINGDECK_DRILL_LOG_LEVEL=debug details it.
func TestCrashDrill(t *testing.T) {
	const (
		feeds        = 200
		itemsPerFeed = 5
		bumpsPerKill = feeds / 4
	)
	cycles := drillEnvInt(t, "MORNINGDECK_DRILL_CYCLES", 5)
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("MORNINGDECK_DRILL_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("MORNINGDECK_DRILL_SEED=%q: %v", s, err)
		}
		seed = v
	}
	rng := rand.New(rand.NewPCG(seed, seed>>1|1))
	between := func(lo, hi time.Duration) time.Duration { return lo + time.Duration(rng.Int64N(int64(hi-lo)+1)) }
	began := time.Now()
	t.Logf("crash drill: %d feeds, at least %d kill cycles, seed %d (replay with MORNINGDECK_DRILL_SEED=%d)", feeds, cycles, seed, seed)

	farm := newDrillFarm(t, feeds, itemsPerFeed)
	box := newDrillMailbox(t)
	dir := t.TempDir()
	logDir := t.TempDir()
	appLog, err := os.Create(filepath.Join(logDir, "morningdeck.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer appLog.Close()
	defer func() {
		if keep := os.Getenv("MORNINGDECK_DRILL_LOG"); keep != "" {
			if b, err := os.ReadFile(appLog.Name()); err == nil {
				_ = os.WriteFile(keep, b, 0o600)
			}
		}
		if t.Failed() {
			kept := filepath.Join(os.TempDir(), fmt.Sprintf("morningdeck-drill-%d.log", seed))
			t.Logf("the app's last log lines (all of it kept in %s):\n%s", kept, drillTail(appLog.Name(), 60))
			if b, err := os.ReadFile(appLog.Name()); err == nil {
				_ = os.WriteFile(kept, b, 0o600)
			}
		}
	}()
	smtpHost, smtpPort, _ := net.SplitHostPort(box.addr)
	flags := []string{
		"--fetch-scheduler-interval", "500ms", "--process-scheduler-interval", "500ms", "--briefing-scheduler-interval", "500ms",
		"--fetch-job-timeout", "3s", "--process-job-timeout", "3s", "--stuck-threshold", "20s", "--recovery-interval", "2s",
		"--shutdown-grace", "10s", "--smtp-host", smtpHost, "--smtp-port", smtpPort, "--smtp-tls", "none",
		"--smtp-from", "deck@example.com", "--base-url", "http://deck.example",
	}
	start := func(extra ...string) *drillApp {
		return drillStart(t, dir, logDir, appLog, append(append([]string{}, flags...), extra...)...)
	}

	// Setup, with processing off so that no credit refill runs before the daily allowance is
	// raised: the first refill then grants it, and every enrichment of the drill has a credit.
	const credits = 1_000_000
	setup := start("--process-enabled=false")
	setup.mustAPI(t, "PATCH", "api/settings", map[string]any{"dailyCredits": credits}, 200)
	type briefing struct {
		id        int64
		name      string
		scheduled time.Time // zero: runs only when asked ("run now")
		to        []string
	}
	var briefings []*briefing
	runNow := []string{"ann@example.com", "bob@example.com"}
	for _, name := range []string{"Run now A", "Run now B"} {
		// Scheduled three hours ago: that period began before the briefing existed, so the
		// scheduler leaves it alone today; it runs only when asked.
		at := time.Now().UTC().Add(-3 * time.Hour).Format("15:04")
		briefings = append(briefings, &briefing{name: name, to: runNow})
		briefings[len(briefings)-1].id = setup.createBriefing(t, name, at, runNow)
	}
	// Scheduled briefings, each due at a minute boundary during the kills (the first 10–70 s away).
	first := time.Now().UTC().Truncate(time.Minute).Add(time.Minute)
	if time.Until(first) < 10*time.Second {
		first = first.Add(time.Minute)
	}
	var lastScheduled time.Time
	for k := range max(1, cycles/8) {
		at := first.Add(time.Duration(k) * time.Minute)
		b := &briefing{name: fmt.Sprintf("Scheduled %d", k+1), scheduled: at, to: []string{"carol@example.com"}}
		b.id = setup.createBriefing(t, b.name, at.Format("15:04"), b.to)
		briefings = append(briefings, b)
		lastScheduled = at
	}
	if err := setup.stop(); err != nil {
		t.Fatalf("setup server: %v", err)
	}

	db := openRead(t, dir)
	bumps := make([]int, feeds)
	acks := map[int64]int{}
	var conflicts, missedTriggers int
	kills := map[string]int{}
	var killTimes []drillKill
	// Kills aimed at each phase in turn (the first one mid first import), plus one at each
	// scheduled briefing run; the cycles go on until the last scheduled run has passed.
	phases := []string{"fetch", "process", "briefing", "email"}
	aimed, aimedAt := 0, map[time.Time]bool{}
	for cycle := 1; ; cycle++ {
		if aimed >= cycles && time.Now().After(lastScheduled.Add(3*time.Second)) {
			break
		}
		a := start()
		if cycle == 1 {
			a.addSources(t, farm, feeds)
		}
		phase := phases[aimed%len(phases)]
		// The app runs a while (the work left by earlier kills moves on), then is killed; the
		// pauses spread the aimed kills over the time until the last scheduled run.
		pause := between(0, time.Second)
		if left := cycles - aimed; left > 0 {
			pause += max(0, time.Until(lastScheduled.Add(3*time.Second))/time.Duration(left)-2*time.Second)
		}
		var nextScheduled time.Time
		for _, b := range briefings {
			if !b.scheduled.IsZero() && !aimedAt[b.scheduled] && (nextScheduled.IsZero() || b.scheduled.Before(nextScheduled)) {
				nextScheduled = b.scheduled
			}
		}
		if !nextScheduled.IsZero() && time.Until(nextScheduled) < pause+10*time.Second {
			phase, pause = "scheduled", 0
			aimedAt[nextScheduled] = true
		} else {
			aimed++
		}

		// New items on a quarter of the feeds already imported once (so that what is new is
		// known: anything bumped arrives after its source's first import and must be enriched).
		fetched := drillFetchedFeeds(t, db)
		rng.Shuffle(len(fetched), func(i, j int) { fetched[i], fetched[j] = fetched[j], fetched[i] })
		for _, n := range fetched[:min(bumpsPerKill, len(fetched))] {
			farm.farm.Bump(n)
			bumps[n]++
		}
		time.Sleep(pause)
		a.mustAPI(t, "POST", "api/sources/refresh", nil, 202)
		feedMark, pageMark, dataMark := farm.feedHits.Load(), farm.pageHits.Load(), box.dataStarts.Load()
		var ackedAt time.Time
		for _, b := range briefings[:2] {
			switch code := a.api(t, "POST", fmt.Sprintf("api/briefings/%d/run", b.id), nil); code {
			case 202:
				acks[b.id]++
				ackedAt = time.Now()
			case 409: // still queued or running from before the last kill: not acknowledged
				conflicts++
			default:
				t.Fatalf("run briefing %d: status %d", b.id, code)
			}
		}
		var delay time.Duration
		missed := false
		switch phase {
		case "fetch":
			missed = !drillWaitFor(func() bool { return farm.feedHits.Load() > feedMark }, 8*time.Second)
			delay = between(0, 700*time.Millisecond)
		case "process":
			missed = !drillWaitFor(func() bool { return farm.pageHits.Load() > pageMark }, 8*time.Second)
			delay = between(0, 800*time.Millisecond)
		case "briefing":
			missed = ackedAt.IsZero()
			delay = between(0, 80*time.Millisecond)
		case "email":
			missed = !drillWaitFor(func() bool { return box.dataStarts.Load() > dataMark }, 8*time.Second)
			delay = between(0, 25*time.Millisecond)
		case "scheduled":
			time.Sleep(time.Until(nextScheduled))
			delay = between(0, 1500*time.Millisecond)
		}
		if missed {
			missedTriggers++
		}
		time.Sleep(delay)
		at := time.Now()
		a.kill()
		kills[phase]++
		killTimes = append(killTimes, drillKill{cycle: cycle, phase: phase, at: at})
		t.Logf("kill %d: %s phase, %v after its trigger%s", cycle, phase, delay.Round(time.Millisecond), map[bool]string{true: " (trigger not seen in 8 s)"}[missed])
		if res := drillPragma(t, dir, "quick_check", true); res != "ok" {
			t.Fatalf("quick_check after kill %d: %s", cycle, res)
		}
	}
	killPhase := time.Now()

	// The last restart: refresh every source (twice, so that a fetch lost in a kill cannot
	// hide an item the farm serves), let everything drain, then stop gracefully.
	a := start()
	drainStart := time.Now()
	scheduled := map[int64]time.Time{}
	for _, b := range briefings[2:] {
		scheduled[b.id] = b.scheduled
	}
	for range 2 {
		a.mustAPI(t, "POST", "api/sources/refresh", nil, 202)
		drillWaitSettled(t, db, scheduled, 3*time.Minute)
	}
	drained := time.Since(drainStart)
	stats := mustRun(t, dir, "queue", "stats", "--json")
	if err := a.stop(); err != nil {
		t.Fatalf("final stop: %v", err)
	}
	t.Logf("queue stats after the drain:\n%s", stats)

	// Sources: none stuck, none failing.
	var sources, notIdle, notActive int
	if err := db.QueryRow(`select count(*), coalesce(sum(fetch_status != 'IDLE'), 0), coalesce(sum(status != 'ACTIVE' or error_count > 0), 0) from sources`).
		Scan(&sources, &notIdle, &notActive); err != nil {
		t.Fatal(err)
	}
	if sources != feeds || notIdle != 0 || notActive != 0 {
		t.Errorf("sources: %d (want %d), %d not IDLE, %d not ACTIVE or failing", sources, feeds, notIdle, notActive)
	}

	// Items: each once; as many per source as its feed serves; the new ones enriched.
	perFeed := map[int]int{}
	var total, firstImport, enriched, firstEnriched, newNotEnriched, badStatus int
	rows, err := db.Query(`select s.url, i.guid, i.status, i.enriched_by, i.score is not null from items i join sources s on s.id = i.source_id`)
	if err != nil {
		t.Fatal(err)
	}
	guidRE := regexp.MustCompile(`^feed-(\d+)-story-(\d+)$`)
	seen := map[string]bool{}
	for rows.Next() {
		var u, guid, status, by string
		var scored bool
		if err := rows.Scan(&u, &guid, &status, &by, &scored); err != nil {
			t.Fatal(err)
		}
		total++
		n := farm.feedOf(u)
		m := guidRE.FindStringSubmatch(guid)
		if n < 0 || m == nil || m[1] != strconv.Itoa(n) {
			t.Errorf("item %q of source %s is not one the farm serves there", guid, u)
			continue
		}
		if seen[guid] {
			t.Errorf("item %q stored twice", guid)
		}
		seen[guid] = true
		perFeed[n]++
		story, _ := strconv.Atoi(m[2])
		if status != "DONE" {
			badStatus++
			if badStatus <= 5 {
				t.Errorf("item %q is %s", guid, status)
			}
		}
		if story < itemsPerFeed { // the first import: stored DONE, scored by the embedded enricher only
			firstImport++
			if by != "embedded" || !scored {
				firstEnriched++
			}
			continue
		}
		if by == "" || !scored {
			newNotEnriched++
			if newNotEnriched <= 5 {
				t.Errorf("new item %q (%s) is not enriched", guid, status)
			}
			continue
		}
		enriched++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	served, totalBumps := 0, 0
	for n := range feeds {
		want := itemsPerFeed + bumps[n]
		served += want
		totalBumps += bumps[n]
		if perFeed[n] != want {
			t.Errorf("feed %d: %d items stored, the farm serves %d", n, perFeed[n], want)
		}
	}
	if total != served || badStatus != 0 || newNotEnriched != 0 || firstEnriched != 0 {
		t.Errorf("items: %d stored, %d served; %d not DONE; %d new not enriched; %d of the first import not scored by the embedded enricher", total, served, badStatus, newNotEnriched, firstEnriched)
	}
	var left, refillOnce int
	var refilled string
	if err := db.QueryRow(`select credits, coalesce(credits_refilled_at, '') from users where id = 1`).Scan(&left, &refilled); err != nil {
		t.Fatal(err)
	}
	// Valid when the one refill was the first, at the first start with processing (not a
	// second one after midnight UTC).
	if refilledAt, err := time.Parse("2006-01-02T15:04:05.000Z", refilled); err == nil && refilledAt.Before(killTimes[0].at) {
		refillOnce = 1
		if credits-left != enriched {
			t.Errorf("credits spent %d, items enriched %d: an enrichment was paid twice or not at all", credits-left, enriched)
		}
	}

	// Queues: empty, nothing dead-lettered.
	var jobs, dead int
	if err := db.QueryRow(`select (select count(*) from goqite), (select count(*) from queue_dead)`).Scan(&jobs, &dead); err != nil {
		t.Fatal(err)
	}
	if jobs != 0 || dead != 0 {
		t.Errorf("after the drain: %d jobs left in the queues, %d dead-lettered\n%s", jobs, dead, mustRun(t, dir, "queue", "failed"))
	}

	// Reports: one per scheduled period, one per acknowledged "run now".
	var stuckBriefings int
	if err := db.QueryRow(`select count(*) from briefings where status != 'ACTIVE'`).Scan(&stuckBriefings); err != nil {
		t.Fatal(err)
	}
	if stuckBriefings != 0 {
		t.Errorf("%d briefings not ACTIVE after the drain", stuckBriefings)
	}
	wantDeliveries, reportsTotal, scheduledReports := 0, 0, 0
	for _, b := range briefings {
		// Each scheduled report covers the time since the one before: no period twice, none
		// skipped. A "run now" is a preview that leaves the schedule alone: previews end one
		// after the other, each at its own run.
		var n int
		var periodEnds, previewEnds []string
		rows, err := db.Query(`select period_start, period_end, preview from reports where briefing_id = ? order by id`, b.id)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var ps, pe string
			var preview bool
			if err := rows.Scan(&ps, &pe, &preview); err != nil {
				t.Fatal(err)
			}
			n++
			if preview {
				if k := len(previewEnds); k > 0 && pe <= previewEnds[k-1] {
					t.Errorf("briefing %q, report %d: preview period %s – %s does not end after the previous preview (%v)", b.name, n, ps, pe, previewEnds)
				}
				previewEnds = append(previewEnds, pe)
				continue
			}
			end, _ := time.Parse("2006-01-02T15:04:05.000Z", pe)
			k := len(periodEnds)
			if k == 0 && ps != drillTime(end.Add(-24*time.Hour)) || k > 0 && ps != periodEnds[k-1] {
				t.Errorf("briefing %q, report %d: period %s – %s does not follow the previous one (%v)", b.name, n, ps, pe, periodEnds)
			}
			periodEnds = append(periodEnds, pe)
		}
		rows.Close()
		reportsTotal += n
		wantDeliveries += n * len(b.to)
		if b.scheduled.IsZero() {
			if n != acks[b.id] {
				t.Errorf("briefing %q: %d reports for %d acknowledged runs", b.name, n, acks[b.id])
			}
			continue
		}
		scheduledReports += n
		want := drillTime(b.scheduled)
		if n != 1 || periodEnds[0] != want {
			t.Errorf("briefing %q scheduled at %s: reports for periods ending %v, want exactly one for %s", b.name, b.scheduled.Format("15:04"), periodEnds, want)
		}
	}

	// Email: one delivery per (report, recipient), all SENT, each received (duplicates counted).
	type delivery struct {
		id, report int64
		to, status string
		sentAt     sql.NullString
	}
	var deliveries []delivery
	rows, err = db.Query(`select id, report_id, recipient, status, sent_at from deliveries order by id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var d delivery
		if err := rows.Scan(&d.id, &d.report, &d.to, &d.status, &d.sentAt); err != nil {
			t.Fatal(err)
		}
		deliveries = append(deliveries, d)
	}
	rows.Close()
	if len(deliveries) != wantDeliveries {
		t.Errorf("%d deliveries for %d reports, want %d (one per report and recipient)", len(deliveries), reportsTotal, wantDeliveries)
	}
	got := box.received()
	var lost, duplicates, notSent int
	var dupes []string
	var windows []time.Duration
	want := map[string]bool{}
	for _, d := range deliveries {
		id := fmt.Sprintf("report-%d-delivery-%d@deck.example", d.report, d.id)
		want[id] = true
		if d.status != "SENT" {
			notSent++
			t.Errorf("delivery %d to %s is %s", d.id, d.to, d.status)
		}
		r := got[id]
		switch {
		case len(r) == 0:
			lost++
			t.Errorf("delivery %d (%s) was never received by the SMTP server", d.id, id)
		case len(r) > 1:
			duplicates += len(r) - 1
			dupes = append(dupes, fmt.Sprintf("%s ×%d (first accepted %s)", id, len(r), drillNearestKill(killTimes, r[0].at)))
		}
		// The at-least-once window: from the server's acceptance of the message that counted
		// to the SENT mark (deliveries.sent_at, written in the transaction that marks it).
		if sent, err := time.Parse("2006-01-02T15:04:05.000Z", d.sentAt.String); err == nil && len(r) > 0 {
			windows = append(windows, sent.Sub(r[len(r)-1].at))
		}
		for _, m := range r {
			if m.rcpt != d.to {
				t.Errorf("%s went to %q, want %q", id, m.rcpt, d.to)
			}
		}
	}
	emails := 0
	for id, r := range got {
		emails += len(r)
		if !want[id] {
			t.Errorf("the SMTP server received %q, which is no delivery", id)
		}
	}

	// The file itself.
	if res := drillPragma(t, dir, "integrity_check", false); res != "ok" {
		t.Errorf("integrity_check: %s", res)
	}
	if res := drillPragma(t, dir, "foreign_key_check", false); res != "" {
		t.Errorf("foreign_key_check: %s", res)
	}
	size := drillFileSize(filepath.Join(dir, "morningdeck.db"))

	var killList []string
	for _, p := range append(phases, "scheduled") {
		killList = append(killList, fmt.Sprintf("%s %d", p, kills[p]))
	}
	t.Logf("figures: seed %d; %d kill -9 (%s; %d triggers not seen in 8 s) over %v; drain after the last restart %v; total %v",
		seed, len(killTimes), strings.Join(killList, ", "), missedTriggers, killPhase.Sub(began).Round(time.Second), drained.Round(100*time.Millisecond), time.Since(began).Round(time.Second))
	t.Logf("figures: %d sources; %d items stored = %d served (%d first import, %d new from %d bumps), %d enriched, %d not DONE, %d duplicated; credits check %s",
		sources, total, served, firstImport, total-firstImport, totalBumps, enriched, badStatus, total-len(seen), map[int]string{0: "skipped (a refill ran during the drill)", 1: "ok"}[refillOnce])
	t.Logf("figures: farm: %d feed requests (%d answered 304), %d article pages", farm.feedHits.Load(), farm.farm.NotMod.Load(), farm.pageHits.Load())
	t.Logf("figures: %d reports (%d scheduled for %d periods, %d run now for %d acknowledged requests; %d requests refused as already queued)",
		reportsTotal, scheduledReports, len(briefings)-2, reportsTotal-scheduledReports, acks[briefings[0].id]+acks[briefings[1].id], conflicts)
	t.Logf("figures: %d deliveries, %d not SENT; SMTP server accepted %d messages for %d distinct ids: %d lost, %d duplicates%s",
		len(deliveries), notSent, emails, len(got), lost, duplicates, drillList(dupes))
	t.Logf("figures: the window between the SMTP server's acceptance and the SENT mark, over %d deliveries: %s", len(windows), drillPercentiles(windows))
	t.Logf("figures: the app's warnings and errors over all runs: %s", drillLogSummary(appLog.Name()))
	t.Logf("figures: jobs left %d, dead-lettered %d; integrity_check ok after every kill and at the end; database %.1f MiB", jobs, dead, float64(size)/(1<<20))
}

// drillFarm fronts a feedtest.Farm: feeds and article pages answer after a short delay (so a
// kill lands mid-fetch and mid-processing), and requests are counted.
type drillFarm struct {
	*httptest.Server
	farm               *feedtest.Farm
	feedHits, pageHits atomic.Int64
}

// TestCrashDrillLongOutage: a "run now" that was acknowledged (202) survives its briefing
// staying QUEUED longer than the stuck threshold — the briefing queue paused, or the app down
// (killed, or the machine off) for that long. (It used to be lost: the stuck-briefing recovery
// set the briefing back to ACTIVE while its job was still in the queue, and the job, finding
// the briefing no longer QUEUED, ended without a report. Recovery now leaves alone whatever
// still has a job in its queue.)
func TestCrashDrillLongOutage(t *testing.T) {
	for _, outage := range []string{"the briefing queue paused", "the app killed and down"} {
		t.Run(outage+" longer than the stuck threshold", func(t *testing.T) {
			farm := feedtest.NewFarm(1, 3)
			defer farm.Close()
			dir, logDir := t.TempDir(), t.TempDir()
			appLog, err := os.Create(filepath.Join(logDir, "morningdeck.log"))
			if err != nil {
				t.Fatal(err)
			}
			defer appLog.Close()
			mustRun(t, dir, "source", "add", farm.URL(0), "--type", "rss")
			mustRun(t, dir, "fetch")
			flags := []string{"--stuck-threshold", "3s", "--recovery-interval", "1s", "--process-job-timeout", "2s"}
			a := drillStart(t, dir, logDir, appLog, flags...)
			id := a.createBriefing(t, "Morning", "07:00", nil)
			mustRun(t, dir, "queue", "pause", "briefing") // holds the job in the queue
			time.Sleep(1500 * time.Millisecond)           // the server sees the pause within a poll interval
			a.mustAPI(t, "POST", fmt.Sprintf("api/briefings/%d/run", id), nil, 202)
			if strings.HasPrefix(outage, "the app killed") {
				a.kill()
				mustRun(t, dir, "queue", "resume", "briefing")
				time.Sleep(5 * time.Second)
				a = drillStart(t, dir, logDir, appLog, flags...)
			} else {
				time.Sleep(5 * time.Second)
				mustRun(t, dir, "queue", "resume", "briefing")
			}
			db := openRead(t, dir)
			deadline := time.Now().Add(15 * time.Second)
			for {
				var reports, jobs int
				if err := db.QueryRow(`select (select count(*) from reports), (select count(*) from goqite where queue = 'briefing')`).Scan(&reports, &jobs); err != nil {
					t.Fatal(err)
				}
				if reports == 1 {
					return
				}
				if jobs == 0 && time.Now().After(deadline) {
					t.Fatalf("the acknowledged run wrote %d reports; its job is gone. The app's log:\n%s", reports, drillTail(appLog.Name(), 20))
				}
				time.Sleep(200 * time.Millisecond)
			}
		})
	}
}
