package app

import (
	"strings"
	"testing"
	"time"
)

// TestOverviewCountsWhatTheReportShows: the overview counts the report's stories and their
// distinct sources, and its themes are the chosen stories' own, without sponsor or
// boilerplate tags (issue 13: "10 stories from 18 sources … Apple (11)" for 10 stories from 3).
func TestOverviewCountsWhatTheReportShows(t *testing.T) {
	r := &Report{Items: []ReportItem{{SourceName: "Ars"}, {SourceName: "ars "}, {SourceName: "Verge"}}}
	chosen := []*Item{
		{Topics: []string{"Security"}, Tags: []string{"Sponsored", "Apple"}},
		{Topics: []string{"Security"}, Tags: []string{"sponsor", "Apple", "news"}},
		{Topics: []string{"Security"}, Tags: []string{"Sponsored"}},
	}
	now := time.Date(2026, 11, 24, 7, 0, 0, 0, time.UTC)
	got := overview(r, chosen, 67, now.Add(-24*time.Hour), now)
	want := "Three stories from two sources, picked from 67 new items. All of them are about Security. Two are about Apple."
	if got != want {
		t.Fatalf("overview\n%q, want\n%q", got, want)
	}
	if empty := overview(&Report{}, nil, 0, now.Add(-24*time.Hour), now); !strings.HasPrefix(empty, "Nothing new between") {
		t.Fatalf("empty overview %q", empty)
	}
}
