// Command regionnames writes app/enrich/regions.txt: the names of the world's countries and
// territories in the lexicon's languages and in the other scripts, from the Unicode CLDR data
// that golang.org/x/text/language/display carries (BSD-3-Clause code, Unicode licence data),
// and their other English names and adjectives from WordNet 3.0 (Debian's wordnet-base,
// /usr/share/wordnet): the other lemmas of the country's noun synset ("Burma", "USA") and the
// adjectives that pertain to it ("Indian", "Pakistani", "American"). See
// app/enrich/NOTICE-regions.md.
//
//	go run ./scripts/regionnames > app/enrich/regions.txt
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	dir := flag.String("wordnet", "/usr/share/wordnet", "WordNet's dict folder")
	flag.Parse()
	wn := readWordNet(*dir)
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
			for _, n := range wn[en[0]] {
				if !slices.Contains(en, n) {
					en = append(en, n)
				}
			}
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
				// Only the whole name, and no longer than the English one by more than a word (the
				// formal names of Hong Kong and Macao): how other languages write their qualifiers
				// is not known here.
				n := strings.TrimSpace(regionName(t, r))
				if n != "" && !strings.ContainsAny(n, "(),،;|:\n") && len(strings.Fields(n)) <= len(strings.Fields(en[0]))+1 {
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
	var out []string
	if i := strings.Index(s, " ("); i > 0 && strings.HasSuffix(s, ")") {
		out = []string{s[:i]}
		if english {
			out = append(out, s[i+2:len(s)-1])
		}
	} else if i, j := strings.Index(s, " ("), strings.Index(s, ") "); i > 0 && j > i {
		out = []string{s[:i] + s[j+1:]} // "Cocos (Keeling) Islands" is "Cocos Islands"
	} else {
		out = []string{s}
	}
	// A form is a list item of the lexicon's line and of an interest's "(not: …)": none of
	// their separators may be in it.
	return slices.DeleteFunc(out, func(f string) bool { return f == "" || strings.ContainsAny(f, ",;()|:\n") })
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

// readWordNet returns, for each country's name as WordNet writes it ("India"), the other names of
// its noun synset and the adjectives that pertain to it: "India" → "Republic of India", "Bharat",
// "Indian". Only a synset that is a country or territory counts (its gloss or lexicographer file
// is a location's: noun.location, file 15), and only capitalised lemmas of three letters or more
// (a lower-case lemma is a common word; a two-letter one, "AS" of American Samoa, is any two
// capitals: the lexicon has "US" and "UK").
func readWordNet(dir string) map[string][]string {
	read := func(name string, fn func(string)) {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			if l := sc.Text(); !strings.HasPrefix(l, " ") {
				fn(l)
			}
		}
	}
	// A data line: offset lex_filenum ss_type w_cnt (word lex_id)… p_cnt (ptr offset pos src/tgt)… | gloss
	parse := func(l string) (offset, file string, words []string, ptrs [][2]string) {
		fs := strings.Fields(strings.SplitN(l, " | ", 2)[0])
		if len(fs) < 4 {
			return
		}
		offset, file = fs[0], fs[1]
		var n int
		fmt.Sscanf(fs[3], "%x", &n)
		i := 4
		for k := 0; k < n && i+1 < len(fs); k++ {
			w := fs[i]
			if j := strings.IndexByte(w, '('); j > 0 {
				w = w[:j] // an adjective's marker: "(a)", "(p)"
			}
			words = append(words, strings.ReplaceAll(w, "_", " "))
			i += 2
		}
		var p int
		if i < len(fs) {
			fmt.Sscanf(fs[i], "%d", &p)
			i++
		}
		for k := 0; k < p && i+3 < len(fs); k++ {
			ptrs = append(ptrs, [2]string{fs[i], fs[i+1]})
			i += 4
		}
		return
	}
	keep := func(w string) bool {
		r := []rune(w)
		return len(r) >= 3 && unicode.IsUpper(r[0]) && !strings.HasPrefix(w, "the ")
	}
	places := map[string][]string{} // a location synset's offset → its lemmas
	heads := map[string]int{}       // a location synset's first lemma → how many synsets it heads
	read("data.noun", func(l string) {
		if offset, file, words, _ := parse(l); file == "15" && len(words) > 0 {
			places[offset] = words
			heads[words[0]]++
		}
	})
	out := map[string][]string{}
	add := func(name, w string) {
		if keep(w) && w != name && !slices.Contains(out[name], w) {
			out[name] = append(out[name], w)
		}
	}
	// Only the synset a name heads, and only a name that heads one synset: "China" heads the
	// People's Republic's (and is Taiwan's second lemma); "Georgia" heads the country's and the
	// US state's, so neither counts.
	for _, words := range places {
		if heads[words[0]] == 1 {
			for _, w := range words {
				add(words[0], w)
				// An abbreviation of two capitals that the synset also writes with stops ("US"
				// beside "U.S.", "UK" beside "U.K.") is the country's in prose; matched as
				// written, it is not the pronoun "us". Postal codes (Guam's "GU", American
				// Samoa's "AS") have no dotted form and are left out.
				if len(w) == 2 && w == strings.ToUpper(w) && slices.Contains(words, w[:1]+"."+w[1:]+".") && !slices.Contains(out[words[0]], w) {
					out[words[0]] = append(out[words[0]], w)
				}
			}
		}
	}
	read("data.adj", func(l string) {
		_, _, words, ptrs := parse(l)
		for _, p := range ptrs {
			if p[0] == "\\" { // pertains to (a noun: the offset is a noun's)
				if ws := places[p[1]]; len(ws) > 0 && heads[ws[0]] == 1 {
					for _, w := range words {
						add(ws[0], w)
					}
				}
			}
		}
	})
	return out
}
