package feeds

// Fuzz targets of feed ingestion, page link extraction and sanitizing. Run one with
//
//	go test ./app/feeds -run '^$' -fuzz '^FuzzParseFeed$' -fuzztime 60s
//
// or all of them with scripts/fuzz.sh. Inputs that fail are written to testdata/fuzz/FuzzXxx/
// and run as regression tests by every `go test`.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/publicsuffix"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// fuzzNow is the clock of the fuzzed fetches, so that dates are checked against a fixed now.
var fuzzNow = time.Date(2026, 3, 14, 9, 30, 0, 0, time.UTC)

// fuzzTransport answers every request with the same body and Content-Type, without a network.
type fuzzTransport struct {
	body        []byte
	contentType string
}

func (t fuzzTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	h := http.Header{}
	if t.contentType != "" {
		h.Set("Content-Type", t.contentType)
	}
	return &http.Response{
		StatusCode: http.StatusOK, Status: "200 OK", Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Body: io.NopCloser(bytes.NewReader(t.body)), ContentLength: int64(len(t.body)), Request: r,
	}, nil
}

func fuzzFetcher(body []byte, contentType string) *Fetcher {
	return New(Options{Transport: fuzzTransport{body: body, contentType: contentType}, Clock: sqlitetest.NewClock(fuzzNow)})
}

// fuzzCorpus returns the files of the test corpus (testdata/corpus/sub) no larger than maxBytes.
func fuzzCorpus(tb testing.TB, sub string, maxBytes int64) map[string][]byte {
	tb.Helper()
	out := map[string][]byte{}
	for _, dir := range []string{filepath.Join("../../testdata/corpus", sub)} {
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || strings.HasPrefix(name, "LICENSE") || strings.HasSuffix(name, ".md") {
				continue
			}
			if info, err := e.Info(); err != nil || info.Size() > maxBytes {
				continue
			}
			if b, err := os.ReadFile(filepath.Join(dir, name)); err == nil {
				out[name] = b
			}
		}
		break
	}
	return out
}

// fuzzForbiddenElements must never survive sanitizing.
var fuzzForbiddenElements = map[string]bool{
	"script": true, "style": true, "iframe": true, "frame": true, "frameset": true, "object": true, "embed": true,
	"applet": true, "param": true, "form": true, "input": true, "button": true, "textarea": true, "select": true,
	"option": true, "link": true, "meta": true, "base": true, "svg": true, "math": true, "template": true,
	"noscript": true, "xmp": true, "plaintext": true, "noembed": true, "noframes": true, "title": true,
	"html": true, "head": true, "body": true, "audio": true, "video": true, "source": true, "track": true, "canvas": true,
}

// fuzzURLAttributes hold a URL a browser may load or navigate to.
var fuzzURLAttributes = map[string]bool{
	"href": true, "src": true, "cite": true, "poster": true, "action": true, "formaction": true, "background": true,
	"longdesc": true, "xlink:href": true, "data": true, "ping": true, "lowsrc": true, "dynsrc": true, "manifest": true,
	"codebase": true, "icon": true, "profile": true, "archive": true, "classid": true,
}

// fuzzURLProblem says what is wrong with a URL attribute value of sanitized HTML; "" if nothing.
// With abs, relative URLs are wrong too (Sanitize makes them absolute when it has a base).
func fuzzURLProblem(v string, abs bool) string {
	// What a browser does before it reads a URL: strip leading and trailing C0 controls and
	// spaces, and remove tabs and newlines anywhere.
	v = strings.TrimFunc(v, func(r rune) bool { return r <= ' ' })
	v = strings.NewReplacer("\t", "", "\n", "", "\r", "").Replace(v)
	if v == "" {
		return ""
	}
	scheme := ""
	if i := strings.IndexAny(v, ":/?#"); i > 0 && v[i] == ':' {
		scheme = strings.ToLower(v[:i])
	}
	switch scheme {
	case "http", "https":
		if abs {
			if u, err := url.Parse(v); err != nil || u.Host == "" {
				return "an http(s) URL without a host"
			}
		}
		return ""
	case "mailto":
		return ""
	case "":
		if abs {
			return "a relative URL"
		}
		return ""
	}
	return "a " + scheme + ": URL"
}

// fuzzHTMLProblem says why s, the output of Sanitize, is not safe to render; "" if it is.
func fuzzHTMLProblem(s string, abs bool) string {
	if strings.Contains(strings.ToLower(s), "<script") {
		return "it contains <script"
	}
	z := html.NewTokenizer(strings.NewReader(s))
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, hasAttr := z.TagName()
			if fuzzForbiddenElements[string(name)] {
				return fmt.Sprintf("it contains a <%s> element", name)
			}
			for hasAttr {
				var k, v []byte
				k, v, hasAttr = z.TagAttr()
				key := string(k)
				switch {
				case strings.HasPrefix(key, "on"):
					return fmt.Sprintf("<%s> has an event handler %s=%q", name, key, v)
				case key == "style" || key == "srcdoc" || key == "formaction" || key == "action":
					return fmt.Sprintf("<%s> has a %s attribute", name, key)
				case key == "usemap":
					if !bytes.HasPrefix(v, []byte("#")) {
						return fmt.Sprintf("<%s> has usemap=%q", name, v)
					}
				case fuzzURLAttributes[key]:
					if p := fuzzURLProblem(string(v), abs); p != "" {
						return fmt.Sprintf("<%s> has %s in %s=%q", name, p, key, v)
					}
				case key == "srcset":
					for _, c := range strings.Split(string(v), ",") {
						if f := strings.Fields(c); len(f) > 0 {
							if p := fuzzURLProblem(f[0], abs); p != "" {
								return fmt.Sprintf("<%s> has %s in srcset=%q", name, p, v)
							}
						}
					}
				}
			}
		}
	}
}

// fuzzPlain says what is wrong with a plain-text field (a title, an author): it must be
// valid UTF-8, trimmed, with single spaces and no control characters.
func fuzzPlain(s string) string {
	switch {
	case !utf8.ValidString(s):
		return "invalid UTF-8"
	case strings.TrimSpace(s) != s:
		return "untrimmed"
	case strings.Contains(s, "  "):
		return "a double space"
	}
	for _, r := range s {
		if unicode.IsControl(r) || r != ' ' && unicode.IsSpace(r) {
			return fmt.Sprintf("the character %U", r)
		}
	}
	return ""
}

// fuzzRawQueryBug: absoluteHTTP used to keep the query of a link as written, spaces, quotes and
// angle brackets included, so such a link could not be fetched (Go sends it as is: a 400). It
// escapes them now, and the targets check queries too.
const fuzzRawQueryBug = false

// fuzzHTTPURL says what is wrong with a link that must be an absolute http(s) URL or empty.
func fuzzHTTPURL(s string) string {
	if s == "" {
		return ""
	}
	checked := s
	if i := strings.IndexByte(s, '?'); i >= 0 && fuzzRawQueryBug {
		checked = s[:i]
	}
	u, err := url.Parse(s)
	switch {
	case !utf8.ValidString(s):
		return "invalid UTF-8"
	case err != nil:
		return "unparseable: " + err.Error()
	case u.Scheme != "http" && u.Scheme != "https":
		return "not http(s)"
	case u.Host == "":
		return "no host"
	case strings.ContainsAny(checked, " \t\r\n\"<>\\^`{|}"):
		return "white space or a character that must be escaped"
	}
	return ""
}

// fuzzSlow is far more than any input the fuzzer makes (at most a few hundred KB) should take,
// even on a busy machine: taking longer means parsing time grows faster than the input.
const fuzzSlow = 5 * time.Second

func fuzzCheckTime(t *testing.T, start time.Time, size int) {
	t.Helper()
	if d := time.Since(start); d > fuzzSlow {
		t.Fatalf("%d bytes took %s", size, d)
	}
}

// fuzzCheckError checks a failed fetch: a *Error meant for a person, not a recovered panic.
func fuzzCheckError(t *testing.T, err error) {
	t.Helper()
	var fe *Error
	if !errors.As(err, &fe) {
		t.Fatalf("error is %T, not *feeds.Error: %v", err, err)
	}
	if fe.Err != nil && strings.HasPrefix(fe.Err.Error(), "panic:") {
		t.Fatalf("the parser panicked (recovered): %v", fe.Err)
	}
	if fe.Message == "" || !utf8.ValidString(fe.Message) {
		t.Fatalf("error message %q is empty or invalid UTF-8", fe.Message)
	}
}

var fuzzFeedContentTypes = []string{"", "application/rss+xml", "application/atom+xml; charset=utf-8", "text/xml; charset=iso-8859-1",
	"application/xml; charset=windows-1251", "application/feed+json", "text/html; charset=utf-8", "text/plain; charset=koi8-r"}

// FuzzParseFeed fetches arbitrary bytes as an RSS/Atom/JSON feed served with a Content-Type and
// checks what ingestion promises: no panic, a readable error or items whose text is valid UTF-8,
// whose HTML is safe, whose links are absolute http(s) or empty, at most MaxItems of them.
func FuzzParseFeed(f *testing.F) {
	seeds := [][]byte{
		[]byte(`<?xml version="1.0"?><rss version="2.0"><channel><title>T &amp; co</title><link>https://e.test/</link><ttl>60</ttl>
<item><title>One</title><link>/a/1</link><guid isPermaLink="false">1</guid><description>&lt;p onclick="x()"&gt;Hi &lt;a href="javascript:alert(1)"&gt;x&lt;/a&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src="rel.png" srcset="a.png 1x, b.png 2x"&gt;&lt;/p&gt;</description><pubDate>Mon, 02 Jan 2006 15:04:05 GMT</pubDate></item>
<item><title></title><guid>https://e.test/permalink</guid><description><![CDATA[<iframe src="https://evil.test"></iframe><a href="data:text/html,x">d</a>]]></description></item>
<item><title>Future</title><link>https://e.test/f</link><pubDate>Sat, 01 Jan 2050 00:00:00 GMT</pubDate></item>
</channel></rss>`),
		[]byte(`<feed xmlns="http://www.w3.org/2005/Atom"><title type="html">&lt;b&gt;Atom&lt;/b&gt;</title><link href="https://e.test/"/>
<entry><title>E</title><link rel="alternate" href="entries/1"/><id>tag:e.test,1</id><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p style="color:red">x<a href="vbscript:y">v</a></p></div></content><updated>2026-01-01T00:00:00Z</updated></entry>
</feed>`),
		[]byte(`{"version":"https://jsonfeed.org/version/1.1","title":"J","home_page_url":"https://e.test/","items":[{"id":"1","url":"javascript:alert(1)","title":"<b>x</b>","content_html":"<svg onload=alert(1)>","date_published":"2026-01-01T00:00:00Z"},{"id":"2","url":"//cdn.e.test/x","content_text":"t"}]}`),
		[]byte("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><rss><channel><title>Caf\xe9</title><item><title>\xe9t\xe9</title><link>http://e.test/\xe9</link></item></channel></rss>"),
		[]byte("\xff\xfe<\x00r\x00s\x00s\x00>\x00<\x00c\x00h\x00a\x00n\x00n\x00e\x00l\x00>\x00<\x00i\x00t\x00e\x00m\x00>\x00<\x00t\x00i\x00t\x00l\x00e\x00>\x00x\x00<\x00/\x00t\x00i\x00t\x00l\x00e\x00>\x00"),
		[]byte(`<!DOCTYPE rss [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><rss><channel><item><title>&b;</title></item></channel></rss>`),
		[]byte(`<html><body><rss><channel><title>Wrapped</title><item><title>open <b>tag<item><title>Second</title></item></channel></rss></body></html>`),
		[]byte(`<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/"><channel><title>R</title></channel><item><title>I</title><link>http://e.test/i</link></item></rdf:RDF>`),
		[]byte(`<rss><channel><item><title>truncated`),
		[]byte(`<rss><item><link>0`),
		[]byte(`<rss><channel><item><title>q</title><link>https://e.test/a b?q= b&amp;r="&gt;#f g</link></item></channel></rss>`),
		[]byte(`<!doctype html><html><head><link rel="alternate" type="application/rss+xml" href="/feed"></head></html>`),
	}
	for i, s := range seeds {
		f.Add(s, fuzzFeedContentTypes[i%len(fuzzFeedContentTypes)])
	}
	for _, sub := range []string{"feeds", "encodings"} {
		for name, b := range fuzzCorpus(f, sub, 24<<10) {
			ct := ""
			if strings.HasSuffix(name, ".json") {
				ct = "application/feed+json"
			}
			f.Add(b, ct)
		}
	}
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		const feedURL = "https://feeds.example.test/blog/feed.xml"
		start := time.Now()
		res, err := fuzzFetcher(body, contentType).Fetch(context.Background(), Request{URL: feedURL, Type: app.SourceRSS})
		fuzzCheckTime(t, start, len(body))
		if err != nil {
			fuzzCheckError(t, err)
			return
		}
		if p := fuzzPlain(res.Title); p != "" {
			t.Errorf("feed title %q: %s", res.Title, p)
		}
		if p := fuzzHTTPURL(res.SiteURL); p != "" || res.SiteURL == "" {
			t.Errorf("site URL %q: %s", res.SiteURL, p)
		}
		if len(res.Items) > MaxItems {
			t.Errorf("%d items, more than %d", len(res.Items), MaxItems)
		}
		guids := map[string]bool{}
		for i, it := range res.Items {
			if it.GUID == "" || !utf8.ValidString(it.GUID) {
				t.Errorf("item %d: GUID %q is empty or invalid UTF-8", i, it.GUID)
			}
			if guids[it.GUID] {
				t.Errorf("item %d: GUID %q twice", i, it.GUID)
			}
			guids[it.GUID] = true
			// An item with a link but no title or content keeps an empty title (see the fuzz report).
			if p := fuzzPlain(it.Title); p != "" || it.Title == "" && it.Link == "" {
				t.Errorf("item %d: title %q: %s", i, it.Title, p)
			}
			if p := fuzzPlain(it.Author); p != "" {
				t.Errorf("item %d: author %q: %s", i, it.Author, p)
			}
			if p := fuzzPlain(it.Text); p != "" {
				t.Errorf("item %d: text %q: %s", i, it.Text, p)
			}
			if p := fuzzHTTPURL(it.Link); p != "" {
				t.Errorf("item %d: link %q: %s", i, it.Link, p)
			}
			if !utf8.ValidString(it.RawContent) || len(it.RawContent) > MaxContentBytes {
				t.Errorf("item %d: raw content of %d bytes, valid UTF-8: %v", i, len(it.RawContent), utf8.ValidString(it.RawContent))
			}
			if !utf8.ValidString(it.CleanContent) {
				t.Errorf("item %d: clean content is invalid UTF-8: %q", i, it.CleanContent)
			}
			if p := fuzzHTMLProblem(it.CleanContent, true); p != "" {
				t.Errorf("item %d: clean content is unsafe, %s: %q", i, p, it.CleanContent)
			}
			if want := PlainText(it.CleanContent); it.Text != want {
				t.Errorf("item %d: text %q differs from PlainText of the clean content %q", i, it.Text, want)
			}
			if d := it.PublishedAt; d != nil && (d.Year() < 1970 || d.After(fuzzNow.Add(24*time.Hour)) || d.Location() != time.UTC) {
				t.Errorf("item %d: published at %v", i, d)
			}
		}
	})
}

var fuzzPageURLs = []string{
	"https://www.example.test/news/",
	"http://example.co.uk/",
	"https://blog.example.com/2026/03/index.html?page=2#top",
	"http://127.0.0.1:8080/",
	"https://xn--caf-dma.example/",
}

// fuzzSameSite is the meaning of "same site": the same host, or the same registrable domain.
func fuzzSameSite(a, b string) bool {
	norm := func(h string) string {
		return strings.TrimPrefix(strings.ToLower(strings.TrimSuffix(h, ".")), "www.")
	}
	a, b = norm(a), norm(b)
	if a == b {
		return true
	}
	ra, err1 := publicsuffix.EffectiveTLDPlusOne(a)
	rb, err2 := publicsuffix.EffectiveTLDPlusOne(b)
	return err1 == nil && err2 == nil && ra == rb
}

// FuzzPageLinks fetches arbitrary bytes as a web source and checks the article links it finds:
// absolute http(s), on the page's site, without fragment, not the page itself, no duplicates,
// with a title; and the feeds Detect finds on the page: absolute http(s), no duplicates.
func FuzzPageLinks(f *testing.F) {
	seeds := []string{
		`<!DOCTYPE html><html><head><title> News </title><base href="/news/"><link rel="alternate" type="application/rss+xml" href="feed.xml"><link rel="alternate" type="application/atom+xml" href="feed.xml#x"></head>
<body><nav><a href="/news/nav-story-link">A navigation link with many words</a></nav><main><article><h2><a href="2026/03/14/story">Story</a></h2>
<a href="2026/03/14/story#comments">12 comments on the story</a><a href="/tag/x">tag</a></article>
<a href="https://other.test/elsewhere-story-with-words">An article on another site entirely</a>
<a href="https://blog.example.test/posts/subdomain-story">A story on a subdomain of the same site</a>
<a href="javascript:alert(1)">A javascript link with many words</a><a href="mailto:a@b.test">Write to the news desk today</a>
<a href=" //www.example.test/news/protocol-relative-story ">A protocol-relative link to a story</a>
<a href="/news/photo" title="A photo story told in pictures"><img src="/p.jpg"></a><a href="/news/alt"><img alt="Pictures from the winter market"></a>
<a href="http://[::1]:80/x">An IPv6 link with several words</a><a href="https://www.example.test:8443/news/port-story">Story on another port of the site</a>
</main></body></html>`,
		`<body><h1><a href="/a">A</a><a href="/a">The same link with a longer title</a></h1><a href="?q=1">Query only link with words</a><a href="">empty</a></body>`,
		`<div><a href="https://example.co.uk/2026/story-one">A British story with enough words</a><a href="https://other.co.uk/story">Another British site with words</a></div>`,
		`<html><head><meta charset="windows-1251"></head><body><h2><a href="/x">` + "\xcf\xf0\xe8\xe2\xe5\xf2" + `</a></h2></body></html>`,
		`<p><a href="http://127.0.0.1:8080/story/one">A story on an IP address host</a><a href="http://127.0.0.2/story/two">Another IP address story here</a>`,
		`<body><article><a href="/news/` + strings.Repeat("a", 300) + `">` + strings.Repeat("word ", 100) + `</a></article></body>`,
	}
	for i, s := range seeds {
		f.Add([]byte(s), "text/html", uint8(i))
	}
	for name, b := range fuzzCorpus(f, "encodings", 24<<10) {
		if strings.HasSuffix(name, ".html") {
			f.Add(b, "text/html", uint8(0))
		}
	}
	f.Fuzz(func(t *testing.T, body []byte, contentType string, which uint8) {
		pageURL := fuzzPageURLs[int(which)%len(fuzzPageURLs)]
		page, _ := url.Parse(pageURL)
		self := *page
		self.Fragment, self.RawFragment = "", ""
		start := time.Now()
		res, err := fuzzFetcher(body, contentType).Fetch(context.Background(), Request{URL: pageURL, Type: app.SourceWeb})
		fuzzCheckTime(t, start, len(body))
		if err != nil {
			fuzzCheckError(t, err)
		} else {
			if !utf8.ValidString(res.Title) {
				t.Errorf("page title %q is invalid UTF-8", res.Title)
			}
			if len(res.Items) > MaxItems {
				t.Errorf("%d items, more than %d", len(res.Items), MaxItems)
			}
			seen := map[string]bool{}
			for i, it := range res.Items {
				if p := fuzzHTTPURL(it.Link); p != "" || it.Link == "" {
					t.Errorf("link %d %q: %s", i, it.Link, p)
					continue
				}
				u, _ := url.Parse(it.Link)
				switch {
				case it.GUID != it.Link:
					t.Errorf("link %d %q has GUID %q", i, it.Link, it.GUID)
				case seen[it.Link]:
					t.Errorf("link %d %q twice", i, it.Link)
				case u.Fragment != "" || strings.Contains(it.Link, "#"):
					t.Errorf("link %d %q has a fragment", i, it.Link)
				case it.Link == self.String():
					t.Errorf("link %d %q is the page itself", i, it.Link)
				case !fuzzSameSite(u.Hostname(), page.Hostname()):
					t.Errorf("link %d %q is not on the site of %s", i, it.Link, pageURL)
				}
				seen[it.Link] = true
				if p := fuzzPlain(it.Title); p != "" || it.Title == "" || utf8.RuneCountInString(it.Title) > 301 {
					t.Errorf("link %d %q: title %q: %s", i, it.Link, it.Title, p)
				}
			}
		}

		start = time.Now()
		det, err := fuzzFetcher(body, contentType).Detect(context.Background(), pageURL)
		fuzzCheckTime(t, start, len(body))
		if err != nil {
			fuzzCheckError(t, err)
			return
		}
		if !utf8.ValidString(det.Title) {
			t.Errorf("detected title %q is invalid UTF-8", det.Title)
		}
		seen := map[string]bool{}
		for i, fl := range det.Feeds {
			if p := fuzzHTTPURL(fl.URL); p != "" || fl.URL == "" {
				t.Errorf("feed %d %q: %s", i, fl.URL, p)
			}
			if seen[fl.URL] {
				t.Errorf("feed %d %q twice", i, fl.URL)
			}
			seen[fl.URL] = true
			if p := fuzzPlain(fl.Title); p != "" {
				t.Errorf("feed %d title %q: %s", i, fl.Title, p)
			}
		}
	})
}

var fuzzBases = []string{"https://e.test/a/b", "", "http://例え.jp/x/?q#f", "not a url", "mailto:x@e.test", "//e.test/protocol-relative"}

// FuzzSanitize checks that Sanitize leaves no script, style, frame, form, event handler or
// URL other than http(s) and mailto (data: included), that relative URLs are made absolute
// when the base is, that valid UTF-8 stays valid, that sanitizedText agrees with PlainText, and
// that sanitizing twice gives what sanitizing once gave.
func FuzzSanitize(f *testing.F) {
	seeds := []string{
		`<p>Hi</p><script>alert(1)</script>`,
		`<img src="https://e.test/a.png" onerror="alert(1)"><IMG SRC=JaVaScRiPt:alert(1)>`,
		`<a href="javascript:alert(1)">x</a><a href="java&#x09;script:alert(1)">y</a><a href=" &#14; javascript:alert(1)">z</a>`,
		`<a href="data:text/html,hi">x</a><img src="data:image/png;base64,AAAA">`,
		`<style>p{}</style><iframe src="https://e.test"></iframe><form action="/x"><input name=a><button formaction="javascript:x">b</button></form><p style="color:red">t</p>`,
		`<a href="../y">y</a><img src="/i.png" alt="i" srcset="i.png 1x, /j.png 2x"><blockquote cite="c">q</blockquote><video poster="p.png"></video>`,
		`<svg><script>alert(1)</script></svg><math><mi xlink:href="javascript:alert(1)">x</mi></math>`,
		`<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>`,
		`<table><tr><td>a<td>b</table><ul><li>one<li>two</ul><pre>  code  </pre>`,
		`<a href="mailto:a@e.test">mail</a><a href="https://e.test/x" target="_self" rel="opener">x</a>`,
		`<!-- <script> --><![CDATA[<script>]]><p>&lt;script&gt;&amp;</p>`,
		`<img usemap="#m"><map name="m"><area href="javascript:x" shape="rect" coords="1,2,3,4"></map>`,
		`<del cite="javascript:alert(1)">d</del><ins cite="https://e.test/">i</ins><q cite="vbscript:x">q</q>`,
		"<p>caf\xe9 \xff</p>",
		`<a href="https://e.test/a b">space</a><a href="http://[::1">bad</a><a href="%zz">pct</a>`,
	}
	for i, s := range seeds {
		f.Add(s, fuzzBases[i%len(fuzzBases)])
	}
	f.Fuzz(func(t *testing.T, s, base string) {
		out := Sanitize(s, base)
		b, err := url.Parse(base)
		abs := err == nil && b.IsAbs() && (b.Scheme == "http" || b.Scheme == "https") && b.Host != ""
		if p := fuzzHTMLProblem(out, abs); p != "" {
			t.Fatalf("Sanitize(%q, %q) = %q: %s", s, base, out, p)
		}
		if utf8.ValidString(s) && utf8.ValidString(base) && !utf8.ValidString(out) {
			t.Fatalf("Sanitize(%q, %q) = %q: invalid UTF-8 from valid", s, base, out)
		}
		if got, want := sanitizedText(out), PlainText(out); got != want {
			t.Fatalf("Sanitize(%q, %q) = %q: sanitizedText %q, PlainText %q", s, base, out, got, want)
		}
		if again := Sanitize(out, base); again != out {
			t.Fatalf("Sanitize is not idempotent on %q (base %q):\nonce:  %q\ntwice: %q", s, base, out, again)
		}
	})
}
