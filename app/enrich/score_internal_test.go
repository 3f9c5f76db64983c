package enrich

import (
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
)

// The reading model's points combine with an interest match in log-odds: liked strong matches
// keep their order below 100 instead of tying there, an uncertain match moves most, and no
// points change nothing.
func TestWithTaste(t *testing.T) {
	a, b := withTaste(92, 25), withTaste(85, 25)
	if !(a > b && a < 99.5 && b > 92) {
		t.Fatalf("liked matches at 92 and 85 became %.1f and %.1f", a, b)
	}
	if up, down := withTaste(60, 25)-60, 92-withTaste(92, -25); !(up > withTaste(92, 25)-92 && down > 20) {
		t.Fatalf("an uncertain match moved %.1f, a strong one taught against %.1f", up, down)
	}
	if withTaste(70, 0) != 70 || withTaste(70, 10) <= 70 || withTaste(70, -10) >= 70 {
		t.Fatal("the points' sign is not kept")
	}
}

// A word the item has only inside a phrase of the interests is not a feature of its own: a like
// of an "open source" item teaches "open source", not "open" (issue 25). The same word used
// apart from the phrase stays one.
func TestPhraseWordsNotFeaturesAlone(t *testing.T) {
	e := NewEmbedded(EmbeddedOptions{})
	has := func(title, body, prefix string) bool {
		keys, _ := e.Features(app.EnrichInput{Title: title, Text: body, Interests: "open source"}, nil)
		for _, k := range keys {
			if strings.HasPrefix(k, prefix) {
				return true
			}
		}
		return false
	}
	if !has("Open source maintainers meet in Brussels", "", "i:open source") {
		t.Fatal("the matched phrase is not a feature")
	}
	if has("Open source maintainers meet in Brussels", "The open source summit gathers maintainers.", "w:open") {
		t.Fatal(`"open" inside "open source" became a feature of its own`)
	}
	if !has("Open source maintainers meet in Brussels", "The doors open at nine; the summit is open to all.", "w:open") {
		t.Fatal(`"open" used apart from the phrase is not a feature`)
	}
}
