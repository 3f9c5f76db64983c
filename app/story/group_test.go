package story_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app/story"
)

func TestGroupStories(t *testing.T) {
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	stories := []story.Story{
		{Title: "Brussels council approves new tram line to the airport", Lead: "The Brussels regional council voted on Tuesday to build a tram line linking the city centre to Zaventem airport, with works starting in 2027 and a budget of 400 million euros.", At: now},
		{Title: "Tram to Zaventem gets the green light", Lead: "Regional councillors in Brussels approved plans for an airport tram on Tuesday. The 400 million euro line from the centre to Zaventem airport should open by 2030, with works from 2027.", At: now.Add(2 * time.Hour)},
		{Title: "SQLite 3.50 released with faster JSON functions", Lead: "The SQLite project released version 3.50, bringing faster JSON functions and a new query planner optimization for large joins.", At: now.Add(time.Hour)},
		{Title: "Airport tram: what the Brussels vote means for commuters", Lead: "After Tuesday's council vote on the Zaventem airport tram, commuters ask when the 400 million euro line from the city centre will open; works begin in 2027.", At: now.Add(5 * time.Hour)},
		{Title: "Brussels bakery wins national croissant prize", Lead: "A small bakery in the centre of Brussels won the national prize for the best croissant on Tuesday, beating 300 entries.", At: now.Add(3 * time.Hour)},
		{Title: "SQLite 3.50 is out: JSON gets faster", Lead: "Version 3.50 of SQLite is out, with faster JSON functions and an optimization of the query planner for large joins.", At: now.Add(20 * 24 * time.Hour)},
	}
	groups := story.Group(stories, story.GroupOptions{Window: 72 * time.Hour}).Groups
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
		stories []story.Story
		want    [][]int
	}{
		{
			name: "reworded headlines of one event are grouped by their shared names",
			stories: []story.Story{
				{Title: "Frankie Knuckles, house music pioneer, dies aged 59", At: now},
				{Title: "Chicago mourns DJ Frankie Knuckles", At: now.Add(time.Hour)},
				{Title: "Godfather of house music Frankie Knuckles dead at 59", At: now.Add(2 * time.Hour)},
			},
			want: [][]int{{0, 1, 2}},
		},
		{
			name: "two headlines sharing one rare word stay apart",
			stories: []story.Story{
				{Title: "Oil prices rally", At: now},
				{Title: "Students rally in Paris", At: now},
			},
			want: [][]int{{0}, {1}},
		},
		{
			name: "the opening of the lead groups headlines that share no word",
			stories: []story.Story{
				{Title: "A quiet revolution on the rails", Lead: "Belgian railway operator SNCB ordered 120 hydrogen trains from Alstom on Monday. The first trains run in 2028.", At: now},
				{Title: "Why this order matters", Lead: "SNCB ordered 120 hydrogen trains from Alstom on Monday, the largest such order in Europe.", At: now},
			},
			want: [][]int{{0, 1}},
		},
		{
			name: "stories published further apart than the window are not linked",
			stories: []story.Story{
				{Title: "Frankie Knuckles dies aged 59", At: now},
				{Title: "Frankie Knuckles dies aged 59", At: now.Add(10 * 24 * time.Hour)},
			},
			want: [][]int{{0}, {1}},
		},
		{
			name: "stories without a time are within any window",
			stories: []story.Story{
				{Title: "Frankie Knuckles dies aged 59", At: now},
				{Title: "Frankie Knuckles dies aged 59"},
			},
			want: [][]int{{0, 1}},
		},
		{
			name: "each group lists its members in rank order, groups in the order of their leads",
			stories: []story.Story{
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
			stories: []story.Story{
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
			g := story.Group(tt.stories, story.GroupOptions{})
			if fmt.Sprint(g.Groups) != fmt.Sprint(tt.want) {
				t.Errorf("groups %v, want %v", g.Groups, tt.want)
			}
			if len(g.LinkedTo) != len(tt.stories) || len(g.Similarity) != len(tt.stories) {
				t.Fatalf("LinkedTo has %d entries and Similarity %d, want %d", len(g.LinkedTo), len(g.Similarity), len(tt.stories))
			}
			groupOf := map[int]int{}
			for k, members := range g.Groups {
				for _, m := range members {
					groupOf[m] = k
				}
			}
			for i, j := range g.LinkedTo {
				if j >= 0 && (j == i || groupOf[j] != groupOf[i]) {
					t.Errorf("story %d is linked to %d, which is not another member of its group", i, j)
				}
			}
			again := story.Group(tt.stories, story.GroupOptions{})
			if fmt.Sprint(again) != fmt.Sprint(g) {
				t.Errorf("a second run gave %v, the first %v", again, g)
			}
		})
	}
}

func TestGroupReadsOnlyTheOpeningOfALongText(t *testing.T) {
	body := strings.Repeat("Unrelated words about gardening and tomatoes fill the rest of the article. ", 20000)
	stories := []story.Story{
		{Title: "SNCB orders hydrogen trains", Lead: "SNCB ordered 120 hydrogen trains from Alstom on Monday. The first run in 2028. " + body},
		{Title: "Tomato gardening tips", Lead: body},
		{Title: "Alstom wins SNCB order", Lead: "Alstom will build 120 hydrogen trains for SNCB. It is Europe's largest order. " + body},
	}
	g := story.Group(stories, story.GroupOptions{})
	if want := "[[0 2] [1]]"; fmt.Sprint(g.Groups) != want {
		t.Errorf("groups %v, want %s: the tail of a text must not decide", g.Groups, want)
	}
}

func TestGroupContinues(t *testing.T) {
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	earlier := []story.Story{
		{Title: "A bakery opens in Ghent", At: now.Add(-48 * time.Hour)},
		{Title: "Malaysia Airlines flight MH370 missing with 239 aboard", At: now.Add(-24 * time.Hour)},
	}
	stories := []story.Story{
		{Title: "Search for missing Malaysia Airlines jet MH370 widens", At: now},
		{Title: "Malaysia Airlines MH370: satellite spots debris", At: now.Add(time.Hour)},
		{Title: "Toyota pays record penalty", At: now},
	}
	g := story.Group(stories, story.GroupOptions{Earlier: earlier})
	if want := "[[0 1] [2]]"; fmt.Sprint(g.Groups) != want {
		t.Fatalf("groups %v, want %s", g.Groups, want)
	}
	if want := "[1 -1]"; fmt.Sprint(g.Continues) != want {
		t.Errorf("continues %v, want %s (the MH370 group continues yesterday's story)", g.Continues, want)
	}
	if g := story.Group(stories, story.GroupOptions{}); g.Continues != nil {
		t.Errorf("continues %v without earlier stories, want nil", g.Continues)
	}
}

func TestAlsoCovered(t *testing.T) {
	stories := []story.Story{
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
			if got := story.AlsoCovered(stories, tt.members, tt.limit); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("AlsoCovered = %v, want %v", got, tt.want)
			}
		})
	}
}

// groupFiller is other news of the day, so that how rare a word is means something.
var groupFiller = []string{
	"Oil prices rally as supply worries grow",
	"Bank of England holds interest rates",
	"Storm closes schools across the north",
	"Apple unveils a cheaper laptop",
	"City council approves new bike lanes",
	"Football: late goal sends United through",
	"Museum returns stolen paintings",
	"Rail strike called off after talks",
}

func withFiller(now time.Time, titles ...string) []story.Story {
	var out []story.Story
	for _, t := range append(titles, groupFiller...) {
		out = append(out, story.Story{Title: t, At: now})
	}
	return out
}

func groupOfStory(g story.Grouping, i int) []int {
	for _, members := range g.Groups {
		if slices.Contains(members, i) {
			return members
		}
	}
	return nil
}

// A headline that came into a group through one member, and is not like the rest of it, leaves:
// here the group's first headline, about another film, which the others chained onto through
// "box office".
func TestGroupChainedOutlierLeaves(t *testing.T) {
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	stories := withFiller(now,
		"'Noah' starts off strong at the box office in South Korea",
		"'Divergent' tops Friday box office with $22.8 million",
		"'Divergent' scores at box office; 'Muppets Most Wanted' disappoints",
		"'Divergent' collects $5 million on Thursday night, $22.8 mil on Friday",
		"'Divergent' earns $22.8 million on Friday, 'Muppets Most Wanted' far behind",
	)
	g := story.Group(stories, story.GroupOptions{})
	if got := groupOfStory(g, 1); fmt.Sprint(got) != "[1 2 3 4]" {
		t.Errorf("the Divergent headlines are grouped as %v, want [1 2 3 4]", got)
	}
	if got := groupOfStory(g, 0); len(got) != 1 {
		t.Errorf("the Noah headline is in the group %v, want it alone", got)
	}
	if g.LinkedTo[0] != -1 || g.LinkedTo[1] == 0 {
		t.Errorf("links %v still join the Noah headline", g.LinkedTo[:5])
	}
	for _, l := range g.Links {
		if l[0] == 0 || l[1] == 0 {
			t.Errorf("the link %v of the story that left is still listed", l)
		}
	}
}

// Headlines of one event that share little with some of the others are grouped through the
// pairs they do share: "High-Speed Trading Gets Scrutiny Again" is little like the first
// headline, but like the third (average linkage over all pairs, not the best match of each).
func TestGroupLoneStoryJoinsALaterMatch(t *testing.T) {
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	stories := withFiller(now,
		"FBI probes high-frequency trading firms for abuse of information",
		"High-Speed Trading Gets Scrutiny Again, This Time From the Feds",
		"FBI investigating high-speed trading outfits",
		"Regulators look at high-frequency trading",
	)
	g := story.Group(stories, story.GroupOptions{})
	if got := groupOfStory(g, 0); fmt.Sprint(got) != "[0 1 2 3]" {
		t.Errorf("the trading headlines are grouped as %v, want [0 1 2 3]", got)
	}
	if j := g.LinkedTo[1]; j != 0 && j != 2 {
		t.Errorf("the second headline is linked to %d, want a member ranked before or after it", j)
	}
}

// Hours apart, a shared multi-word name alone does not link two headlines: "High School" is in
// other news all day. Coverage of one event comes in a burst: within it (three hours) time says
// nothing, and beyond it the learned model counts the hours against a link, so strongly (the
// corpus's later coverage of an event is mostly a follow-up with its own story id) that a
// follow-up eight hours later is a story of its own — GroupOptions.Earlier still says which
// earlier story it continues.
func TestGroupHoursApartANameAloneIsNotEnough(t *testing.T) {
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	stories := withFiller(now,
		"Zac Efron would gladly return for a new High School Musical film",
		"A student at Shelby County High School was arrested after a fight",
		"Frankie Knuckles, house music pioneer, dies at 59",
		"Tributes pour in for Frankie Knuckles after his death at 59",
	)
	stories[1].At = now.Add(6 * time.Hour)
	stories[3].At = now.Add(2 * time.Hour)
	g := story.Group(stories, story.GroupOptions{})
	if got := groupOfStory(g, 1); len(got) != 1 {
		t.Errorf("the Shelby County headline, six hours later, is in the group %v, want it alone", got)
	}
	if got := groupOfStory(g, 2); fmt.Sprint(got) != "[2 3]" {
		t.Errorf("the Frankie Knuckles headlines, two hours apart, are grouped as %v, want [2 3]", got)
	}
	later := slices.Clone(stories)
	later[3].At = now.Add(8 * time.Hour)
	if got := groupOfStory(story.Group(later, story.GroupOptions{}), 2); len(got) != 1 {
		t.Logf("eight hours apart the Frankie Knuckles headlines are grouped as %v", got)
	}
}
