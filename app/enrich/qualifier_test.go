package enrich_test

import (
	"context"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
)

// A common acronym beside other words qualifies them (issue 25: "Singapore dethrones US as most
// competitive economy" matched "US politics"): alone it is a mention, with them a match.
func TestCommonAcronymQualifies(t *testing.T) {
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	usPolitics := scorerFor(t, "US politics")
	score := func(title string) (int, string) { return usPolitics(title, title) }
	stocks, why := score("US stocks surge ahead of ECB decision")
	if strings.Contains(why, "Matches your interests") {
		t.Errorf("an item about US stocks matches US politics: %d %s", stocks, why)
	}
	politics, why := score("US politics: the Senate returns to a budget fight")
	if !strings.Contains(why, "Matches your interests") || politics <= stocks {
		t.Errorf("an item about US politics: %d %s (US stocks: %d)", politics, why, stocks)
	}
	// The acronym's other names qualify as it does: "Britain" for "UK" of "UK housing" alone
	// is a mention, with "housing" a match.
	ukHousing := scorerFor(t, "UK housing")
	jobs, why := ukHousing("Unemployment falls to a record low in Britain", "The number of people in work in Britain rose by 200,000.")
	if strings.Contains(why, "Matches your interests") {
		t.Errorf("an item about jobs in Britain matches UK housing: %d %s", jobs, why)
	}
	if s, why := ukHousing("House prices fall in Britain", "Housing in Britain got cheaper for a third month as mortgage rates rose."); !strings.Contains(why, "Matches your interests") || s <= jobs {
		t.Errorf("an item about housing in Britain: %d %s (jobs: %d)", s, why, jobs)
	}
	// A rare acronym is the subject on its own ("AWS pricing": any AWS item is about it).
	res, _ := e.Enrich(context.Background(), app.EnrichInput{Title: "AWS launches a new region", Text: "AWS launches a new region", Interests: "AWS pricing"})
	if !strings.Contains(res.Reasoning, "Matches your interests") {
		t.Errorf("an AWS item for AWS pricing: %d %s", res.Score, res.Reasoning)
	}
}

// A short name that is a common word ("Go") qualifies the words beside it as a common acronym
// does (issue 25: "MOS Go USB-C battery pack" matched the Go language): without them it is a
// mention; with them, or written as its alias (Golang), it is a match.
func TestShortCommonNameQualifies(t *testing.T) {
	score := scorerFor(t, "Go programming, SQLite, security vulnerabilities")
	battery, why := score("MOS Go USB-C battery pack", "The MOS Go is a small USB-C battery pack with a magnetic mount and a braided cable.")
	if strings.Contains(why, "Matches your interests") {
		t.Errorf("a battery pack called Go matches Go programming: %d %s", battery, why)
	}
	for _, tc := range [][2]string{
		{"Go 1.22 is released", "The new release of Go brings range-over-func, faster builds and a better programming experience."},
		{"A sneaky Golang bug", "A loop variable captured by a closure bit us in production."},
	} {
		s, why := score(tc[0], tc[1])
		if !strings.Contains(why, "Matches your interests") || s <= battery {
			t.Errorf("%q: %d %s (the battery pack: %d)", tc[0], s, why, battery)
		}
	}
}

// A segment of three or more words ends in its head, a compound of two common nouns, and the
// two are read as a phrase (issue 25: "Mac Power Users" ranked high for "GPS sports watches and
// cycling power meters" through "power"); after a name they are its kind, and the name stays
// the subject ("Go programming language").
func TestHeadOfALongSegmentIsAPhrase(t *testing.T) {
	const interests = "GPS sports watches and cycling power meters"
	score := scorerFor(t, interests)
	mac, why := score("Mac Power Users 712: Our Favorite Apps", "Stephen and David talk about their favorite Mac and iPhone apps of the year.")
	if strings.Contains(why, "Matches your interests") {
		t.Errorf("a Mac podcast matches %q: %d %s", interests, mac, why)
	}
	for _, tc := range [][2]string{
		{"Favero Assioma Duo pedals tested", "Dual-sided pedal power meter with accurate cadence and left-right balance for road cyclists."},
		{"Garmin Edge 1040 review", "The new cycling computer pairs with power meters and has solar charging and better GPS."},
	} {
		s, why := score(tc[0], tc[1])
		if !strings.Contains(why, "Matches your interests") || s <= mac+15 {
			t.Errorf("%q: %d %s (the Mac podcast: %d)", tc[0], s, why, mac)
		}
	}
}

// A place written before an interest's first subject qualifies the subjects of common words
// after it (issue 25: "iPad 2018 rumors" matched "Indian economy and markets" through
// "markets"): the reader means India's markets. An item of markets elsewhere is a mention below
// the items about India; one of India's markets is a match.
func TestPlaceQualifiesTheSubjectsAfterIt(t *testing.T) {
	score := scorer(t)
	const interest = "Indian economy and markets"
	ipad, why := score(interest, "iPad 2018 rumors: everything we know so far", "Apple is expected to launch a cheaper iPad this spring, aimed at schools and at emerging markets, analysts say.")
	if strings.Contains(why, "Matches your interests") {
		t.Errorf("an iPad item matches %q through markets: %d %s", interest, ipad, why)
	}
	wallStreet, why := score(interest, "Stock markets slide as the Fed signals rate rises", "Wall Street fell on Wednesday after the Federal Reserve signalled more rate rises; markets in Europe followed.")
	if strings.Contains(why, "Matches your interests") {
		t.Errorf("an item of Wall Street matches %q: %d %s", interest, wallStreet, why)
	}
	for _, tc := range [][2]string{
		{"FDI inflows contract for the first time in six years", "Foreign direct investment into India fell in the last fiscal year, data from the department of industrial policy showed."},
		{"Sensex hits a record high as foreign investors buy", "India's benchmark index closed at a record high on Tuesday as foreign portfolio investors bought shares."},
	} {
		if s, why := score(interest, tc[0], tc[1]); s <= ipad || s <= wallStreet {
			t.Errorf("%q: %d %s, under the iPad rumours (%d) or Wall Street (%d)", tc[0], s, why, ipad, wallStreet)
		}
	}
	if s, why := score(interest, "Indian markets rally on budget hopes", "Stock markets in Mumbai rose for a third day as investors bet on tax cuts in the budget."); !strings.Contains(why, "Matches your interests") || s <= wallStreet {
		t.Errorf("Indian markets: %d %s (Wall Street: %d)", s, why, wallStreet)
	}
	// Without a place before it, "markets" is the reader's subject wherever they are.
	if s, why := score("economics, markets", "Stock markets slide as the Fed signals rate rises", "Wall Street fell on Wednesday after the Federal Reserve signalled more rate rises; markets in Europe followed."); !strings.Contains(why, "Matches your interests") {
		t.Errorf("markets for \"economics, markets\": %d %s", s, why)
	}
}

// A word of the interest that the lexicon has no concept for is found in an item in another of
// its languages by its cognate (issue 25: an interest in "psychology" and items in French or
// German): "psychologie", "Psychologie". An English word is no cognate ("securities" for
// security), and a word of a phrase ("fantasy" of "fantasy baseball") is not looked for alone.
func TestCognatesInOtherLanguages(t *testing.T) {
	score := scorer(t)
	for _, tc := range [][3]string{
		{"La psychologie sociale des foules", "Les chercheurs en psychologie étudient le comportement des groupes et la mémoire collective dans les sociétés modernes.", "psychologie (psychology)"},
		{"Wie Gruppen denken", "Forscher der Psychologie untersuchen das Verhalten von Gruppen und wie sie Entscheidungen treffen.", "Psychologie (psychology)"},
	} {
		if s, why := score("psychology", tc[0], tc[1]); !strings.Contains(why, tc[2]) || s < 50 {
			t.Errorf("%q for psychology: %d %s", tc[0], s, why)
		}
	}
	if s, why := score("security", "Les securities américaines en hausse", "Les securities et les obligations du Trésor montent."); strings.Contains(why, "securities") {
		t.Errorf("an English word read as a cognate: %d %s", s, why)
	}
	if s, why := score("fantasy baseball", "Ein neuer Fantasie-Roman", "Der Roman erzählt eine Geschichte voller Fantasie und Drachen."); strings.Contains(why, "Fantasie") {
		t.Errorf("a word of a phrase read alone as a cognate: %d %s", s, why)
	}
}

// The reader's own word leading a compound of their language counts (issue 25: "Datenschutz und
// Überwachung" found "EU-Parlament verabschiedet Resolution zur Datenschutzuntersuchung" "No
// match"): less than the word standing alone.
func TestOwnWordInCompounds(t *testing.T) {
	score := scorerFor(t, "Datenschutz und Überwachung")
	other, _ := score("Neue Grafikkarten im Test", "Die neuen Karten sind schneller und sparsamer als die der letzten Generation.")
	compound, why := score("Britische Datenschutzbehörde verurteilt Facebook", "Die Behörde verhängt eine Strafe von 500.000 Pfund wegen des Skandals um Cambridge Analytica.")
	if !strings.Contains(why, "Datenschutz") || compound <= other {
		t.Errorf("a compound of the reader's word: %d %s (an unrelated item: %d)", compound, why, other)
	}
	alone, why := score("Datenschutz: Britische Behörde verurteilt Facebook", "Die Behörde verhängt eine Strafe von 500.000 Pfund wegen des Skandals um Cambridge Analytica.")
	if alone <= compound {
		t.Errorf("the word alone (%d %s) no higher than in a compound (%d)", alone, why, compound)
	}
}

// scorerFor scores an item (its title and text) for interests: its score and reason.
func scorerFor(t *testing.T, interests string) func(title, text string) (int, string) {
	score := scorer(t)
	return func(title, text string) (int, string) {
		t.Helper()
		return score(interests, title, text)
	}
}
