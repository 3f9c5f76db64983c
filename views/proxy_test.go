package views_test

import (
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"testing"

	"github.com/morningdeck/morningdeck/views"
)

// failedSignIns makes n wrong sign-ins, each with the X-Forwarded-For xff(i), and returns how
// many were refused as too many (429).
func failedSignIns(e *authEnv, n int, xff func(i int) string) int {
	refused := 0
	for i := range n {
		res, _ := e.req("POST", "/login", url.Values{"name": {"ann"}, "password": {fmt.Sprintf("guess %d", i)}}.Encode(),
			"X-Forwarded-For", xff(i))
		if res.StatusCode == http.StatusTooManyRequests {
			refused++
		} else if res.StatusCode != http.StatusUnauthorized {
			e.t.Fatalf("attempt %d: %d", i, res.StatusCode)
		}
	}
	return refused
}

// Issue 27, N11: without --trusted-proxy a client's X-Forwarded-For is not believed, even from
// loopback: 30 wrong passwords with a new address in the header each time are limited as the one
// peer they come from (on the old code: 30 × 401, no 429).
func TestLoginLimitIgnoresForwardedForWithoutTrustedProxy(t *testing.T) {
	e := newAuthEnv(t)
	if n := failedSignIns(e, 30, func(i int) string { return fmt.Sprintf("198.51.100.%d", i+1) }); n == 0 {
		t.Fatal("30 failed sign-ins from one peer with rotating X-Forwarded-For: no 429")
	}
}

// With the proxy trusted, each client behind it has its own limit: rotating clients are not held
// back by each other, one client guessing is.
func TestLoginLimitPerClientBehindTrustedProxy(t *testing.T) {
	e := newAuthEnvOpts(t, func(o *views.Options) {
		o.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}
	})
	if n := failedSignIns(e, 30, func(i int) string { return fmt.Sprintf("198.51.100.%d", i+1) }); n != 0 {
		t.Errorf("30 clients behind the trusted proxy, one attempt each: %d refused", n)
	}
	// A client that writes its own X-Forwarded-For gains nothing: the proxy appends the address
	// it saw, and that right-most one is the client.
	if n := failedSignIns(e, 30, func(i int) string { return fmt.Sprintf("203.0.113.%d, 192.0.2.7", i+1) }); n == 0 {
		t.Error("one client behind the proxy, 30 failed sign-ins: no 429")
	}
}
