package app

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Shorten, the one cut of text for people, never ends mid-word and says it cut.
func TestShortenCutsAtAWord(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"Update your Go toolchain now", 100, "Update your Go toolchain now"},
		{"Update your Go toolchain now", 22, "Update your Go…"},
		{"Update your Go toolchain, now", 26, "Update your Go toolchain…"},
		{"Één twee drie vier vijf", 12, "Één twee…"},
		{"Supercalifragilisticexpialidocious", 10, "Supercali…"}, // no word boundary near: cut in the word
		{"line one\nline two words", 15, "line one\nline…"},
	} {
		got := Shorten(c.in, c.n)
		if got != c.want {
			t.Errorf("Shorten(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
		if utf8.RuneCountInString(got) > c.n {
			t.Errorf("Shorten(%q, %d) = %q: longer than %d", c.in, c.n, got, c.n)
		}
	}
}

// A candidate's text as the store cut it (CandidateOpening characters, mid-word) is
// summarized from its whole words, with "…": a report's summary said "Update your Go toolcha".
func TestReadTextEndsAtAWord(t *testing.T) {
	text := strings.Repeat("x", CandidateOpening-len("Update your Go toolcha")-1) + " Update your Go toolcha"
	if got := readText(text); !strings.HasSuffix(got, " Update your Go…") {
		t.Errorf("readText(…%q) = …%q", text[len(text)-30:], got[max(0, len(got)-30):])
	}
	if short := "A whole text. Update your Go toolchain."; readText(short) != short {
		t.Errorf("a text shorter than the cut was changed: %q", readText(short))
	}
}
