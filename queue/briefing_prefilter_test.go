package queue_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// TestFocusMatcher: the first pass of a focus briefing finds the focus's words in their forms
// (plurals, names' forms, aliases), short words and acronyms by their case, phrases as phrases,
// and says nothing of items that do not mention the focus.
func TestFocusMatcher(t *testing.T) {
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	cases := []struct {
		focus, title, opening string
		match                 bool
	}{
		{"stock markets and the Federal Reserve", "Stocks rally on Wall Street", "", true},
		{"stock markets and the Federal Reserve", "Fed holds rates", "The Federal Reserve left its rate unchanged.", true},
		{"stock markets and the Federal Reserve", "A federal judge reserves judgment", "", true}, // the words alone count a little
		{"stock markets and the Federal Reserve", "Vegetable soup", "Roast the vegetables and simmer them.", false},
		{"the Go programming language", "Go 1.26 is released", "", true},
		{"the Go programming language", "Where to go this weekend", "We go to the seaside.", false}, // the verb is not Go
		{"the Go programming language", "Golang tips", "", true},                                    // an alias
		{"India", "Indian elections", "", true},                                                     // a name's form
		{"C++", "What is new in C++26", "", false},                                                  // C++26 is another word
		{"C++", "A C++ compiler", "", true},
		{"machine learning", "Learning to cook", "Machines in the kitchen.", true}, // words of the phrase alone
		{"Äpfel", "Apfelernte", "Viele Äpfel dieses Jahr.", true},
		{"the news", "Anything", "at all", false}, // filler only: nothing to look for
	}
	for _, c := range cases {
		m := enrich.NewFocusMatcher(e, c.focus)
		got := m.Match(c.title, c.opening) > 0
		if got != c.match {
			t.Errorf("focus %q on %q / %q: match %v, want %v", c.focus, c.title, c.opening, got, c.match)
		}
	}
	m := enrich.NewFocusMatcher(e, "machine learning")
	phrase, apart := m.Match("Machine learning on a phone", ""), m.Match("Learning to fix a washing machine", "")
	title, opening := phrase, m.Match("On a phone", "Machine learning, they say, is coming to phones.")
	if phrase <= apart || title <= opening {
		t.Errorf("the phrase in the title (%.2f) must rank above its words apart (%.2f) and above the phrase in the opening (%.2f)", phrase, apart, opening)
	}
}

// TestBriefingFirstPass: with more items than the ranker reads, a focus briefing still finds the
// item about its focus among thousands scored higher for other things, every item is counted as
// considered, and a focus few items mention still fills the report with others.
func TestBriefingFirstPass(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC)
	clock := sqlitetest.NewClock(now)
	db := sqlitetest.NewWithClock(t, clock)
	var sources []int64
	for i := range 3 {
		src := &app.Source{UserID: 1, Type: app.SourceRSS, URL: fmt.Sprintf("http://kitchen%d/feed", i), Name: fmt.Sprintf("Kitchen %d", i), RefreshIntervalMinutes: 15}
		if err := db.CreateSource(ctx, src, nil); err != nil {
			t.Fatal(err)
		}
		sources = append(sources, src.ID)
	}
	tx, err := db.Write.Begin()
	if err != nil {
		t.Fatal(err)
	}
	const n = 4000
	dishes := []string{"soup", "stew", "curry", "risotto", "gratin", "salad", "pie", "tart", "roast", "broth", "casserole"}
	vegs := []string{"leek", "carrot", "pumpkin", "parsnip", "fennel", "celeriac", "beetroot", "kale", "chard", "turnip", "onion", "potato", "cabbage"}
	herbs := []string{"thyme", "sage", "rosemary", "dill", "tarragon", "chives", "parsley"}
	for i := range n {
		at := now.Add(-time.Duration(i%600+1) * time.Minute).Format("2006-01-02T15:04:05.000Z")
		if _, err := tx.Exec(`insert into items (source_id, user_id, guid, title, link, summary, text_content, score, score_reasoning, status, published_at, created_at)
			values (?, 1, ?, ?, ?, '', ?, 90, 'r', 'DONE', ?, ?)`, sources[i%3], fmt.Sprint("k", i), fmt.Sprintf("A %s %s with %s", vegs[i/11%13], dishes[i%11], herbs[i/143%7]),
			fmt.Sprint("http://kitchen/", i), "Roast the vegetables, then simmer them in stock for an hour and blend until smooth.", at, at); err != nil {
			t.Fatal(err)
		}
	}
	at := now.Add(-3 * time.Hour).Format("2006-01-02T15:04:05.000Z")
	if _, err := tx.Exec(`insert into items (source_id, user_id, guid, title, link, summary, text_content, score, score_reasoning, status, published_at, created_at)
		values (?, 1, 'go', 'Release notes', 'http://go.dev/blog', '', ?, 3, 'r', 'DONE', ?, ?)`, sources[0],
		"The Go team released Go 1.26: the Go programming language gets a faster garbage collector.", at, at); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	svc := &app.Briefings{Store: db, Ranker: enrich.Ranker{Embedded: enrich.NewEmbedded(enrich.EmbeddedOptions{})}, Clock: clock}
	b := &app.Briefing{UserID: 1, Name: "Go", Focus: "the Go programming language", Time: "07:00", Timezone: "UTC", ItemLimit: 5}
	if err := svc.Save(ctx, b); err != nil {
		t.Fatal(err)
	}
	b.CreatedAt = time.Time{}
	r, err := svc.Preview(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Items) == 0 || r.Items[0].Title != "Release notes" {
		t.Fatalf("the Go item (stored score 3, its focus only in its text, below %d items scored 90) is not the first story: %+v", n, r.Items)
	}
	if len(r.Items) != 5 {
		t.Fatalf("%d stories, want 5: items that do not mention the focus fill the report", len(r.Items))
	}
	if want := fmt.Sprintf("picked from %d new items", n+1); !strings.Contains(r.Overview, want) {
		t.Fatalf("overview %q does not say %q: every item must be considered", r.Overview, want)
	}
}
