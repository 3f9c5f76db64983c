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
	if !e.Addr.IsValid() {
		return "the address is not an IP address we can check, which Morning Deck does not connect to while it is reachable beyond this machine"
	}
	return fmt.Sprintf("%s is a private or local address, which Morning Deck does not fetch while it is reachable beyond this machine (allow it with --fetch-allow %s)", e.Addr, e.Addr)
}

var (
	cgnat = netip.MustParsePrefix("100.64.0.0/10")
	// IPv6 forms that carry an IPv4 address, which the guard judges by that address:
	nat64      = netip.MustParsePrefix("64:ff9b::/96")   // well-known NAT64 prefix (RFC 6052)
	sixToFour  = netip.MustParsePrefix("2002::/16")      // 6to4: the IPv4 address in bits 16-47
	teredo     = netip.MustParsePrefix("2001::/32")      // Teredo: the client's IPv4, inverted, in the last 32 bits
	v4Compat   = netip.MustParsePrefix("::/96")          // IPv4-compatible (deprecated): ::a.b.c.d
	localNAT64 = netip.MustParsePrefix("64:ff9b:1::/48") // local-use NAT64 (RFC 8215): a private network's
)

// Allowed reports whether the guard lets a connection to addr through. An IPv6 address that
// embeds an IPv4 one (mapped, compatible, NAT64, 6to4, Teredo) is judged by the IPv4 address
// too, so that a private address cannot be reached through a translator.
func (g Guard) Allowed(addr netip.Addr) bool {
	addr = addr.Unmap()
	for _, p := range g.Allow {
		if p.Contains(addr) {
			return true
		}
	}
	if !addr.IsGlobalUnicast() || addr.IsPrivate() || cgnat.Contains(addr) || localNAT64.Contains(addr) {
		return false
	}
	if v4, ok := embeddedIPv4(addr); ok {
		return g.Allowed(v4)
	}
	return true
}

// embeddedIPv4 returns the IPv4 address an IPv6 address carries, if it is of a form that does.
func embeddedIPv4(a netip.Addr) (netip.Addr, bool) {
	if !a.Is6() {
		return netip.Addr{}, false
	}
	b := a.As16()
	switch {
	case nat64.Contains(a), v4Compat.Contains(a):
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}), true
	case sixToFour.Contains(a):
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}), true
	case teredo.Contains(a):
		return netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]}), true
	}
	return netip.Addr{}, false
}

// Check reports whether the guard lets a connection to address ("host:port", host an IP
// address: what a net.Dialer's Control hook is given) through: nil, or a *BlockedError.
// Other clients that dial addresses a user chose (an LLM base URL, an SMTP host) use it, or
// Dialer, to get the same protection as fetching.
func (g Guard) Check(address string) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &BlockedError{}
	}
	if !g.Allowed(ap.Addr()) {
		return &BlockedError{Addr: ap.Addr().Unmap()}
	}
	return nil
}

// Dialer returns a net.Dialer with the guard on every connection it makes (after DNS
// resolution, so a name that resolves to a private address is refused too).
func (g Guard) Dialer(connectTimeout time.Duration) *net.Dialer {
	if connectTimeout <= 0 {
		connectTimeout = DefaultConnectTimeout
	}
	return &net.Dialer{Timeout: connectTimeout, KeepAlive: 30 * time.Second, Control: g.control}
}

// control is the net.Dialer hook.
func (g Guard) control(_, address string, _ syscall.RawConn) error { return g.Check(address) }

// GuardedTransport is the fetcher's transport with the guard on every connection. It uses no
// proxy from the environment: through a proxy the guard would only see the proxy's address.
func GuardedTransport(opts Options, g Guard) http.RoundTripper {
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 10 * time.Second
	}
	t := newTransport(opts)
	t.Proxy = nil
	t.DialContext = g.Dialer(opts.ConnectTimeout).DialContext
	return t
}
