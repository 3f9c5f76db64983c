package app

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Search snippets, the same on every engine: the stores find the items, then mark the words of
// the query in about 24 words of the first field that has one (Item.Snippet).

// SnippetTerm is a word of a search query as the index reads it (lower case, accents folded),
// and whether it matches as a prefix.
type SnippetTerm struct {
	Word   string
	Prefix bool
}

// Snippet returns about 24 words of the first field that matches one of terms, the matches
// between \x01 and \x02; "" when none does.
func Snippet(terms []SnippetTerm, fields ...string) string {
	matches := func(w string) bool {
		f := FoldWord(strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
		for _, t := range terms {
			if f == t.Word || t.Prefix && strings.HasPrefix(f, t.Word) {
				return true
			}
		}
		return false
	}
	for _, field := range fields {
		words := strings.Fields(field)
		for i, w := range words {
			if !matches(w) {
				continue
			}
			start := max(0, i-6)
			end := min(len(words), start+24)
			var b strings.Builder
			if start > 0 {
				b.WriteString("… ")
			}
			for k := start; k < end; k++ {
				if k > start {
					b.WriteByte(' ')
				}
				if matches(words[k]) {
					b.WriteString("\x01" + words[k] + "\x02")
				} else {
					b.WriteString(words[k])
				}
			}
			if end < len(words) {
				b.WriteString(" …")
			}
			return b.String()
		}
	}
	return ""
}

// FoldWord lower-cases a word and strips its accents, as the search indexes do.
func FoldWord(s string) string {
	s = strings.ToLower(s)
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			var b strings.Builder
			for _, r := range norm.NFD.String(s) {
				if !unicode.Is(unicode.Mn, r) {
					b.WriteRune(r)
				}
			}
			return b.String()
		}
	}
	return s
}

// CleanTerm is a query's word or phrase with everything but letters and digits made a space
// between words.
func CleanTerm(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }), " ")
}
