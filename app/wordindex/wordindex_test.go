package wordindex_test

import (
	"fmt"
	"testing"

	"github.com/morningdeck/morningdeck/app/wordindex"
)

// TestFind: every word is found at its position, a word listed twice at its first, and words
// not listed (the empty one, prefixes, other cases) are not.
func TestFind(t *testing.T) {
	var words []string
	for i := range 5000 {
		words = append(words, fmt.Sprintf("w%d", i))
	}
	words = append(words, "", "w7", "élan")
	x := wordindex.New(len(words), func(i int) string { return words[i] })
	for i, w := range words[:5000] {
		if got := x.Find(w); got != i {
			t.Fatalf("Find(%q) = %d, want %d", w, got, i)
		}
	}
	for w, want := range map[string]int{"": 5000, "w7": 7, "élan": 5002, "w": -1, "W1": -1, "w50000": -1, "elan": -1} {
		if got := x.Find(w); got != want {
			t.Errorf("Find(%q) = %d, want %d", w, got, want)
		}
	}
	empty := wordindex.New(0, nil)
	if got := empty.Find("x"); got != -1 {
		t.Errorf("Find in an empty index = %d", got)
	}
}
