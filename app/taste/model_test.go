package taste_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
	"github.com/morningdeck/morningdeck/app/taste"
)

func TestModel(t *testing.T) {
	m := taste.NewModel()
	rust := []string{"w:rust", "w:compil", "source:Rust Blog"}
	cook := []string{"w:recip", "w:soup", "source:Kitchen"}
	for range 3 {
		m.Learn(taste.SignalMoreLikeThis, rust, []string{"rust", "compiler", "Rust Blog"})
		m.Learn(taste.SignalHidden, cook, []string{"recipe", "soup", "Kitchen"})
	}
	if m.Learn("nonsense", rust, nil) {
		t.Fatal("an unknown signal was learned")
	}
	up, liked, _ := m.Adjust([]string{"w:rust", "w:other"})
	down, _, disliked := m.Adjust([]string{"w:soup"})
	zero, _, _ := m.Adjust([]string{"w:unseen"})
	if up <= 5 || down >= -5 || zero != 0 || up > 25 || down < -25 {
		t.Fatalf("points %v, %v, %v", up, down, zero)
	}
	if len(liked) == 0 || liked[0] != "rust" || len(disliked) == 0 || disliked[0] != "soup" {
		t.Fatalf("liked %v, disliked %v", liked, disliked)
	}
	pos, neg := m.Top(5)
	if len(pos) == 0 || len(neg) == 0 || pos[0].Weight <= 0 || neg[0].Weight >= 0 {
		t.Fatalf("top %v / %v", pos, neg)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	back, err := taste.ParseModel(b)
	if err != nil {
		t.Fatal(err)
	}
	if again, _, _ := back.Adjust([]string{"w:rust", "w:other"}); again != up {
		t.Fatalf("after JSON: %v, before %v", again, up)
	}
	if _, err := taste.ParseModel([]byte("{not json")); err == nil || !strings.Contains(err.Error(), "reset") {
		t.Fatalf("bad JSON: %v", err)
	}
	if fresh, err := taste.ParseModel(nil); err != nil || fresh.Events != 0 {
		t.Fatalf("empty: %v %v", fresh, err)
	}
	// Bounded: many distinct features keep at most ModelMaxFeatures.
	big := taste.NewModel()
	for i := range taste.ModelMaxFeatures + 100 {
		big.Learn(taste.SignalOpened, []string{"w:f" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + itoa(i)}, nil)
	}
	if len(big.Features) > taste.ModelMaxFeatures {
		t.Fatalf("%d features", len(big.Features))
	}
	// The enricher applies it and says so.
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	in := app.EnrichInput{Title: "Rust compiler news", Text: "The Rust compiler got faster.", Interests: "astronomy", SourceName: "Rust Blog"}
	before, _ := e.Score(in)
	keys, labels := e.Features(in, nil)
	taught := taste.NewModel()
	taught.Learn(taste.SignalMoreLikeThis, keys, labels)
	taught.Learn(taste.SignalLessLikeThis, []string{"w:soup"}, []string{"soup"})
	in.Taste = taught
	after, why := e.Score(in)
	if after <= before || !strings.Contains(why, "you liked similar items") {
		t.Fatalf("before %d, after %d: %s", before, after, why)
	}
}

// newLearner is an enricher, a model that learns from its features, a maker of items of these
// interests, and the feedback on one.
func newLearner(interests string) (*enrich.Embedded, *taste.Model, func(title, text string) app.EnrichInput, func(taste.Signal, app.EnrichInput)) {
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	m := taste.NewModel()
	item := func(title, text string) app.EnrichInput {
		return app.EnrichInput{Title: title, Text: text, Interests: interests}
	}
	learn := func(sig taste.Signal, in app.EnrichInput) {
		keys, labels := e.Features(in, nil)
		m.Learn(sig, keys, labels)
	}
	return e, m, item, learn
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// The model learns which terms of an interest the reader cares for ("exploits", not
// "computer"), and a term in every item the reader acts on says nothing however many of them
// they dismiss: the interest itself is not taught away.
func TestModelLearnsTheInterestTerms(t *testing.T) {
	e, m, item, learn := newLearner("computer security: vulnerabilities, exploits and hacks")
	learn(taste.SignalMoreLikeThis, item("A kernel exploit explained", "The exploit chains two bugs in the kernel's slab allocator."))
	learn(taste.SignalMoreLikeThis, item("Browser exploit sold", "A broker paid for a working exploit of the browser's sandbox."))
	learn(taste.SignalLessLikeThis, item("A computer museum opens", "The museum shows a computer from every decade since 1950."))
	learn(taste.SignalLessLikeThis, item("Computer prices fall", "Prices of a desktop computer fell again this quarter."))
	learn(taste.SignalLessLikeThis, item("Computer science week", "Schools teach computer science to children this week."))
	keys, _ := e.Features(item("Exploit in a router", "An exploit for the router's web interface is public."), nil)
	if !slices.Contains(keys, "i:exploits") {
		t.Fatalf("features %v lack the interest term exploits", keys)
	}
	up, liked, _ := m.Adjust(keys)
	keys, _ = e.Features(item("Computer chess", "A computer beat the champion at chess again."), nil)
	down, _, _ := m.Adjust(keys)
	// The computer item is not raised (a word of "computer security" found alone is not a term
	// the reader acted on, and its words are in another sense than the dismissed items').
	if up <= 0 || down > 0 || !slices.Contains(liked, "exploits") {
		t.Fatalf("an exploit item %.1f (liked %v), a computer item %.1f", up, liked, down)
	}

	// Two liked and six dismissed items, all matching "open source": the term alone moves an
	// item by a few points at most (the words' own log ratio would take off about 14).
	o := taste.NewModel()
	for i := range 8 {
		sig := taste.SignalLessLikeThis
		if i < 2 {
			sig = taste.SignalMoreLikeThis
		}
		o.Learn(sig, []string{"i:open source", "w:" + itoa(i)}, []string{"open source", itoa(i)})
	}
	if p, _, _ := o.Adjust([]string{"i:open source"}); p < -4 || p > 4 {
		t.Fatalf("the interest's own term moves an item by %.1f points", p)
	}
}

// TestModelBalancesFewLikesAgainstManyDislikes: a reader with a narrow interest likes 2 items
// and dismisses 18 that all share a common word with them ("web" for "web browsers"). Counted
// plainly, 18 dislikes outweigh the 2 likes and every item saying "web" goes down, the next
// relevant item included (issue 25's held-out falls: web browsers 0.65 → 0.35). Balanced, a new
// item like the liked ones is raised and the shared word alone weighs little.
func TestModelBalancesFewLikesAgainstManyDislikes(t *testing.T) {
	m := taste.NewModel()
	for range 2 {
		m.Learn(taste.SignalMoreLikeThis, []string{"w:browser", "w:web", "w:tab"}, nil)
	}
	for i := range 18 {
		m.Learn(taste.SignalLessLikeThis, []string{"w:web", "w:other" + itoa(i), "w:page"}, nil)
	}
	like, _, _ := m.Adjust([]string{"w:browser", "w:web", "w:new"})
	if like <= 0 {
		t.Errorf("an item like the two liked ones gets %.1f points, want a rise", like)
	}
	shared, _, _ := m.Adjust([]string{"w:web", "w:new", "w:unseen"})
	disliked, _, _ := m.Adjust([]string{"w:page", "w:web", "w:new"})
	if shared < -10 || disliked >= shared {
		t.Errorf("the shared word alone: %.1f points; with a word only the dismissed items had: %.1f", shared, disliked)
	}
}

// TestModelLearnsMeaning: likes of items about spaceflight and dismissals of items about
// cooking raise an item about a rocket launch that shares no word with the liked ones, and
// lower a recipe that shares none with the dismissed ones: the model learned where the liked
// items lie in meaning (their word vectors), not only their words. The meaning survives the
// model's JSON and never shows as a learned word.
func TestModelLearnsMeaning(t *testing.T) {
	e, m, item, learn := newLearner("space exploration")
	learn(taste.SignalMoreLikeThis, item("Astronauts dock with the orbiting station", "The crew capsule docked after two days in orbit; the astronauts will stay six months."))
	learn(taste.SignalMoreLikeThis, item("Probe reaches Jupiter's moons", "The spacecraft entered orbit around the planet and sent its first images of the moons."))
	learn(taste.SignalLessLikeThis, item("A soup for cold evenings", "Simmer the onions and the beans, season with pepper and serve with bread."))
	learn(taste.SignalLessLikeThis, item("Baking sourdough at home", "Knead the dough, let it rise overnight and bake it in a hot oven."))
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	m, err = taste.ParseModel(b)
	if err != nil {
		t.Fatal(err)
	}
	rocket, _ := e.Features(item("Rocket launch delayed", "Engineers postponed the launch of the satellite after a fuel leak on the pad."), nil)
	recipe, _ := e.Features(item("Roast vegetables with garlic", "Cut carrots and potatoes, add garlic and olive oil, roast for forty minutes."), nil)
	for _, k := range rocket {
		if f := m.Features[k]; f != nil && strings.HasPrefix(k, "w:") {
			t.Fatalf("the rocket item shares the word %q with the taught ones: the test needs items with no word in common", k)
		}
	}
	up, _, _ := m.Adjust(rocket)
	down, _, _ := m.Adjust(recipe)
	t.Logf("rocket %.1f, recipe %.1f", up, down)
	if up < 2 || down > -2 {
		t.Fatalf("a rocket launch gets %.1f points, a recipe %.1f: the meaning of the liked and dismissed items was not learned", up, down)
	}
	pos, neg := m.Top(10)
	for _, x := range append(pos, neg...) {
		if strings.HasPrefix(x.Key, "m:") || x.Label == "" {
			t.Fatalf("the Settings page would show %+v", x)
		}
	}
	// The reason says why the rocket item rose, though no word of it weighed.
	in := item("Rocket launch delayed", "Engineers postponed the launch of the satellite after a fuel leak on the pad.")
	before, _ := e.Score(in)
	in.Taste = m
	after, why := e.Score(in)
	if after <= before || !strings.Contains(why, "close in subject to items you liked") {
		t.Fatalf("the rocket item %d -> %d: %s", before, after, why)
	}
	// A model that learned no meaning (events recorded before it was learned, or an unreadable
	// "m:" key) never says the subject moved an item, and never learns the key as a word.
	keys, labels := e.Features(item("Astronauts dock with the orbiting station", "The crew capsule docked after two days in orbit."), nil)
	old := taste.NewModel()
	for i, k := range keys {
		if strings.HasPrefix(k, "m:") {
			keys[i] = "m:not-a-vector"
		}
	}
	old.Learn(taste.SignalOpened, keys, labels)
	old.Learn(taste.SignalOpened, keys, labels)
	if _, ok := old.Features["m:not-a-vector"]; ok || len(old.Liked) > 0 {
		t.Fatal("an unreadable meaning was learned")
	}
	similar := item("Crew returns from the orbiting station", "The astronauts of the station crew landed after six months in orbit.")
	similar.Taste = old
	if _, why := e.Score(similar); strings.Contains(why, "close in subject") {
		t.Fatalf("a model without meaning gave the reason %q", why)
	}
}
