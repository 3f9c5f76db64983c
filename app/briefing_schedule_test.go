package app_test

import (
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

func mustSchedule(t *testing.T, freq string, weekday int, clock, zone string) app.Schedule {
	t.Helper()
	s, err := app.ParseSchedule(freq, weekday, clock, zone)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestScheduleNext(t *testing.T) {
	utc := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	for _, tc := range []struct {
		name                   string
		freq                   string
		weekday                int
		clock, zone, now, want string
	}{
		{"daily in UTC, later today", app.Daily, 0, "07:00", "UTC", "2026-11-22T06:00:00Z", "2026-11-22T07:00:00Z"},
		{"daily in UTC, tomorrow once today's passed", app.Daily, 0, "07:00", "UTC", "2026-11-22T07:00:00Z", "2026-11-23T07:00:00Z"},
		{"New York before the spring change (EST, UTC-5)", app.Daily, 0, "07:00", "America/New_York", "2026-03-07T13:00:00Z", "2026-03-08T11:00:00Z"},
		{"New York after the spring change (EDT, UTC-4)", app.Daily, 0, "07:00", "America/New_York", "2026-03-08T12:00:00Z", "2026-03-09T11:00:00Z"},
		{"New York, a time in the spring gap runs when the gap ends", app.Daily, 0, "02:30", "America/New_York", "2026-03-08T05:00:00Z", "2026-03-08T07:00:00Z"},
		{"New York, a time in the autumn overlap runs at its first occurrence", app.Daily, 0, "01:30", "America/New_York", "2026-11-01T04:00:00Z", "2026-11-01T05:30:00Z"},
		{"New York across the autumn change (back to EST)", app.Daily, 0, "07:00", "America/New_York", "2026-11-01T12:00:00Z", "2026-11-02T12:00:00Z"},
		{"Kolkata, a half-hour zone (UTC+5:30)", app.Daily, 0, "07:00", "Asia/Kolkata", "2026-11-22T00:00:00Z", "2026-11-22T01:30:00Z"},
		{"Chatham, a 45-minute zone in its summer (UTC+13:45)", app.Daily, 0, "07:00", "Pacific/Chatham", "2026-11-21T16:00:00Z", "2026-11-21T17:15:00Z"},
		{"across midnight: 23:30 in Brussels is 22:30 UTC", app.Daily, 0, "23:30", "Europe/Brussels", "2026-11-22T22:00:00Z", "2026-11-22T22:30:00Z"},
		{"weekly on Monday, from a Sunday", app.Weekly, 1, "07:00", "Europe/Brussels", "2026-11-22T12:00:00Z", "2026-11-23T06:00:00Z"},
		{"weekly on Monday, from Monday after the time", app.Weekly, 1, "07:00", "Europe/Brussels", "2026-11-23T07:00:00Z", "2026-11-30T06:00:00Z"},
		{"weekly on Sunday across the spring change in New York", app.Weekly, 0, "09:00", "America/New_York", "2026-03-01T15:00:00Z", "2026-03-08T13:00:00Z"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustSchedule(t, tc.freq, tc.weekday, tc.clock, tc.zone)
			if got := s.Next(utc(tc.now)); !got.Equal(utc(tc.want)) {
				t.Fatalf("Next(%s) = %s (%s), want %s", tc.now, got.UTC().Format(time.RFC3339), got, tc.want)
			}
		})
	}
}

func TestScheduleDue(t *testing.T) {
	s := mustSchedule(t, app.Daily, 0, "07:00", "Europe/Brussels") // 06:00 UTC in winter
	at := func(h, m int) time.Time { return time.Date(2026, 11, 22, h, m, 0, 0, time.UTC) }
	t.Run("not due before today's time", func(t *testing.T) {
		if _, due := s.Due(at(5, 59), nil); due {
			t.Fatal("due before 07:00")
		}
	})
	t.Run("due after it, once: a run at or after the scheduled instant covers the period", func(t *testing.T) {
		occ, due := s.Due(at(6, 1), nil)
		if !due || !occ.Equal(at(6, 0)) {
			t.Fatalf("due %v at %s", due, occ)
		}
		ran := at(6, 1)
		if _, due := s.Due(at(18, 0), &ran); due {
			t.Fatal("due twice in one day")
		}
	})
	t.Run("an app asleep at 07:00 runs once when it wakes that day", func(t *testing.T) {
		yesterday := at(6, 0).Add(-24 * time.Hour)
		if _, due := s.Due(at(15, 0), &yesterday); !due {
			t.Fatal("not caught up")
		}
	})
	t.Run("the first period is the last 24 hours (7 days weekly); later ones start at the previous run", func(t *testing.T) {
		from, to := s.Period(at(6, 0), nil)
		if to.Sub(from) != 24*time.Hour {
			t.Fatalf("first period %s", to.Sub(from))
		}
		prev := at(6, 0).Add(-30 * time.Hour)
		if from, _ := s.Period(at(6, 0), &prev); !from.Equal(prev) {
			t.Fatalf("period from %s", from)
		}
		w := mustSchedule(t, app.Weekly, 1, "07:00", "UTC")
		if from, to := w.Period(at(7, 0), nil); to.Sub(from) != 7*24*time.Hour {
			t.Fatal("weekly first period")
		}
	})
}

func TestParseSchedule(t *testing.T) {
	for _, bad := range []struct {
		freq    string
		weekday int
		clock   string
		zone    string
	}{
		{"HOURLY", 0, "07:00", "UTC"}, {app.Weekly, 7, "07:00", "UTC"}, {app.Daily, 0, "7am", "UTC"},
		{app.Daily, 0, "25:00", "UTC"}, {app.Daily, 0, "07:00", "Mars/Olympus"},
	} {
		if _, err := app.ParseSchedule(bad.freq, bad.weekday, bad.clock, bad.zone); app.ErrorCode(err) != app.EINVALID {
			t.Errorf("%+v: %v", bad, err)
		}
	}
}

// TestBriefingValidateNamesTheField: a briefing refused for a time zone Go loads but that is not
// an IANA name ("Local", the server's own), or for a text too long, says which field is wrong.
func TestBriefingValidateNamesTheField(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	for _, c := range []struct {
		b    app.Briefing
		want string
	}{
		{app.Briefing{Name: "B", Timezone: "Local"}, `Unknown time zone "Local"`},
		{app.Briefing{Name: "B", Timezone: "Mars/Olympus"}, `Unknown time zone "Mars/Olympus"`},
		{app.Briefing{Name: long(201)}, "The name is too long"},
		{app.Briefing{Name: "B", Focus: long(4001)}, "The focus is too long"},
		{app.Briefing{Name: "B", Topic: long(61)}, "The topic is too long"},
	} {
		err := c.b.Validate()
		if app.ErrorCode(err) != app.EINVALID || !strings.Contains(app.ErrorMessage(err), c.want) {
			t.Errorf("%+v: %v; want %q", c.b, err, c.want)
		}
	}
	ok := app.Briefing{Name: "B", Timezone: "Europe/Brussels"}
	if err := ok.Validate(); err != nil {
		t.Errorf("a valid briefing: %v", err)
	}
	if _, err := app.LoadZone("Local"); app.ErrorCode(err) != app.EINVALID {
		t.Errorf("LoadZone(Local) = %v", err)
	}
}
