package feeds

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sanitizedText must agree with PlainText on everything Sanitize produces.
func TestSanitizedTextMatchesPlainText(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/corpus/feeds/*.xml")
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

// TestAbsoluteHTTPEscapesQueries: a link whose query holds spaces, quotes or angle brackets (as
// feeds write them) comes out fetchable, escaped as a browser would; escapes already there stay.
func TestAbsoluteHTTPEscapesQueries(t *testing.T) {
	base, _ := url.Parse("https://e.test/feed/")
	for in, want := range map[string]string{
		`/search?q=solar battery&x="a"<b>`: `https://e.test/search?q=solar%20battery&x=%22a%22%3Cb%3E`,
		`?q=caf%C3%A9`:                     `https://e.test/feed/?q=caf%C3%A9`,
		"?q=café|{x}":                      `https://e.test/feed/?q=caf%C3%A9%7C%7Bx%7D`,
		`https://e.test/a?b=c#frag`:        `https://e.test/a?b=c#frag`,
		`javascript:alert(1)`:              ``,
	} {
		if got := absoluteHTTP(base, in); got != want {
			t.Errorf("absoluteHTTP(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestLinksNeverKeepMarkupInTheHost: quotes, angle brackets and the like in a host (a fuzzing
// finding) drop the link, wherever it is read.
func TestLinksNeverKeepMarkupInTheHost(t *testing.T) {
	base, _ := url.Parse("https://e.test/feed/")
	for _, in := range []string{`https://a"b.example/x`, `https://a<b>.example/`, `http://x.example"onmouseover=alert(1)/`,
		"https://a b.example/", `https://a'b.example/`, "https://a`b.example/", `//evil"<script>/x`} {
		if got := absoluteHTTP(base, in); got != "" {
			t.Errorf("absoluteHTTP(%q) = %q, want it dropped", in, got)
		}
	}
	for _, in := range []string{"https://xn--caf-dma.example/", "https://[2001:db8::1]:8443/a", "https://example.com:8080/p?q=1"} {
		if got := absoluteHTTP(base, in); got == "" {
			t.Errorf("absoluteHTTP(%q) dropped a good link", in)
		}
	}
}

// TestPlainTextDropsBidiControlsAndCapsCombiningMarks: "Invoice \u202efdp.exe\u202c" cannot
// pose as a PDF, and zalgo cannot draw over the page; real accents and scripts stay.
func TestPlainTextDropsBidiControlsAndCapsCombiningMarks(t *testing.T) {
	zalgo := "Z" + strings.Repeat("\u0336\u0353\u0489", 100) + "algo"
	for in, want := range map[string]string{
		"Invoice \u202efdp.exe\u202c":                      "Invoice fdp.exe",
		"a\u2066b\u2067c\u2068d\u2069e\u202a\u202b\u202df": "abcdef",
		zalgo: "Z\u0336\u0353\u0489algo",
		"Tiếng Việt, ḍ̣̄, שָׁלוֹם, नमस्ते": "Tiếng Việt, ḍ̣̄, שָׁלוֹם, नमस्ते",
		"<b>Inv\u202eoice</b>": "Invoice",
	} {
		if got := PlainText(in); got != want {
			t.Errorf("PlainText(%q) = %q, want %q", in, got, want)
		}
		if got := sanitizedText(Sanitize(in, "")); got != want {
			t.Errorf("sanitizedText(%q) = %q, want %q", in, got, want)
		}
	}
}
