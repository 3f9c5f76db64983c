package feeds

import (
	"bytes"
	"regexp"
)

// Internal DTD entities. Some feeds declare their own entities in the document's internal
// subset (<!DOCTYPE rss [<!ENTITY nbsp "&#160;">]>), usually to get HTML's named characters.
// Those are expanded here, textually, before parsing, under limits that rule out every
// entity attack: only general entities with a literal value (no SYSTEM or PUBLIC: nothing
// external is ever read; no parameter entities), at most maxEntities of them, each value at
// most maxEntityBytes and free of references to other entities (character references
// only), so expansion cannot nest; and the expanded document may grow by at most
// maxEntityGrowth. A DOCTYPE outside these limits is left as it is, and scanXML refuses it.
const (
	maxEntities     = 64
	maxEntityBytes  = 1024
	maxEntityGrowth = 1 << 20
)

var (
	doctypeStart = regexp.MustCompile(`<!DOCTYPE\s+[A-Za-z_:][\w.:-]*[^\[>]*\[`)
	entityDecl   = regexp.MustCompile(`^\s*<!ENTITY\s+([A-Za-z_][\w.-]*)\s+(?:"([^"<&%]*(?:&#[0-9]+;|&#x[0-9A-Fa-f]+;|[^"<&%])*)"|'([^'<&%]*(?:&#[0-9]+;|&#x[0-9A-Fa-f]+;|[^'<&%])*)')\s*>`)
	dtdComment   = regexp.MustCompile(`^\s*<!--(?s:.*?)-->`)
)

// expandInternalEntities returns doc with the entities of its internal subset expanded and the
// DOCTYPE removed, or doc unchanged when it has none or one outside the limits above.
func expandInternalEntities(doc []byte) []byte {
	head := doc[:min(len(doc), 64<<10)]
	loc := doctypeStart.FindIndex(head)
	if loc == nil || bytes.Contains(head[:loc[0]], []byte("<rss")) || bytes.Contains(head[:loc[0]], []byte("<feed")) {
		return doc
	}
	rest := doc[loc[1]:]
	values := map[string][]byte{}
	for {
		if m := dtdComment.FindIndex(rest); m != nil {
			rest = rest[m[1]:]
			continue
		}
		m := entityDecl.FindSubmatchIndex(rest)
		if m == nil {
			break
		}
		if len(values) >= maxEntities {
			return doc
		}
		name := string(rest[m[2]:m[3]])
		var v []byte
		if m[4] >= 0 {
			v = rest[m[4]:m[5]]
		} else {
			v = rest[m[6]:m[7]]
		}
		if len(v) > maxEntityBytes {
			return doc
		}
		if _, dup := values[name]; !dup { // the first declaration binds (XML 1.0, 4.2)
			values[name] = v
		}
		rest = rest[m[1]:]
	}
	// The subset must end here: "]" then ">". Anything else (another kind of declaration) is
	// left for scanXML to judge.
	trimmed := bytes.TrimLeft(rest, " \t\r\n")
	if len(values) == 0 || !bytes.HasPrefix(trimmed, []byte("]")) {
		return doc
	}
	trimmed = bytes.TrimLeft(trimmed[1:], " \t\r\n")
	if !bytes.HasPrefix(trimmed, []byte(">")) {
		return doc
	}
	body := trimmed[1:]
	out := make([]byte, 0, len(doc))
	out = append(out, doc[:loc[0]]...)
	limit := len(doc) + maxEntityGrowth
	for {
		i := bytes.IndexByte(body, '&')
		if i < 0 {
			break
		}
		out = append(out, body[:i]...)
		body = body[i:]
		end := bytes.IndexByte(body[:min(len(body), 64)], ';')
		if end > 1 {
			if v, ok := values[string(body[1:end])]; ok {
				out = append(out, v...)
				body = body[end+1:]
				if len(out) > limit {
					return doc
				}
				continue
			}
		}
		out = append(out, '&')
		body = body[1:]
	}
	return append(out, body...)
}
