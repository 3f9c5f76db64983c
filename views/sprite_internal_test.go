package views

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/static"
)

// TestIconSprite: every icon the templates and the navigation name is a symbol of the sprite
// (static/icons.svg, well-formed, one symbol an id), and an unknown name draws the "info" icon.
func TestIconSprite(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("..", "static", "icons.svg"))
	if err != nil {
		t.Fatal(err)
	}
	var sprite struct {
		Symbols []struct {
			ID      string `xml:"id,attr"`
			ViewBox string `xml:"viewBox,attr"`
		} `xml:"symbol"`
	}
	if err := xml.Unmarshal(body, &sprite); err != nil {
		t.Fatalf("icons.svg is not well-formed: %v", err)
	}
	seen := map[string]bool{}
	for _, s := range sprite.Symbols {
		if seen[s.ID] || s.ViewBox != "0 0 24 24" || !strings.HasSuffix(static.Icon(s.ID), "#"+s.ID) {
			t.Errorf("symbol %q: repeated, viewBox %q, or not found by static.Icon", s.ID, s.ViewBox)
		}
		seen[s.ID] = true
	}
	if len(seen) < 20 || !seen["info"] {
		t.Fatalf("the sprite has %d symbols, info %v", len(seen), seen["info"])
	}

	var names []string
	templs, _ := filepath.Glob("*.templ")
	for _, f := range templs {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range regexp.MustCompile(`@icon\("([^"]*)"\)`).FindAllStringSubmatch(string(src), -1) {
			names = append(names, m[1])
		}
	}
	for _, n := range navItems {
		names = append(names, n.Icon)
	}
	if len(names) < 30 {
		t.Fatalf("found only %d icon names in %v", len(names), templs)
	}
	for _, n := range names {
		if !seen[n] {
			t.Errorf("icon %q is used but not in the sprite", n)
		}
	}
	if got := static.Icon("no-such-icon"); !strings.HasPrefix(got, "/static/icons.") || !strings.HasSuffix(got, ".svg#info") {
		t.Errorf("an unknown icon: %q", got)
	}
}
