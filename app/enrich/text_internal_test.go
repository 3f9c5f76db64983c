package enrich

import (
	"strings"
	"testing"
)

// singleSpaced is strings.Join(strings.Fields(s), " ") without the allocations when s is
// single-spaced already.
func TestSingleSpaced(t *testing.T) {
	for _, s := range []string{"", " ", "a", "a b", " a", "a ", "a  b", "a\tb", "a\nb", "a\u00a0b", "a\u2003b", "é b ü", "\u0085x", "x\u3000", "a b c d", "  ", "a \r\n b"} {
		want := strings.Join(strings.Fields(s), " ")
		if got := singleSpaced(s); got != want {
			t.Errorf("singleSpaced(%q) = %q, want %q", s, got, want)
		}
	}
}

// hasAny finds a trigger word wherever strings.Contains does: at the start, the end, after a
// multi-byte character, overlapping a near miss, and not in a text shorter than any word.
func TestHasAnyAsContains(t *testing.T) {
	sets := []*triggers{trigSubmitted, trigPostAppeared, trigContinue, trigTimestamp, trigFurniture}
	texts := []string{"", "p", "po", "posted", "xposted", "reposted by", "the post was posted", "pos ted", "read mor", "read more",
		"read the rest", "read them", "veröffentlicht am", "mis à jour le", "mis a jour", "publié", "publie", "share thi", "use the code x",
		"see example.com/x", "example.co/", "brought to yo", "thanks for reading", "síguenos", "siguenos", "lire la suite…", "ééposted"}
	for _, set := range sets {
		for _, text := range texts {
			want := false
			for _, w := range set.words {
				want = want || strings.Contains(text, w)
			}
			if got := hasAny(text, set); got != want {
				t.Errorf("hasAny(%q, %v) = %v, want %v", text, set.words, got, want)
			}
		}
		for _, w := range set.words { // every word, alone and inside a text
			if !hasAny(w, set) || !hasAny("ab "+w+" cd", set) {
				t.Errorf("hasAny misses %q", w)
			}
		}
	}
}
