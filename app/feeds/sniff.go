package feeds

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/korean"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/transform"
)

// sniffLegacy guesses the legacy charset of a document that declares none (or only a wrong
// UTF-8) and is not UTF-8. It is asked only about bytes that are not valid UTF-8 and mostly
// not UTF-8 at all (more stray bytes than twice the valid sequences: see toUTF8), so valid
// UTF-8 never reaches it, nor UTF-8 with a few stray bytes (mixedToUTF8 mends those). It decides between the charsets feeds still come in:
//
//   - the East Asian multi-byte ones (Shift_JIS, EUC-JP, EUC-KR, GBK, Big5), taken when the
//     bytes decode without an error into text of the script they encode (kana, Hangul, Han);
//     the best share wins, GBK before Big5 on a tie. Measured on real sentences
//     (chinese_internal_test.go): Big5 text never decodes as GBK (its full-width punctuation
//     and many common characters lie in byte pairs GBK leaves undefined), and GBK text reads
//     as Big5 at 0.77–0.94 Han against 1.00 as GBK, so the two are not confused. Half-width
//     katakana, which Shift_JIS makes of any Big5 or GBK byte 0xA1–0xDF, count for nothing;
//     curly quotes and dashes, which all of them encode, neither;
//   - Windows-1251 and KOI8-R, when the non-ASCII bytes come in runs (words of Cyrillic
//     letters, not accents within Latin words): the one that reads mostly as lower-case
//     letters wins (each reads the other's lower case as upper case);
//   - Windows-1252 otherwise (Latin-1 text, and the web's default).
//
// b holds no valid multi-byte UTF-8 at all when utf8Free; otherwise (East Asian double-byte
// text forms a few valid sequences by chance) only a confident East Asian answer is given,
// and nil means "UTF-8 with stray bytes after all".
func sniffLegacy(b []byte, utf8Free bool) encoding.Encoding {
	high, inRuns := 0, 0
	for i, c := range b {
		if c < 0x80 {
			continue
		}
		high++
		if i > 0 && b[i-1] >= 0x80 || i+1 < len(b) && b[i+1] >= 0x80 {
			inRuns++
		}
	}
	if utf8Free && high == 0 {
		return charmap.Windows1252
	}
	if utf8Free && inRuns*10 < high*6 {
		return charmap.Windows1252 // accents inside Latin words
	}
	best, bestScore := encoding.Encoding(nil), 0.0
	for _, c := range []struct {
		enc    encoding.Encoding
		script func(r rune) bool
	}{
		{japanese.ShiftJIS, isJapanese},
		{japanese.EUCJP, isJapanese},
		{korean.EUCKR, func(r rune) bool { return unicode.Is(unicode.Hangul, r) || cjkPunct(r) }},
		{simplifiedchinese.GBK, func(r rune) bool { return unicode.Is(unicode.Han, r) || cjkPunct(r) }},
		{traditionalchinese.Big5, func(r rune) bool { return unicode.Is(unicode.Han, r) || cjkPunct(r) }},
	} {
		s := scriptScore(b, c.enc, c.script)
		if (c.enc == japanese.ShiftJIS || c.enc == japanese.EUCJP) && kanaShare(b, c.enc) < 0.05 {
			s = 0 // Japanese text is never without kana; Korean or Chinese read as Japanese is
		}
		if s > bestScore {
			best, bestScore = c.enc, s
		}
	}
	if best != nil && bestScore >= 0.9 {
		return best
	}
	if !utf8Free {
		return nil
	}
	if cyrillicLower(b, charmap.KOI8R) > cyrillicLower(b, charmap.Windows1251) {
		return charmap.KOI8R
	}
	if cyrillicLower(b, charmap.Windows1251) > 0.5 {
		return charmap.Windows1251
	}
	return charmap.Windows1252
}

func isJapanese(r rune) bool {
	return (unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) || cjkPunct(r)) && !halfWidthKana(r)
}

// cjkPunct: CJK symbols and punctuation, full-width forms (not the half-width katakana).
func cjkPunct(r rune) bool {
	return r >= 0x3000 && r <= 0x303F || r >= 0xFF00 && r <= 0xFFEF && !halfWidthKana(r)
}

// halfWidthKana are what Shift_JIS makes of single bytes 0xA1–0xDF: Big5, GBK and EUC text
// read as Shift_JIS is full of them, while Japanese text has used full-width kana for
// decades. They are no evidence of Japanese.
func halfWidthKana(r rune) bool { return r >= 0xFF61 && r <= 0xFF9F }

// neutralPunct is punctuation every East Asian charset encodes (curly quotes, dashes,
// ellipsis, the middle dot): no evidence for or against any of them.
func neutralPunct(r rune) bool { return r >= 0x2010 && r <= 0x206F || r == 0xB7 }

// kanaShare is the share of kana among the non-ASCII characters of b decoded with enc.
func kanaShare(b []byte, enc encoding.Encoding) float64 {
	return scriptScore(b, enc, func(r rune) bool {
		return unicode.In(r, unicode.Hiragana, unicode.Katakana) && !halfWidthKana(r)
	})
}

// scriptScore is the share of the non-ASCII characters of b, decoded with enc, that are of
// the script enc is for; 0 if b does not decode cleanly.
// minSniffChars is the fewest non-ASCII characters a multi-byte charset is judged on.
const minSniffChars = 8

func scriptScore(b []byte, enc encoding.Encoding, script func(rune) bool) (score float64) {
	out, _, err := transform.Bytes(enc.NewDecoder(), b)
	if err != nil {
		return 0
	}
	n, in := 0, 0
	defer func() {
		if n < minSniffChars {
			score = 0
		}
	}()
	for _, r := range string(out) {
		if r < 0x80 {
			continue
		}
		if r == utf8.RuneError {
			return 0
		}
		if neutralPunct(r) {
			continue
		}
		n++
		if script(r) {
			in++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(in) / float64(n)
}

// cyrillicLower is the share of the non-ASCII characters of b, decoded with a single-byte
// enc, that are lower-case Cyrillic letters.
func cyrillicLower(b []byte, enc *charmap.Charmap) float64 {
	n, lower := 0, 0
	for _, c := range b {
		if c < 0x80 {
			continue
		}
		n++
		if r := enc.DecodeByte(c); unicode.Is(unicode.Cyrillic, r) && unicode.IsLower(r) {
			lower++
		}
	}
	if n == 0 {
		return 0
	}
	return float64(lower) / float64(n)
}

// utf8Counts counts, in b, the valid multi-byte UTF-8 sequences and the bytes that fit none.
func utf8Counts(b []byte) (valid, invalid int) {
	for i := 0; i < len(b); {
		if b[i] < 0x80 {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			invalid++
		} else {
			valid++
		}
		i += size
	}
	return valid, invalid
}

// c1ToWindows1252 replaces the C1 control characters (U+0080-U+009F) of UTF-8 text with the
// characters Windows-1252 has at those bytes: text that went through a Latin-1 decoder on
// its way ("don\u0092t") gets its curly quotes, dashes and euro signs back.
func c1ToWindows1252(b []byte) []byte {
	if !bytes.Contains(b, []byte{0xC2}) {
		return b
	}
	var out []byte
	done := 0
	for i := 0; i+1 < len(b); i++ {
		if b[i] != 0xC2 || b[i+1] < 0x80 || b[i+1] > 0x9F {
			continue
		}
		r := charmap.Windows1252.DecodeByte(b[i+1])
		if r == utf8.RuneError || r < 0xA0 {
			continue // 0x81, 0x8D, 0x8F, 0x90, 0x9D: undefined in Windows-1252, left to be dropped
		}
		if out == nil {
			out = make([]byte, 0, len(b)+16)
		}
		out = append(out, b[done:i]...)
		out = utf8.AppendRune(out, r)
		done = i + 2
		i++
	}
	if out == nil {
		return b
	}
	return append(out, b[done:]...)
}
