package feeds_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
)

const tinyFeed = `<?xml version="1.0"?><rss version="2.0"><channel><title>T</title><item><title>A</title><link>https://example.com/a</link><guid>a</guid></item></channel></rss>`

// serveOn starts a feed server on a given loopback address.
func serveOn(t *testing.T, addr string, h http.Handler) *httptest.Server {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen on %s: %v", addr, err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv
}

func TestGuard(t *testing.T) {
	ctx := context.Background()
	feed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		_, _ = w.Write([]byte(tinyFeed))
	})
	guarded := func(allow ...string) *feeds.Fetcher {
		g := feeds.Guard{}
		for _, a := range allow {
			g.Allow = append(g.Allow, netip.MustParsePrefix(a))
		}
		o := feeds.Options{}
		o.Transport = feeds.GuardedTransport(o, g)
		return feeds.New(o)
	}
	blocked := func(t *testing.T, err error) {
		t.Helper()
		var be *feeds.BlockedError
		if !errors.As(err, &be) || !strings.Contains(err.Error(), "private or local address") {
			t.Fatalf("want a blocked error, got %v", err)
		}
	}

	t.Run("loopback is refused, by IP and by a name that resolves to it; an allowed range passes", func(t *testing.T) {
		srv := serveOn(t, "127.0.0.1:0", feed)
		_, err := guarded().Fetch(ctx, feeds.Request{Type: app.SourceRSS, URL: srv.URL + "/feed"})
		blocked(t, err)
		_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
		_, err = guarded().Fetch(ctx, feeds.Request{Type: app.SourceRSS, URL: "http://localhost:" + port + "/feed"})
		blocked(t, err)
		res, err := guarded("127.0.0.1/32").Fetch(ctx, feeds.Request{Type: app.SourceRSS, URL: srv.URL + "/feed"})
		if err != nil || len(res.Items) != 1 {
			t.Fatalf("allowed: %v", err)
		}
	})

	t.Run("a redirect to a refused address is refused", func(t *testing.T) {
		inner := serveOn(t, "127.0.0.2:0", feed)
		outer := serveOn(t, "127.0.0.1:0", http.RedirectHandler(inner.URL+"/feed", http.StatusFound))
		_, err := guarded("127.0.0.1/32").Fetch(ctx, feeds.Request{Type: app.SourceRSS, URL: outer.URL + "/feed"})
		blocked(t, err)
	})

	// Issue 27, N12: the refusal named the URL's first host ("127.0.0.1 resolves to 127.0.0.2",
	// "The host name 127.0.0.1 could not be found" after a redirect to an unknown name).
	t.Run("a refusal names the host that was refused: an address as itself, a name with what it resolves to", func(t *testing.T) {
		message := func(t *testing.T, err error) string {
			t.Helper()
			var fe *feeds.Error
			if !errors.As(err, &fe) {
				t.Fatalf("want a feeds.Error, got %v", err)
			}
			return fe.Message
		}
		srv := serveOn(t, "127.0.0.1:0", feed)
		_, err := guarded().Fetch(ctx, feeds.Request{Type: app.SourceRSS, URL: srv.URL + "/feed"})
		if m := message(t, err); !strings.HasPrefix(m, "127.0.0.1 is a private or local address, which Morning Deck does not fetch") || strings.Contains(m, "resolves") {
			t.Errorf("an IP literal: %q", m)
		}
		_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
		_, err = guarded().Fetch(ctx, feeds.Request{Type: app.SourceRSS, URL: "http://localhost:" + port + "/feed"})
		if m := message(t, err); !strings.HasPrefix(m, "localhost resolves to ") || !strings.Contains(m, ", a private or local address, which Morning Deck does not fetch") {
			t.Errorf("a name: %q", m)
		}

		inner := serveOn(t, "127.0.0.2:0", feed)
		outer := serveOn(t, "127.0.0.1:0", http.RedirectHandler(inner.URL+"/feed", http.StatusFound))
		_, err = guarded("127.0.0.1/32").Fetch(ctx, feeds.Request{Type: app.SourceRSS, URL: outer.URL + "/feed"})
		if m := message(t, err); !strings.HasPrefix(m, "127.0.0.2 is a private or local address") || strings.Contains(m, "127.0.0.1") {
			t.Errorf("a redirect to another address: %q", m)
		}
		lost := serveOn(t, "127.0.0.1:0", http.RedirectHandler("http://nonexistent.invalid/feed", http.StatusFound))
		_, err = guarded("127.0.0.1/32").Fetch(ctx, feeds.Request{Type: app.SourceRSS, URL: lost.URL + "/feed"})
		if m := message(t, err); m != "The host name nonexistent.invalid could not be found." {
			t.Errorf("a redirect to an unknown name: %q", m)
		}
	})

	t.Run("the exported dialer refuses what the guard refuses", func(t *testing.T) {
		srv := serveOn(t, "127.0.0.1:0", feed)
		_, err := feeds.Guard{}.Dialer(0).DialContext(ctx, "tcp", srv.Listener.Addr().String())
		blocked(t, err)
		conn, err := feeds.Guard{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}.Dialer(0).DialContext(ctx, "tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatalf("allowed: %v", err)
		}
		conn.Close()
		if err := (feeds.Guard{}).Check("not an address"); err == nil {
			t.Fatal("Check let a non-address through")
		}
	})

	t.Run("what counts as private", func(t *testing.T) {
		g := feeds.Guard{}
		for addr, want := range map[string]bool{
			"93.184.216.34": true, "2606:2800:220:1::": true,
			"127.0.0.1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.10": false, "169.254.169.254": false,
			"100.64.0.1": false, "0.0.0.0": false, "::1": false, "fe80::1": false, "fd00::1": false, "::ffff:127.0.0.1": false, "224.0.0.1": false,
			// IPv6 forms of IPv4 addresses: judged by the IPv4 address they carry.
			"64:ff9b::7f00:1": false, "64:ff9b::a00:1": false, "64:ff9b::c0a8:101": false, "64:ff9b::a9fe:a9fe": false,
			"64:ff9b::5db8:d822":   true,  // NAT64 of 93.184.216.34, a public address
			"64:ff9b:1::5db8:d822": false, // local-use NAT64: a private network's translator
			"2002:7f00:1::":        false, "2002:a00:1::1": false, "2002:c0a8:101::": false, "2002:5db8:d822::1": true,
			"::127.0.0.1": false, "::10.0.0.1": false, "::ffff:10.0.0.1": false, "::ffff:169.254.169.254": false,
			"2001:0:4136:e378:8000:63bf:80ff:fffe": false, // Teredo, client 127.0.0.1
		} {
			if got := g.Allowed(netip.MustParseAddr(addr)); got != want {
				t.Errorf("%s allowed = %v", addr, got)
			}
			err := g.Check(net.JoinHostPort(addr, "443"))
			if ok := err == nil; ok != want {
				t.Errorf("Check(%s) = %v", addr, err)
			}
		}
	})
}
