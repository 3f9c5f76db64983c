package feeds

import (
	"bytes"
	"errors"
	"unicode/utf8"
)

// The byte limit of a response does not bound what parsing it costs: gofeed keeps a struct
// for every item and a map for every extension element and attribute, and recurses into
// nested extension elements, so a 10 MiB document of tiny items, or of deeply nested or
// attribute-laden elements, takes hundreds of megabytes and seconds to parse. Before gofeed
// sees a feed it is therefore scanned once, cheaply, and bounded:
//
//   - entity declarations are refused (billion laughs, external entities);
//   - nesting deeper than maxDepth is refused;
//   - at most MaxItems items are kept, the newest: the first ones, or the last ones when
//     the feed lists its items oldest first (judged from the dates of its first and last);
//   - the document that remains may have at most maxNodes elements and attributes: items are
//     dropped from the oldest end to fit, and a feed whose other parts alone exceed it is
//     refused.
//   - a start tag may be at most maxTagBytes long and hold at most maxAttrs attributes, so
//     that the scan itself does not collect a million attributes of one element;
//   - namespaces count too. The XML pull parser under gofeed copies the namespace bindings in
//     scope for every element it reads, so a feed whose channel declares a thousand prefixes
//     costs elements × declarations: quadratic in its size (a 357 KB such feed took 57 s of
//     CPU). The first nsFree bindings in scope are free (real feeds declare a dozen or two);
//     past them every element weighs, besides 1 per element and attribute, 1 per nsPerNode
//     bindings, and items are dropped to fit the same maxNodes budget. The parser's
//     namespace copying is thus at most maxNodes × (nsFree + nsPerNode) map entries, and in
//     practice far less (the 357 KB bomb: 0.4 million, 0.1 s), whatever the document.
//
// With these limits the cost of parsing is linear in the body and capped; parseBudget puts a
// deadline on it besides (see deadline.go).
const (
	maxDepth    = 256
	maxNodes    = 200_000
	maxTagBytes = 1 << 20
	maxAttrs    = 1000
	nsFree      = 32
	nsPerNode   = 2
)

// errRefused is the Err of the errors below: the document was refused, not misread.
var errRefused = errors.New("feeds: document refused by the parsing limits")

func errEntities() error {
	return &Error{Kind: KindParse, Message: "The feed declares XML entities, which we refuse for safety.", Err: errRefused}
}

func errTooDeep() error {
	return &Error{Kind: KindParse, Message: "The content is not a feed we can read: its XML elements are nested more than 256 deep.", Err: errRefused}
}

func errTooManyAttrs() error {
	return &Error{Kind: KindParse, Message: "The content is not a feed we can read: an XML element has more than 1,000 attributes.", Err: errRefused}
}

func errTooMany() error {
	return &Error{Kind: KindTooLarge, Message: "The feed is too large to read: it has more than 200,000 XML elements and attributes (counting the namespace declarations each element sees).", Err: errRefused}
}

// span is an item of a document: its bytes [start, end) and how many nodes it holds.
type span struct {
	start, end int
	nodes      int
}

// xmlScan is what scanXML found.
type xmlScan struct {
	items    []span // items and entries that are children of a channel, feed or RDF
	nodes    int    // elements and attributes outside those items
	closing  string // end tags of the elements open at the first item, innermost first
	complete bool   // the document was read to its end without a syntax error
}

// scanXML reads an XML document in UTF-8 once, without building anything. It reads the
// document as encoding/xml's Decoder.RawToken does in non-strict mode (what the parsers after
// it use), byte by byte without making tokens: a start tag's name, attributes (quoted,
// unquoted or without a value) and "/>", end tags, comments, CDATA sections, processing
// instructions and directives end where the decoder ends them, so it sees every element and
// attribute they will see. Where the decoder stops at a syntax error the parsers after it read
// nothing more either; the scan stops there too, or, for the errors it does not look for
// (names and characters outside XML's ranges, a '<' inside an attribute value, "--" inside a
// comment), reads on and counts more than they will read, never less. (It replaced a scan
// through RawToken that cost 5 % of a first ingestion's CPU; TestScanXMLAsDecoder compares
// the two.)
func scanXML(b []byte) (*xmlScan, error) {
	var (
		s         xmlScan
		stack     []span // open elements: the bytes of their names as written (prefix:local)
		scopes    []int  // namespace bindings in scope at each open element (an upper bound)
		itemDepth = -1   // depth of the item being read, -1 outside items
		cur       span
		dir       []byte // a directive's text, for the entity check
	)
	end := func(at int) {
		if len(stack) == 0 {
			return
		}
		stack, scopes = stack[:len(stack)-1], scopes[:len(scopes)-1]
		if len(stack) == itemDepth {
			cur.end = at
			s.items = append(s.items, cur)
			itemDepth = -1
		}
	}
	stop := func(complete bool) (*xmlScan, error) {
		s.complete = complete
		if itemDepth >= 0 {
			s.nodes += cur.nodes // an item cut short stays with the rest
		}
		return &s, nil
	}
	n := len(b)
	i := 0
	for {
		lt := bytes.IndexByte(b[i:], '<')
		if lt < 0 {
			return stop(true)
		}
		off := i + lt
		i = off + 1
		if i >= n {
			return stop(false)
		}
		switch b[i] {
		case '/': // an end tag: a name, spaces, '>'
			ne := xmlName(b, i+1)
			if ne == i+1 || !oneColonAtMost(b[i+1:ne]) {
				return stop(false)
			}
			j := xmlSpace(b, ne)
			if j >= n || b[j] != '>' {
				return stop(false)
			}
			i = j + 1
			end(i)
		case '?': // a processing instruction: a target name, then anything up to "?>"
			ne := xmlName(b, i+1)
			if ne == i+1 {
				return stop(false)
			}
			k := bytes.Index(b[ne:], []byte("?>"))
			if k < 0 {
				return stop(false)
			}
			i = ne + k + 2
		case '!':
			i++
			if i >= n {
				return stop(false)
			}
			switch {
			case b[i] == '-': // a comment
				if i+1 >= n || b[i+1] != '-' {
					return stop(false)
				}
				k := bytes.Index(b[i+2:], []byte("-->"))
				if k < 0 {
					return stop(false)
				}
				i += 2 + k + 3
			case b[i] == '[': // CDATA
				if !bytes.HasPrefix(b[i+1:], []byte("CDATA[")) {
					return stop(false)
				}
				k := bytes.Index(b[i+7:], []byte("]]>"))
				if k < 0 {
					return stop(false)
				}
				i += 7 + k + 3
			default: // a directive (DOCTYPE): up to the '>' that closes it, as encoding/xml reads it
				var ok bool
				dir, i, ok = xmlDirective(b, i, dir[:0])
				if !ok {
					return stop(false)
				}
				if up := bytes.ToUpper(dir); bytes.HasPrefix(up, []byte("ENTITY")) || bytes.Contains(up, []byte("<!ENTITY")) {
					return nil, errEntities()
				}
			}
		default: // a start tag
			ne := xmlName(b, i)
			if ne == i || !oneColonAtMost(b[i:ne]) {
				return stop(false)
			}
			name := span{start: i, end: ne}
			if len(stack) >= maxDepth {
				return nil, errTooDeep()
			}
			scope := 0
			if len(scopes) > 0 {
				scope = scopes[len(scopes)-1]
			}
			attrs, empty := 0, false
			j := ne
			for {
				j = xmlSpace(b, j)
				if j-off > maxTagBytes {
					return nil, errTooMany()
				}
				if j >= n {
					return stop(false)
				}
				if b[j] == '>' {
					j++
					break
				}
				if b[j] == '/' {
					if j+1 >= n || b[j+1] != '>' {
						return stop(false)
					}
					j, empty = j+2, true
					break
				}
				ae := xmlName(b, j)
				if ae == j || !oneColonAtMost(b[j:ae]) {
					return stop(false)
				}
				if a := b[j:ae]; string(a) == "xmlns" || len(a) > 6 && string(a[:6]) == "xmlns:" && bytes.IndexByte(a[6:], ':') < 0 {
					scope++
				}
				if attrs++; attrs > maxAttrs {
					if tagTooLong(b[off:]) { // as before: a start tag past maxTagBytes is too large, whatever it holds
						return nil, errTooMany()
					}
					return nil, errTooManyAttrs()
				}
				j = xmlSpace(b, ae)
				if j >= n {
					return stop(false)
				}
				if b[j] != '=' {
					continue // non-strict: an attribute without a value
				}
				j = xmlSpace(b, j+1)
				if j >= n {
					return stop(false)
				}
				if q := b[j]; q == '"' || q == '\'' {
					k := bytes.IndexByte(b[j+1:], q)
					if k < 0 {
						return stop(false)
					}
					j += 1 + k + 1
				} else {
					for j < n && unquotedValueByte(b[j]) {
						j++
					}
				}
			}
			if j-off > maxTagBytes {
				return nil, errTooMany()
			}
			i = j
			local := localName(b[name.start:name.end])
			nodes := 1 + attrs + max(0, scope-nsFree)/nsPerNode
			if itemDepth < 0 && (string(local) == "item" || string(local) == "entry") && len(stack) > 0 {
				if parent := stack[len(stack)-1]; itemContainers[string(localName(b[parent.start:parent.end]))] {
					itemDepth = len(stack)
					cur = span{start: off}
					if len(s.items) == 0 {
						for k := len(stack) - 1; k >= 0; k-- {
							s.closing += "</" + string(b[stack[k].start:stack[k].end]) + ">"
						}
					}
				}
			}
			if itemDepth >= 0 {
				cur.nodes += nodes
			} else {
				s.nodes += nodes
			}
			stack, scopes = append(stack, name), append(scopes, scope)
			if empty {
				end(i)
			}
		}
	}
}

// xmlName returns the end of the XML name at b[i:] (i when there is none), as encoding/xml
// reads one: ASCII letters, digits, '_', ':', '.', '-' and any byte of a non-ASCII character.
func xmlName(b []byte, i int) int {
	for i < len(b) {
		c := b[i]
		if c < utf8.RuneSelf && !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_' || c == ':' || c == '.' || c == '-') {
			break
		}
		i++
	}
	return i
}

// oneColonAtMost: encoding/xml refuses a name with two colons.
func oneColonAtMost(name []byte) bool { return bytes.Count(name, []byte(":")) <= 1 }

// localName is a name's local part as encoding/xml splits it: after its colon, unless the
// colon is first or last.
func localName(name []byte) []byte { // []byte: compared and looked up without a copy
	if k := bytes.IndexByte(name, ':'); k > 0 && k < len(name)-1 {
		return name[k+1:]
	}
	return name
}

// xmlSpace skips XML white space from b[i:].
func xmlSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\r' || b[i] == '\n' || b[i] == '\t') {
		i++
	}
	return i
}

// unquotedValueByte: what encoding/xml takes into an unquoted attribute value in non-strict mode.
func unquotedValueByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == ':' || c == '-'
}

// xmlDirective reads a directive from b[i:] (just after "<!") as encoding/xml does: up to the
// '>' that closes it, quoted angle brackets not counting and nested ones nesting, comments
// inside turned into a space. It appends the directive's text to dir and returns it with the
// offset after the closing '>'; ok is false when the document ends first.
func xmlDirective(b []byte, i int, dir []byte) (_ []byte, next int, ok bool) {
	n := len(b)
	dir = append(dir, b[i])
	i++
	var quote byte
	depth := 0
	for i < n {
		c := b[i]
		i++
		if quote == 0 && c == '>' && depth == 0 {
			return dir, i, true
		}
		dir = append(dir, c)
		switch {
		case c == quote:
			quote = 0
		case quote != 0:
		case c == '\'' || c == '"':
			quote = c
		case c == '>':
			depth--
		case c == '<':
			if i+2 < n && b[i] == '!' && b[i+1] == '-' && b[i+2] == '-' {
				// a comment: up to "-->"
				k := bytes.Index(b[i+3:], []byte("-->"))
				if k < 0 {
					return dir, n, false
				}
				dir[len(dir)-1] = ' '
				i += 3 + k + 3
				continue
			}
			depth++
		}
	}
	return dir, n, false
}

// tagTooLong reports whether b starts with a start tag longer than maxTagBytes.
func tagTooLong(b []byte) bool {
	if len(b) < 2 || b[0] != '<' || b[1] == '!' || b[1] == '?' || b[1] == '/' {
		return false
	}
	var quote byte
	for i, c := range b[:min(len(b), maxTagBytes)] {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '>' && i > 0:
			return false
		}
	}
	return len(b) > maxTagBytes
}

// boundXML applies the limits above to a feed document in UTF-8.
func boundXML(b []byte) ([]byte, error) {
	s, err := scanXML(b)
	if err != nil {
		return nil, err
	}
	if s.nodes > maxNodes {
		return nil, errTooMany()
	}
	n := len(s.items)
	if n == 0 {
		return b, nil
	}
	head := b[:s.items[0].start]
	tail := []byte(s.closing)
	if s.complete {
		tail = b[s.items[n-1].end:]
	}
	item := func(i int) []byte { return b[s.items[i].start:s.items[i].end] }
	oldestFirst := func() bool {
		first, last := s.items[0], s.items[n-1]
		if first.nodes+last.nodes > maxNodes-s.nodes {
			return false
		}
		return chronological(concat(head, item(0), item(n-1), tail))
	}
	lo, hi, ok := window(s.items, maxNodes-s.nodes, oldestFirst)
	if !ok {
		return nil, errTooMany()
	}
	if lo == 0 && hi == n {
		return b, nil
	}
	return concat(head, b[s.items[lo].start:s.items[hi-1].end], tail), nil
}

// window chooses the items to keep: at most MaxItems, with at most budget nodes, from the
// newest end of the list. oldestFirst is asked only when some must go. ok is false when
// not even one item fits.
func window(items []span, budget int, oldestFirst func() bool) (lo, hi int, ok bool) {
	n := len(items)
	total := 0
	for _, it := range items {
		total += it.nodes
	}
	if n <= MaxItems && total <= budget {
		return 0, n, true
	}
	if oldestFirst() {
		lo, hi = n, n
		for lo > 0 && hi-lo < MaxItems && items[lo-1].nodes <= budget {
			budget -= items[lo-1].nodes
			lo--
		}
	} else {
		for hi < n && hi < MaxItems && items[hi].nodes <= budget {
			budget -= items[hi].nodes
			hi++
		}
	}
	return lo, hi, hi > lo
}

// chronological reports whether a feed of two items lists the older one first.
func chronological(doc []byte) (yes bool) {
	defer func() {
		if recover() != nil {
			yes = false
		}
	}()
	feed, err := parseGofeed(doc)
	if err != nil || len(feed.Items) != 2 || feed.Items[0] == nil || feed.Items[1] == nil {
		return false
	}
	first, _ := itemDate(feed.Items[0])
	last, _ := itemDate(feed.Items[1])
	return first != nil && last != nil && last.After(*first)
}

func concat(parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// sanitizeContent returns raw cut to MaxContentBytes and its sanitized HTML, also within
// MaxContentBytes. Sanitizing can make HTML longer (absolute URLs, rel and target on every
// link); then raw is cut further in proportion and sanitized again: the sanitized HTML is
// never cut itself, which could leave a tag open.
func sanitizeContent(raw, base string) (string, string) {
	raw = truncateUTF8(raw, MaxContentBytes)
	clean := Sanitize(raw, base)
	for len(clean) > MaxContentBytes {
		raw = truncateUTF8(raw, int(int64(len(raw))*MaxContentBytes/int64(len(clean)))*9/10)
		clean = Sanitize(raw, base)
	}
	return raw, clean
}
