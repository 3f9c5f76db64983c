package feeds

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/metrics"
)

var (
	errTooManyRedirects = errors.New("feeds: too many redirects")
	errFetchTimeout     = errors.New("feeds: fetch timed out")
)

// redirectError is a redirect to an address that is not http(s) (file:, ftp:, data:…).
type redirectError struct{ scheme string }

func (e *redirectError) Error() string { return "feeds: redirect to a " + e.scheme + ": address" }

// gzipMagic starts every gzip stream.
var gzipMagic = []byte{0x1f, 0x8b, 0x08}

func newTransport(opts Options) *http.Transport {
	dialer := &net.Dialer{Timeout: opts.ConnectTimeout, KeepAlive: 30 * time.Second}
	return &http.Transport{
		Proxy:             http.ProxyFromEnvironment,
		DialContext:       dialer.DialContext,
		ForceAttemptHTTP2: true,
		// Sources are fetched in bursts minutes apart: a connection is worth keeping for the
		// rest of a burst, not longer. Each idle connection holds two goroutines and its
		// buffers: 100 of them were ~3 MB of peak RSS with 8 KB of buffers, and keep a connection to each of 100
		// hosts through a burst (with 32, a host whose feeds are spread over the burst was
		// dialled again for nearly every feed: an all-304 cycle of 1,000 feeds over 100 hosts
		// took 0.36–0.45 s, now 0.26–0.31 s; issue 14).
		MaxIdleConns:        100,
		MaxIdleConnsPerHost: 4,
		// A connection's buffers (4 KB each by default) are smaller: a request is a few
		// hundred bytes, and a body is mostly read past the read buffer, straight into the
		// fetch's own; the response's header lines pass through it. 100 connections hold
		// 0.5 MB less, ~1 MB of peak RSS at the collector's default (issue 26).
		WriteBufferSize:       1 << 10,
		ReadBufferSize:        2 << 10,
		IdleConnTimeout:       30 * time.Second,
		TLSHandshakeTimeout:   opts.ConnectTimeout,
		ExpectContinueTimeout: time.Second,
	}
}

// response is a fetched body with what we need of its headers.
type response struct {
	notModified bool
	status      int
	header      http.Header
	body        []byte
	finalURL    *url.URL
	release     func() // frees the body's slot (see getMax); nil without a body
}

// done frees the response's slot, once its body has been parsed; it may be called again.
func (r *response) done() {
	if r != nil && r.release != nil {
		r.release()
		r.release = nil
	}
}

// contentType returns the media type and charset of the response.
func (r *response) contentType() (mediaType, charset string) {
	mt, params, err := mime.ParseMediaType(r.header.Get("Content-Type"))
	if err != nil {
		return "", ""
	}
	return mt, params["charset"]
}

// parseURL checks that raw is an absolute http(s) URL.
func parseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, app.Errorf(app.EINVALID, "%q is not a web address (http or https).", raw)
	}
	return u, nil
}

// get fetches rawURL with the Fetcher's limits. accept is the Accept header.
func (f *Fetcher) get(ctx context.Context, rawURL, accept, etag, lastModified string) (*response, error) {
	return f.getMax(ctx, rawURL, accept, etag, lastModified, f.opts.MaxBodyBytes)
}

// getMax is get with a smaller body limit (icons). A response with a body holds one of the
// Fetcher's slots: the caller frees it with done once it has parsed the body.
func (f *Fetcher) getMax(ctx context.Context, rawURL, accept, etag, lastModified string, maxBytes int64) (*response, error) {
	return f.fetchBody(ctx, rawURL, accept, etag, lastModified, maxBytes, true)
}

// getPage is getMax for a page whose small body needs no parse slot (article text, a page's
// icon link, an icon): the process workers already bound how many are read at once, and the
// feeds' parses do not wait behind them; a body past freeBodyBytes still takes a large-body
// slot.
func (f *Fetcher) getPage(ctx context.Context, rawURL, accept string, maxBytes int64) (*response, error) {
	return f.fetchBody(ctx, rawURL, accept, "", "", maxBytes, false)
}

// fetchBody is getMax; smallSlot says whether a body of at most freeBodyBytes takes a parse slot.
func (f *Fetcher) fetchBody(ctx context.Context, rawURL, accept, etag, lastModified string, maxBytes int64, smallSlot bool) (*response, error) {
	u, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	host := strings.ToLower(u.Host)
	if until, ok := f.pauses.get(host, f.clock.Now()); ok {
		wait := until.Sub(f.clock.Now()).Round(time.Second)
		return nil, &Error{Kind: KindHostPaused, RetryAfter: wait,
			Message: fmt.Sprintf("%s asked us to wait; we will try again in %s.", u.Hostname(), wait)}
	}
	release, err := f.hosts.acquire(ctx, host)
	if err != nil {
		return nil, err
	}
	defer release()

	parent := ctx
	ctx, cancel := context.WithTimeoutCause(ctx, f.opts.Timeout, errFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, app.Errorf(app.EINVALID, "%q is not a web address we can fetch.", rawURL)
	}
	req.Header.Set("User-Agent", f.opts.UserAgent)
	req.Header.Set("Accept", accept)
	req.Header.Set("Accept-Encoding", "gzip")
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	if lastModified != "" {
		req.Header.Set("If-Modified-Since", lastModified)
	}

	resp, err := f.client.Do(req)
	if err != nil {
		metrics.Fetched(0)
		return nil, f.netError(ctx, u, err)
	}
	defer resp.Body.Close()
	metrics.Fetched(resp.StatusCode)
	res := &response{status: resp.StatusCode, header: resp.Header, finalURL: resp.Request.URL}

	switch {
	case resp.StatusCode == http.StatusNotModified:
		res.notModified = true
		return res, nil
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		_, _ = io.CopyN(io.Discard, resp.Body, 4<<10) // lets the connection be reused
		e := &Error{Kind: KindHTTPStatus, StatusCode: resp.StatusCode,
			Message: fmt.Sprintf("The server answered %s.", statusText(resp.StatusCode))}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			if d, ok := parseRetryAfter(resp.Header.Get("Retry-After"), f.clock.Now()); ok {
				e.RetryAfter = d
				e.Message += fmt.Sprintf(" It asked us to wait %s.", d)
				f.pauses.set(host, f.clock.Now().Add(d))
			}
		}
		return nil, e
	}

	tooLarge := &Error{Kind: KindTooLarge, Message: fmt.Sprintf("The response is larger than %s.", app.FormatSize(maxBytes))}
	var body io.Reader = resp.Body
	switch enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))); {
	case resp.Uncompressed, enc == "", enc == "identity":
		if resp.ContentLength > maxBytes {
			return nil, tooLarge // refused unread
		}
	case enc == "gzip", enc == "x-gzip":
	default:
		return nil, &Error{Kind: KindParse, Message: fmt.Sprintf("The server compressed the response with %q, which we did not ask for and cannot read.", app.Shorten(enc, 40))}
	}
	// A gzip stream is decoded whether or not the server said so (a feed.xml.gz served as
	// application/gzip, or compressed twice), at most twice, and the limit is on what comes out.
	for range 2 {
		br := bufio.NewReader(body)
		if magic, _ := br.Peek(len(gzipMagic)); !bytes.Equal(magic, gzipMagic) {
			body = br
			break
		}
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &Error{Kind: KindParse, Message: "The server sent a broken compressed response.", Err: err}
		}
		defer zr.Close()
		body = zr
	}
	// The body is read into one buffer of its size when that is known, so that it is not
	// regrown from 512 bytes (a feed's body is tens of KB, and Go's transport decompressing gzip
	// does not know its size). Its first freeBodyBytes are read without a slot: a request whose
	// body is small holds little, however slowly it comes. Then it takes a slot, which the
	// caller holds through the parse and frees with res.done (issue 27): a body of at most
	// freeBodyBytes one of the parse slots (Options.Parsers), a larger one, read on in that
	// slot, one of the large-body slots (Options.LargeBodies). A request holds one slot, never
	// waits for a second. So, whatever door bodies come through (a fetch, adding a source,
	// article text, icons), at most LargeBodies of them larger than freeBodyBytes are in memory
	// and parsed at once: the 10 MB hostile feeds whose parse takes ~100 MB.
	hint := int64(32 << 10)
	if resp.ContentLength >= 0 && !resp.Uncompressed {
		hint = resp.ContentLength
		if gz := strings.ToLower(resp.Header.Get("Content-Encoding")); strings.Contains(gz, "gzip") {
			hint *= 4
		}
	}
	hint = min(hint, maxBytes)
	limited := io.LimitReader(body, maxBytes+1)
	buf := bytes.NewBuffer(make([]byte, 0, min(hint, freeBodyBytes)+bytes.MinRead))
	_, err = buf.ReadFrom(io.LimitReader(limited, freeBodyBytes))
	if err == nil {
		large := buf.Len() == freeBodyBytes
		slots := f.parsers
		if large {
			slots = f.large
		}
		if large || smallSlot {
			if res.release, err = f.slot(parent, slots); err != nil {
				return nil, err
			}
		}
		if large {
			if hint > freeBodyBytes {
				buf.Grow(int(hint-freeBodyBytes) + bytes.MinRead)
			}
			_, err = buf.ReadFrom(limited)
		}
	}
	res.body = buf.Bytes()
	if err != nil {
		res.done()
		if errors.Is(err, gzip.ErrChecksum) || errors.Is(err, gzip.ErrHeader) || errors.Is(err, io.ErrUnexpectedEOF) && ctx.Err() == nil {
			return nil, &Error{Kind: KindNetwork, Message: "The response was cut short or corrupted.", Err: err, answered: true}
		}
		return nil, f.netError(ctx, u, err)
	}
	if int64(len(res.body)) > maxBytes {
		res.done()
		return nil, tooLarge
	}
	return res, nil
}

// freeBodyBytes of a body are read without a slot (see getMax).
const freeBodyBytes = 256 << 10

// slot takes one of slots for an untrusted body: waiting while ctx lasts, or, when a person
// waits on the request (app.PersonWaiting), at most Options.SlotWait, after which the request
// is refused with app.Busy.
func (f *Fetcher) slot(ctx context.Context, slots app.Slots) (release func(), err error) {
	if app.IsPersonWaiting(ctx) {
		return slots.TakeWithin(ctx, f.opts.SlotWait)
	}
	return slots.Take(ctx)
}

// netError classifies an error of the HTTP client. ctx is the request's context. The host its
// message names is the one of the request that failed: after a redirect, the redirect's.
func (f *Fetcher) netError(ctx context.Context, u *url.URL, err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if failed, perr := url.Parse(ue.URL); perr == nil && failed.Hostname() != "" {
			u = failed
		}
	}
	host := u.Hostname()
	var (
		dnsErr      *net.DNSError
		certErr     *tls.CertificateVerificationError
		recErr      tls.RecordHeaderError
		alertErr    tls.AlertError
		unknown     x509.UnknownAuthorityError
		hostErr     x509.HostnameError
		invalid     x509.CertificateInvalidError
		badRedirect *redirectError
	)
	switch {
	case errors.As(err, new(*BlockedError)):
		var be *BlockedError
		errors.As(err, &be)
		return &Error{Kind: KindBlocked, Message: blockedMessage(host, be), Err: err}
	case errors.Is(err, errTooManyRedirects):
		return &Error{Kind: KindRedirects, Message: fmt.Sprintf("Too many redirects (more than %d).", f.opts.MaxRedirects), Err: err}
	case errors.As(err, &badRedirect):
		return &Error{Kind: KindRedirects, Message: fmt.Sprintf("The server redirected to a %q address; we only follow http and https.", badRedirect.scheme+":"), Err: err}
	case errors.Is(context.Cause(ctx), errFetchTimeout):
		return &Error{Kind: KindTimeout, Message: fmt.Sprintf("%s did not answer within %s.", host, f.opts.Timeout), Err: err}
	case ctx.Err() != nil:
		// The caller gave up (shutdown, its own deadline): not the source's fault.
		return fmt.Errorf("feeds: fetch %s: %w", u.Redacted(), ctx.Err())
	case errors.As(err, &dnsErr):
		if dnsErr.IsTimeout {
			return &Error{Kind: KindTimeout, Message: fmt.Sprintf("Looking up the host name %s timed out.", host), Err: err}
		}
		return &Error{Kind: KindDNS, Message: fmt.Sprintf("The host name %s could not be found.", cmp.Or(strings.TrimSuffix(dnsErr.Name, "."), host)), Err: err}
	case errors.As(err, &certErr), errors.As(err, &recErr), errors.As(err, &alertErr),
		errors.As(err, &unknown), errors.As(err, &hostErr), errors.As(err, &invalid):
		return &Error{Kind: KindTLS, Message: fmt.Sprintf("The secure connection to %s failed: %s.", host, tlsReason(err)), Err: err}
	case errors.Is(err, syscall.ECONNREFUSED):
		return &Error{Kind: KindConnect, Message: fmt.Sprintf("%s refused the connection.", u.Host), Err: err}
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return &Error{Kind: KindConnect, Message: fmt.Sprintf("%s could not be reached.", u.Host), Err: err}
	}
	var netErr net.Error
	if errors.As(err, &netErr) && netErr.Timeout() {
		return &Error{Kind: KindTimeout, Message: fmt.Sprintf("%s did not answer in time.", host), Err: err}
	}
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" {
		return &Error{Kind: KindConnect, Message: fmt.Sprintf("Could not connect to %s.", u.Host), Err: err}
	}
	if strings.Contains(err.Error(), "tls:") || strings.Contains(err.Error(), "x509:") {
		return &Error{Kind: KindTLS, Message: fmt.Sprintf("The secure connection to %s failed.", host), Err: err}
	}
	return &Error{Kind: KindNetwork, Message: fmt.Sprintf("The connection to %s failed.", host), Err: err}
}

// blockedMessage says why the guard refused a connection to host: an address named in the URL
// is itself the private one; a name resolves to it.
func blockedMessage(host string, be *BlockedError) string {
	const why = "a private or local address, which Morning Deck does not fetch while it is reachable beyond this machine (allow it with --fetch-allow %s)."
	switch literal, err := netip.ParseAddr(host); {
	case !be.Addr.IsValid():
		return fmt.Sprintf("The address of %s could not be checked, so Morning Deck does not connect to it while it is reachable beyond this machine.", host)
	case err == nil && literal.Unmap() == be.Addr:
		return fmt.Sprintf("%s is "+why, be.Addr, be.Addr)
	case err == nil: // an address the guard judged by the IPv4 address it carries
		return fmt.Sprintf("%s is "+why, host, be.Addr)
	}
	return fmt.Sprintf("%s resolves to %s, "+why, host, be.Addr, be.Addr)
}

func tlsReason(err error) string {
	var unknown x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalid x509.CertificateInvalidError
	switch {
	case errors.As(err, &unknown):
		return "its certificate is signed by an unknown authority"
	case errors.As(err, &hostErr):
		return "its certificate is for another name"
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return "its certificate has expired or is not yet valid"
	case errors.As(err, &invalid):
		return "its certificate is not valid"
	}
	return "the handshake failed"
}

func statusText(code int) string {
	if t := http.StatusText(code); t != "" {
		return fmt.Sprintf("%d %s", code, t)
	}
	return strconv.Itoa(code)
}

// parseRetryAfter reads a Retry-After header: delay seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	var d time.Duration
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs <= 0 {
			return 0, false
		}
		d = time.Duration(min(secs, int64(maxRetryAfter/time.Second))) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now).Round(time.Second)
		if d <= 0 {
			return 0, false
		}
	} else {
		return 0, false
	}
	return min(d, maxRetryAfter), true
}

// cacheUntil returns the floor on the next fetch from Cache-Control max-age and Expires,
// and ttl (an RSS <ttl>, 0 if none): the latest of them, capped at maxCacheFloor.
func cacheUntil(h http.Header, ttl time.Duration, now time.Time) *time.Time {
	var until time.Time
	later := func(t time.Time) {
		if t.After(until) {
			until = t
		}
	}
	cc := strings.ToLower(h.Get("Cache-Control"))
	noStore := strings.Contains(cc, "no-store") || strings.Contains(cc, "no-cache")
	hasMaxAge := false
	if !noStore {
		for _, part := range strings.Split(cc, ",") {
			k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
			if !ok || strings.TrimSpace(k) != "max-age" {
				continue
			}
			if secs, err := strconv.ParseInt(strings.Trim(strings.TrimSpace(v), `"`), 10, 64); err == nil && secs > 0 {
				hasMaxAge = true
				age, _ := strconv.ParseInt(strings.TrimSpace(h.Get("Age")), 10, 64)
				later(now.Add(time.Duration(min(secs-max(age, 0), int64(maxCacheFloor/time.Second))) * time.Second))
			}
		}
		// max-age takes precedence over Expires (RFC 9111 5.3).
		if exp := h.Get("Expires"); exp != "" && !hasMaxAge {
			if t, err := http.ParseTime(exp); err == nil {
				later(t)
			}
		}
	}
	if ttl > 0 {
		later(now.Add(ttl))
	}
	if !until.After(now) {
		return nil
	}
	if until.After(now.Add(maxCacheFloor)) {
		until = now.Add(maxCacheFloor)
	}
	until = until.UTC()
	return &until
}

// hostLimiter allows at most perHost concurrent requests per host.
type hostLimiter struct {
	perHost int
	mu      sync.Mutex
	sems    map[string]*hostSem
}

type hostSem struct {
	ch    chan struct{}
	users int
}

func (l *hostLimiter) acquire(ctx context.Context, host string) (release func(), err error) {
	l.mu.Lock()
	if l.sems == nil {
		l.sems = map[string]*hostSem{}
	}
	s := l.sems[host]
	if s == nil {
		s = &hostSem{ch: make(chan struct{}, l.perHost)}
		l.sems[host] = s
	}
	s.users++
	l.mu.Unlock()

	done := func() {
		l.mu.Lock()
		s.users--
		if s.users == 0 {
			delete(l.sems, host)
		}
		l.mu.Unlock()
	}
	select {
	case s.ch <- struct{}{}:
		return func() { <-s.ch; done() }, nil
	case <-ctx.Done():
		done()
		return nil, fmt.Errorf("feeds: waiting for %s: %w", host, ctx.Err())
	}
}

// pauses remembers hosts that asked us to wait (Retry-After).
type pauses struct {
	mu    sync.Mutex
	until map[string]time.Time
}

func (p *pauses) get(host string, now time.Time) (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.until[host]
	if ok && !now.Before(t) {
		delete(p.until, host)
		return time.Time{}, false
	}
	return t, ok
}

func (p *pauses) set(host string, t time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if t.After(p.until[host]) {
		p.until[host] = t
	}
}
