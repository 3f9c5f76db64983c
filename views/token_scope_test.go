package views_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// Issue 27, N3: an API token is only a token. With "Authorization: Bearer" a client reads and
// changes reading state and sources through the JSON API and the Reader API; it cannot open
// the Account page, make or revoke tokens, change the password, or open any page (on the old
// code GET /account answered 200 and POST /account/tokens made "minted-by-token").
func TestAPITokenIsOnlyAToken(t *testing.T) {
	e := newAuthEnv(t)
	tok := e.token(e.bob)
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/account", ""},
		{"POST", "/account/tokens", url.Values{"name": {"minted-by-token"}}.Encode()},
		{"POST", "/account/tokens/1/delete", ""},
		{"POST", "/account/password", url.Values{"current": {"another long secret"}, "new": {"taken over by a token"}}.Encode()},
		{"GET", "/", ""},
		{"GET", "/items", ""},
		{"GET", "/settings", ""},
		{"POST", "/settings", url.Values{"timezone": {"UTC"}}.Encode()},
		{"GET", "/sources", ""},
		{"POST", "/logout", ""},
	} {
		res, body := e.req(c.method, c.path, c.body, "Authorization", tok)
		if res.StatusCode != http.StatusForbidden || !strings.Contains(body, "API tokens cannot") {
			t.Errorf("token %s %s: %d %.200s", c.method, c.path, res.StatusCode, body)
		}
	}
	toks, err := e.accounts.APITokens(context.Background(), e.bob.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range toks {
		if k.Name == "minted-by-token" {
			t.Error("a token made another token")
		}
	}
	if len(toks) != 1 {
		t.Errorf("bob has %d tokens, want his one", len(toks))
	}
	if _, err := e.accounts.CheckPassword(context.Background(), "bob", "another long secret"); err != nil {
		t.Errorf("the password changed: %v", err)
	}

	// What a token is for still works: the JSON API and the Reader API.
	for _, path := range []string{"/api/items", "/api/sources", "/api/folders"} {
		if res, body := e.req("GET", path, "", "Authorization", tok); res.StatusCode != http.StatusOK {
			t.Errorf("token GET %s: %d %s", path, res.StatusCode, body)
		}
	}
	if res, body := e.req("POST", "/api/items/read", "", "Authorization", tok); res.StatusCode != http.StatusOK {
		t.Errorf("token POST /api/items/read: %d %s", res.StatusCode, body)
	}
	if res, body := e.req("GET", "/api/greader/reader/api/0/subscription/list?output=json", "", "Authorization", "GoogleLogin auth="+strings.TrimPrefix(tok, "Bearer ")); res.StatusCode != http.StatusOK {
		t.Errorf("Reader API with the token: %d %s", res.StatusCode, body)
	}
	if res, body := e.req("GET", "/api/greader/reader/api/0/unread-count?output=json", "", "Authorization", tok); res.StatusCode != http.StatusOK {
		t.Errorf("Reader API with Bearer: %d %s", res.StatusCode, body)
	}

	// The web session is separate and keeps every page.
	cookie := e.login("bob", "another long secret")
	for _, path := range []string{"/account", "/settings", "/"} {
		if res, _ := e.req("GET", path, "", "Cookie", cookie); res.StatusCode != http.StatusOK {
			t.Errorf("session GET %s: %d", path, res.StatusCode)
		}
	}
	if res, body := e.req("POST", "/account/tokens", url.Values{"name": {"made-in-the-browser"}}.Encode(), "Cookie", cookie); res.StatusCode >= 400 {
		t.Errorf("session POST /account/tokens: %d %.200s", res.StatusCode, body)
	}
}

// A revoked token stops working on the very next request, in both APIs: nothing keeps it valid.
func TestRevokedTokenStopsAtOnce(t *testing.T) {
	e := newAuthEnv(t)
	tok := e.token(e.bob)
	if res, _ := e.req("GET", "/api/items", "", "Authorization", tok); res.StatusCode != http.StatusOK {
		t.Fatalf("before: %d", res.StatusCode)
	}
	if res, _ := e.req("GET", "/api/greader/reader/api/0/unread-count?output=json", "", "Authorization", tok); res.StatusCode != http.StatusOK {
		t.Fatalf("Reader API before: %d", res.StatusCode)
	}
	toks, err := e.accounts.APITokens(context.Background(), e.bob.ID)
	if err != nil || len(toks) != 1 {
		t.Fatal(toks, err)
	}
	cookie := e.login("bob", "another long secret")
	if res, body := e.req("POST", fmt.Sprintf("/account/tokens/%d/delete", toks[0].ID), "", "Cookie", cookie); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("revoke: %d %.200s", res.StatusCode, body)
	}
	if res, _ := e.req("GET", "/api/items", "", "Authorization", tok); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("the next JSON API request after revoking: %d", res.StatusCode)
	}
	if res, _ := e.req("GET", "/api/greader/reader/api/0/unread-count?output=json", "", "Authorization", tok); res.StatusCode != http.StatusUnauthorized {
		t.Errorf("the next Reader API request after revoking: %d", res.StatusCode)
	}
}
