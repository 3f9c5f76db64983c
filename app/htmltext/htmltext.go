// Package htmltext turns the sanitized HTML of an item (feeds.Sanitize's output) into its plain
// text. The stores derive an item's text from its stored HTML with it (issue 26: the text is
// not stored beside the HTML it comes from), and the fetcher makes the same text at fetch time:
// both must agree, so both call Text.
package htmltext

import (
	"database/sql"
	"html"
	"strings"
	"unicode"

	"golang.org/x/net/html/atom"
)

// Block reports whether an element ends a run of text: the plain text puts a space between
// such elements (and around an image).
func Block(a atom.Atom) bool { return blockElements[a] }

var blockElements = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Br: true, atom.Li: true, atom.Ul: true, atom.Ol: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Tr: true, atom.Td: true, atom.Th: true, atom.Table: true, atom.Blockquote: true,
	atom.Pre: true, atom.Hr: true, atom.Section: true, atom.Article: true, atom.Header: true,
	atom.Footer: true, atom.Figure: true, atom.Figcaption: true, atom.Dt: true, atom.Dd: true,
}

// Text is the plain text of sanitized HTML, where every '<' opens a tag and no script or
// style is left: one pass over the bytes instead of a tokenizer (feeds.PlainText is the
// tokenizer's version, for any HTML; the two agree on sanitized HTML, which feeds' tests
// check). Tags are dropped (a block element or an image leaves a space), entities
// unescaped, white space collapsed (Collapse).
func Text(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return Collapse(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c != '<' {
			next := strings.IndexByte(s[i:], '<')
			if next < 0 {
				b.WriteString(s[i:])
				break
			}
			b.WriteString(s[i : i+next])
			i += next
			continue
		}
		end := strings.IndexByte(s[i:], '>')
		if end < 0 {
			break
		}
		tag := s[i+1 : i+end]
		tag = strings.TrimPrefix(tag, "/")
		if k := strings.IndexAny(tag, " \t\n/"); k >= 0 {
			tag = tag[:k]
		}
		if a := atom.Lookup([]byte(strings.ToLower(tag))); blockElements[a] || a == atom.Img {
			b.WriteByte(' ')
		}
		i += end + 1
	}
	return Collapse(html.UnescapeString(b.String()))
}

// maxMarks is the most combining marks kept on one base character: enough for any script
// (Vietnamese stacks two, some Indic and Hebrew text three), too few for "zalgo" text,
// where hundreds draw over the lines above and below.
const maxMarks = 3

// Collapse trims s and turns every run of white space into one space. It also drops
// control characters, the bidirectional overrides, embeddings and isolates (U+202A-202E,
// U+2066-2069: "Invoice \u202Efdp.exe" would show as "Invoice exe.pdf"), and combining marks
// past maxMarks on one character.
func Collapse(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	marks := 0
	for _, r := range s {
		if unicode.IsSpace(r) || r == '\u200b' || r == '\ufeff' {
			space = b.Len() > 0
			marks = 0
			continue
		}
		if unicode.IsControl(r) || bidiControl(r) {
			continue
		}
		if unicode.In(r, unicode.Mn, unicode.Me) {
			if marks++; marks > maxMarks {
				continue
			}
		} else {
			marks = 0
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// bidiControl reports whether r is a bidirectional embedding, override or isolate.
func bidiControl(r rune) bool {
	return r >= '\u202a' && r <= '\u202e' || r >= '\u2066' && r <= '\u2069'
}

// Stored is what a store keeps of an item's text beside its sanitized HTML: nothing ("") when
// the text is the HTML's own (Text(clean)), the text itself otherwise (an article's text read
// from the linked page, a mail's "no text" notice).
func Stored(text, clean string) string {
	if text == "" || text == Text(clean) {
		return ""
	}
	return text
}

// Of is an item's text from what a store keeps (Stored) and its sanitized HTML.
func Of(stored, clean string) string {
	if stored != "" {
		return stored
	}
	return Text(clean)
}

// Prefix is the first n characters of an item's text, as SQL's substr(text, 1, n) would cut
// it, from what a store keeps and a prefix of its HTML (HTMLPrefix(n) characters of it: enough
// for n characters of text unless markup fills most of it).
func Prefix(stored, cleanPrefix string, n int) string {
	t := Of(stored, cleanPrefix)
	if n <= 0 {
		return t
	}
	k := 0
	for i := range t {
		if k == n {
			return t[:i]
		}
		k++
	}
	return t
}

// HTMLPrefix is how many characters of the HTML Prefix reads for n characters of text.
func HTMLPrefix(n int) int { return 4*n + 1024 }

// Derivable reads rows of (id, text_content, clean_content), in id order, and returns the ids
// whose stored text is the HTML's own (Stored gives ""), the last id read and how many rows were
// read: a migration's batch of texts that need not be stored (both stores' migration step).
func Derivable(rows *sql.Rows) (ids []int64, last int64, n int, err error) {
	defer rows.Close()
	for rows.Next() {
		var id int64
		var text, clean string
		if err := rows.Scan(&id, &text, &clean); err != nil {
			return nil, last, n, err
		}
		n++
		last = id
		if Stored(text, clean) == "" {
			ids = append(ids, id)
		}
	}
	return ids, last, n, rows.Err()
}
