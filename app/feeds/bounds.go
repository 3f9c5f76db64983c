package feeds

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
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

// scanXML reads an XML document in UTF-8 once, without building anything.
func scanXML(b []byte) (*xmlScan, error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = false
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	var (
		s         xmlScan
		stack     []string // open elements, as written (prefix:local)
		locals    []string
		scopes    []int // namespace bindings in scope at each open element (an upper bound)
		itemDepth = -1  // depth of the item being read, -1 outside items
		cur       span
	)
	for {
		off := int(d.InputOffset())
		if tagTooLong(b[off:]) {
			return nil, errTooMany()
		}
		tok, err := d.RawToken()
		if err != nil {
			s.complete = err == io.EOF
			if itemDepth >= 0 {
				s.nodes += cur.nodes // an item cut short stays with the rest
			}
			return &s, nil
		}
		switch t := tok.(type) {
		case xml.Directive:
			if up := bytes.ToUpper(t); bytes.HasPrefix(up, []byte("ENTITY")) || bytes.Contains(up, []byte("<!ENTITY")) {
				return nil, errEntities()
			}
		case xml.StartElement:
			if len(stack) >= maxDepth {
				return nil, errTooDeep()
			}
			if len(t.Attr) > maxAttrs {
				return nil, errTooManyAttrs()
			}
			scope := 0
			if len(scopes) > 0 {
				scope = scopes[len(scopes)-1]
			}
			for _, a := range t.Attr {
				if a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns" {
					scope++
				}
			}
			n := 1 + len(t.Attr) + max(0, scope-nsFree)/nsPerNode
			if itemDepth < 0 && (t.Name.Local == "item" || t.Name.Local == "entry") &&
				len(locals) > 0 && itemContainers[locals[len(locals)-1]] {
				itemDepth = len(stack)
				cur = span{start: off}
				if len(s.items) == 0 {
					for i := len(stack) - 1; i >= 0; i-- {
						s.closing += "</" + stack[i] + ">"
					}
				}
			}
			if itemDepth >= 0 {
				cur.nodes += n
			} else {
				s.nodes += n
			}
			name := t.Name.Local
			if t.Name.Space != "" {
				name = t.Name.Space + ":" + name
			}
			stack, locals, scopes = append(stack, name), append(locals, t.Name.Local), append(scopes, scope)
		case xml.EndElement:
			if len(stack) == 0 {
				continue
			}
			stack, locals, scopes = stack[:len(stack)-1], locals[:len(locals)-1], scopes[:len(scopes)-1]
			if len(stack) == itemDepth {
				cur.end = int(d.InputOffset())
				s.items = append(s.items, cur)
				itemDepth = -1
			}
		}
	}
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
