package postgres

import (
	"strings"
	"unicode"

	"github.com/morningdeck/morningdeck/app"
)

// What a person types into the search box, made into PostgreSQL text-search queries with the
// same rules as package sqlite's FTS5 queries (parseSearch there): every word must match, as a
// prefix; quoted phrases stay phrases; a word whose punctuation carries meaning ("c++",
// "node.js") is matched exactly and must also be in the text as typed. The snippet helpers are
// the same as SQLite's. (They are copies: moving them into package app, for both engines, is
// left to a change that may touch package sqlite.)

// search is a parsed search.
type search struct {
	// match finds the items (a tsquery for to_tsquery('morningdeck', …)): every word must
	// match, the words as prefixes.
	match string
	// exact is match with whole words only; its items rank first ("go" before "Golden").
	// Empty when it would be match again.
	exact string
	// literals must be in the title, summary or text as typed (any case).
	literals []string
	// terms mark the matches in snippets.
	terms []app.SnippetTerm
}

// parseSearch turns what a person typed into tsqueries. The terms are letters and digits only
// (app.CleanTerm), quoted, so nothing typed is taken as tsquery syntax.
func parseSearch(q string) search {
	q = strings.TrimSpace(q)
	var s search
	if q == "" {
		return s
	}
	var terms, exact []string
	phrase := func(w string) string {
		parts := strings.Fields(w)
		for i, p := range parts {
			parts[i] = "'" + p + "'"
		}
		if len(parts) == 1 {
			return parts[0]
		}
		return "(" + strings.Join(parts, " <-> ") + ")"
	}
	for len(q) > 0 {
		q = strings.TrimLeftFunc(q, unicode.IsSpace)
		if q == "" {
			break
		}
		if q[0] == '"' {
			end := strings.IndexByte(q[1:], '"')
			p := q[1:]
			if end >= 0 {
				p, q = q[1:end+1], q[end+2:]
			} else {
				q = ""
			}
			if w := app.CleanTerm(p); w != "" {
				terms, exact = append(terms, phrase(w)), append(exact, phrase(w))
				for _, f := range strings.Fields(w) {
					s.terms = append(s.terms, app.SnippetTerm{Word: app.FoldWord(f)})
				}
			}
			continue
		}
		end := strings.IndexFunc(q, unicode.IsSpace)
		word := q
		if end >= 0 {
			word, q = q[:end], q[end:]
		} else {
			q = ""
		}
		w := app.CleanTerm(word)
		if w == "" {
			continue
		}
		if lit := literalTerm(word); lit != "" {
			terms, exact = append(terms, phrase(w)), append(exact, phrase(w))
			s.literals = append(s.literals, lit)
			for _, f := range strings.Fields(w) {
				s.terms = append(s.terms, app.SnippetTerm{Word: app.FoldWord(f)})
			}
			continue
		}
		for _, part := range strings.Fields(w) {
			terms = append(terms, "'"+part+"':*")
			exact = append(exact, "'"+part+"'")
			s.terms = append(s.terms, app.SnippetTerm{Word: app.FoldWord(part), Prefix: true})
		}
	}
	s.match = strings.Join(terms, " & ")
	if e := strings.Join(exact, " & "); e != s.match {
		s.exact = e
	}
	return s
}

// literalTerm returns the word as it must appear in the text when its punctuation means
// something: a + or # after letters (C++, C#, F#), a dot before or between letters (.NET,
// node.js, asp.net); "" for an ordinary word, whose punctuation is only punctuation.
func literalTerm(word string) string {
	w := strings.TrimFunc(word, func(r rune) bool { return strings.ContainsRune(`()[]{}<>,;:!?'"`, r) })
	w = strings.TrimRight(w, ".")
	w = strings.TrimLeftFunc(w, func(r rune) bool { return r != '.' && !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if w == "" {
		return ""
	}
	meaningful := false
	for i, r := range w {
		switch r {
		case '+', '#':
			meaningful = meaningful || i > 0
		case '.':
			meaningful = meaningful || i+1 < len(w)
		default:
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				return ""
			}
		}
	}
	if !meaningful {
		return ""
	}
	return strings.ToLower(w)
}
