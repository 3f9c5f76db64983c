package enrich_test

import (
	"context"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
)

// TestBroadInterestFindsItsTopic: a broad interest finds items about its topic that never say
// its word — films and premieres for "entertainment", patients and treatments for "health" —
// above items of other topics, and the reason names the subject and the item's words that make
// it so ("About health: …", or "Loosely related to entertainment: …" when the closeness is weak). A name or a phrase is not read this way ("Go" stays the language).
func TestBroadInterestFindsItsTopic(t *testing.T) {
	score := scorer(t)
	for _, tc := range []struct {
		interest, on, onText, off, offText, reasonHas string
	}{
		{"entertainment",
			"New film starring Emma Stone tops the box office", "The comedy opened on 3,000 screens; critics praised the actress and the director.",
			"SQLite 3.51 adds faster JSON functions", "The release improves the query planner and the storage engine.", "About entertainment: comedy"},
		{"health",
			"New vaccine cuts hospital admissions for flu", "Doctors at the clinic said patients recovered faster after the treatment.",
			"Apple unveils a faster laptop chip", "The processor doubles graphics performance.", "About health: treatment"},
		// Sections the data set never labelled, read by the model's sections; the reason names
		// the words that make the item world news or sports, not the words nearest "world".
		{"world news",
			"Rebels seize government buildings in Donetsk", "",
			"25 years of the World Wide Web", "", "About world: "},
		// Words no headline of the model's month had ("yankees", "innings", "mascara"): read
		// against the section's seeds through the word vectors.
		{"sports",
			"Yankees beat Red Sox 5-3 in extra innings", "",
			"Fox News anchor Megyn Kelly signs new contract", "", "About sports: "},
		{"style and beauty",
			"Stylists share their favorite mascara and eyeliner tricks", "",
			"Samsung unveils a phone with a better camera", "", "style: stylists, mascara"},
		{"religion",
			"Archdiocese closes parishes as attendance falls", "",
			"Retailer closes stores as sales fall", "", "About religion: "},
	} {
		on, why := score(tc.interest, tc.on, tc.onText)
		off, _ := score(tc.interest, tc.off, tc.offText)
		if on <= off {
			t.Errorf("%q: %q scored %d, not above %q (%d)", tc.interest, tc.on, on, tc.off, off)
		}
		if !strings.Contains(why, tc.reasonHas) {
			t.Errorf("%q: the reason of %q is %q, want %q", tc.interest, tc.on, why, tc.reasonHas)
		}
		t.Logf("%-14s %3d %q / %3d %q", tc.interest, on, why, off, tc.off)
	}
	// A name is matched by its name: the language Go does not find any programming item.
	if s, why := score("Go", "Rust 1.80 released", "The Rust compiler gets faster builds and a new borrow checker."); strings.Contains(why, "About") {
		t.Errorf("the name Go matched a Rust item by its subject (%d, %q)", s, why)
	}
}

// TestFocusPrefilterReadsBroadSubjects: the first pass of a focus briefing over a long period
// keeps the items whose title is about a broad, one-word focus, after every item that names
// it, and none that is about something else.
func TestFocusPrefilterReadsBroadSubjects(t *testing.T) {
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	match := enrich.Ranker{Embedded: e}.Prefilter("entertainment")
	named := match("Entertainment weekly: the fall line-up", "")
	about := match("New film starring Emma Stone tops the box office", "")
	other := match("SQLite 3.51 adds faster JSON functions", "")
	if !(named > about && about > 0 && other == 0) {
		t.Fatalf("prefilter: named %g, about %g, other %g; want named > about > 0 = other", named, about, other)
	}
	// A focus that names a news section keeps the items the scorer reads by the section's
	// seeds: words no headline of the model's month had.
	match = enrich.Ranker{Embedded: e}.Prefilter("sports")
	about = match("Yankees beat Red Sox in extra innings", "")
	other = match("Retailer closes stores as sales fall", "")
	if !(about > 0 && other == 0) {
		t.Fatalf("prefilter of sports: about %g, other %g; want about > 0 = other", about, other)
	}
}

// BenchmarkPrefilterBroad is the first pass of a focus briefing over the development headlines:
// a broad, one-word focus reads each title's words in the vectors, a phrase does not.
func BenchmarkPrefilterBroad(b *testing.B) {
	items, _ := loadBroad(b, "dev")
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	for _, focus := range []string{"entertainment", "stock markets"} {
		m := enrich.Ranker{Embedded: e}.Prefilter(focus)
		b.Run(focus, func(b *testing.B) {
			for b.Loop() {
				for _, it := range items {
					m(it.title, "")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(items)), "µs/title")
		})
	}
}

// TestLoneSubjectIsNotItsTopic: an interest of one subject that is a part of a news topic
// ("privacy", "smartphones" of technology) is read as itself. Read as the whole topic, every
// technology post scored 90–91 for "privacy", above the items that say it (issue 25; NDCG@10
// of "privacy" 0.09 on the labelled feeds, 0.79 since).
func TestLoneSubjectIsNotItsTopic(t *testing.T) {
	score := scorer(t)
	for _, tc := range []struct{ interest, on, onText, off, offText string }{
		{"privacy",
			"Regulator fines Facebook over users' privacy", "The data protection authority said the company shared personal data with advertisers without consent.",
			"A silly smart contract bug", "The contract's withdraw function checked the balance after sending the funds, so a caller could drain it. The fix moves the check before the transfer; the miner fees were refunded."},
		{"smartphones",
			"Motorola's new Android smartphone costs 299 euros", "The phone has a 6.2-inch screen, two cameras and a battery that lasts two days.",
			"Fixing the certificate store on Alpine Linux", "After the upgrade the server's TLS clients failed; the certificates directory had moved, and a symlink restored it."},
	} {
		on, why := score(tc.interest, tc.on, tc.onText)
		off, offWhy := score(tc.interest, tc.off, tc.offText)
		t.Logf("%-12s %3d %q / %3d %q", tc.interest, on, why, off, offWhy)
		if on <= off || off >= 60 {
			t.Errorf("%q: %q scored %d (%s), %q %d (%s): a post of the topic, not of the subject, must stay under 60 and under the item about it",
				tc.interest, tc.on, on, why, tc.off, off, offWhy)
		}
	}
}

// scorer scores a title and text for interests with a new embedded enricher: its score and reason.
func scorer(t *testing.T) func(interests, title, text string) (int, string) {
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	return func(interests, title, text string) (int, string) {
		t.Helper()
		res, err := e.Enrich(context.Background(), app.EnrichInput{Title: title, Text: text, Interests: interests})
		if err != nil {
			t.Fatal(err)
		}
		return res.Score, res.Reasoning
	}
}

// TestOtherScriptsAreNotReadAsEnglish: the news-topic model and the word vectors know English
// words only. An item in Cyrillic or Arabic script is not read by the few Latin words it quotes
// (a Russian joke that names a Polish thermal paste, "Pasta silikonova", was "About elections"
// at 88 for "politics and elections"); a Latin-script item still is.
func TestOtherScriptsAreNotReadAsEnglish(t *testing.T) {
	score := scorer(t)
	for _, tc := range []struct{ title, text string }{
		{"Цитата #17369", "Grother: все знают много историй про то, как шампунь или ещё какая хрень в ванной путалась с её кремом для депиляции. Но мало кому известны истории о том, как она мазала прыщи из симпатичного маленького тюбика с непонятным названием Pasta silikonova termoprzewodzaca."},
		{"Цитата #17722", "xxx: Как правильно использовать range в Python? yyy: никак, пиши на C."},
	} {
		s, why := score("politics and elections", tc.title, tc.text)
		if s >= 30 || strings.Contains(why, "About") || strings.Contains(why, "related to") {
			t.Errorf("%q scored %d for politics (%q): read by its Latin words", tc.title, s, why)
		}
	}
	s, why := score("politics and elections", "Senate passes the budget after a tense vote", "Lawmakers from both parties approved the spending bill before the election.")
	if s < 50 {
		t.Errorf("an English item about a vote scored %d (%q)", s, why)
	}
}
