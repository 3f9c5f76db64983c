package feeds

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"testing"
)

// nsBomb is a feed of about size bytes whose channel declares namespaces for half of it (at
// most maxAttrs of them: more are refused outright) and whose items fill the rest: every
// element the parser reads sees every declaration.
func nsBomb(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel`)
	for i := 0; b.Len() < size/2 && i < maxAttrs; i++ {
		fmt.Fprintf(&b, ` xmlns:n%d="http://n%d.example/"`, i, i)
	}
	b.WriteString(`><title>NS</title>`)
	for i := 0; b.Len() < size-len(`</channel></rss>`); i++ {
		fmt.Fprintf(&b, `<item><title>t%d</title><link>https://example.com/%d</link></item>`, i, i)
	}
	b.WriteString(`</channel></rss>`)
	return b.Bytes()
}

// nsBombPerItem is the other shape: every item declares its own namespaces, and its children see them.
func nsBombPerItem(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>NS</title>`)
	var decls strings.Builder
	for i := range 200 {
		fmt.Fprintf(&decls, ` xmlns:n%d="http://n%d.example/"`, i, i)
	}
	for i := 0; b.Len() < size-len(`</channel></rss>`); i++ {
		fmt.Fprintf(&b, `<item%s><title>t%d</title><link>https://example.com/%d</link><n1:a/><n2:b/><n3:c/></item>`, decls.String(), i, i)
	}
	b.WriteString(`</channel></rss>`)
	return b.Bytes()
}

// nsWork counts what the pull parser under gofeed does with namespaces: for every element it
// copies the bindings in scope, so the work is the sum over elements of the declarations in
// scope (an upper bound: a prefix declared twice counts twice).
func nsWork(t *testing.T, doc []byte) int {
	d := xml.NewDecoder(bytes.NewReader(doc))
	d.Strict = false
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	var scopes []int
	work := 0
	for {
		tok, err := d.RawToken()
		if err != nil {
			return work
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			n := 0
			if len(scopes) > 0 {
				n = scopes[len(scopes)-1]
			}
			for _, a := range tk.Attr {
				if a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns" {
					n++
				}
			}
			scopes = append(scopes, n)
			work += n
		case xml.EndElement:
			if len(scopes) > 0 {
				scopes = scopes[:len(scopes)-1]
			}
		}
	}
}

// maxNSWork is what boundXML lets through: maxNodes elements, each with nsFree bindings in
// scope for free and weighing one node per nsPerNode bindings beyond.
const maxNSWork = maxNodes * (nsFree + nsPerNode)

// TestNamespaceBomb: the namespace bomb of issue 11 at 17, 87, 177 and 357 KB (0.27, 4.1,
// 18 and 57 s of CPU before) is bounded before the parser sees it: the namespace copying
// left is under maxNSWork whatever the size, and the feed parses (or is refused with a
// readable message). The timings are in BenchmarkNamespaceBomb.
func TestNamespaceBomb(t *testing.T) {
	for _, shape := range []struct {
		name string
		doc  func(int) []byte
	}{{"root declarations", nsBomb}, {"declarations on every item", nsBombPerItem}} {
		for _, kb := range []int{17, 87, 177, 357, 2048} {
			t.Run(fmt.Sprintf("%s %d KB", shape.name, kb), func(t *testing.T) {
				doc := shape.doc(kb << 10)
				before := nsWork(t, doc)
				bounded, err := boundXML(doc)
				if err != nil {
					fe, ok := err.(*Error)
					if !ok || !strings.Contains(fe.Message, "too large to read") && !strings.Contains(fe.Message, "attributes") {
						t.Fatalf("refused with %v", err)
					}
					t.Logf("refused: %s", fe.Message)
					return
				}
				after := nsWork(t, bounded)
				if after > maxNSWork {
					t.Fatalf("namespace work %d left after bounding (%d before), more than %d", after, before, maxNSWork)
				}
				t.Logf("namespace work %d before, %d after bounding", before, after)
				feed, _, err := parseFeed(context.Background(), doc, "")
				if err != nil {
					t.Fatalf("parse: %v", err)
				}
				if len(feed.Items) == 0 || feed.Items[0].Title != "t0" {
					t.Fatalf("%d items", len(feed.Items))
				}
			})
		}
	}
}

// TestNamespacesOfRealFeedsAreLetThrough: the weight of namespaces costs no real feed an item.
func TestNamespacesOfRealFeedsAreLetThrough(t *testing.T) {
	var doc strings.Builder
	doc.WriteString(`<?xml version="1.0"?><rss version="2.0"`)
	for _, p := range []string{"content", "wfw", "dc", "atom", "sy", "slash", "media", "itunes", "podcast", "georss", "geo", "feedburner", "googleplay", "rawvoice"} {
		fmt.Fprintf(&doc, ` xmlns:%s="http://%s.example/"`, p, p)
	}
	doc.WriteString(`><channel><title>Real</title>`)
	for i := range MaxItems {
		fmt.Fprintf(&doc, `<item><title>t%d</title><link>https://example.com/%d</link><dc:creator>A</dc:creator><media:content url="https://example.com/%d.jpg"/></item>`, i, i, i)
	}
	doc.WriteString(`</channel></rss>`)
	b, err := boundXML([]byte(doc.String()))
	if err != nil || len(b) != doc.Len() {
		t.Fatalf("a feed of %d items with 14 namespaces was cut (%d of %d bytes kept) or refused: %v", MaxItems, len(b), doc.Len(), err)
	}
}

// TestTooManyAttributes: an element with more than maxAttrs attributes is refused before parsing.
func TestTooManyAttributes(t *testing.T) {
	var doc strings.Builder
	doc.WriteString(`<rss version="2.0"><channel><title>A</title><item`)
	for i := range maxAttrs + 1 {
		fmt.Fprintf(&doc, ` a%d=""`, i)
	}
	doc.WriteString(`><title>x</title></item></channel></rss>`)
	_, _, err := parseFeed(context.Background(), []byte(doc.String()), "")
	if fe, ok := err.(*Error); !ok || !strings.Contains(fe.Message, "more than 1,000 attributes") {
		t.Fatalf("got %v", err)
	}
}

// TestParseBudget: a parse past its budget stops at its next read with a clear error.
func TestParseBudget(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	bud := newBudget(ctx)
	bud.deadline = bud.deadline.Add(-2 * parseBudget) // already spent
	_, err := parseGofeedWithin(bud, nsBomb(64<<10))
	if err == nil || !bud.spent() {
		t.Fatalf("a spent budget let the parse through: %v", err)
	}
	fe, ok := bud.err("feed").(*Error)
	if !ok || fe.Kind != KindParse || !strings.Contains(fe.Message, "This feed took too long to read") {
		t.Fatalf("got %v", bud.err("feed"))
	}
	// The caller's cancellation is not the source's fault: it is not an *Error.
	cancel()
	bud = newBudget(ctx)
	if _, err := parseJSONFeed(bud, []byte(`{"version":"1","items":[]}`)); err == nil {
		t.Fatal("a cancelled parse went on")
	} else if _, ok := err.(*Error); ok {
		t.Fatalf("cancellation reported as the source's error: %v", err)
	}
}

func BenchmarkNamespaceBomb(b *testing.B) {
	for _, kb := range []int{17, 87, 177, 357} {
		doc := nsBomb(kb << 10)
		b.Run(fmt.Sprintf("%dKB", kb), func(b *testing.B) {
			for b.Loop() {
				if _, _, err := parseFeed(context.Background(), doc, ""); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
