package enrich_test

import (
	"context"
	"testing"
	"unicode/utf8"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
)

// FuzzInterests: whatever a reader writes as interests (any script, lists, quotes, brackets)
// and whatever an item says, scoring neither panics nor leaves the 0–100 range, and its reason
// is text. Run longer with: go test ./app/enrich -run '^$' -fuzz FuzzInterests -fuzztime 60s
func FuzzInterests(f *testing.F) {
	for _, s := range [][3]string{
		{"Pakistan; Пакистан; پاکستان", "امریکہ نے پاکستان کی امداد روک دی", "в Пакистане"},
		{"GPS sports watches and cycling power meters", "Mac Power Users", "power meter pedals"},
		{"Go programming (also: Golang) (not: Go)", "MOS Go battery", "Go 1.22"},
		{"\"open source\" «Linux» „Kernel“ (not: ", "((( )))", ":::"},
		{"Turkey (not: Türkei, Турция)\nIndian economy and markets", "وباكستان بالأردن", "Sensex"},
		{"a b c d e f g h", "", ""},
		{"\xff\xfe", "\x00", "\u202e"},
	} {
		f.Add(s[0], s[1], s[2])
	}
	e := enrich.NewEmbedded(enrich.EmbeddedOptions{})
	f.Fuzz(func(t *testing.T, interests, title, text string) {
		res, err := e.Enrich(context.Background(), app.EnrichInput{Title: title, Text: text, Interests: interests})
		if err != nil {
			return // a refusal is an answer; a panic is not
		}
		if res.Score < 0 || res.Score > 100 {
			t.Fatalf("score %d for %q", res.Score, interests)
		}
		if !utf8.ValidString(interests) {
			return
		}
		if res.Reasoning == "" {
			t.Fatalf("no reason for %q", interests)
		}
	})
}
