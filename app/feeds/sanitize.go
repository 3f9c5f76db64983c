package feeds

import (
	"bytes"
	"net/url"
	"strings"
	"sync"

	"github.com/microcosm-cc/bluemonday"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/morningdeck/morningdeck/app/htmltext"
)

var policy = sync.OnceValue(func() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	p.AllowURLSchemes("http", "https", "mailto")
	p.RequireParseableURLs(true)
	p.RequireNoFollowOnLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(true)
	// An <object> is dropped, so its fallback content — what the page shows where the object
	// cannot play — is shown instead (sanitized like the rest), as browsers and feedparser do.
	p.AllowElementsContent("object")
	return p
})

// urlAttrs are the attributes holding a URL that Sanitize makes absolute.
var urlAttrs = map[string]bool{"href": true, "src": true, "cite": true, "poster": true}

// Sanitize makes HTML from outside safe to render: no scripts, styles, iframes, forms or
// event handlers; only http, https and mailto URLs; links get rel="nofollow noopener" and
// target="_blank"; relative URLs are made absolute against base (when base is absolute). Its
// tags are balanced, whatever the base: a stray </div> or an unclosed <b> in an item's content
// would otherwise close or restyle the page it is shown in.
func Sanitize(s, base string) string {
	if strings.TrimSpace(s) == "" {
		return ""
	}
	b, err := url.Parse(base)
	if err != nil || !b.IsAbs() || b.Host == "" {
		b = nil
	}
	// The normalized HTML and each sanitizer pass are written into pooled buffers, and only
	// the result is made a string: a first ingestion sanitizes every item, and growing and
	// copying a buffer for each pass was a large part of what it allocated (issue 26).
	normalized := getBuffer()
	defer putBuffer(normalized)
	var in []byte
	if normalize(normalized, s, b) {
		in = normalized.Bytes()
	} else {
		in = []byte(s)
	}
	out := getBuffer()
	defer putBuffer(out)
	if !sanitizeTo(out, in) {
		return ""
	}
	// bluemonday writes a backslash in a relative URL as %5C, and then refuses that URL on a
	// second pass: sanitize once more so that what is stored is stable (a fuzzing finding).
	if bytes.Contains(out.Bytes(), []byte("%5C")) {
		again := getBuffer()
		defer putBuffer(again)
		if !sanitizeTo(again, out.Bytes()) {
			return ""
		}
		out = again
	}
	return string(bytes.TrimSpace(out.Bytes()))
}

// sanitizeTo writes the policy's sanitized HTML of in to w, as policy().Sanitize would return
// it: nothing (false) when the sanitizer fails.
func sanitizeTo(w *bytes.Buffer, in []byte) bool {
	if err := policy().SanitizeReaderToWriter(bytes.NewReader(in), w); err != nil {
		w.Reset()
		return false
	}
	return true
}

// buffers are the pooled buffers of Sanitize; one grown past maxPooledBuffer (a long article)
// is left to the collector rather than kept.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxPooledBuffer = 64 << 10

func getBuffer() *bytes.Buffer {
	b := buffers.Get().(*bytes.Buffer)
	b.Reset()
	return b
}

func putBuffer(b *bytes.Buffer) {
	if b.Cap() <= maxPooledBuffer {
		buffers.Put(b)
	}
}

// normalize parses an HTML fragment as a browser would and writes it out again to w: its tags
// balanced, and its URL attributes made absolute against base when base is not nil. It
// reports false, with w's contents unspecified, when s cannot be parsed or written.
func normalize(w *bytes.Buffer, s string, base *url.URL) bool {
	ctx := &html.Node{Type: html.ElementNode, Data: "body", DataAtom: atom.Body}
	nodes, err := html.ParseFragment(strings.NewReader(s), ctx)
	if err != nil {
		return false
	}
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && base != nil {
			for i, a := range n.Attr {
				if a.Namespace == "" && urlAttrs[a.Key] {
					n.Attr[i].Val = resolveRef(base, a.Val)
				}
				if a.Namespace == "" && a.Key == "srcset" {
					n.Attr[i].Val = resolveSrcset(base, a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	w.Grow(len(s) + len(s)/8)
	for _, n := range nodes {
		walk(n)
		if err := html.Render(w, n); err != nil {
			return false
		}
	}
	return true
}

// resolveRef resolves ref against base, leaving it as it is when it does not parse.
func resolveRef(base *url.URL, ref string) string {
	ref = strings.TrimSpace(ref)
	u, err := url.Parse(ref)
	if err != nil {
		return ref
	}
	if u.Scheme != "" {
		if (u.Scheme == "http" || u.Scheme == "https") && u.Host == "" {
			// "http:page" or "http:": browsers read it relative to a base of the same scheme;
			// against another base it leads nowhere.
			if u.Scheme != base.Scheme {
				return ""
			}
			rel, err := url.Parse(ref[len(u.Scheme)+1:])
			if err != nil {
				return ""
			}
			if r := base.ResolveReference(rel); r.Host != "" {
				return r.String()
			}
			return ""
		}
		return ref
	}
	return base.ResolveReference(u).String()
}

func resolveSrcset(base *url.URL, v string) string {
	parts := strings.Split(v, ",")
	for i, p := range parts {
		fields := strings.Fields(p)
		if len(fields) == 0 {
			continue
		}
		fields[0] = resolveRef(base, fields[0])
		parts[i] = strings.Join(fields, " ")
	}
	return strings.Join(parts, ", ")
}

// absoluteHTTP resolves ref against base and returns it if it is an http(s) URL, else "".
func absoluteHTTP(base *url.URL, ref string) string {
	ref = strings.TrimSpace(ref)
	if ref == "" || len(ref) > maxURLBytes {
		return ""
	}
	u, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || badHost(u.Host) {
		return ""
	}
	// url.URL keeps a query as written: spaces, quotes or angle brackets there make a link no
	// server accepts (a browser escapes them; Go's client sends them as is).
	u.RawQuery = escapeQuery(u.RawQuery)
	return u.String()
}

// badHost reports whether a URL's host holds characters no host name has and that would
// break out of an HTML attribute or a Markdown link where the URL is written: quotes, angle
// brackets, white space, backslashes and the like (url.Parse lets some of them through).
func badHost(h string) bool {
	for i := 0; i < len(h); i++ {
		if c := h[i]; c <= ' ' || c == 0x7f || strings.IndexByte("\"'<>\\`{}|^", c) >= 0 {
			return true
		}
	}
	return false
}

// escapeQuery percent-encodes the bytes a query may not hold as such (controls, space,
// non-ASCII and "<>\^`{|}), keeping what is already escaped.
func escapeQuery(q string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(q); i++ {
		c := q[i]
		if c > 0x20 && c < 0x7f && !strings.ContainsRune("\"<>\\^`{|}", rune(c)) {
			if b.Len() > 0 {
				b.WriteByte(c)
			}
			continue
		}
		if b.Len() == 0 {
			b.WriteString(q[:i])
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	if b.Len() == 0 {
		return q
	}
	return b.String()
}

// PlainText returns the text of an HTML fragment: tags stripped (and the contents of
// script, style and the like), entities unescaped, whitespace collapsed.
func PlainText(s string) string {
	if !strings.ContainsAny(s, "<&") {
		return collapseSpace(s)
	}
	var b strings.Builder
	z := html.NewTokenizer(strings.NewReader(s))
	skip := 0
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return collapseSpace(b.String())
		case html.TextToken:
			if skip == 0 {
				b.Write(z.Text())
			}
		case html.StartTagToken, html.EndTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			a := atom.Lookup(name)
			switch a {
			case atom.Script, atom.Style, atom.Template, atom.Noscript, atom.Iframe, atom.Svg, atom.Math:
				if tt == html.StartTagToken {
					skip++
				} else if tt == html.EndTagToken && skip > 0 {
					skip--
				}
			}
			if htmltext.Block(a) || a == atom.Img {
				b.WriteByte(' ')
			}
		}
	}
}

// collapseSpace is htmltext.Collapse: trims s, collapses white space, drops controls and
// bidirectional overrides, and caps combining marks.
func collapseSpace(s string) string { return htmltext.Collapse(s) }

// truncateUTF8 cuts s to at most n bytes without splitting a character.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// sanitizedText is PlainText for the output of Sanitize (htmltext.Text, which the stores
// derive an item's text with: the two must be one function).
func sanitizedText(s string) string { return htmltext.Text(s) }
