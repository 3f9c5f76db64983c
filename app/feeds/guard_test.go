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

	t.Run("what counts as private", func(t *testing.T) {
		g := feeds.Guard{}
		for addr, want := range map[string]bool{
			"93.184.216.34": true, "2606:2800:220:1::": true,
			"127.0.0.1": false, "10.1.2.3": false, "172.16.0.1": false, "192.168.1.10": false, "169.254.169.254": false,
			"100.64.0.1": false, "0.0.0.0": false, "::1": false, "fe80::1": false, "fd00::1": false, "::ffff:127.0.0.1": false, "224.0.0.1": false,
		} {
			if got := g.Allowed(netip.MustParseAddr(addr)); got != want {
				t.Errorf("%s allowed = %v", addr, got)
			}
		}
	})
}
