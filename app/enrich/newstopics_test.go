package enrich

import "testing"

// TestNewsTopics: the news-topic model reads what a headline is about without the topic's
// word, and an interest is read by topic only when it is a topic as a whole.
func TestNewsTopics(t *testing.T) {
	for _, c := range []struct {
		headline string
		topic    int
	}{
		{"Emma Stone joins Woody Allen's next film", 1},
		{"Samsung unveils Galaxy S5 with fingerprint sensor", 3},
		{"Ebola outbreak spreads to Liberia", 2},
		{"Fed holds rates steady as inflation cools", 0},
		{"Rebels seize government buildings in Donetsk", 5},
		{"Senate Republicans block minimum wage bill", 4},
	} {
		p, ok := newsTopicOf(NewsWords(c.headline))
		if !ok || argmax(p) != c.topic || p[c.topic] < 0.6 {
			t.Errorf("%q: %v, want %s first, above 0.6", c.headline, p, newsTopicNames[c.topic])
		}
	}
	for _, c := range []struct {
		interest string
		topical  bool
	}{
		{"entertainment", true},
		{"movies, music and celebrities", true},
		{"diet and fitness", true},
		{"the economy and markets", true},
		{"gadgets, apps and the internet", true},
		{"politics", true}, // a section the model learned by distant supervision
		{"sports", true},
		{"world news", true},
		{"US politics, Congress and elections", true}, // a name qualifying a section's name
		{"American politics", true},
		{"cats and dogs: pet care and pet products", false},
		{"Apple Mac and iPhone hardware", false}, // a topic word qualifying names
		{"stock market: shares, earnings and IPOs", false},
	} {
		specs := parseInterests(c.interest)
		topical := false
		for _, spec := range specs {
			for _, sv := range spec.vecs {
				topical = topical || sv.topic >= 0
			}
		}
		if topical != c.topical {
			t.Errorf("%q read by topic: %v, want %v", c.interest, topical, c.topical)
		}
	}
}
