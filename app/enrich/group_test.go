package enrich_test

import (
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app/enrich"
)

func TestGroupStories(t *testing.T) {
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	stories := []enrich.Story{
		{Title: "Brussels council approves new tram line to the airport", Lead: "The Brussels regional council voted on Tuesday to build a tram line linking the city centre to Zaventem airport, with works starting in 2027 and a budget of 400 million euros.", At: now},
		{Title: "Tram to Zaventem gets the green light", Lead: "Regional councillors in Brussels approved plans for an airport tram on Tuesday. The 400 million euro line from the centre to Zaventem airport should open by 2030, with works from 2027.", At: now.Add(2 * time.Hour)},
		{Title: "SQLite 3.50 released with faster JSON functions", Lead: "The SQLite project released version 3.50, bringing faster JSON functions and a new query planner optimization for large joins.", At: now.Add(time.Hour)},
		{Title: "Airport tram: what the Brussels vote means for commuters", Lead: "After Tuesday's council vote on the Zaventem airport tram, commuters ask when the 400 million euro line from the city centre will open; works begin in 2027.", At: now.Add(5 * time.Hour)},
		{Title: "Brussels bakery wins national croissant prize", Lead: "A small bakery in the centre of Brussels won the national prize for the best croissant on Tuesday, beating 300 entries.", At: now.Add(3 * time.Hour)},
		{Title: "SQLite 3.50 is out: JSON gets faster", Lead: "Version 3.50 of SQLite is out, with faster JSON functions and an optimization of the query planner for large joins.", At: now.Add(20 * 24 * time.Hour)},
	}
	stats := enrich.NewStats(10000)
	for _, s := range stories {
		stats.Observe(s.Title + " " + s.Lead)
	}
	for _, filler := range []string{"The weather in Brussels stays mild this week.", "Football: Anderlecht wins in Ghent.", "A new museum opens in Antwerp.", "Rail strike announced for Monday."} {
		stats.Observe(filler)
	}
	groups := stats.GroupStories(stories, 0.25, 72*time.Hour)
	want := [][]int{{0, 1, 3}, {2}, {4}, {5}}
	if len(groups) != len(want) {
		t.Fatalf("groups %v, want %v", groups, want)
	}
	for i := range want {
		if len(groups[i]) != len(want[i]) {
			t.Fatalf("groups %v, want %v", groups, want)
		}
		for j := range want[i] {
			if groups[i][j] != want[i][j] {
				t.Fatalf("groups %v, want %v", groups, want)
			}
		}
	}
}
