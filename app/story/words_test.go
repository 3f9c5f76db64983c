package story

import (
	"strings"
	"testing"
)

func TestGroupWords(t *testing.T) {
	show := func(text string) string {
		var out []string
		for _, w := range groupWords(text) {
			switch {
			case w.stop:
				continue
			case w.local:
				out = append(out, w.key+"*")
			case w.number:
				out = append(out, w.key+"#")
			default:
				out = append(out, w.key)
			}
		}
		return strings.Join(out, " ")
	}
	tests := []struct{ name, text, want string }{
		{"running text marks names mid-sentence, not at a sentence's start",
			"Shares of Toyota rose. Analysts cheered the deal in Tokyo.", "shar toyota* ros analyst cheer deal tokyo*"},
		{"title case marks no names by capitals, but acronyms still count",
			"Men's Wearhouse Is Buying Jos. A. Bank From NYSE Rival", "men wearhous buy jos bank #nyse* rival"},
		{"U.S. and US are the same acronym, NOT in capitals is no acronym",
			"the U.S. economy, said US officials, will NOT slow", "#us* economy #us* official slow"},
		{"numbers keep their decimals, single digits say nothing",
			"UPDATE 1-Men's Wearhouse seals $1.8 billion deal, 1,000 jobs", "men* wearhous* seal 1.8# billion deal 1000# job"},
		{"accents are folded and French elisions dropped",
			"l'avion d'Air France décolle à Zürich", "avion air* franc* decoll zurich*"},
		{"bad bytes and control characters are no words", "\xff\xfe\x00 \x01", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := show(tt.text); got != tt.want {
				t.Errorf("groupWords(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestGroupStem(t *testing.T) {
	for in, want := range map[string]string{"buys": "buy", "buying": "buy", "raises": "rais", "raised": "rais", "raising": "rais",
		"companies": "company", "cutting": "cut", "business": "business", "status": "status", "bus": "bus", "café": "café"} {
		if got := groupStem(in); got != want {
			t.Errorf("groupStem(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGroupPunctHelpers(t *testing.T) {
	for _, s := range []string{"", "abc", "men's", "l’avion", "U.S.", "1,000", "’", "a’", "x\xe2\x80", "é’s", "\x99"} {
		if got, want := groupLastApostrophe(s), strings.LastIndexAny(s, "'’"); got != want {
			t.Errorf("groupLastApostrophe(%q) = %d, want %d", s, got, want)
		}
		if got, want := groupHasPunct(s), strings.ContainsAny(s, ".,'’"); got != want {
			t.Errorf("groupHasPunct(%q) = %v, want %v", s, got, want)
		}
	}
}
