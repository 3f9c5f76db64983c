package app

import (
	"testing"
	"time"
)

func TestStoredReasoning(t *testing.T) {
	at := time.Date(2026, 11, 2, 23, 30, 0, 0, time.UTC)
	east := at.In(time.FixedZone("east", 3*3600)) // 3 Nov there
	for _, c := range []struct {
		in        string
		published *time.Time
		stored    string
	}{
		{"No interests set yet · published 2 Nov 2026", &at, "No interests set yet · \x1d"},
		{"No interests set yet · published 2 Nov 2026 · filter: boost", &east, "No interests set yet · \x1d · filter: boost"},
		{"No interests set yet · published 3 Nov 2026", &east, "No interests set yet · published 3 Nov 2026"}, // the feed's zone: kept
		{"Matches Go · published today", &at, "Matches Go · published today"},
		{"No interests set yet · published 2 Nov 2026", nil, "No interests set yet · published 2 Nov 2026"},
		{"", &at, ""},
	} {
		s := StoredReasoning(c.in, c.published)
		if s != c.stored {
			t.Errorf("StoredReasoning(%q) = %q, want %q", c.in, s, c.stored)
		}
		if got := ReasoningOf(s, c.published); got != c.in {
			t.Errorf("ReasoningOf(%q) = %q, want %q", s, got, c.in)
		}
	}
}
