package sqlite_test

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// TestItemsTopicAndTag: the Items page's topic and tag filters match one whole value of the
// item's list, topics in any ASCII case; values with characters that JSON escapes or that LIKE
// treats as wildcards match exactly what they say.
func TestItemsTopicAndTag(t *testing.T) {
	ctx := context.Background()
	db := sqlitetest.New(t)
	src := &app.Source{UserID: 1, Type: app.SourceRSS, URL: "http://s/feed", RefreshIntervalMinutes: 15}
	if err := db.CreateSource(ctx, src, nil); err != nil {
		t.Fatal(err)
	}
	lists := map[string]struct{ topics, tags string }{
		"tech":    {`["Technology","Go"]`, `["go","compilers"]`},
		"rnd":     {`["R\u0026D"]`, `["r\u0026d"]`}, // as Go's encoding/json writes "R&D"
		"rnd-raw": {`["R&D labs"]`, `["r&d"]`},      // as SQLite's json functions would
		"percent": {`["100%_sure"]`, `["50%"]`},
		"near":    {`["100%Xsure","Technologyx"]`, `["golang"]`},
		"quote":   {`["say \"hi\""]`, `["a\\b"]`},
		"accent":  {`["Économie"]`, `["économie"]`},
	}
	for guid, l := range lists {
		if _, err := db.Write.Exec(`insert into items (source_id, user_id, guid, title, link, status, created_at, topics, tags)
			values (?, 1, ?, ?, 'http://x', 'DONE', '2026-11-27T00:00:00.000Z', ?, ?)`, src.ID, guid, guid, l.topics, l.tags); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		topic, tag string
		want       string
	}{
		{"technology", "", "tech"},
		{"TECHNOLOGY", "", "tech"},
		{"Tech", "", ""},
		{"R&D", "", "rnd"},
		{"R&D labs", "", "rnd-raw"},
		{"100%_sure", "", "percent"},
		{"say \"hi\"", "", "quote"},
		{"Économie", "", "accent"},
		{"", "go", "tech"},
		{"", "r&d", "rnd,rnd-raw"},
		{"", "50%", "percent"},
		{"", "5%", ""},
		{"", `a\b`, "quote"},
		{"", "économie", "accent"},
		{"Go", "compilers", "tech"},
		{"Go", "golang", ""},
	} {
		items, err := db.Items(ctx, app.ItemFilter{UserID: 1, Topic: c.topic, Tag: c.tag, Limit: 30})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range items {
			got = append(got, it.Title)
		}
		sort.Strings(got)
		if g := strings.Join(got, ","); g != c.want {
			t.Errorf("topic %q, tag %q: %q; want %q", c.topic, c.tag, g, c.want)
		}
	}
}
