package story

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Story grouping has its own tokenizer: it needs what the ranking tokenizer throws away
// (capitals, acronyms, numbers, sentence starts) and must not change when ranking does.

// groupWord is a word of a title or lead as story grouping sees it.
type groupWord struct {
	key     string // folded, stemmed; "#us" for the acronym US / U.S.
	lower   string // folded, not stemmed: what the word vectors know the word by
	capital bool   // starts with an upper-case letter (or is an acronym)
	local   bool   // capitalised where capitals say something: mid-sentence in running text, or an acronym
	number  bool
	stop    bool // a function word: never a term, breaks multi-word names
	brk     bool // punctuation or a stop word sits between this word and the one before
}

// groupWords splits text into words. Title-case and all-caps texts ("Men's Wearhouse Is Buying
// Jos. A. Bank") do not mark names by capitals; running text does, except at a sentence's start.
func groupWords(text string) []groupWord {
	type raw struct {
		s          string
		sentStart  bool
		brk        bool
		dotAcronym bool
	}
	raws := make([]raw, 0, len(text)/5+1)
	sentStart, brk := true, true
	i := 0
	for i < len(text) {
		r, size := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			switch r {
			case '.', '!', '?', ':', ';', '|', '•', '—', '–':
				sentStart, brk = true, true
			case ',', '(', ')', '"', '“', '”', '[', ']', '/', '‘':
				brk = true
			}
			i += size
			continue
		}
		// A word: letters and digits, with inner apostrophes, and dots or commas between digits
		// (1.8, 1,000) or between single letters (U.S.).
		start := i
		dotted := false
		for i < len(text) {
			r, size := utf8.DecodeRuneInString(text[i:])
			if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) {
				i += size
				continue
			}
			if i+size < len(text) {
				next, _ := utf8.DecodeRuneInString(text[i+size:])
				prev, _ := utf8.DecodeLastRuneInString(text[start:i])
				if (r == '\'' || r == '’') && unicode.IsLetter(next) && unicode.IsLetter(prev) {
					i += size
					continue
				}
				if (r == '.' || r == ',') && unicode.IsDigit(prev) && unicode.IsDigit(next) {
					i += size
					continue
				}
				if r == '.' && unicode.IsLetter(next) && unicode.IsUpper(prev) && i-start >= 1 && groupSingleLetterBefore(text[start:i]) && groupSingleLetterAfter(text[i+size:]) {
					dotted = true
					i += size
					continue
				}
			}
			break
		}
		w := text[start:i]
		if dotted && i < len(text) && text[i] == '.' {
			i++ // the closing dot of U.S. does not end a sentence
			raws = append(raws, raw{s: w, sentStart: sentStart, brk: brk, dotAcronym: true})
			sentStart, brk = false, false
			continue
		}
		raws = append(raws, raw{s: w, sentStart: sentStart, brk: brk, dotAcronym: dotted})
		sentStart, brk = false, false
	}
	// Whether capitals mark names in this text: not in Title Case or ALL CAPS.
	caps, upper, long := 0, 0, 0
	for _, w := range raws {
		r, _ := utf8.DecodeRuneInString(w.s)
		if utf8.RuneCountInString(w.s) < 4 || !unicode.IsLetter(r) {
			continue
		}
		long++
		if unicode.IsUpper(r) {
			caps++
		}
		if groupAllUpper(w.s) {
			upper++
		}
	}
	titleCase := long >= 2 && caps*10 >= long*6
	allCaps := long >= 2 && upper*10 >= long*6
	out := make([]groupWord, 0, len(raws))
	for _, w := range raws {
		s := w.s
		// Possessives and French elisions: Men's → men, l'avion → avion.
		if j := groupLastApostrophe(s); j > 0 {
			tail := s[j:]
			if tail == "'s" || tail == "’s" || tail == "'S" || tail == "’S" {
				s = s[:j]
			} else if j <= 2 {
				_, size := utf8.DecodeRuneInString(s[j:])
				s = s[j+size:]
			}
		}
		if groupHasPunct(s) {
			s = groupPunct.Replace(s)
		}
		if w.dotAcronym {
			s = strings.ReplaceAll(w.s, ".", "")
		}
		if s == "" {
			continue
		}
		first, _ := utf8.DecodeRuneInString(s)
		letters, digits, uppers := 0, 0, 0
		for _, r := range s {
			switch {
			case unicode.IsDigit(r):
				digits++
			case unicode.IsLetter(r):
				letters++
				if unicode.IsUpper(r) {
					uppers++
				}
			}
		}
		gw := groupWord{brk: w.brk, capital: unicode.IsUpper(first) || digits > 0 && uppers > 0}
		lower := groupFold(s)
		gw.lower = lower
		// An acronym: EU, MH370, U.S.; not NOT or WHY written in capitals for emphasis (but US).
		acronym := !allCaps && uppers >= 2 && uppers == letters && letters <= 6 && (!groupStopWords[lower] || lower == "us") || w.dotAcronym
		switch {
		case letters == 0:
			gw.number = true
			gw.key = strings.TrimLeft(strings.ReplaceAll(strings.ReplaceAll(w.s, ",", ""), "'", ""), "0")
			if gw.key == "" || len(gw.key) == 1 {
				gw.stop = true // 0–9: "UPDATE 1-", "3-year-old" say little
			}
		case acronym:
			gw.key = "#" + lower
			gw.local = true
		default:
			gw.key = groupStem(lower)
			gw.stop = letters+digits < 2 || groupStopWords[lower] || groupStopWords[gw.key]
			gw.local = gw.capital && !w.sentStart && !titleCase && !allCaps
		}
		if gw.stop {
			gw.local = false
		}
		out = append(out, gw)
	}
	// A stop word breaks a multi-word name (“Bank of England” stays two names).
	for k := 1; k < len(out); k++ {
		if out[k-1].stop {
			out[k].brk = true
		}
	}
	return out
}

// groupLastApostrophe is strings.LastIndexAny(s, "'’") without its cost for a non-ASCII set.
func groupLastApostrophe(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case '\'':
			return i
		case 0x99: // the last byte of ’ (E2 80 99)
			if i >= 2 && s[i-2] == 0xE2 && s[i-1] == 0x80 {
				return i - 2
			}
		}
	}
	return -1
}

// groupHasPunct is strings.ContainsAny(s, ".,'’"), quicker.
func groupHasPunct(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '.', ',', '\'':
			return true
		case 0xE2:
			if i+2 < len(s) && s[i+1] == 0x80 && s[i+2] == 0x99 {
				return true
			}
		}
	}
	return false
}

func groupAllUpper(s string) bool {
	for _, r := range s {
		if unicode.IsLower(r) {
			return false
		}
	}
	return true
}

var groupPunct = strings.NewReplacer(".", "", ",", "", "'", "", "’", "")

func groupSingleLetterBefore(s string) bool {
	// s ends with one letter that stands alone (start of s, or after a dot).
	r, size := utf8.DecodeLastRuneInString(s)
	if !unicode.IsLetter(r) {
		return false
	}
	rest := s[:len(s)-size]
	return rest == "" || strings.HasSuffix(rest, ".")
}

func groupSingleLetterAfter(s string) bool {
	r, size := utf8.DecodeRuneInString(s)
	if !unicode.IsUpper(r) {
		return false
	}
	return size == len(s) || s[size] == '.'
}

// groupFold lower-cases s and strips its accents.
func groupFold(s string) string {
	s = strings.ToLower(s)
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		if r == 'ß' {
			b.WriteString("ss")
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// groupStem is a light English stemmer, enough for headlines to meet: buys/buying → buy,
// raises/raised/raising → rais, companies → company. Words of other languages lose at most a
// plural s.
func groupStem(w string) string {
	n := len(w)
	if n <= 3 {
		return w
	}
	for i := 0; i < n; i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return w // not plain ASCII letters: leave it
		}
	}
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		w = w[:n-3] + "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:n-2]
	case strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us") || strings.HasSuffix(w, "is"):
	case strings.HasSuffix(w, "s"):
		w = w[:n-1]
	case n > 5 && strings.HasSuffix(w, "ing"):
		w = groupUndouble(w[:n-3])
	case n > 4 && strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "eed"):
		w = groupUndouble(w[:n-2])
	}
	if len(w) > 3 && strings.HasSuffix(w, "e") && !strings.HasSuffix(w, "ee") {
		w = w[:len(w)-1]
	}
	return w
}

func groupUndouble(w string) string {
	n := len(w)
	if n >= 4 && w[n-1] == w[n-2] && !strings.ContainsRune("lsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

// groupStopWords are function words of English, French, German and Spanish, and the words
// headlines use for any story (“says”, “update”, “report”). Keys are folded, and stemmed
// forms are listed where they differ.
var groupStopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(groupStopList) {
		w = groupFold(w)
		m[w] = true
		m[groupStem(w)] = true
	}
	return m
}()

const groupStopList = `a about above after again against all almost also although always am among an and another any
anyone anything are around as at away back be became because become been before being below between both but by can
cannot could did do does doing done down during each either else enough even ever every few for from further get gets
getting give given go goes going gone got had has have having he her here hers him his how however i if in into is it its
itself just keep know last least less let like likely made make makes making many may maybe me might more most much
must my near need needs never new next no none nor not nothing now of off often on once one only onto or other others our
ours out over own per perhaps put quite rather really said same say says see seem seems seen several shall she should
since so some someone something still such take takes than that the their theirs them themselves then there these they
thing things think this those though through thus till to together too took toward towards two under until up upon us
use used uses using very via was way we well went were what whatever when where whether which while who whom whose why
will with within without would yes yet you your yours want wants ago already come comes came three four five six seven
eight nine ten first second third top big day days week weeks year years today yesterday tomorrow monday
tuesday wednesday thursday friday saturday sunday news update updates report reports video photo photos watch live
here's what's it's don't doesn't isn't won't can't didn't there's that's who's he's she's they're we're you're i'm
le la les un une des du de et en est au aux ce ces dans pour par sur pas plus qui que ne se sa son ses avec il elle ils
elles nous vous on mais ou donc ni car été être avoir fait comme tout tous cette leur leurs
der die das den dem des ein eine einer eines einem einen und ist im zu mit von bei auf für nicht sich auch es an als
wie aus nach oder noch nur wird werden wurde sind hat haben kann vor über zum zur
el los las una unos unas y del al por con para es su sus se lo como más pero sin sobre entre fue ha han ser muy ya
`
