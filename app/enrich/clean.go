package enrich

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Boilerplate is taken out of an item's text before anything reads it (statistics, summary,
// tags, topics, score): the feed's and the podcast's furniture is not the article.

// textStubs are whole texts that say nothing (Hacker News and Reddit feeds).
var textStubs = map[string]bool{"comments": true, "comment": true, "discuss": true, "discussion": true, "read more": true,
	"link": true, "permalink": true, "[link] [comments]": true, "article url": true, "continue reading": true, "more": true,
	"kommentare": true, "commentaires": true, "comentarios": true}

var (
	// Removed wherever they are.
	rePostAppeared = regexp.MustCompile(`(?i)(the post|der beitrag|l'article|el artículo|het bericht)\s.{1,300}?\s(appeared first on|erschien zuerst auf|est apparu en premier sur|apareció primero en|verscheen eerst op)\s[^.!?]{1,120}[.!?]?`)
	reContinue     = regexp.MustCompile(`(?i)(continue reading|keep reading|read more|read the (full|rest of the|whole) (post|article|story)|lire la suite|weiterlesen|leer más|lees verder|continua a leggere|ler mais)\b[^.!?]{0,80}?(»|…|→|\.\.\.|\[…\]|$)`)
	reMarkup       = regexp.MustCompile(`<[a-zA-Z/!][^<>]{0,400}>|\(tags?:[^()]{0,200}\)`)
	reHash         = regexp.MustCompile(`\b[0-9a-fA-F]{12,}\b`)
	reByline       = regexp.MustCompile(`^\s*(?i:by|von|par|por|door|di|posted by|written by)\s+(?:guest blogger:?\s+)?\p{Lu}[\p{L}.'’-]*(?:\s+\p{Lu}[\p{L}.'’-]*){0,3}\s*(?:[,|—–:-]|\bon\b)?\s*`)
	reTimestamp    = regexp.MustCompile(`(?i)\b(posted|published|updated|veröffentlicht|aktualisiert|publié|mis à jour|publicado|actualizado)(\s+(on|at|am|le|el))?\s*:?\s*(\w+\.?\s+\d{1,2}(st|nd|rd|th)?,?\s+\d{4}|\d{1,2}\.?\s+\w+\.?\s+\d{4}|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|\d{4}-\d{2}-\d{2})(\s*(at|um|à|,)?\s*\d{1,2}[:.h]\d{2}(\s*[ap]\.?m\.?)?)?(\s*[A-Z]{2,4}\b)?`)
	reSubmitted    = regexp.MustCompile(`(?i)submitted by\s+/?u/\S+(\s*\[link\])?(\s*\[comments\])?`)
	// Sentences that are furniture: sponsor reads, share and subscribe lines, footers.
	reFurniture = regexp.MustCompile(`(sponsored by|brought to you by|(episode|show|podcast|video|newsletter) is (sponsored|supported|brought)|thanks to (our )?sponsors?|our sponsors?\b|\bsponsors?:|promo code|coupon code|offer code|discount code|use (the )?code\s+\S+|free trial at|(go|head) (over )?to \S+\.(com|io|fm|co)/\S+|` +
		`share (this|on) (facebook|twitter|linkedin|x\b)|share this( post| article| story)?:|follow (us|me) on (twitter|facebook|instagram|mastodon|bluesky|linkedin|x\b)|subscribe (to|for|now|on) |sign up (for|to) (our|the|my) newsletter|like us on facebook|tweet this|click here (to|for)|` +
		`thank(s| you) for reading|all rights reserved|originally (published|appeared|posted) (at|on|in)|this (post|article|entry|story) (was )?(originally )?(published|posted|appeared)|appeared first on|` +
		`abonnieren sie|folgen sie uns|abonnez-vous|suivez-nous|suscríbete|síguenos)`)
)

// Literal triggers: a regular expression runs only on a text that has one of its words, which
// keeps cleaning cheap (most texts have none).
var (
	trigSubmitted    = newTriggers("submitted by")
	trigPostAppeared = newTriggers("appeared first", "erschien zuerst", "apparu en premier", "apareció primero", "verscheen eerst")
	trigContinue     = newTriggers("continue reading", "keep reading", "read more", "read the ", "lire la suite", "weiterlesen", "leer más", "lees verder", "continua a leggere", "ler mais")
	trigTimestamp    = newTriggers("posted", "published", "updated", "veröffentlicht", "aktualisiert", "publié", "mis à jour", "publicado", "actualizado")
	trigFurniture    = newTriggers("sponsor", "brought to you", "promo code", "coupon code", "offer code", "discount code", "use code", "use the code",
		"free trial", ".com/", ".io/", ".fm/", ".co/", "share this", "share on", "follow us", "follow me", "subscribe", "sign up",
		"like us", "tweet this", "click here", "for reading", "rights reserved", "originally", "appeared first", "abonnieren",
		"folgen sie", "abonnez", "suivez-nous", "suscríbete", "síguenos")
)

func hasAny(lower string, t *triggers) bool {
	for i := 0; i+1 < len(lower); i++ {
		if k := uint16(lower[i])<<8 | uint16(lower[i+1]); t.heads[k>>6]&(1<<(k&63)) != 0 {
			for _, w := range t.words {
				if strings.HasPrefix(lower[i:], w) {
					return true
				}
			}
		}
	}
	return false
}

// triggers are literal words and the set of their first two bytes: hasAny reads a text once,
// looking for the words only where one of them could start, instead of searching the text for
// each word in turn (55 searches an item were 2.4 % of a first ingestion's CPU, issue 14).
type triggers struct {
	words []string
	heads [1 << 16 / 64]uint64
}

func newTriggers(words ...string) *triggers {
	t := &triggers{words: words}
	for _, w := range words {
		if len(w) < 2 {
			panic("enrich: a trigger word of fewer than two bytes: " + w)
		}
		k := uint16(w[0])<<8 | uint16(w[1])
		t.heads[k>>6] |= 1 << (k & 63)
	}
	return t
}

// hasHexRun reports whether s has 12 hexadecimal characters in a row, a hash's sign.
func hasHexRun(s string) bool {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' {
			n++
			if n >= 12 {
				return true
			}
		} else {
			n = 0
		}
	}
	return false
}

// asciiLower lower-cases the ASCII letters of s only, so that byte offsets stay those of s.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// nearTriggers calls fn for every occurrence of a trigger in lower (the ASCII-lower-cased t) at
// byte i, with the window of t around it, from before bytes before to after bytes after the
// trigger's end, widened to whole characters.
func nearTriggers(t, lower string, triggers *triggers, before, after int, fn func(i, lo, hi int)) {
	for _, trig := range triggers.words {
		for from := 0; ; {
			i := strings.Index(lower[from:], trig)
			if i < 0 {
				break
			}
			i += from
			from = i + len(trig)
			lo, hi := max(0, i-before), min(len(t), i+len(trig)+after)
			for lo > 0 && !utf8.RuneStart(t[lo]) {
				lo--
			}
			for hi < len(t) && !utf8.RuneStart(t[hi]) {
				hi++
			}
			fn(i, lo, hi)
		}
	}
}

// removeNear takes out the matches of re that are near an occurrence of one of triggers (from
// before bytes before it to after bytes after it): the expression runs on small windows, not on
// the whole text.
func removeNear(t, lower string, triggers *triggers, re *regexp.Regexp, before, after int) string {
	var cuts [][2]int
	nearTriggers(t, lower, triggers, before, after, func(i, lo, hi int) {
		for _, m := range re.FindAllStringIndex(t[lo:hi], -1) {
			if lo+m[0] <= i && i < lo+m[1] {
				cuts = append(cuts, [2]int{lo + m[0], lo + m[1]})
			}
		}
	})
	if len(cuts) == 0 {
		return t
	}
	sort.Slice(cuts, func(i, j int) bool { return cuts[i][0] < cuts[j][0] })
	var b strings.Builder
	at := 0
	for _, c := range cuts {
		if c[0] > at {
			b.WriteString(t[at:c[0]])
			b.WriteByte(' ')
		}
		at = max(at, c[1])
	}
	b.WriteString(t[at:])
	return b.String()
}

// cleanText takes boilerplate out of an item's plain text.
func cleanText(text string) string {
	t := strings.TrimSpace(text)
	if t == "" || len(t) < 40 && textStubs[strings.ToLower(strings.Trim(t, " .…:»"))] {
		return ""
	}
	lower := asciiLower(t)
	if strings.Contains(lower, "submitted by") {
		t = removeNear(t, lower, trigSubmitted, reSubmitted, 0, 80)
		lower = asciiLower(t)
	}
	if hasAny(lower, trigPostAppeared) {
		t = removeNear(t, lower, trigPostAppeared, rePostAppeared, 330, 140)
		lower = asciiLower(t)
	}
	if hasAny(lower, trigContinue) {
		t = removeNear(t, lower, trigContinue, reContinue, 0, 130)
		lower = asciiLower(t)
	}
	if strings.IndexByte(t, '<') >= 0 || strings.Contains(lower, "(tag") {
		t = reMarkup.ReplaceAllString(t, " ") // markup that reached the text escaped, and tag lists
		lower = asciiLower(t)
	}
	if hasHexRun(t) {
		t = reHash.ReplaceAllStringFunc(t, func(h string) string {
			if strings.IndexFunc(h, unicode.IsDigit) >= 0 && strings.IndexFunc(h, unicode.IsLetter) >= 0 {
				return " "
			}
			return h
		})
		lower = asciiLower(t)
	}
	if hasAny(lower, trigTimestamp) {
		t = removeNear(t, lower, trigTimestamp, reTimestamp, 0, 90)
	}
	head := t
	if len(head) > 160 {
		head = head[:160]
	}
	if loc := reByline.FindStringIndex(head); loc != nil && loc[1] < len(t) {
		t = t[loc[1]:]
	}
	t = singleSpaced(t)
	lower = asciiLower(t)
	if !hasAny(lower, trigFurniture) {
		return t
	}
	// Furniture sentences: find where the expression matches near a trigger, then drop the
	// sentences holding those places.
	var marks []int
	nearTriggers(t, lower, trigFurniture, 40, 80, func(i, lo, hi int) {
		if reFurniture.MatchString(strings.ToLower(t[lo:hi])) {
			marks = append(marks, i)
		}
	})
	if len(marks) == 0 {
		return t
	}
	var keep []string
	at := 0
	for _, s := range sentences(t) {
		start := strings.Index(t[at:], s)
		if start < 0 {
			keep = append(keep, s)
			continue
		}
		start += at
		end := start + len(s)
		at = end
		furniture := false
		for _, m := range marks {
			if m >= start && m < end {
				furniture = true
				break
			}
		}
		if !furniture {
			keep = append(keep, s)
		}
	}
	out := strings.Join(keep, " ")
	if textStubs[strings.ToLower(strings.Trim(out, " .…:»"))] {
		return ""
	}
	return out
}
