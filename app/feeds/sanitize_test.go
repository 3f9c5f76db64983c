package feeds_test

import (
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app/feeds"
)

func TestSanitize(t *testing.T) {
	cases := []struct {
		name, in      string
		want, notWant []string
	}{
		{"scripts go", `<p>Hi</p><script>alert(1)</script>`, []string{"<p>Hi</p>"}, []string{"script", "alert"}},
		{"event handlers go", `<img src="https://e.test/a.png" onerror="alert(1)">`, []string{`src="https://e.test/a.png"`}, []string{"onerror", "alert"}},
		{"javascript links go", `<a href="javascript:alert(1)">x</a>`, []string{"x"}, []string{"javascript", "href"}},
		{"data URLs go", `<a href="data:text/html,hi">x</a><img src="data:image/png;base64,AAAA">`, nil, []string{"data:"}},
		{"styles, iframes and forms go", `<style>p{}</style><iframe src="https://e.test"></iframe><form><input name=a></form><p style="color:red">t</p>`, []string{"<p>t</p>"}, []string{"style", "iframe", "form", "input"}},
		{"links open safely", `<a href="https://e.test/x">x</a>`, []string{`href="https://e.test/x"`, `rel="nofollow noopener"`, `target="_blank"`}, nil},
		{"relative URLs become absolute", `<a href="../y">y</a><img src="/i.png" alt="i">`, []string{`href="https://e.test/y"`, `src="https://e.test/i.png"`}, nil},
		{"an object goes and its fallback content shows, sanitized", `<object data="https://e.test/v.swf"><param name="movie" value="v.swf"><embed src="https://e.test/v.swf"><p>Watch <a href="/v" onclick="x()">the video</a><script>alert(1)</script></p></object>`,
			[]string{"<p>Watch", `href="https://e.test/v"`, "the video"}, []string{"object", "embed", "param", "onclick", "script", "alert"}},
		{"mailto stays", `<a href="mailto:a@e.test">mail</a>`, []string{`href="mailto:a@e.test"`}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := feeds.Sanitize(c.in, "https://e.test/a/b")
			for _, w := range c.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q lacks %q", got, w)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(got, w) {
					t.Errorf("%q has %q", got, w)
				}
			}
		})
	}
}

func TestPlainText(t *testing.T) {
	cases := map[string]string{
		"  Hello <b>world</b>  ":        "Hello world",
		"AT&amp;T &#8217;s &lt;tag&gt;": "AT&T ’s <tag>",
		"<p>One</p><p>Two</p>":          "One Two",
		"a<script>bad()</script>b":      "ab",
		"a<object>b</object>":           "ab",
		"Tom & Jerry":                   "Tom & Jerry",
		"line\n\n  break\ttab":          "line break tab",
		"<![CDATA[x]]>":                 "",
		"x < y and y > z":               "x < y and y > z",
	}
	for in, want := range cases {
		if got := feeds.PlainText(in); got != want {
			t.Errorf("PlainText(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestSanitizeBalancesTags: what Sanitize returns is shown inside the app's pages, so it never
// closes an element it did not open nor leaves one open, with or without an absolute base (a
// Reddit post with no link, an item of a feed without an address).
func TestSanitizeBalancesTags(t *testing.T) {
	for _, base := range []string{"https://e.test/a/b", "", "/relative", "not a URL"} {
		for in, want := range map[string]string{
			`</div></div></main>text`:         `text`,
			`<b>bold`:                         `<b>bold</b>`,
			`<p>one<p>two`:                    `<p>one</p><p>two</p>`,
			`<ul><li>a<li>b`:                  `<ul><li>a</li><li>b</li></ul>`,
			`<blockquote><p>quoted</article>`: `<blockquote><p>quoted</p></blockquote>`,
		} {
			if got := feeds.Sanitize(in, base); got != want {
				t.Errorf("Sanitize(%q, %q) = %q, want %q", in, base, got, want)
			}
		}
	}
}
