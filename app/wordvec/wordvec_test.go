package wordvec_test

import (
	"sort"
	"testing"

	"github.com/morningdeck/morningdeck/app/wordvec"
)

func nearest(w string, k int) []string {
	r := wordvec.Rank(w)
	if r < 0 {
		return nil
	}
	v := wordvec.Of(r)
	v.Unit()
	type hit struct {
		w string
		s float32
	}
	var hits []hit
	for i := 0; i < wordvec.Len(); i++ {
		if i == r {
			continue
		}
		u := wordvec.Of(i)
		u.Unit()
		hits = append(hits, hit{wordvec.Word(i), wordvec.Dot(&v, &u)})
	}
	sort.Slice(hits, func(a, b int) bool { return hits[a].s > hits[b].s })
	var out []string
	for _, h := range hits[:k] {
		out = append(out, h.w)
	}
	return out
}

// TestLookup: every word is found at its own rank, and a word that is not there is not.
func TestLookup(t *testing.T) {
	if wordvec.Len() != 60000 {
		t.Fatalf("%d words", wordvec.Len())
	}
	for r := 0; r < wordvec.Len(); r++ {
		if got := wordvec.Rank(wordvec.Word(r)); got != r {
			t.Fatalf("Rank(%q) = %d, want %d", wordvec.Word(r), got, r)
		}
	}
	for _, w := range []string{"", "zzzzzzzz", "The", "morningdeckx", "\xff\xff", "\x00", "a\x00"} {
		if r := wordvec.Rank(w); r != -1 {
			t.Errorf("Rank(%q) = %d, want -1", w, r)
		}
	}
	if wordvec.Rank("the") != 0 {
		t.Errorf("the is rank %d", wordvec.Rank("the"))
	}
}

// TestNeighbours: the vectors know what words are about — a word's nearest neighbours share
// its subject (what the ranking relies on).
func TestNeighbours(t *testing.T) {
	for w, want := range map[string][]string{
		"film":     {"movie", "films"},
		"football": {"soccer", "rugby", "basketball"},
		"election": {"elections", "vote", "presidential"},
		"vaccine":  {"vaccines", "vaccination"},
		"malware":  {"spyware", "viruses", "trojans"},
	} {
		got := nearest(w, 10)
		found := 0
		for _, x := range got {
			for _, y := range want {
				if x == y {
					found++
				}
			}
		}
		if found == 0 {
			t.Errorf("nearest to %q: %v, none of %v", w, got, want)
		}
		t.Logf("%s: %v", w, got)
	}
}

// BenchmarkRank looks words up as an item's do: common and rare ones, and ones without a vector.
func BenchmarkRank(b *testing.B) {
	words := []string{"entertainment", "the", "yankees", "archdiocese", "morningdeckx", "zzz", "a", "sqlite", "élan", "2014"}
	for b.Loop() {
		for _, w := range words {
			wordvec.Rank(w)
		}
	}
}

// A vector's Code reads back as the same vector within a byte's precision, and text that is not
// a code is refused.
func TestCode(t *testing.T) {
	v := wordvec.Of(wordvec.Rank("rocket"))
	v.Unit()
	back, ok := wordvec.ParseCode(v.Code())
	if !ok {
		t.Fatal("a vector's own code was refused")
	}
	for i := range v {
		if d := back[i] - v[i]; d > 0.5/127+1e-6 || d < -0.5/127-1e-6 {
			t.Fatalf("dimension %d: %v read back as %v", i, v[i], back[i])
		}
	}
	for _, bad := range []string{"", "abc", v.Code()[:20], "!!" + v.Code()[2:]} {
		if _, ok := wordvec.ParseCode(bad); ok {
			t.Errorf("%q was read as a code", bad)
		}
	}
}
