package feeds

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/encoding/unicode/utf32"
	"golang.org/x/text/transform"
)

var (
	utf8BOM    = []byte{0xEF, 0xBB, 0xBF}
	utf16LEBOM = []byte{0xFF, 0xFE}
	utf16BEBOM = []byte{0xFE, 0xFF}

	// xmlDecl matches the XML declaration and captures its encoding value.
	xmlDecl         = regexp.MustCompile(`^\s*<\?xml[^>]*?\?>`)
	xmlDeclEncoding = regexp.MustCompile(`(?i)\sencoding\s*=\s*["']([^"']*)["']`)
	xmlDeclVersion  = regexp.MustCompile(`\sversion\s*=\s*["']1\.[1-9]["']`)
)

// decodeUTF16 handles a BOM-marked or recognisably UTF-16 or UTF-32 body; ok is false otherwise.
func decodeUTF16(b []byte) (out []byte, ok bool) {
	var enc encoding.Encoding
	switch {
	case bytes.HasPrefix(b, []byte{0, 0, 0xFE, 0xFF}), bytes.HasPrefix(b, []byte{0, 0, 0, '<'}):
		enc = utf32.UTF32(utf32.BigEndian, utf32.UseBOM)
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE, 0, 0}), bytes.HasPrefix(b, []byte{'<', 0, 0, 0}):
		enc = utf32.UTF32(utf32.LittleEndian, utf32.UseBOM)
	case bytes.HasPrefix(b, utf16LEBOM), bytes.HasPrefix(b, []byte{'<', 0, '?', 0}):
		enc = unicode.UTF16(unicode.LittleEndian, unicode.UseBOM)
	case bytes.HasPrefix(b, utf16BEBOM), bytes.HasPrefix(b, []byte{0, '<', 0, '?'}):
		enc = unicode.UTF16(unicode.BigEndian, unicode.UseBOM)
	default:
		return nil, false
	}
	out, _, err := transform.Bytes(enc.NewDecoder(), b)
	if err != nil {
		return nil, false
	}
	return out, true
}

// lookupEncoding returns the encoding for a label, nil if unknown.
func lookupEncoding(label string) (enc encoding.Encoding, name string) {
	label = strings.TrimSpace(strings.Trim(label, `"'`))
	if label == "" {
		return nil, ""
	}
	enc, name = charset.Lookup(label)
	return enc, name
}

func isUTF8Name(name string) bool {
	return name == "utf-8"
}

// toUTF8 turns a body of unknown encoding into UTF-8. declared are the declared charsets,
// strongest first (e.g. the XML prolog, then the HTTP header); empty ones are skipped.
//
// Declarations are often wrong, so the bytes have the last word: bytes that are valid UTF-8
// are UTF-8 whatever the declaration says (valid multi-byte UTF-8 almost never happens by
// chance in legacy single-byte text); bytes that are not are decoded with the first declared
// non-UTF-8 charset or, when none is declared or only UTF-8 is, with the legacy charset
// sniffLegacy finds when they are mostly not UTF-8 (see there), else as UTF-8 mixed with Windows-1252
// (the web's default, a superset of ISO-8859-1): see mixedToUTF8. C1 control characters in
// the result are read as the Windows-1252 characters they were meant to be.
func toUTF8(b []byte, declared ...string) []byte {
	if out, ok := decodeUTF16(b); ok {
		return bytes.TrimPrefix(out, utf8BOM)
	}
	b = bytes.TrimPrefix(b, utf8BOM)
	if utf8.Valid(b) {
		return c1ToWindows1252(b)
	}
	for _, label := range declared {
		enc, name := lookupEncoding(label)
		if enc == nil || isUTF8Name(name) {
			continue
		}
		if out, _, err := transform.Bytes(enc.NewDecoder(), b); err == nil {
			return c1ToWindows1252(bytes.ToValidUTF8(out, []byte("\uFFFD")))
		}
	}
	// Not UTF-8, and nothing (or only UTF-8) declared: a legacy charset, sniffed, when the bytes
	// are mostly not UTF-8.
	if valid, invalid := utf8Counts(b); valid == 0 || invalid > 2*valid {
		if enc := sniffLegacy(b, valid == 0); enc != nil {
			if out, _, err := transform.Bytes(enc.NewDecoder(), b); err == nil {
				return bytes.ToValidUTF8(out, []byte("\uFFFD"))
			}
		}
	}
	return mixedToUTF8(b)
}

// mixedToUTF8 keeps the valid UTF-8 sequences of b and reads every other byte as
// Windows-1252 (U+FFFD for the five bytes it leaves undefined). That mends UTF-8 with text
// pasted in from a Windows-1252 or Latin-1 source, the usual mix, and decodes plain
// Windows-1252 or Latin-1 text exactly as a Windows-1252 decoder would, since such text
// practically never holds a valid multi-byte UTF-8 sequence.
func mixedToUTF8(b []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/8)
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			r = charmap.Windows1252.DecodeByte(b[0])
		}
		out = utf8.AppendRune(out, r)
		b = b[size:]
	}
	return out
}

// xmlToUTF8 converts an XML document to UTF-8 and makes its declaration say so,
// so the XML parser does not decode it a second time.
func xmlToUTF8(b []byte, httpCharset string) []byte {
	var prolog string
	if _, ok := decodeUTF16(b); !ok {
		head := bytes.TrimPrefix(b, utf8BOM)
		if loc := xmlDecl.FindIndex(head[:min(len(head), 1024)]); loc != nil {
			if m := xmlDeclEncoding.FindSubmatch(head[loc[0]:loc[1]]); m != nil {
				prolog = string(m[1])
			}
		}
	}
	out := toUTF8(b, prolog, httpCharset)
	if loc := xmlDecl.FindIndex(out[:min(len(out), 1024)]); loc != nil {
		decl := xmlDeclEncoding.ReplaceAll(out[loc[0]:loc[1]], []byte(` encoding="UTF-8"`))
		// XML 1.1 (which feeds declare without using anything of it) is read as 1.0:
		// encoding/xml refuses any other version.
		decl = xmlDeclVersion.ReplaceAll(decl, []byte(` version="1.0"`))
		out = append(append(append([]byte{}, out[:loc[0]]...), decl...), out[loc[1]:]...)
	}
	return out
}

// htmlToUTF8 converts an HTML page to UTF-8. The charset comes from a BOM, the HTTP header,
// or a <meta> anywhere in the head (not only the first 1024 bytes), with the same rule as
// toUTF8 for bytes that contradict it; failing all that, from charset.DetermineEncoding.
func htmlToUTF8(b []byte, httpCharset string) []byte {
	if _, ok := decodeUTF16(b); ok {
		return toUTF8(b)
	}
	meta := metaCharset(b)
	if httpCharset == "" && meta == "" && !utf8.Valid(bytes.TrimPrefix(b, utf8BOM)) {
		// Only a certain answer (a BOM, a meta past our scan): its default guess is
		// Windows-1252, where toUTF8's sniffing does better.
		if _, name, certain := charset.DetermineEncoding(b, "text/html"); certain {
			meta = name
		}
	}
	return toUTF8(b, httpCharset, meta)
}

// metaCharset finds the charset a page declares in a <meta> of its head.
func metaCharset(b []byte) string {
	z := html.NewTokenizer(bytes.NewReader(b[:min(len(b), 64<<10)]))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.EndTagToken:
			if name, _ := z.TagName(); string(name) == "head" {
				return ""
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			switch string(name) {
			case "body":
				return ""
			case "meta":
				var cs, httpEquiv, content string
				for hasAttr {
					var k, v []byte
					k, v, hasAttr = z.TagAttr()
					switch strings.ToLower(string(k)) {
					case "charset":
						cs = string(v)
					case "http-equiv":
						httpEquiv = strings.ToLower(string(v))
					case "content":
						content = string(v)
					}
				}
				if cs != "" {
					return cs
				}
				if httpEquiv == "content-type" {
					if i := strings.Index(strings.ToLower(content), "charset="); i >= 0 {
						v := strings.TrimLeft(content[i+len("charset="):], ` "'`)
						if j := strings.IndexAny(v, ` "';`); j >= 0 {
							v = v[:j]
						}
						return v
					}
				}
			}
		}
	}
}

// dropBadCharRefs removes from an XML document in UTF-8 the character references to
// characters XML forbids (&#0;, &#x1B;, &#xFFFF;…), which stop encoding/xml as the raw
// characters do.
func dropBadCharRefs(b []byte) []byte {
	var out []byte
	changed := false
	done := 0 // b[:done] is in out
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte("&#"))
		if j < 0 {
			break
		}
		i += j
		end := bytes.IndexByte(b[i:min(len(b), i+16)], ';')
		if end < 0 {
			i += 2
			continue
		}
		ref := string(b[i+2 : i+end])
		base := 10
		if strings.HasPrefix(ref, "x") || strings.HasPrefix(ref, "X") {
			ref, base = ref[1:], 16
		}
		n, err := strconv.ParseUint(ref, base, 32)
		if err == nil && !xmlChar(rune(n)) {
			out = append(out, b[done:i]...)
			done, changed = i+end+1, true
		}
		i += end + 1
	}
	if !changed {
		return b
	}
	return append(out, b[done:]...)
}

// xmlChar reports whether XML 1.0 allows r (its Char production).
func xmlChar(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' || r >= 0x20 && r <= 0xD7FF || r >= 0xE000 && r <= 0xFFFD || r >= 0x10000 && r <= 0x10FFFF
}

// dropControlChars removes from UTF-8 text the characters that XML 1.0 forbids and JSON
// forbids unescaped: C0 controls other than tab, newline and carriage return (vertical tab
// and form feed become spaces), and the non-characters U+FFFE and U+FFFF. encoding/xml stops
// at the first of them, which would lose every item after a stray control character.
func dropControlChars(b []byte) []byte {
	// bad returns how many bytes at b[i] to drop, 0 to keep them.
	bad := func(i int) int {
		switch c := b[i]; {
		case c < 0x20 && c != '\t' && c != '\n' && c != '\r':
			return 1
		case c == 0xEF && i+2 < len(b) && b[i+1] == 0xBF && (b[i+2] == 0xBE || b[i+2] == 0xBF):
			return 3
		}
		return 0
	}
	var out []byte
	done := 0 // b[:done] is in out
	for i := 0; i < len(b); i++ {
		n := bad(i)
		if n == 0 {
			continue
		}
		if out == nil {
			out = make([]byte, 0, len(b))
		}
		out = append(out, b[done:i]...)
		if b[i] == '\v' || b[i] == '\f' {
			out = append(out, ' ')
		}
		done = i + n
		i += n - 1
	}
	if out == nil {
		return b
	}
	return append(out, b[done:]...)
}
