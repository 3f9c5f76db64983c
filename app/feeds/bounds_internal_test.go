package feeds

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
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
			n := nsInScope(scopes, tk.Attr)
			scopes = append(scopes, n)
			work += n
		case xml.EndElement:
			if len(scopes) > 0 {
				scopes = scopes[:len(scopes)-1]
			}
		}
	}
}

// nsInScope is the namespace bindings in scope at an element with attrs whose parent had
// scopes' last (an upper bound: a prefix declared twice counts twice).
func nsInScope(scopes []int, attrs []xml.Attr) int {
	n := 0
	if len(scopes) > 0 {
		n = scopes[len(scopes)-1]
	}
	for _, a := range attrs {
		if a.Name.Space == "xmlns" || a.Name.Space == "" && a.Name.Local == "xmlns" {
			n++
		}
	}
	return n
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

// scanXMLDecoder is the scan as it was written first, through encoding/xml's RawToken: the
// reference scanXML is compared with (TestScanXMLAsDecoder, FuzzScanXML).
func scanXMLDecoder(b []byte) (*xmlScan, error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = false
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }
	var (
		s         xmlScan
		stack     []string
		locals    []string
		scopes    []int
		itemDepth = -1
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
				s.nodes += cur.nodes
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
			scope := nsInScope(scopes, t.Attr)
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

// checkScanAsDecoder: where the decoder reads a document to its end, scanXML finds exactly
// what it finds; where the decoder stops early, scanXML finds the same items up to there and
// counts at least as many nodes (it reads on past errors it does not look for); where the
// decoder's scan refuses a document, so does scanXML.
func checkScanAsDecoder(t *testing.T, name string, doc []byte) {
	t.Helper()
	want, werr := scanXMLDecoder(doc)
	got, gerr := scanXML(doc)
	if werr != nil {
		if gerr == nil || gerr.Error() != werr.Error() {
			t.Errorf("%s: the decoder's scan refused it (%v), scanXML said %v", name, werr, gerr)
		}
		return
	}
	if gerr != nil {
		if want.complete {
			t.Errorf("%s: scanXML refused a document the decoder reads whole: %v", name, gerr)
		}
		return // refusing what the decoder reads only in part is on the safe side
	}
	total := func(s *xmlScan) int {
		n := s.nodes
		for _, it := range s.items {
			n += it.nodes
		}
		return n
	}
	if want.complete {
		if !got.complete || got.nodes != want.nodes || got.closing != want.closing || !slices.Equal(got.items, want.items) {
			t.Errorf("%s: scanXML = {complete %v, nodes %d, closing %q, %d items %v}, the decoder {complete %v, nodes %d, closing %q, %d items %v}",
				name, got.complete, got.nodes, got.closing, len(got.items), first(got.items), want.complete, want.nodes, want.closing, len(want.items), first(want.items))
		}
		return
	}
	if len(got.items) < len(want.items) || !slices.Equal(got.items[:len(want.items)], want.items) || total(got) < total(want) {
		t.Errorf("%s: the decoder stopped early (%d items, %d nodes); scanXML found %d items, %d nodes", name, len(want.items), total(want), len(got.items), total(got))
	}
}

func first(items []span) []span { return items[:min(len(items), 3)] }

// scanCases are documents that exercise every construct the scan reads, with the ways they go wrong.
var scanCases = []string{
	`<?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>T</title><item><title>a</title></item><item/><item x=y z><title>b</title></item></channel></rss>`,
	`<?xml version="1.1"?><rss><channel><item/></channel></rss>`,
	`<!DOCTYPE rss PUBLIC "-//Netscape Communications//DTD RSS 0.91//EN" "http://my.netscape.com/publish/formats/rss-0.91.dtd"><rss><channel><item><title>x</title></item></channel></rss>`,
	`<!DOCTYPE x [ <!-- <!ENTITY a "b"> --> <!ELEMENT e (#PCDATA)> ]><rss><channel><item/></channel></rss>`,
	`<!DOCTYPE x [ <!ENTITY a "b"> ]><rss/>`,
	`<!entity a "b"><rss/>`,
	`<!DOCTYPE x [ <!ATTLIST a b CDATA "<x>"> ]><rss><channel><item/></channel></rss>`,
	`<rss><channel><!-- a comment <item> --><item><![CDATA[ <item> ]]></item><?pi <item>?><item/></channel></rss>`,
	`<rss><channel><!----><item/><!-- x -- y --><item/></channel></rss>`,
	`<rss><channel><!- x --><item/></channel></rss>`,
	`<rss><channel><![CDAT[ x ]]><item/></channel></rss>`,
	`<rss><channel><item><title a='<'>x</title></item><item/></channel></rss>`,
	`<rss><channel><item><title a="x"b='y'c=d-e:f_g e=>x</title></item></channel></rss>`,
	`<rss><channel><item><title a =  "x" / ></title></item></channel></rss>`,
	`<rss><channel><item><title/ ></item><item/></channel></rss>`,
	`<rss><channel><item></title x></item><item/></channel></rss>`,
	`<rss><channel><item>< item/><item/></channel></rss>`,
	`<rss><channel><a:b:c/><item/></channel></rss>`,
	`<rss><channel><item a:b:c="x"/><item/></channel></rss>`,
	`<rss xmlns="x" xmlns:a="y" xmlns:="z" xmlns:b:c="w"><channel><a:item/><item/><:item/><item:/></channel></rss>`,
	`<rdf:RDF xmlns:rdf="r"><channel/><item><title>t</title></item><rdf:item/></rdf:RDF>`,
	`<feed><entry><title>é</title></entry><entry><ünïcode/></entry></feed>`,
	`<rss><channel><item><title>text ]]> here</title></item><item/></channel></rss>`,
	"<rss><channel><item><title>\x01</title></item><item/></channel></rss>",
	"<rss><channel><item><title>\xff\xfe</title></item><item/></channel></rss>",
	`<rss><channel><item><title>truncated`,
	`<rss><channel><item><title a="truncated`,
	`<rss><channel><item><title a=truncated`,
	`<rss><channel><item><!-- truncated`,
	`<rss><channel><item><![CDATA[ truncated`,
	`<rss><channel><item><?pi truncated`,
	`<rss><channel><item><!DOCTYPE truncated`,
	`<rss><channel><item></title`,
	`<rss><channel><item><`,
	`<rss><channel><item>`,
	`</rss></rss><rss><channel><item/></channel>`,
	`<feed><item/><channel><entry/><entry><entry/></entry></channel></feed>`,
	``, `<`, `<<`, `<!`, `<?`, `</`, `<a`, `<a/`, `<a b`, `<a b=`, `<!-`, `<![`, `<![CDATA[`,
}

func TestScanXMLAsDecoder(t *testing.T) {
	docs := map[string][]byte{}
	for i, c := range scanCases {
		docs[fmt.Sprintf("case %d", i)] = []byte(c)
	}
	for _, sub := range []string{"feeds", "encodings"} {
		for name, b := range fuzzCorpus(t, sub, 8<<20) {
			docs[sub+"/"+name] = b
		}
	}
	for _, dir := range []string{"../../testdata/corpus/feedparser"} {
		filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.HasSuffix(path, ".xml") {
				if b, err := os.ReadFile(path); err == nil {
					docs[path] = b
				}
			}
			return nil
		})
	}
	if len(docs) < 2000 {
		t.Fatalf("only %d documents: the shared corpus is incomplete", len(docs))
	}
	docs["namespace bomb"] = nsBomb(357 << 10)
	docs["namespace bomb per item"] = nsBombPerItem(357 << 10)
	deep := strings.Repeat("<a>", maxDepth+1)
	docs["too deep"] = []byte(`<rss><channel>` + deep)
	var attrs strings.Builder
	for i := range maxAttrs + 1 {
		fmt.Fprintf(&attrs, ` a%d=""`, i)
	}
	docs["too many attributes"] = []byte(`<rss><channel><item` + attrs.String() + `/></channel></rss>`)
	docs["long tag"] = []byte(`<rss><channel><item a="` + strings.Repeat("x", maxTagBytes) + `"/></channel></rss>`)
	docs["long tag of many attributes"] = []byte(`<rss><channel><item` + strings.Repeat(attrs.String(), maxTagBytes/attrs.Len()+1) + `/></channel></rss>`)
	checked := 0
	for name, doc := range docs {
		checkScanAsDecoder(t, name, doc)
		// The same document cut short at a few places: what a truncated download looks like.
		for _, frac := range []int{1, 3, 5, 7, 9} {
			checkScanAsDecoder(t, fmt.Sprintf("%s cut at %d/10", name, frac), doc[:len(doc)*frac/10])
		}
		checked++
	}
	t.Logf("%d documents, each whole and cut at five places", checked)
}

// FuzzScanXML compares scanXML with the decoder's scan on any bytes (its seeds run in make test).
func FuzzScanXML(f *testing.F) {
	for _, c := range scanCases {
		f.Add([]byte(c))
	}
	for _, b := range fuzzCorpus(f, "feeds", 24<<10) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		checkScanAsDecoder(t, "fuzzed", doc)
	})
}
