package app

import (
	"cmp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// NaturalCompare orders names as a reader expects: letters without regard to case, and runs of
// digits by their value, so that "Feed 2" comes before "Feed 10". It returns -1, 0 or +1.
func NaturalCompare(a, b string) int {
	for a != "" && b != "" {
		if isDigit(a[0]) && isDigit(b[0]) {
			da, db := digitRun(a), digitRun(b)
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if len(na) != len(nb) {
				return cmp.Compare(len(na), len(nb))
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		ra, sa := utf8.DecodeRuneInString(a)
		rb, sb := utf8.DecodeRuneInString(b)
		if la, lb := unicode.ToLower(ra), unicode.ToLower(rb); la != lb {
			return cmp.Compare(int(la), int(lb))
		}
		a, b = a[sa:], b[sb:]
	}
	return cmp.Compare(len(a), len(b))
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func digitRun(s string) int {
	n := 0
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	return n
}

// Plural is one when n is 1, else many.
func Plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// FirstNonEmpty is the first of s that is not blank, or "".
func FirstNonEmpty(s ...string) string {
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// SafeLink lets only http(s) links out; anything else (javascript:, data:) becomes "".
func SafeLink(u string) string {
	l := strings.ToLower(strings.TrimSpace(u))
	if strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://") {
		return strings.TrimSpace(u)
	}
	return ""
}

// Shorten cuts text to at most n characters, at a word boundary when one is in the second
// half, ending in an ellipsis when it cut: the one cut of text for people (titles, excerpts,
// summaries, messages quoting a file), so that none ends mid-word ("Update your Go toolcha").
func Shorten(s string, n int) string {
	if n < 2 || utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	cut := string(r[:n-1])
	if next := r[n-1]; next != ' ' && next != '\t' && next != '\n' { // the cut is inside a word
		if i := strings.LastIndexAny(cut, " \t\n"); i > (n-1)/2 {
			cut = cut[:i]
		}
	}
	return strings.TrimRight(cut, " \t\n,.;:—-") + "…"
}
