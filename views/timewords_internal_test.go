package views

import (
	"testing"
	"time"
)

// TestTimeWords: relative times and refresh intervals carry their number ("5 min ago", "every
// 15 minutes"); a de-duplication once left only the unit ("min ago", "every minutes").
func TestTimeWords(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{-10 * time.Second, "just now"},
		{10 * time.Second, "in a moment"},
		{-5 * time.Minute, "5 min ago"},
		{30 * time.Minute, "in 30 min"},
		{-time.Hour, "1 hour ago"},
		{3 * time.Hour, "in 3 hours"},
		{-24 * time.Hour, "1 day ago"},
		{-3 * 24 * time.Hour, "3 days ago"},
		{-60 * 24 * time.Hour, "2 months ago"},
		{-800 * 24 * time.Hour, "2 years ago"},
	} {
		if got := relativeTime(now.Add(c.d), now); got != c.want {
			t.Errorf("relativeTime(now%+v) = %q; want %q", c.d, got, c.want)
		}
	}
	for m, want := range map[int]string{1: "minute", 15: "15 minutes", 60: "hour", 120: "2 hours", 90: "90 minutes", 1440: "day", 10080: "7 days"} {
		if got := intervalWords(m); got != want {
			t.Errorf("intervalWords(%d) = %q; want %q", m, got, want)
		}
	}
	if got := (SourceView{Interval: 15}).IntervalLabel(); got != "every 15 minutes" {
		t.Errorf("IntervalLabel: %q", got)
	}
}
