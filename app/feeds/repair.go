package feeds

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
)

// feedRoots are the root elements of XML feeds (local names).
var feedRoots = map[string]bool{"rss": true, "feed": true, "RDF": true}

// itemContainers hold items and entries (local names).
var itemContainers = map[string]bool{"channel": true, "feed": true, "RDF": true, "rss": true}

// repairXML mends the XML mistakes real feeds make that the parser cannot get past,
// in UTF-8 bytes:
//   - a feed wrapped in something else (an XHTML page): the feed element is cut out;
//   - elements left open before an <item>/<entry> (which would swallow the items) or before
//     the end tag of an ancestor: they are closed there;
//   - a truncated document: the elements still open are closed at the end.
//
// It returns the mended document and whether anything changed.
func repairXML(b []byte) ([]byte, bool) {
	d := xml.NewDecoder(bytes.NewReader(b))
	d.Strict = false
	d.CharsetReader = func(_ string, r io.Reader) (io.Reader, error) { return r, nil }

	var (
		out     bytes.Buffer
		stack   []string // open elements, as written (prefix:local)
		locals  []string
		copied  int64 // bytes of b already copied to out
		skipped bool  // elements before the feed's root
		start   = int64(-1)
		changed bool
		end     = int64(len(b))
	)
	closeTo := func(at int64, depth int) {
		out.Write(b[copied:at])
		copied = at
		for len(stack) > depth {
			out.WriteString("</" + stack[len(stack)-1] + ">")
			stack, locals = stack[:len(stack)-1], locals[:len(locals)-1]
			changed = true
		}
	}
	name := func(n xml.Name) string {
		if n.Space != "" {
			return n.Space + ":" + n.Local
		}
		return n.Local
	}
	for {
		off := d.InputOffset()
		tok, err := d.RawToken()
		if err != nil {
			end = off
			if err != io.EOF {
				changed = true
			}
			break
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if start < 0 {
				if !feedRoots[t.Name.Local] {
					skipped = true
					continue // look for a feed inside whatever this is
				}
				start, copied, changed = off, off, skipped
			}
			if t.Name.Local == "item" || t.Name.Local == "entry" {
				for i := len(locals) - 1; i >= 0; i-- {
					if itemContainers[locals[i]] {
						if i < len(locals)-1 {
							closeTo(off, i+1)
						}
						break
					}
				}
			}
			stack, locals = append(stack, name(t.Name)), append(locals, t.Name.Local)
		case xml.EndElement:
			if start < 0 {
				continue
			}
			n := name(t.Name)
			for i := len(stack) - 1; i >= 0; i-- {
				if stack[i] == n {
					if i < len(stack)-1 {
						closeTo(off, i+1)
					}
					stack, locals = stack[:i], locals[:i]
					break
				}
			}
			if len(stack) == 0 {
				end = d.InputOffset()
				if end < int64(len(bytes.TrimRight(b, " \t\r\n"))) {
					changed = true
				}
				goto done
			}
		}
	}
done:
	if start < 0 {
		return b, false
	}
	closeTo(end, 0)
	if !changed {
		return b, false
	}
	return append([]byte(`<?xml version="1.0" encoding="UTF-8"?>`+"\n"), out.Bytes()...), true
}

// hasItems reports whether an XML or JSON document seems to hold items.
func hasItems(b []byte) bool {
	s := string(b)
	return strings.Contains(s, "<item") || strings.Contains(s, "<entry") || strings.Contains(s, ":item") || strings.Contains(s, ":entry")
}
