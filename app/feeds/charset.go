package feeds

import (
	"bytes"
	"regexp"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
	"golang.org/x/text/transform"
)

var (
	utf8BOM    = []byte{0xEF, 0xBB, 0xBF}
	utf16LEBOM = []byte{0xFF, 0xFE}
	utf16BEBOM = []byte{0xFE, 0xFF}

	// xmlDecl matches the XML declaration and captures its encoding value.
	xmlDecl         = regexp.MustCompile(`^\s*<\?xml[^>]*?\?>`)
	xmlDeclEncoding = regexp.MustCompile(`(?i)\sencoding\s*=\s*["']([^"']*)["']`)
)

// decodeUTF16 handles a BOM-marked or recognisably UTF-16 body; ok is false otherwise.
func decodeUTF16(b []byte) (out []byte, ok bool) {
	var enc encoding.Encoding
	switch {
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
// non-UTF-8 charset, or as Windows-1252 (the web's default, a superset of ISO-8859-1) when none
// is declared or only UTF-8 is, unless they look like UTF-8 with a few broken bytes.
func toUTF8(b []byte, declared ...string) []byte {
	if out, ok := decodeUTF16(b); ok {
		return bytes.TrimPrefix(out, utf8BOM)
	}
	b = bytes.TrimPrefix(b, utf8BOM)
	if utf8.Valid(b) {
		return b
	}
	saidUTF8 := false
	for _, label := range declared {
		enc, name := lookupEncoding(label)
		switch {
		case enc == nil:
			continue
		case isUTF8Name(name):
			saidUTF8 = true
			continue
		}
		if out, _, err := transform.Bytes(enc.NewDecoder(), b); err == nil {
			return bytes.ToValidUTF8(out, []byte("\uFFFD"))
		}
	}
	if saidUTF8 && mostlyUTF8(b) {
		return bytes.ToValidUTF8(b, []byte("\uFFFD"))
	}
	out, _, err := transform.Bytes(charmap.Windows1252.NewDecoder(), b)
	if err != nil {
		return bytes.ToValidUTF8(b, []byte("\uFFFD"))
	}
	return out
}

// mostlyUTF8 reports whether b has more valid multi-byte UTF-8 sequences than invalid bytes.
func mostlyUTF8(b []byte) bool {
	var good, bad int
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && size == 1:
			bad++
		case size > 1:
			good++
		}
		b = b[size:]
	}
	return good > bad
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
		_, name, _ := charset.DetermineEncoding(b, "text/html")
		meta = name
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
