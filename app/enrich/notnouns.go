package enrich

import (
	_ "embed"
	"strings"
	"sync"

	"github.com/morningdeck/morningdeck/app/wordindex"
)

// notNounsText is notnouns.txt: English words that are never nouns (WordNet 3.0; see
// NOTICE-wordnet.md and scripts/notnouns), one a line, sorted.
//
//go:embed notnouns.txt
var notNounsText string

// notNounLines are the offsets of notnouns.txt's words in the embedded text itself (50 KB,
// made on first use).
var notNounLines = sync.OnceValue(func() []uint32 {
	var at []uint32
	for i := 0; i < len(notNounsText); {
		j := strings.IndexByte(notNounsText[i:], '\n')
		if j < 0 {
			j = len(notNounsText) - i
		}
		if notNounsText[i] != '#' {
			at = append(at, uint32(i))
		}
		i += j + 1
	}
	return at
})

func notNounAt(at uint32) string {
	s := notNounsText[at:]
	if j := strings.IndexByte(s, '\n'); j >= 0 {
		s = s[:j]
	}
	return s
}

// notNoun reports whether an English word (lower case) is never a noun: "patched", "compared",
// "faster". Words WordNet does not know (names, codes, other languages) are not judged.
func notNoun(w string) bool { return notNounIndex().Find(w) >= 0 }

// notNounIndex finds a word among notnouns.txt's by hash (64 KB, made on first use).
var notNounIndex = sync.OnceValue(func() *wordindex.Index {
	lines := notNounLines()
	return wordindex.New(len(lines), func(i int) string { return notNounAt(lines[i]) })
})
