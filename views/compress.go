package views

import (
	"compress/gzip"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
)

// minGzipBytes is the smallest answer worth compressing: below it gzip's header and the CPU cost
// more than they save.
const minGzipBytes = 1024

// gzipWriters holds the compressors, made when first needed: a gzip.Writer keeps ~1.2 MB of
// tables, so there are at most two (not a sync.Pool, which every collection empties: with the
// collector running every few milliseconds while fetching, each answer would make a new one).
// An answer that finds both busy goes out uncompressed.
var gzipWriters = make(chan *gzip.Writer, 2)

func init() {
	for range cap(gzipWriters) {
		gzipWriters <- nil
	}
}

// compress gzips the answers to clients elsewhere on the network — a phone on the Wi-Fi, a feed
// reader syncing through the Google Reader API — when they accept it: pages, fragments, JSON
// and feeds are text that shrinks 5–20× (the Sources page of 100 rows: 260 KB → 13 KB). A
// loopback client (the local app, or a reverse proxy on the same machine, which compresses
// for its own clients) gets the answer as it is: there the bytes cost nothing and the CPU does.
// Partial answers (Range) and HEAD requests are left alone; an ETag becomes weak when its body
// is compressed, which every conditional request here compares weakly (and so it is in a 304).
//
// Compressing secrets next to text an attacker chooses can leak them through TLS (BREACH). The
// pages carry no CSRF tokens, and the session cookie is SameSite, so another site cannot make
// the browser ask for a page with the reader's secrets (a briefing's feed token, say) at all.
func compress(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead || r.Header.Get("Range") != "" || !acceptsGzip(r.Header.Get("Accept-Encoding")) || !remotePeer(r.RemoteAddr) {
			next.ServeHTTP(w, r)
			return
		}
		g := &gzipResponse{ResponseWriter: w}
		defer g.close()
		next.ServeHTTP(g, r)
	})
}

// remotePeer reports whether the connection comes from another machine (not loopback, and an
// address at all).
func remotePeer(remoteAddr string) bool {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		return false
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && !ip.Unmap().IsLoopback()
}

// acceptsGzip reads an Accept-Encoding header: gzip (or, when it is not named, *) with a q
// above 0.
func acceptsGzip(header string) bool {
	star := false
	for _, part := range strings.Split(header, ",") {
		coding, params, _ := strings.Cut(part, ";")
		coding = strings.ToLower(strings.TrimSpace(coding))
		q := 1.0
		if k, v, ok := strings.Cut(strings.TrimSpace(params), "="); ok && strings.EqualFold(strings.TrimSpace(k), "q") {
			if f, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
				q = f
			}
		}
		switch coding {
		case "gzip", "x-gzip":
			return q > 0
		case "*":
			star = q > 0
		}
	}
	return star
}

// compressible reports whether an answer with these headers is text worth compressing.
func compressible(h http.Header, status int) bool {
	if status < 200 || status == http.StatusNoContent || status == http.StatusPartialContent || status >= 300 && status < 400 || h.Get("Content-Encoding") != "" {
		return false
	}
	ct := strings.ToLower(h.Get("Content-Type"))
	for _, prefix := range []string{"text/", "application/json", "application/xml", "application/atom+xml", "application/rss+xml",
		"application/feed+json", "application/javascript", "image/svg+xml", "application/opml"} {
		if strings.HasPrefix(ct, prefix) {
			return true
		}
	}
	return false
}

// gzipResponse holds an answer's status and first bytes until it knows whether to compress:
// a compressible type and at least minGzipBytes, or a flush.
type gzipResponse struct {
	http.ResponseWriter
	status  int
	buf     []byte
	decided bool
	gz      *gzip.Writer
}

func (g *gzipResponse) WriteHeader(code int) {
	if g.decided || g.status != 0 || code < 200 {
		if !g.decided && code < 200 {
			g.ResponseWriter.WriteHeader(code) // 1xx informational answers pass
		}
		return
	}
	g.status = code
	if !compressible(g.Header(), code) && g.Header().Get("Content-Type") != "" {
		g.decide(false)
	}
}

func (g *gzipResponse) Write(p []byte) (int, error) {
	if !g.decided {
		if g.status == 0 {
			g.status = http.StatusOK // as net/http: a write before WriteHeader is a 200
		}
		if len(g.buf) == 0 && len(p) >= minGzipBytes {
			g.buf = p // a whole page in one write (templ renders into a buffer): not copied
		} else if g.buf = append(g.buf, p...); len(g.buf) < minGzipBytes {
			return len(p), nil
		}
		if err := g.decide(true); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if g.gz != nil {
		return g.gz.Write(p)
	}
	return g.ResponseWriter.Write(p)
}

// decide sends the headers, compressed when want and the answer allows it, then what is held.
func (g *gzipResponse) decide(want bool) error {
	g.decided = true
	h := g.Header()
	if g.status == 0 {
		g.status = http.StatusOK
	}
	if h.Get("Content-Type") == "" && len(g.buf) > 0 {
		h.Set("Content-Type", http.DetectContentType(g.buf)) // as net/http would
	}
	weaken := func() {
		h.Add("Vary", "Accept-Encoding")
		if tag := h.Get("ETag"); tag != "" && !strings.HasPrefix(tag, "W/") {
			h.Set("ETag", "W/"+tag)
		}
	}
	if want && compressible(h, g.status) {
		select {
		case g.gz = <-gzipWriters:
			if g.gz == nil {
				g.gz, _ = gzip.NewWriterLevel(g.ResponseWriter, gzip.BestSpeed)
			} else {
				g.gz.Reset(g.ResponseWriter)
			}
		default: // both compressors busy
		}
	}
	if g.gz != nil {
		h.Del("Content-Length")
		h.Set("Content-Encoding", "gzip")
		weaken()
		g.ResponseWriter.WriteHeader(g.status)
		_, err := g.gz.Write(g.buf)
		g.buf = nil
		return err
	}
	if g.status == http.StatusNotModified {
		weaken() // the headers the compressed answer had
	}
	g.ResponseWriter.WriteHeader(g.status)
	var err error
	if len(g.buf) > 0 {
		_, err = g.ResponseWriter.Write(g.buf)
	}
	g.buf = nil
	return err
}

// Flush sends what is held (compressed when the answer allows it) and flushes the connection.
func (g *gzipResponse) Flush() {
	if !g.decided {
		if g.status == 0 && len(g.buf) == 0 {
			return // nothing to send yet
		}
		_ = g.decide(true)
	}
	if g.gz != nil {
		_ = g.gz.Flush()
	}
	if f, ok := g.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (g *gzipResponse) Unwrap() http.ResponseWriter { return g.ResponseWriter }

// close ends the answer: a short one goes out as it is, a compressed one gets its trailer.
func (g *gzipResponse) close() {
	if !g.decided {
		if g.status == 0 && len(g.buf) == 0 {
			return // the handler wrote nothing: net/http answers 200 with no body
		}
		_ = g.decide(false)
	}
	if g.gz != nil {
		_ = g.gz.Close()
		g.gz.Reset(nil)
		gzipWriters <- g.gz
		g.gz = nil
	}
}
