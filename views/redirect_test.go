package views_test

import (
	"net/http"
	"net/url"
	"testing"
)

// hostileTargets are redirect targets a form may carry that lead off the site once a browser
// has read them (issue 27, N6): a tab or a vertical tab is dropped, a backslash read as a slash.
var hostileTargets = []string{
	"/\t/evil.example/", "/\v/evil.example/", "/\f/evil.example/", "/\x00/evil.example/",
	"//evil.example", "/\\evil.example", "\\/evil.example", "https://evil.example/", "evil.example",
	"/\r\n/evil.example", "/\u0085/evil.example",
}

// A form's return= field sends the browser only to a path on this site; anything else falls back.
func TestReturnFieldOnlySameSitePaths(t *testing.T) {
	e := newEnv(t)
	for _, to := range hostileTargets {
		res, _ := e.form("/items/read", url.Values{"return": {to}})
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/items" {
			t.Errorf("return %q: %d Location %q, want the fallback /items", to, res.StatusCode, res.Header.Get("Location"))
		}
	}
	res, _ := e.form("/items/read", url.Values{"return": {"/items?show=all"}})
	if res.Header.Get("Location") != "/items?show=all" {
		t.Errorf("a plain local path: Location %q", res.Header.Get("Location"))
	}
}

// The sign-in form's next= field follows the same rule.
func TestLoginNextOnlySameSitePaths(t *testing.T) {
	for _, next := range hostileTargets {
		e := newAuthEnv(t) // a fresh limiter: these are more sign-ins than one address may make
		res, _ := e.req("POST", "/login", url.Values{"name": {"ann"}, "password": {"correct horse battery"}, "next": {next}}.Encode())
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" {
			t.Errorf("next %q: %d Location %q, want /", next, res.StatusCode, res.Header.Get("Location"))
		}
	}
}
