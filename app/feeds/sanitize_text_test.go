package feeds

import (
	"os"
	"path/filepath"
	"testing"
)

// sanitizedText must agree with PlainText on everything Sanitize produces.
func TestSanitizedTextMatchesPlainText(t *testing.T) {
	files, _ := filepath.Glob("../../../shared/corpus/feeds/*.xml")
	if len(files) == 0 {
		t.Fatal("corpus not found")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		clean := Sanitize(string(b), "https://example.com/")
		if got, want := sanitizedText(clean), PlainText(clean); got != want {
			i := 0
			for i < len(got) && i < len(want) && got[i] == want[i] {
				i++
			}
			t.Errorf("%s: differs at %d: %q vs %q", filepath.Base(f), i, got[i:min(len(got), i+60)], want[i:min(len(want), i+60)])
		}
	}
	for _, s := range []string{"", "plain", "a &amp; b", "<p>one</p><p>two</p>", "x<br/>y", `<a href="u">link</a>: text`, "<p>unclosed"} {
		if got, want := sanitizedText(Sanitize(s, "")), PlainText(Sanitize(s, "")); got != want {
			t.Errorf("%q: %q vs %q", s, got, want)
		}
	}
}
