// Command notnouns writes app/enrich/notnouns.txt: the English words, as texts write them, that
// are never nouns according to WordNet 3.0 (Debian's wordnet-base, /usr/share/wordnet) — verbs'
// past forms, and the adjectives (with -er and -est) and adverbs that have no noun sense — kept to the words that have a vector in app/wordvec, sorted. Tags are noun
// phrases: a tag that is, or ends with, one of these words ("compared", "adds faster", "tables
// patched") is not one. See app/enrich/NOTICE-wordnet.md for WordNet's licence.
//
//	go run ./scripts/notnouns > app/enrich/notnouns.txt
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/morningdeck/morningdeck/app/wordvec"
)

func main() {
	dir := flag.String("wordnet", "/usr/share/wordnet", "WordNet's dict folder")
	flag.Parse()
	lines := func(name string, fn func(string)) {
		f, err := os.Open(filepath.Join(*dir, name))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fn(sc.Text())
		}
	}
	lemmas := func(pos string) map[string]bool {
		out := map[string]bool{}
		lines("index."+pos, func(l string) {
			if strings.HasPrefix(l, " ") {
				return // the licence
			}
			if w, _, ok := strings.Cut(l, " "); ok && !strings.Contains(w, "_") {
				out[w] = true
			}
		})
		return out
	}
	exceptions := func(pos string) map[string]string { // inflected form → lemma
		out := map[string]string{}
		lines(pos+".exc", func(l string) {
			if fs := strings.Fields(l); len(fs) >= 2 && !strings.Contains(fs[0], "_") {
				out[fs[0]] = fs[1]
			}
		})
		return out
	}
	nouns, verbs, adjs, advs := lemmas("noun"), lemmas("verb"), lemmas("adj"), lemmas("adv")
	nounExc := exceptions("noun")
	isNoun := func(w string) bool {
		if nouns[w] || nounExc[w] != "" {
			return true
		}
		// A regular plural of a noun is a noun.
		for _, s := range []string{"s", "es"} {
			if b, ok := strings.CutSuffix(w, s); ok && nouns[b] {
				return true
			}
		}
		if b, ok := strings.CutSuffix(w, "ies"); ok && nouns[b+"y"] {
			return true
		}
		return false
	}
	out := map[string]bool{}
	cand := func(w string) {
		if !isNoun(w) && wordvec.Rank(w) >= 0 {
			out[w] = true
		}
	}
	// Of verbs, only the past forms: a verb itself, its -s and its -ing are often nouns in
	// today's writing (a commit, commits, parsing, hacking) where WordNet 3.0 has no noun.
	for v := range verbs {
		base := strings.TrimSuffix(v, "e")
		cand(base + "ed")
		cand(v + "d")
		if strings.HasSuffix(v, "y") {
			cand(strings.TrimSuffix(v, "y") + "ied")
		}
	}
	for form, lemma := range exceptions("verb") {
		if !strings.HasSuffix(form, "ing") && !strings.HasSuffix(form, "s") && form != lemma {
			cand(form)
		}
	}
	for a := range adjs {
		cand(a)
		base := strings.TrimSuffix(a, "e")
		cand(base + "er")
		cand(base + "est")
		if strings.HasSuffix(a, "y") {
			cand(strings.TrimSuffix(a, "y") + "ier")
		}
	}
	for form := range exceptions("adj") {
		cand(form)
	}
	for a := range advs {
		cand(a)
	}
	words := make([]string, 0, len(out))
	for w := range out {
		words = append(words, w)
	}
	sort.Strings(words)
	fmt.Println("# English words that are never nouns (WordNet 3.0, see NOTICE-wordnet.md); made by scripts/notnouns.")
	for _, w := range words {
		fmt.Println(w)
	}
}
