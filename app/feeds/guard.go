package feeds

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// KindBlocked: the address is private, loopback or link-local, and the app is exposed.
const KindBlocked = "blocked"

// Guard refuses connections to addresses that are not on the public internet — loopback,
// private (RFC 1918, fc00::/7), link-local (169.254/16 with cloud metadata, fe80::/10),
// carrier-grade NAT, multicast, unspecified — unless an Allow prefix covers them. It checks
// the address actually dialled, so it holds after DNS resolution (no rebinding between check
// and use) and for every redirect, which dials again.
type Guard struct {
	Allow []netip.Prefix
}

// BlockedError is a connection the guard refused.
type BlockedError struct{ Addr netip.Addr }

func (e *BlockedError) Error() string {
	return fmt.Sprintf("%s is a private or local address, which Morning Deck does not fetch while it is reachable beyond this machine (allow it with --fetch-allow %s)", e.Addr, e.Addr)
}

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// Allowed reports whether the guard lets a connection to addr through.
func (g Guard) Allowed(addr netip.Addr) bool {
	addr = addr.Unmap()
	for _, p := range g.Allow {
		if p.Contains(addr) {
			return true
		}
	}
	return addr.IsGlobalUnicast() && !addr.IsPrivate() && !cgnat.Contains(addr)
}

// control is the net.Dialer hook.
func (g Guard) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &BlockedError{}
	}
	if !g.Allowed(ap.Addr()) {
		return &BlockedError{Addr: ap.Addr().Unmap()}
	}
	return nil
}

// GuardedTransport is the fetcher's transport with the guard on every connection. It uses no
// proxy from the environment: through a proxy the guard would only see the proxy's address.
func GuardedTransport(opts Options, g Guard) http.RoundTripper {
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 10 * time.Second
	}
	t := newTransport(opts)
	t.Proxy = nil
	t.DialContext = (&net.Dialer{Timeout: opts.ConnectTimeout, KeepAlive: 30 * time.Second, Control: g.control}).DialContext
	return t
}
