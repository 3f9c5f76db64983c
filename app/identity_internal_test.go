package app

import (
	"strings"
	"testing"
	"time"
)

// The identity rule on its own, for what a real feed rarely shows in a test: pruned posts,
// keys stored before IdentityKey carried its prefix, links missing.
func TestIdentifyItems(t *testing.T) {
	day := func(d int) *time.Time { t := time.Date(2026, 3, d, 0, 0, 0, 0, time.UTC); return &t }
	it := func(guid, link, title string, published *time.Time) Item {
		return Item{GUID: guid, Link: link, Title: title, PublishedAt: published}
	}
	keys := func(items []Item) string {
		var s []string
	next:
		for _, it := range items {
			for _, l := range []string{"/a", "/a2", "/b", "/b2"} {
				switch it.GUID {
				case IdentityKey("g", l):
					s = append(s, "IK("+l+")")
					continue next
				}
			}
			s = append(s, it.GUID)
		}
		return strings.Join(s, " ")
	}
	live := func(key, link, title string) KnownItem {
		return KnownItem{Key: key, GUID: "g", Link: link, Title: title}
	}
	pruned := func(key string, at *time.Time) KnownItem { return KnownItem{Key: key, GUID: "g", PrunedAt: at} }
	for _, c := range []struct {
		name  string
		items []Item
		known []KnownItem
		want  string
	}{
		{"a new GUID is its own key", []Item{it("g", "/a", "A", nil)}, nil, "g"},
		{"a GUID given to two links in one fetch keys both", []Item{it("g", "/a", "A", nil), it("g", "/b", "B", nil)}, nil, "IK(/a) IK(/b)"},
		{"a repeat with the same link is dropped", []Item{it("g", "/a", "A", nil), it("g", "/a", "A again", nil)}, nil, "g"},
		{"a repeat without a link is not another post", []Item{it("g", "/a", "A", nil), it("g", "", "A", nil)}, nil, "g"},
		{"the stored post keeps its key when others join it", []Item{it("g", "/b", "B", nil), it("g", "/a", "A", nil)},
			[]KnownItem{live("g", "/a", "A")}, "IK(/b) g"},
		{"another link and another title is a new post", []Item{it("g", "/b", "B", nil)}, []KnownItem{live("g", "/a", "A")}, "IK(/b)"},
		{"a retitled post is the same", []Item{it("g", "/a", "A2", nil)}, []KnownItem{live("g", "/a", "A")}, "g"},
		{"a moved post is the same", []Item{it("g", "/a2", "A", nil)}, []KnownItem{live("g", "/a", "A")}, "g"},
		{"a post retitled and moved on its publication date is the same", []Item{it("g", "/a2", "A2", day(3))},
			[]KnownItem{{Key: "g", GUID: "g", Link: "/a", Title: "A", Published: day(3)}}, "g"},
		{"another link, title and date is a new post", []Item{it("g", "/b", "B", day(4))},
			[]KnownItem{{Key: "g", GUID: "g", Link: "/a", Title: "A", Published: day(3)}}, "IK(/b)"},
		{"a moved post keyed by GUID and link keeps its key", []Item{it("g", "/b2", "B", nil)},
			[]KnownItem{live("g", "/a", "A"), live(IdentityKey("g", "/b"), "/b", "B")}, "IK(/b)"},
		{"in a fetch that repeats a GUID, a title alone does not join posts", []Item{it("g", "/a", "Weekly", nil), it("g", "/b", "Weekly", nil)},
			[]KnownItem{live("g", "/a", "Weekly")}, "g IK(/b)"},
		{"the pruned post itself stays out", []Item{it("g", "/a", "A", day(1))}, []KnownItem{pruned("g", day(10))}, "g"},
		{"a post published after its GUID's posts were pruned is new", []Item{it("g", "/b", "B", day(20))}, []KnownItem{pruned("g", day(10))}, "IK(/b)"},
		{"an undated post of a pruned GUID is taken for the pruned one", []Item{it("g", "/b", "B", nil)}, []KnownItem{pruned("g", day(10))}, "g"},
		{"a pruned post keyed by GUID and link stays out", []Item{it("g", "/b", "B", day(20))}, []KnownItem{pruned(IdentityKey("g", "/b"), day(10))}, "IK(/b)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := keys(IdentifyItems(c.items, c.known)); got != c.want {
				t.Errorf("keys %s, want %s", got, c.want)
			}
		})
	}
}

// The query asks for each GUID and its prefix, and nothing for an item without a GUID.
func TestNewIdentityQuery(t *testing.T) {
	q := NewIdentityQuery(7, []Item{{GUID: "g", Link: "/a"}, {GUID: "", Link: "/b"}, {GUID: "h", Link: "/h"}, {GUID: "g", Link: "/c"}})
	if q.SourceID != 7 || len(q.Keys) != 2 || q.Keys["g"] != "g" || q.Keys["h"] != "h" ||
		len(q.Prefixes) != 2 || q.Prefixes[IdentityPrefix("g")] != "g" || len(IdentityPrefix("g")) != IdentityPrefixLen {
		t.Errorf("query %+v", q)
	}
	if k := IdentityKey("g", "/a"); !strings.HasPrefix(k, IdentityPrefix("g")) || strings.HasPrefix(k, IdentityPrefix("h")) || len(k) > 80 {
		t.Errorf("key %q", k)
	}
}
