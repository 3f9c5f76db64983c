package enrich_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
)

// matches scores one item for interests with a fresh enricher and reports whether the reason
// claims a match and the reason itself.
func matches(t *testing.T, interests, title, text string) (bool, string) {
	t.Helper()
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	res, err := e.Enrich(context.Background(), app.EnrichInput{Title: title, Text: text, Interests: interests})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Contains(res.Reasoning, "Matches your interests") || strings.Contains(res.Reasoning, "from your interests"), res.Reasoning
}

func TestInterestsAsInterests(t *testing.T) {
	for _, tc := range []struct {
		name, interests, title, text string
		want                         bool
		reasonHas                    string
	}{
		{"Go the language matches", "the Go programming language", "Release notes", "The new release of Go brings faster builds. Go modules are simpler.", true, "Go"},
		{"go the verb does not", "the Go programming language", "Weekend", "We will go to the lake and then go home early.", false, ""},
		{"lower-case go in an interest still means Go", "go", "Tooling", "Our backend is written in Go and deployed daily.", true, "go"},
		{"Golang is Go", "Go", "A sneaky bug", "This bug bit our Golang service in production.", true, "Go"},
		{"US is not us", "US politics", "Letter", "Tell us what you think, and write to us today about the club.", false, ""},
		{"US matches US", "US politics", "Election", "The US Senate voted on the bill after a long debate.", true, "US"},
		{"AI matches AI", "AI", "Models", "The AI model was trained on public text.", true, "AI"},
		{"5G in a compound", "5G networks", "Auktion", "Die 5G-Auktion wird verschoben, sagt die Behörde.", true, "5G"},
		{"C++ with its symbols", "C++", "Compilers", "The new C++ standard adds modules and ranges.", true, "C++"},
		{"a phrase matches as a phrase", "open source", "Licences", "The project is open source and welcomes patches.", true, "open source"},
		{"a phrase's words apart are not the phrase", "open source", "Kitchen", "Open the jar. The source of the smell was the fridge.", true, "source"},
		{"India matches Indian", "India", "Markets", "The Indian rupee fell against the dollar this week.", true, "India"},
		{"Mac matches MacBook", "Mac", "Laptops", "The new MacBook has a brighter screen.", true, "Mac"},
		{"Mac matches iMac", "Mac", "Desktops", "The iMac comes in seven colours.", true, "Mac"},
		{"Mac does not match Macro", "Mac", "Editors", "A Macro records keystrokes. Macro tests are fun.", false, ""},
		{"Mac does not match MAC addresses", "Mac", "Networking", "Every card has a MAC address burned in.", false, ""},
		{"German plural", "Elektroautos", "Verkehr", "Das neue Elektroauto kostet 15.000 Euro.", true, "Elektroautos"},
		{"stop words of articles do not apply to interests", "privacy policy", "Rules", "The new privacy policy of the shop limits tracking.", true, "privacy policy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, why := matches(t, tc.interests, tc.title, tc.text)
			if got != tc.want {
				t.Fatalf("match %v, want %v (%s)", got, tc.want, why)
			}
			if tc.want && !strings.Contains(why, tc.reasonHas) {
				t.Fatalf("reason %q does not name %q", why, tc.reasonHas)
			}
			if tc.name == "a phrase's words apart are not the phrase" && strings.Contains(why, "Matches your interests: open source") {
				t.Fatalf("reason %q claims the phrase", why)
			}
		})
	}
}

func TestMoreOfAnInterestScoresMore(t *testing.T) {
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	in := func(title, text string) app.EnrichInput {
		return app.EnrichInput{Title: title, Text: text, Interests: "Indian economy and markets"}
	}
	a, _ := e.Score(in("Indian economy grows", "The Indian economy grew 7% and markets rallied on the news."))
	b, _ := e.Score(in("A trip", "We had Indian food after the concert."))
	c, why := e.Score(in("Gardening", "Cover the beds with leaves before the frost."))
	if !(a > b && b > c) {
		t.Fatalf("scores %d, %d, %d (last: %s)", a, b, c, why)
	}
}

func TestUnmatchedItemsAreStillOrdered(t *testing.T) {
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	now := time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)
	today, old := now.Add(-2*time.Hour), now.Add(-40*24*time.Hour)
	body := strings.Repeat("The council met and discussed the budget for the coming year at length. ", 20)
	base := app.EnrichInput{Title: "Council budget", Text: body, Interests: "astronomy", Now: now}
	fresh, favourite, stale := base, base, base
	fresh.PublishedAt, stale.PublishedAt, favourite.PublishedAt = &today, &old, &old
	favourite.SourceAffinity = 1
	sf, _ := e.Score(fresh)
	sv, _ := e.Score(favourite)
	ss, why := e.Score(stale)
	if sf <= ss || sv <= ss {
		t.Fatalf("fresh %d, favourite source %d, stale %d: unmatched items are not ordered (%s)", sf, sv, ss, why)
	}
	if strings.Contains(why, "Matches") {
		t.Fatalf("reason %q claims a match", why)
	}
}

// boilerplate is what must never be a summary or a tag: the examples.
var boilerplate = regexp.MustCompile(`(?i)(continue reading|appeared first on|^comments?$|this episode is (sponsored|brought)|brought to you by|promo code|use code|sponsored by|share this|subscribe to|follow us on|posted (on|by)|thank you for reading|\b(?:[0-9]+[a-f]|[a-f]+[0-9])[0-9a-f]{10,}\b|<[a-z]+[ >])`)

func TestBoilerplateOut(t *testing.T) {
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	article := "The city council approved the new bridge on Tuesday after months of debate. Construction starts in spring and will take two years. Cyclists will keep a lane open during the works."
	for _, tc := range []struct{ name, text string }{
		{"podcast sponsor read", "This episode is brought to you by Linode. Go to linode.com/atp and use code ATP for a free credit. " + article + " Thanks to our sponsors: Squarespace and Linode."},
		{"continue reading", article + " Continue reading on Medium »"},
		{"the post appeared first", article + " The post New bridge approved appeared first on City News."},
		{"byline and timestamp", "By Jane Smith | Posted on March 3, 2024 at 10:15 am " + article},
		{"share and subscribe", article + " Share this: Twitter Facebook. Subscribe to our newsletter for more stories. Follow us on Twitter."},
		{"hashes", article + " Fixed in commit 4f12091a287c363737ceb650df46196e5008d3f2 and 765d7e5c4eba7300."},
		{"sponsored line", "Sponsored by Acme Corp, the best widgets. " + article},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := e.Enrich(context.Background(), app.EnrichInput{Title: "Bridge approved", Text: tc.text})
			if err != nil {
				t.Fatal(err)
			}
			if boilerplate.MatchString(res.Summary) {
				t.Errorf("summary is boilerplate: %q", res.Summary)
			}
			if !strings.Contains(res.Summary, "bridge") {
				t.Errorf("summary lost the article: %q", res.Summary)
			}
			for _, tag := range res.Tags {
				if boilerplate.MatchString(tag) || strings.Contains(tag, "linode") || strings.Contains(tag, "code") {
					t.Errorf("boilerplate tag %q", tag)
				}
			}
		})
	}
	t.Run("a Comments stub summarises to its title", func(t *testing.T) {
		res, _ := e.Enrich(context.Background(), app.EnrichInput{Title: "Show HN: A tiny database", Text: "Comments"})
		if res.Summary != "Show HN: A tiny database" || len(res.Tags) > 0 && res.Tags[0] == "comments" {
			t.Fatalf("summary %q, tags %v", res.Summary, res.Tags)
		}
	})
}

// TestNoBoilerplateSummariesOnCorpus: no item of the corpus (feeds and encodings) gets a
// boilerplate summary or tag.
func TestNoBoilerplateSummariesOnCorpus(t *testing.T) {
	items := evalCorpus(t)
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	for _, it := range items {
		e.Stats().Observe(it.title + " " + it.text)
	}
	bad := 0
	for _, it := range items {
		res, err := e.Enrich(context.Background(), it.input("", time.Now()))
		if err != nil {
			t.Fatal(err)
		}
		if boilerplate.MatchString(res.Summary) {
			bad++
			t.Errorf("%s: boilerplate summary %q", it.link, res.Summary)
		}
		for _, tag := range res.Tags {
			if boilerplate.MatchString(tag) {
				bad++
				t.Errorf("%s: boilerplate tag %q", it.link, tag)
			}
		}
	}
	t.Logf("%d items, %d boilerplate summaries or tags", len(items), bad)
}
