package enrich_test

import (
	"fmt"
	"strings"
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

func TestGroup(t *testing.T) {
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	tests := []struct {
		name    string
		stories []enrich.Story
		want    [][]int
	}{
		{
			name: "reworded headlines of one event are grouped by their shared names",
			stories: []enrich.Story{
				{Title: "Frankie Knuckles, house music pioneer, dies aged 59", At: now},
				{Title: "Chicago mourns DJ Frankie Knuckles", At: now.Add(time.Hour)},
				{Title: "Godfather of house music Frankie Knuckles dead at 59", At: now.Add(2 * time.Hour)},
			},
			want: [][]int{{0, 1, 2}},
		},
		{
			name: "two headlines sharing one rare word stay apart",
			stories: []enrich.Story{
				{Title: "Oil prices rally", At: now},
				{Title: "Students rally in Paris", At: now},
			},
			want: [][]int{{0}, {1}},
		},
		{
			name: "the opening of the lead groups headlines that share no word",
			stories: []enrich.Story{
				{Title: "A quiet revolution on the rails", Lead: "Belgian railway operator SNCB ordered 120 hydrogen trains from Alstom on Monday. The first trains run in 2028.", At: now},
				{Title: "Why this order matters", Lead: "SNCB ordered 120 hydrogen trains from Alstom on Monday, the largest such order in Europe.", At: now},
			},
			want: [][]int{{0, 1}},
		},
		{
			name: "stories published further apart than the window are not linked",
			stories: []enrich.Story{
				{Title: "Frankie Knuckles dies aged 59", At: now},
				{Title: "Frankie Knuckles dies aged 59", At: now.Add(10 * 24 * time.Hour)},
			},
			want: [][]int{{0}, {1}},
		},
		{
			name: "stories without a time are within any window",
			stories: []enrich.Story{
				{Title: "Frankie Knuckles dies aged 59", At: now},
				{Title: "Frankie Knuckles dies aged 59"},
			},
			want: [][]int{{0, 1}},
		},
		{
			name: "each group lists its members in rank order, groups in the order of their leads",
			stories: []enrich.Story{
				{Title: "Apple releases iOS 7.1 with CarPlay", At: now},
				{Title: "Toyota pays $1.2 billion penalty over safety issues", At: now},
				{Title: "iOS 7.1 is out: CarPlay arrives on the iPhone", At: now},
				{Title: "Toyota agrees to record $1.2 billion penalty", At: now},
				{Title: "A new bakery opens in Ghent", At: now},
			},
			want: [][]int{{0, 2}, {1, 3}, {4}},
		},
		{
			name: "empty titles and leads group with nothing",
			stories: []enrich.Story{
				{}, {}, {Title: "   ", Lead: "\x00\xff\xfe"},
			},
			want: [][]int{{0}, {1}, {2}},
		},
		{
			name:    "no stories, no groups",
			stories: nil,
			want:    nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := enrich.Group(tt.stories, enrich.GroupOptions{})
			if fmt.Sprint(g.Groups) != fmt.Sprint(tt.want) {
				t.Errorf("groups %v, want %v", g.Groups, tt.want)
			}
			if len(g.LinkedTo) != len(tt.stories) || len(g.Similarity) != len(tt.stories) {
				t.Fatalf("LinkedTo has %d entries and Similarity %d, want %d", len(g.LinkedTo), len(g.Similarity), len(tt.stories))
			}
			for i, j := range g.LinkedTo {
				if j >= i {
					t.Errorf("story %d is linked to %d, which is not ranked before it", i, j)
				}
			}
			again := enrich.Group(tt.stories, enrich.GroupOptions{})
			if fmt.Sprint(again) != fmt.Sprint(g) {
				t.Errorf("a second run gave %v, the first %v", again, g)
			}
		})
	}
}

func TestGroupReadsOnlyTheOpeningOfALongText(t *testing.T) {
	body := strings.Repeat("Unrelated words about gardening and tomatoes fill the rest of the article. ", 20000)
	stories := []enrich.Story{
		{Title: "SNCB orders hydrogen trains", Lead: "SNCB ordered 120 hydrogen trains from Alstom on Monday. The first run in 2028. " + body},
		{Title: "Tomato gardening tips", Lead: body},
		{Title: "Alstom wins SNCB order", Lead: "Alstom will build 120 hydrogen trains for SNCB. It is Europe's largest order. " + body},
	}
	g := enrich.Group(stories, enrich.GroupOptions{})
	if want := "[[0 2] [1]]"; fmt.Sprint(g.Groups) != want {
		t.Errorf("groups %v, want %s: the tail of a text must not decide", g.Groups, want)
	}
}

func TestGroupContinues(t *testing.T) {
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	earlier := []enrich.Story{
		{Title: "A bakery opens in Ghent", At: now.Add(-48 * time.Hour)},
		{Title: "Malaysia Airlines flight MH370 missing with 239 aboard", At: now.Add(-24 * time.Hour)},
	}
	stories := []enrich.Story{
		{Title: "Search for missing Malaysia Airlines jet MH370 widens", At: now},
		{Title: "Malaysia Airlines MH370: satellite spots debris", At: now.Add(time.Hour)},
		{Title: "Toyota pays record penalty", At: now},
	}
	g := enrich.Group(stories, enrich.GroupOptions{Earlier: earlier})
	if want := "[[0 1] [2]]"; fmt.Sprint(g.Groups) != want {
		t.Fatalf("groups %v, want %s", g.Groups, want)
	}
	if want := "[1 -1]"; fmt.Sprint(g.Continues) != want {
		t.Errorf("continues %v, want %s (the MH370 group continues yesterday's story)", g.Continues, want)
	}
	if g := enrich.Group(stories, enrich.GroupOptions{}); g.Continues != nil {
		t.Errorf("continues %v without earlier stories, want nil", g.Continues)
	}
}

func TestAlsoCovered(t *testing.T) {
	stories := []enrich.Story{
		{Title: "lead", Source: "Reuters"},
		{Title: "a", Source: "Daily Mail"},
		{Title: "b", Source: "daily  mail"},
		{Title: "c", Source: "Reuters"},
		{Title: "d", Source: "The Guardian"},
		{Title: "e", Source: ""},
		{Title: "f", Source: ""},
	}
	members := []int{0, 1, 2, 3, 4, 5, 6}
	tests := []struct {
		name    string
		members []int
		limit   int
		want    []int
	}{
		{"one story per other outlet, in rank order", members, 0, []int{1, 4, 5, 6}},
		{"at most limit of them", members, 2, []int{1, 4}},
		{"a lone story has nothing else to show", []int{3}, 0, nil},
		{"the lead's own outlet is not shown again", []int{3, 0, 1}, 0, []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := enrich.AlsoCovered(stories, tt.members, tt.limit); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("AlsoCovered = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestGroupBridgingHeadline(t *testing.T) {
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	stories := []enrich.Story{
		{Title: "Twitter marks 8th birthday with tool that reveals first tweets", At: now},
		{Title: "Twitter launches First Tweet website for 8th birthday", At: now},
		{Title: "What was your first tweet? Twitter turns 8", At: now},
		{Title: "Happy birthday: Twitter banned in Turkey", At: now},
		{Title: "Turkey's Twitter ban backfires as users protest", At: now},
		{Title: "White House deeply concerned about Turkey's Twitter ban", At: now},
		{Title: "Turkey Twitter ban: users find ways around the block", At: now},
	}
	mixed := func(groups [][]int) bool {
		for _, g := range groups {
			birthday, ban := false, false
			for _, m := range g {
				birthday = birthday || m <= 2
				ban = ban || m >= 4
			}
			if birthday && ban {
				return true
			}
		}
		return false
	}
	if g := enrich.Group(stories, enrich.GroupOptions{}); mixed(g.Groups) {
		t.Errorf("groups %v put Twitter's birthday and Turkey's ban of Twitter together", g.Groups)
	}
	// Without the check of a story against its match's whole group, the bridge merges them:
	// this test can tell the difference.
	saved := *enrich.GroupTuning["coherence"]
	*enrich.GroupTuning["coherence"] = 0
	defer func() { *enrich.GroupTuning["coherence"] = saved }()
	if g := enrich.Group(stories, enrich.GroupOptions{}); !mixed(g.Groups) {
		t.Logf("without the coherence check the groups are %v (the bridge did not merge them here)", g.Groups)
	}
}
