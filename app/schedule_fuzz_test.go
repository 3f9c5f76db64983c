package app_test

// Fuzz target of the briefing schedule. Run it with
//
//	go test ./app -run '^$' -fuzz '^FuzzSchedule$' -fuzztime 60s
//
// Inputs that fail are written to testdata/fuzz/FuzzSchedule/ and run by every `go test`.

import (
	"fmt"
	"strings"
	"testing"
	"time"
	_ "time/tzdata" // the zones below, even on a machine without /usr/share/zoneinfo

	"github.com/morningdeck/morningdeck/app"
)

// fuzzZones have DST gaps and overlaps of one hour (New York, Brussels, Chatham at :45) and of
// half an hour (Lord Howe), and offsets of half and three quarters of an hour.
var fuzzZones = []string{"America/New_York", "Asia/Kolkata", "Pacific/Chatham", "Europe/Brussels", "UTC", "Australia/Lord_Howe"}

var (
	fuzzFrom = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	fuzzTo   = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
)

// FuzzSchedule checks Next, Due and Period for a zone, a frequency, a weekday, a time of day and an
// instant (between 2000 and 2100): Next(now) is after now, within a day (daily) or a week
// (weekly) plus DST; its wall clock is the scheduled time on the right weekday, or, when that
// time does not exist that day, the first instant after the gap; in an overlap it is the first
// of the two; no scheduled instant lies between now and Next(now); Due agrees with Next; Period
// is well-formed. ParseSchedule refuses bad input with a message for a person.
func FuzzSchedule(f *testing.F) {
	type seed struct {
		zone, hour, min, weekday uint8
		weekly                   bool
		now                      string
	}
	for _, s := range []seed{
		{0, 2, 30, 0, false, "2026-03-08T05:00:00Z"},  // New York: 02:30 is in the spring gap
		{0, 1, 30, 0, false, "2026-11-01T04:00:00Z"},  // New York: 01:30 happens twice
		{0, 9, 0, 0, true, "2026-03-01T15:00:00Z"},    // weekly across the spring change
		{1, 7, 0, 3, true, "2026-11-22T00:00:00Z"},    // Kolkata, UTC+5:30
		{2, 3, 0, 0, false, "2026-09-26T12:00:00Z"},   // Chatham: 02:45 → 03:45 gap
		{2, 2, 50, 0, false, "2026-04-04T12:00:00Z"},  // Chatham: 02:45–03:45 happens twice
		{3, 2, 30, 0, false, "2026-03-29T00:00:00Z"},  // Brussels spring gap
		{3, 2, 30, 0, false, "2026-10-25T00:00:00Z"},  // Brussels autumn overlap
		{3, 23, 30, 6, true, "2026-11-22T22:00:00Z"},  // across midnight
		{4, 0, 0, 1, true, "2026-12-31T23:59:59Z"},    // UTC, year end
		{5, 2, 15, 0, false, "2026-10-03T14:00:00Z"},  // Lord Howe: 02:00 → 02:30 gap
		{5, 1, 45, 0, false, "2026-04-04T13:00:00Z"},  // Lord Howe: 01:30–02:00 happens twice
		{5, 1, 45, 0, true, "2026-04-01T13:00:00Z"},   // the same, weekly on Sunday
		{0, 23, 59, 6, true, "2037-11-01T00:00:00Z"},  // past the end of the zone's table
		{5, 0, 0, 0, false, "2099-12-31T12:00:00Z"},   // near the end of the range
		{1, 12, 0, 5, true, "2000-01-01T00:00:00Z"},   // the start of the range
		{2, 23, 45, 2, false, "2026-06-15T11:00:00Z"}, // Chatham winter, UTC+12:45
	} {
		now, err := time.Parse(time.RFC3339, s.now)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(s.zone, s.hour, s.min, s.weekday, s.weekly, now.Unix(), "07:00", int64(s.weekday))
	}
	f.Add(uint8(0), uint8(7), uint8(0), uint8(1), false, int64(0), "7:5", int64(9))
	f.Add(uint8(0), uint8(7), uint8(0), uint8(1), true, int64(0), "24:00", int64(-1))
	f.Add(uint8(0), uint8(7), uint8(0), uint8(1), true, int64(0), " 07:00 pm", int64(1<<40))

	f.Fuzz(func(t *testing.T, zoneIdx, hour, minute, weekday uint8, weekly bool, unix int64, rawClock string, rawWeekday int64) {
		zone := fuzzZones[int(zoneIdx)%len(fuzzZones)]
		freq := app.Daily
		if weekly {
			freq = app.Weekly
		}

		// ParseSchedule on raw input: a schedule or a message for a person.
		for _, fr := range []string{freq, rawClock} {
			if _, err := app.ParseSchedule(fr, int(rawWeekday), rawClock, zone); err != nil {
				if msg := app.ErrorMessage(err); app.ErrorCode(err) != app.EINVALID || msg == "" || strings.Contains(msg, "parsing time") {
					t.Fatalf("ParseSchedule(%q, %d, %q, %q): %v", fr, rawWeekday, rawClock, zone, err)
				}
			}
		}

		h, m, wd := int(hour)%24, int(minute)%60, time.Weekday(int(weekday)%7)
		clock := fmt.Sprintf("%02d:%02d", h, m)
		s, err := app.ParseSchedule(freq, int(wd), clock, zone)
		if err != nil {
			t.Fatalf("ParseSchedule(%s, %d, %s, %s): %v", freq, wd, clock, zone, err)
		}
		loc := s.Location
		now := time.Unix(unix, 0).UTC()
		if unix < fuzzFrom || unix >= fuzzTo {
			// Out of range: fold into it, with nanoseconds.
			if unix < 0 {
				unix = -(unix + 1)
			}
			now = time.Unix(fuzzFrom+unix%(fuzzTo-fuzzFrom), unix%1e9).UTC()
		}
		what := fmt.Sprintf("%s %s %s (weekday %s) from %s (%s)", freq, clock, zone, wd, now.Format(time.RFC3339Nano), now.In(loc).Format("Mon 2006-01-02 15:04:05 -0700"))

		// checkScheduled checks that at is a scheduled instant and returns its local date.
		period, slack := 24*time.Hour, 2*time.Hour
		if weekly {
			period = 7 * 24 * time.Hour
		}
		checkScheduled := func(name string, at time.Time) {
			t.Helper()
			l := at.In(loc)
			show := fmt.Sprintf("%s = %s (%s)", name, at.UTC().Format(time.RFC3339Nano), l.Format("Mon 2006-01-02 15:04:05 -0700"))
			if weekly && l.Weekday() != wd {
				t.Fatalf("%s: %s is not a %s", what, show, wd)
			}
			if l.Hour() == h && l.Minute() == m && l.Second() == 0 && l.Nanosecond() == 0 {
				// In an overlap the first occurrence runs: half an hour (Lord Howe) or an hour earlier
				// must not show the same wall clock.
				for _, back := range []time.Duration{30 * time.Minute, time.Hour} {
					e := at.Add(-back).In(loc)
					if e.Hour() == h && e.Minute() == m && e.Day() == l.Day() {
						t.Fatalf("%s: %s is the second occurrence of %s: %s shows it too", what, show, clock, e.Format("15:04 -0700"))
					}
				}
				return
			}
			// Otherwise the scheduled time must not exist that day (a gap), and at must be the
			// first instant after the gap: an offset change right at it, the wall clock before
			// it earlier than the scheduled time and at it later.
			y, mo, d := l.Date()
			if g := time.Date(y, mo, d, h, m, 0, 0, loc); g.Hour() == h && g.Minute() == m {
				t.Fatalf("%s: %s, but %s exists that day (%s)", what, show, clock, g.Format(time.RFC3339))
			}
			before := at.Add(-time.Nanosecond).In(loc)
			_, off1 := before.Zone()
			_, off2 := l.Zone()
			wall := func(x time.Time) int { return x.Hour()*60 + x.Minute() }
			if off1 == off2 || wall(before) >= h*60+m || wall(l) < h*60+m || before.Day() != d {
				t.Fatalf("%s: %s is not the end of the DST gap over %s (just before: %s)", what, show, clock, before.Format("15:04:05 -0700"))
			}
		}

		next := s.Next(now)
		if !next.After(now) {
			t.Fatalf("%s: Next = %s, not after now", what, next.Format(time.RFC3339Nano))
		}
		if next.Sub(now) > period+slack {
			t.Fatalf("%s: Next = %s, %s later", what, next.Format(time.RFC3339), next.Sub(now))
		}
		checkScheduled("Next", next)
		// No scheduled instant between now and Next: from any instant in between, Next is the same.
		for _, between := range []time.Time{now.Add(next.Sub(now) / 2), next.Add(-time.Nanosecond)} {
			if n := s.Next(between); !n.Equal(next) {
				t.Fatalf("%s: Next = %s, but Next(%s) = %s", what, next.Format(time.RFC3339), between.Format(time.RFC3339Nano), n.Format(time.RFC3339))
			}
		}
		// Runs are about a period apart.
		after := s.Next(next)
		if d := after.Sub(next); d < period-slack || d > period+slack {
			t.Fatalf("%s: Next = %s, then %s: %s apart", what, next.Format(time.RFC3339), after.Format(time.RFC3339), d)
		}
		checkScheduled("Next(Next)", after)

		// Due agrees with Next.
		occ, due := s.Due(now, nil)
		if due {
			if occ.After(now) {
				t.Fatalf("%s: due for %s, after now", what, occ.Format(time.RFC3339))
			}
			checkScheduled("Due", occ)
			if n := s.Next(occ); !n.Equal(next) {
				t.Fatalf("%s: due for %s, but Next of that is %s, not Next(now) = %s", what, occ.Format(time.RFC3339), n.Format(time.RFC3339), next.Format(time.RFC3339))
			}
			if n := s.Next(occ.Add(-time.Nanosecond)); !n.Equal(occ) {
				t.Fatalf("%s: due for %s, but Next just before it is %s", what, occ.Format(time.RFC3339), n.Format(time.RFC3339))
			}
			if _, again := s.Due(now, &now); again {
				t.Fatalf("%s: still due after a run at now", what)
			}
			if _, again := s.Due(now, &occ); again {
				t.Fatalf("%s: still due after a run at the scheduled instant %s", what, occ.Format(time.RFC3339))
			}
			before := occ.Add(-time.Second)
			if _, d := s.Due(now, &before); !d {
				t.Fatalf("%s: not due after a run just before the scheduled instant %s", what, occ.Format(time.RFC3339))
			}
		} else if !occ.Equal(next) {
			t.Fatalf("%s: not due, waiting for %s, but Next = %s", what, occ.Format(time.RFC3339), next.Format(time.RFC3339))
		}
		if o, d := s.Due(next, nil); !d || !o.Equal(next) {
			t.Fatalf("%s: at Next = %s, Due = %s, %v", what, next.Format(time.RFC3339), o.Format(time.RFC3339), d)
		}
		if _, d := s.Due(next, &now); !d {
			t.Fatalf("%s: at Next = %s, not due after a run at now", what, next.Format(time.RFC3339))
		}

		// Period: the first one is a period long; later ones start at the previous run.
		from, to := s.Period(next, nil)
		if !to.Equal(next) || !from.Before(to) || to.Sub(from) != period {
			t.Fatalf("%s: Period(%s, nil) = %s … %s", what, next.Format(time.RFC3339), from.Format(time.RFC3339), to.Format(time.RFC3339))
		}
		from, to = s.Period(after, &next)
		if !from.Equal(next) || !to.Equal(after) || !from.Before(to) {
			t.Fatalf("%s: Period(%s, %s) = %s … %s", what, after.Format(time.RFC3339), next.Format(time.RFC3339), from.Format(time.RFC3339), to.Format(time.RFC3339))
		}
	})
}
