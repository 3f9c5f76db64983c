// Command regionnames writes app/enrich/regions.txt: the names of the world's countries and
// territories in the lexicon's languages and in the other scripts, from the Unicode CLDR data
// that golang.org/x/text/language/display carries (BSD-3-Clause code, Unicode licence data; see
// app/enrich/NOTICE-regions.md).
//
//	go run ./scripts/regionnames > app/enrich/regions.txt
package main

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"unicode"

	"golang.org/x/text/language"
	"golang.org/x/text/language/display"
)

// The lexicon's languages, matched in items of their own language.
var lexicon = []string{"en", "de", "fr", "es", "nl", "it", "pt"}

// others are the languages of news written in another script that separates words by spaces,
// chosen by how many people read news in them: Arabic, Persian, Urdu, Pashto; Russian,
// Ukrainian, Belarusian, Bulgarian, Serbian, Macedonian, Kazakh; Greek; Hebrew; Hindi, Marathi,
// Nepali, Bengali, Punjabi, Gujarati, Tamil, Telugu, Kannada, Malayalam, Sinhala; Amharic;
// Georgian; Armenian.
var others = []string{"ar", "fa", "ur", "ps", "ru", "uk", "be", "bg", "sr", "mk", "kk", "el", "he",
	"hi", "mr", "ne", "bn", "pa", "gu", "ta", "te", "kn", "ml", "si", "am", "ka", "hy"}

func main() {
	var tags []language.Tag
	for _, l := range others {
		tags = append(tags, language.Make(l))
	}
	fmt.Println("# Country and territory names in many languages, one region a line, in the lexicon's format")
	fmt.Println("# (lexicon.go). Written by scripts/regionnames from the Unicode CLDR names in")
	fmt.Println("# golang.org/x/text/language/display; source and licence in NOTICE-regions.md. \"any:\" lists")
	fmt.Println("# the names written in a script other than Latin (Arabic, Cyrillic, Devanagari, Greek, …),")
	fmt.Println("# looked for in items of every language: the script tells the language. Scripts written")
	fmt.Println("# without spaces between words (Chinese, Japanese, Thai, …) are left out: items in them are")
	fmt.Println("# not cut into words.")
	var lines []string
	done := map[string]bool{}
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			r, err := language.ParseRegion(string([]rune{a, b}))
			if err != nil || !r.IsCountry() || r.String() != string([]rune{a, b}) {
				continue
			}
			en := names(display.English.Regions().Name(r), true)
			if len(en) == 0 || strings.Contains(en[0], "Unknown") || done[en[0]] {
				continue
			}
			done[en[0]] = true
			parts := []string{"en: " + strings.Join(en, ", ")}
			for _, l := range lexicon[1:] {
				ns := names(regionName(language.Make(l), r), false)
				if len(ns) > 0 {
					parts = append(parts, l+": "+strings.Join(ns, ", "))
				}
			}
			seen := map[string]bool{}
			var other []string
			for _, t := range tags {
				// Only the whole name: how other languages write their qualifiers is not known here.
				// Only the whole name, and no longer than the English one by more than a word (the
				// formal names of Hong Kong and Macao): how other languages write their qualifiers
				// is not known here.
				n := strings.TrimSpace(regionName(t, r))
				if n != "" && !strings.ContainsAny(n, "(),،") && len(strings.Fields(n)) <= len(strings.Fields(en[0]))+1 {
					if !seen[n] && spacedScript(n) {
						seen[n] = true
						other = append(other, n)
					}
				}
			}
			sort.Strings(other)
			if len(other) > 0 {
				parts = append(parts, "any: "+strings.Join(other, ", "))
			}
			lines = append(lines, strings.Join(parts, " | "))
		}
	}
	for _, l := range lines {
		fmt.Println(l)
	}
	fmt.Fprintln(os.Stderr, len(lines), "regions")
}

// regionName is r's name in language t, "" where the data has none.
func regionName(t language.Tag, r language.Region) string {
	n := display.Regions(t)
	if n == nil {
		return ""
	}
	return n.Name(r)
}

// names splits a CLDR name into the forms a text would use: "Myanmar (Burma)" is "Myanmar"
// and "Burma" in English (other languages' parentheses qualify: "RAE de Hong Kong (China)" is
// the first part only); "Hong Kong SAR China" is "Hong Kong"; "Congo - Kinshasa" is left out
// (the qualified name no text writes; the plain "Congo" names two countries).
func names(s string, english bool) []string {
	s = strings.TrimSpace(s)
	if s == "" || strings.Contains(s, " - ") || strings.ContainsAny(s, ",") {
		return nil
	}
	s = strings.TrimSuffix(s, " SAR China")
	if i := strings.Index(s, " ("); i > 0 && strings.HasSuffix(s, ")") {
		if !english {
			return []string{s[:i]}
		}
		return []string{s[:i], s[i+2 : len(s)-1]}
	}
	return []string{s}
}

// spacedScript reports whether s is written mostly in a script other than Latin that separates
// its words by spaces.
func spacedScript(s string) bool {
	other := 0
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Latin, r):
			return false
		case unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao,
			unicode.Khmer, unicode.Myanmar, unicode.Tibetan):
			return false
		case unicode.IsLetter(r):
			other++
		}
	}
	return other > 0
}
