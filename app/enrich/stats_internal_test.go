package enrich

import (
	"strings"
	"testing"
)

// The inverse document frequency of a word is its general English share weighed against the
// collection's: a few documents cannot make a common word rare, and a large collection still
// says what is common in it.
func TestStatsIDFPrior(t *testing.T) {
	s := NewStats(1000)
	few := s.idfOf("power", wordShare("power"))
	rare := s.idfOf("heartbleed", wordShare("heartbleed"))
	if few >= rare {
		t.Fatalf("empty collection: idf(power) %.2f ≥ idf(heartbleed) %.2f", few, rare)
	}
	for range 5 {
		s.Observe("Power plants and power lines")
	}
	if got := s.idfOf("power", wordShare("power")); got > few || few-got > 0.1 {
		t.Fatalf("five documents moved idf(power) from %.2f to %.2f", few, got)
	}
	for i := range 5000 {
		text := "A story about other things"
		if i%2 == 0 {
			text = "Heartbleed again " + strings.Repeat("x ", i%7)
		}
		s.Observe(text)
	}
	if got := s.idfOf(tokenize(cleanText("Heartbleed again x"))[0].key, wordShare("heartbleed")); got > few {
		t.Fatalf("a word in half of 5,000 documents still weighs %.2f, more than a common word (%.2f)", got, few)
	}
}
