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
