package views

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"syscall"
	"testing"
)

// X-Forwarded-For decides the client of the sign-in limit only when the peer is this machine
// (a reverse proxy in front of the app); from any other peer it is the client's own words.
func TestClientIPTrustsForwardedForFromLoopbackOnly(t *testing.T) {
	for _, c := range []struct{ peer, xff, want string }{
		{"203.0.113.9:5000", "198.51.100.1", "203.0.113.9"},
		{"192.168.1.20:5000", "127.0.0.1", "192.168.1.20"},
		{"127.0.0.1:5000", "198.51.100.1", "198.51.100.1"},
		{"127.0.0.1:5000", "10.9.9.9, 198.51.100.1", "198.51.100.1"}, // the proxy's own entry is the last
		{"[::1]:5000", "198.51.100.2", "198.51.100.2"},
		{"127.0.0.1:5000", "not-an-ip", "127.0.0.1"},
		{"127.0.0.1:5000", "", "127.0.0.1"},
	} {
		r := httptest.NewRequest("POST", "/login", nil)
		r.RemoteAddr = c.peer
		if c.xff != "" {
			r.Header.Set("X-Forwarded-For", c.xff)
		}
		if got := clientIP(r); got != c.want {
			t.Errorf("peer %s, X-Forwarded-For %q: client %s, want %s", c.peer, c.xff, got, c.want)
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
