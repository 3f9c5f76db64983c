package views

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"syscall"
	"testing"
)

// X-Forwarded-For decides the client of the sign-in limit only when the peer is a trusted proxy
// (--trusted-proxy), and then the right-most address that is not a trusted proxy is the client.
// With none trusted (the default) even a loopback peer's header is ignored (issue 27, N11:
// before, any loopback peer's last entry was believed, so a client on this machine, or a proxy
// that passes the header on, could rotate it past the limit).
func TestClientIPTrustsForwardedForFromTrustedProxiesOnly(t *testing.T) {
	loop := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}
	two := append([]netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}, loop...)
	for _, c := range []struct {
		peer, xff, want string
		trusted         []netip.Prefix
	}{
		{"127.0.0.1:5000", "198.51.100.1", "127.0.0.1", nil}, // none trusted: the peer
		{"[::1]:5000", "198.51.100.2", "::1", nil},
		{"203.0.113.9:5000", "198.51.100.1", "203.0.113.9", loop},
		{"192.168.1.20:5000", "127.0.0.1", "192.168.1.20", loop},
		{"127.0.0.1:5000", "198.51.100.1", "198.51.100.1", loop},
		{"127.0.0.1:5000", "10.9.9.9, 198.51.100.1", "198.51.100.1", loop}, // the proxy's own entry is the last
		{"[::1]:5000", "198.51.100.2", "198.51.100.2", loop},
		{"127.0.0.1:5000", "198.51.100.3, 10.1.1.1", "198.51.100.3", two}, // two proxies in a row
		{"127.0.0.1:5000", "10.2.2.2, 10.1.1.1", "10.2.2.2", two},         // nothing but proxies: the farthest
		{"127.0.0.1:5000", "198.51.100.4, not-an-ip, 10.1.1.1", "10.1.1.1", two},
		{"127.0.0.1:5000", "::ffff:198.51.100.5", "198.51.100.5", loop},
		{"127.0.0.1:5000", "not-an-ip", "127.0.0.1", loop},
		{"127.0.0.1:5000", "", "127.0.0.1", loop},
	} {
		r := httptest.NewRequest("POST", "/login", nil)
		r.RemoteAddr = c.peer
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		if got := clientIP(r, c.trusted); got != c.want {
			t.Errorf("peer %s, X-Forwarded-For %q, trusted %v: client %s, want %s", c.peer, c.xff, c.trusted, got, c.want)
		}
	}
}

// A client that went away (context canceled, broken pipe, reset) is logged at debug, not ERROR.
func TestClientDisconnectLoggedAtDebug(t *testing.T) {
	var buf bytes.Buffer
	s := &Server{log: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	gone := httptest.NewRequest("GET", "/items", nil).WithContext(ctx)
	here := httptest.NewRequest("GET", "/items", nil)
	for _, c := range []struct {
		r     *http.Request
		err   error
		level string
	}{
		{gone, fmt.Errorf("sqlite: items: %w", context.Canceled), "level=DEBUG"},
		{here, fmt.Errorf("write: %w", syscall.EPIPE), "level=DEBUG"},
		{here, fmt.Errorf("write: %w", syscall.ECONNRESET), "level=DEBUG"},
		{here, errors.New("sqlite: no such table"), "level=ERROR"},
	} {
		buf.Reset()
		s.logFailure(c.r, "request failed", c.err)
		if !strings.Contains(buf.String(), c.level) {
			t.Errorf("%v: logged %q, want %s", c.err, buf.String(), c.level)
		}
	}
}
