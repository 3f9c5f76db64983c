package enrich

import (
	"regexp"
	"strings"
	"unicode"
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
	trigPostAppeared = []string{"appeared first", "erschien zuerst", "apparu en premier", "apareció primero", "verscheen eerst"}
	trigContinue     = []string{"continue reading", "keep reading", "read more", "read the ", "lire la suite", "weiterlesen", "leer más", "lees verder", "continua a leggere", "ler mais"}
	trigTimestamp    = []string{"posted", "published", "updated", "veröffentlicht", "aktualisiert", "publié", "mis à jour", "publicado", "actualizado"}
	trigFurniture    = []string{"sponsor", "brought to you", "code", "free trial", "go to ", "head to ", "head over to ", "share ", "follow ", "subscribe",
		"sign up", "like us", "tweet this", "click here", "for reading", "rights reserved", "originally", "this post", "this article", "this entry",
		"this story", "appeared first", "abonnieren", "folgen sie", "abonnez", "suivez-nous", "suscríbete", "síguenos"}
)

func hasAny(lower string, words []string) bool {
	for _, w := range words {
		if strings.Contains(lower, w) {
			return true
		}
	}
	return false
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

// cleanText takes boilerplate out of an item's plain text.
func cleanText(text string) string {
	t := strings.TrimSpace(text)
	if t == "" || len(t) < 40 && textStubs[strings.ToLower(strings.Trim(t, " .…:»"))] {
		return ""
	}
	lower := strings.ToLower(t)
	if strings.Contains(lower, "submitted by") {
		t = reSubmitted.ReplaceAllString(t, " ")
	}
	if hasAny(lower, trigPostAppeared) {
		t = rePostAppeared.ReplaceAllString(t, " ")
	}
	if hasAny(lower, trigContinue) {
		t = reContinue.ReplaceAllString(t, " ")
	}
	if hasHexRun(t) {
		t = reHash.ReplaceAllStringFunc(t, func(h string) string {
			if strings.IndexFunc(h, unicode.IsDigit) >= 0 && strings.IndexFunc(h, unicode.IsLetter) >= 0 {
				return " "
			}
			return h
		})
	}
	if hasAny(lower, trigTimestamp) {
		t = reTimestamp.ReplaceAllString(t, " ")
	}
	head := t
	if len(head) > 160 {
		head = head[:160]
	}
	if loc := reByline.FindStringIndex(head); loc != nil && loc[1] < len(t) {
		t = t[loc[1]:]
	}
	if !hasAny(lower, trigFurniture) {
		return strings.TrimSpace(t)
	}
	var keep []string
	dropped := false
	for _, s := range sentences(t) {
		ls := strings.ToLower(s) // reFurniture is written in lower case
		if hasAny(ls, trigFurniture) && reFurniture.MatchString(ls) {
			dropped = true
			continue
		}
		keep = append(keep, s)
	}
	if !dropped {
		return strings.TrimSpace(t)
	}
	out := strings.Join(keep, " ")
	if textStubs[strings.ToLower(strings.Trim(out, " .…:»"))] {
		return ""
	}
	return out
}
