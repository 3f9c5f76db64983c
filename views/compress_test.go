package views_test

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/static"
)

// TestCompression: answers to a client on another machine that accepts gzip are compressed
// when they are text of some size — pages, live fragments, JSON, the stylesheet — and their
// conditional requests still end in 304; loopback clients, short answers, partial answers and
// clients that refuse gzip get the bytes as they are.
func TestCompression(t *testing.T) {
	e := newEnv(t)
	for i := range 60 {
		src := e.createSource(fmt.Sprintf("https://s%02d.example/feed", i), fmt.Sprintf("Source %02d", i))
		e.fetch(src.ID, app.Item{GUID: "1", Title: fmt.Sprintf("Story of source %02d", i), Link: fmt.Sprintf("https://s%02d.example/1", i), Text: "x"})
	}
	handler := e.srv.Config.Handler
	ask := func(remote, path string, header http.Header) (*http.Response, string) {
		t.Helper()
		req := httptest.NewRequest("GET", path, nil)
		req.RemoteAddr = remote
		for k, v := range header {
			req.Header[k] = v
		}
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		res := rec.Result()
		var body io.Reader = res.Body
		if res.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(res.Body)
			if err != nil {
				t.Fatalf("%s: the gzip stream: %v", path, err)
			}
			body = zr
		}
		b, err := io.ReadAll(body)
		if err != nil {
			t.Fatalf("%s: reading the body: %v", path, err)
		}
		if n := res.Header.Get("Content-Length"); n != "" && res.Header.Get("Content-Encoding") == "gzip" {
			t.Errorf("%s: a compressed answer keeps the Content-Length %s of its uncompressed body", path, n)
		}
		return res, string(b)
	}
	const phone, local, local6 = "192.168.1.23:50111", "127.0.0.1:50111", "[::1]:50111"
	gz := http.Header{"Accept-Encoding": {"gzip, deflate, br"}}

	res, body := ask(phone, "/sources", gz)
	if res.StatusCode != 200 || res.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(strings.Join(res.Header.Values("Vary"), ","), "Accept-Encoding") ||
		!strings.Contains(body, "Source 59") || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("the Sources page to a phone: %d, encoding %q, vary %q, type %q, %d bytes", res.StatusCode, res.Header.Get("Content-Encoding"),
			res.Header.Values("Vary"), res.Header.Get("Content-Type"), len(body))
	}
	for _, remote := range []string{local, local6} {
		res, plain := ask(remote, "/sources", gz)
		if res.Header.Get("Content-Encoding") != "" || !strings.Contains(plain, "Source 59") {
			t.Fatalf("the Sources page to %s: encoding %q", remote, res.Header.Get("Content-Encoding"))
		}
	}

	// The live list: compressed, its ETag weak, and asking again with it is a 304 without a body.
	res, _ = ask(phone, "/fragments/sources", gz)
	tag := res.Header.Get("ETag")
	if res.Header.Get("Content-Encoding") != "gzip" || !strings.HasPrefix(tag, `W/"`) {
		t.Fatalf("the live list: encoding %q, ETag %q", res.Header.Get("Content-Encoding"), tag)
	}
	res, body = ask(phone, "/fragments/sources", http.Header{"Accept-Encoding": {"gzip"}, "If-None-Match": {tag}})
	if res.StatusCode != http.StatusNotModified || body != "" || res.Header.Get("Content-Encoding") != "" ||
		res.Header.Get("ETag") != tag || !strings.Contains(strings.Join(res.Header.Values("Vary"), ","), "Accept-Encoding") {
		t.Fatalf("the live list asked again with its ETag: %d, encoding %q, %d bytes, ETag %q (want the 200's %q), Vary %q", res.StatusCode,
			res.Header.Get("Content-Encoding"), len(body), res.Header.Get("ETag"), tag, res.Header.Values("Vary"))
	}

	// JSON and the stylesheet (served with its own conditional handling).
	res, body = ask(phone, "/api/sources", gz)
	if res.Header.Get("Content-Encoding") != "gzip" || !strings.HasPrefix(body, "[") || !strings.Contains(body, "Source 07") {
		t.Fatalf("the API's list: encoding %q, body %.60q", res.Header.Get("Content-Encoding"), body)
	}
	css := static.Path("app.css")
	res, body = ask(phone, css, gz)
	tag = res.Header.Get("ETag")
	if res.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(body, "svg.i") || !strings.HasPrefix(tag, `W/"`) {
		t.Fatalf("the stylesheet: encoding %q, ETag %q, %d bytes", res.Header.Get("Content-Encoding"), tag, len(body))
	}
	if res, _ = ask(phone, css, http.Header{"Accept-Encoding": {"gzip"}, "If-None-Match": {tag}}); res.StatusCode != http.StatusNotModified || res.Header.Get("ETag") != tag {
		t.Fatalf("the stylesheet asked again with its ETag: %d, ETag %q", res.StatusCode, res.Header.Get("ETag"))
	}

	// Left as they are: a short answer, a partial one, and clients that do not take gzip.
	if res, body = ask(phone, "/healthz", gz); res.Header.Get("Content-Encoding") != "" || !strings.Contains(body, `"ok"`) {
		t.Errorf("a short answer: encoding %q, body %q", res.Header.Get("Content-Encoding"), body)
	}
	if res, body = ask(phone, css, http.Header{"Accept-Encoding": {"gzip"}, "Range": {"bytes=0-9"}}); res.StatusCode != http.StatusPartialContent ||
		res.Header.Get("Content-Encoding") != "" || len(body) != 10 {
		t.Errorf("a range: %d, encoding %q, %d bytes", res.StatusCode, res.Header.Get("Content-Encoding"), len(body))
	}
	for _, accept := range []string{"", "identity", "br", "gzip;q=0", "gzip; q=0.000, deflate", "*;q=0"} {
		if res, _ := ask(phone, "/sources", http.Header{"Accept-Encoding": {accept}}); res.Header.Get("Content-Encoding") != "" {
			t.Errorf("Accept-Encoding %q: compressed anyway", accept)
		}
	}
	for _, accept := range []string{"GZIP", "deflate, gzip;q=0.5", "*", "x-gzip"} {
		if res, _ := ask(phone, "/sources", http.Header{"Accept-Encoding": {accept}}); res.Header.Get("Content-Encoding") != "gzip" {
			t.Errorf("Accept-Encoding %q: not compressed", accept)
		}
	}
}
