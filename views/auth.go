package views

import (
	"context"
	"fmt"
	"math"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

const sessionCookie = "md_session"

type userKey struct{}

// localUser is who every request acts for when the app does not require sign-in.
var localUser = &app.User{ID: app.DefaultUserID, Name: "local", Admin: true}

// currentUser is the signed-in user (the local user when sign-in is not required).
func currentUser(r *http.Request) *app.User {
	if u, ok := r.Context().Value(userKey{}).(*app.User); ok {
		return u
	}
	return localUser
}

// userID is who the request acts for.
func userID(r *http.Request) int64 { return currentUser(r).ID }

// publicPath reports whether a path is reachable without signing in.
func publicPath(p string) bool {
	return p == "/login" || p == "/healthz" || p == "/favicon.ico" || p == "/manifest.webmanifest" || p == "/app-icon-192.png" || p == "/app-icon-512.png" || strings.HasPrefix(p, "/static/") ||
		strings.HasPrefix(p, "/briefings/") && strings.HasSuffix(p, "/feed.xml") || // checks its own token
		p == "/unsubscribe" // a report email's signed link: checks its own signature
}

// adminPath reports whether a path is for admins only: the queues are every user's.
func adminPath(p string) bool {
	return p == "/queues" || strings.HasPrefix(p, "/queues/") || p == "/fragments/queues" || strings.HasPrefix(p, "/admin/") || p == "/metrics"
}

// machinePath answers 401/403 as JSON rather than sending a person to the sign-in page.
func machinePath(p string) bool {
	return isAPIPath(p) || strings.HasPrefix(p, "/admin/") || p == "/metrics" || p == "/healthz"
}

func isAPIPath(p string) bool { return strings.HasPrefix(p, "/api/") }

// tokenPath reports whether an API token ("Authorization: Bearer md_…") may be used for a
// path: the JSON API, and the admin's machine endpoints (/admin/queue-stats, /metrics: a
// Prometheus scrape sends an admin's token). Every page — the Account page and its token
// management, settings, the queues — needs a session. (The Reader API checks its own tokens,
// ahead of this.)
func tokenPath(p string) bool { return machinePath(p) }

// authenticate finds the request's user from the session cookie or an API token
// ("Authorization: Bearer md_…"), when the app requires sign-in.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.opts.RequireLogin || s.opts.Accounts == nil {
			next.ServeHTTP(w, r)
			return
		}
		var u *app.User
		var err error
		bearer, viaToken := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if viaToken {
			u, err = s.opts.Accounts.TokenUser(r.Context(), strings.TrimSpace(bearer))
		} else if c, cerr := r.Cookie(sessionCookie); cerr == nil && c.Value != "" {
			u, err = s.opts.Accounts.Session(r.Context(), c.Value)
			if err != nil {
				clearSessionCookie(w, r)
			}
		}
		if err != nil && app.ErrorCode(err) != app.EUNAUTHORIZED {
			s.serverError(w, r, err)
			return
		}
		if u != nil {
			r = r.WithContext(context.WithValue(r.Context(), userKey{}, u))
			noteUser(r, u)
		}
		p := r.URL.Path
		switch {
		case publicPath(p):
		case u == nil && machinePath(p):
			w.Header().Set("WWW-Authenticate", `Bearer realm="morningdeck"`)
			writeJSON(w, http.StatusUnauthorized, apiErrorBody{Error: "Sign in, or send an API token: Authorization: Bearer md_…"})
			return
		case u == nil:
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
			} else {
				http.Redirect(w, r, "/login", http.StatusSeeOther)
			}
			return
		case viaToken && !tokenPath(p):
			// A token is for a client program, not a person at a browser: were it a session, a
			// reader app's token could make new tokens (and outlive its own revocation),
			// change the password or open the admin's pages.
			writeJSON(w, http.StatusForbidden, apiErrorBody{Error: "API tokens cannot open the app's pages, the Account page or token management: " +
				"a token serves the JSON API (/api/…) and the Reader API (/api/greader). Sign in with your password in a browser for the rest."})
			return
		case adminPath(p) && !u.Admin:
			if machinePath(p) {
				writeJSON(w, http.StatusForbidden, apiErrorBody{Error: "Only an admin can see the queues."})
				return
			}
			s.renderStatus(w, r, http.StatusForbidden, errorPage(s.page(w, r, "", "Admins only"), "Admins only",
				"The queues serve every account on this server; only an admin can see and steer them."))
			return
		}
		if u != nil && isAPIPath(p) && s.apiLimit != nil {
			if wait, ok := s.apiLimit.allow("u"+strconv.FormatInt(u.ID, 10), time.Now()); !ok {
				retryAfter(w, wait)
				writeJSON(w, http.StatusTooManyRequests, apiErrorBody{Error: "Too many requests: slow down and try again in a moment."})
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// secureCookie: Secure when the request came over TLS (directly or through a proxy that says so).
func secureCookie(r *http.Request) bool {
	return r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https")
}

func clearSessionCookie(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: secureCookie(r)})
}

// LoginView is the sign-in page.
type LoginView struct {
	Name, Next, Error string
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	if !s.opts.RequireLogin || s.opts.Accounts == nil {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	s.render(w, r, loginPage(s.barePage(w, r, "Sign in"), LoginView{Next: localPath(r.URL.Query().Get("next"))}))
}

func (s *Server) login(w http.ResponseWriter, r *http.Request) {
	if !s.opts.RequireLogin || s.opts.Accounts == nil {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	v := LoginView{Name: r.PostFormValue("name"), Next: localPath(r.PostFormValue("next"))}
	if wait, ok := s.loginLimit.allow("ip"+clientIP(r, s.opts.TrustedProxies), time.Now()); !ok {
		retryAfter(w, wait)
		v.Error = "Too many sign-in attempts from here. Wait a minute and try again."
		s.renderStatus(w, r, http.StatusTooManyRequests, loginPage(s.barePage(w, r, "Sign in"), v))
		return
	}
	u, token, expires, err := s.opts.Accounts.Login(r.Context(), v.Name, r.PostFormValue("password"))
	if err != nil {
		if app.ErrorCode(err) != app.EUNAUTHORIZED {
			s.serverError(w, r, err)
			return
		}
		s.log.Warn("failed sign-in", "user", v.Name, "ip", clientIP(r, s.opts.TrustedProxies))
		v.Error = app.ErrorMessage(err)
		s.renderStatus(w, r, http.StatusUnauthorized, loginPage(s.barePage(w, r, "Sign in"), v))
		return
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: token, Path: "/", Expires: expires, HttpOnly: true,
		SameSite: http.SameSiteLaxMode, Secure: secureCookie(r)})
	noteUser(r, u)
	s.log.Info("signed in", "user", u.Name)
	s.redirect(w, r, cmpOrPath(v.Next), Flash{})
}

func (s *Server) logout(w http.ResponseWriter, r *http.Request) {
	if c, err := r.Cookie(sessionCookie); err == nil && s.opts.Accounts != nil {
		_ = s.opts.Accounts.Logout(r.Context(), c.Value)
	}
	clearSessionCookie(w, r)
	if !s.opts.RequireLogin {
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

func cmpOrPath(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// localPath keeps p only when it is a path on this site (sitePath: no open redirect) other
// than the sign-in page itself.
func localPath(p string) string {
	if sitePath(p) && !strings.HasPrefix(p, "/login") {
		return p
	}
	return ""
}

// clientIP is the address the sign-in limit counts. It is the peer's address unless the peer
// is one of the trusted proxies (--trusted-proxy; none by default): then X-Forwarded-For is
// read from the right, each trusted proxy's entry skipped, and the first address that is not a
// trusted proxy is the client (anything left of it the client could have written). An entry
// that is not an address stops the walk at the last proxy seen.
func clientIP(r *http.Request, trusted []netip.Prefix) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	peer, err := netip.ParseAddr(host)
	if err != nil || !trustedProxy(peer, trusted) {
		return host
	}
	client := peer
	values := r.Header.Values("X-Forwarded-For")
	for i := len(values) - 1; i >= 0; i-- {
		parts := strings.Split(values[i], ",")
		for j := len(parts) - 1; j >= 0; j-- {
			a, err := netip.ParseAddr(strings.Trim(strings.TrimSpace(parts[j]), "[]"))
			if err != nil {
				return client.String()
			}
			client = a.Unmap()
			if !trustedProxy(client, trusted) {
				return client.String()
			}
		}
	}
	return client.String()
}

// trustedProxy reports whether a is in one of the trusted ranges.
func trustedProxy(a netip.Addr, trusted []netip.Prefix) bool {
	a = a.Unmap()
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// limiter is a token bucket per key: rate tokens a second, up to burst.
type limiter struct {
	rate, burst float64
	mu          sync.Mutex
	buckets     map[string]*bucket
	swept       time.Time
}

type bucket struct {
	tokens float64
	at     time.Time
}

func newLimiter(perSecond, burst float64) *limiter {
	return &limiter{rate: perSecond, burst: burst, buckets: map[string]*bucket{}}
}

// allow takes a token for key; when none is left it says how long until one is.
func (l *limiter) allow(key string, now time.Time) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if now.Sub(l.swept) > time.Minute { // forget full buckets, so the map stays small
		for k, b := range l.buckets {
			if b.tokens+now.Sub(b.at).Seconds()*l.rate >= l.burst {
				delete(l.buckets, k)
			}
		}
		l.swept = now
	}
	b := l.buckets[key]
	if b == nil {
		b = &bucket{tokens: l.burst, at: now}
		l.buckets[key] = b
	}
	b.tokens = math.Min(l.burst, b.tokens+now.Sub(b.at).Seconds()*l.rate)
	b.at = now
	if b.tokens < 1 {
		return time.Duration((1 - b.tokens) / l.rate * float64(time.Second)), false
	}
	b.tokens--
	return 0, true
}

func (s *Server) accountOn(w http.ResponseWriter, r *http.Request) bool {
	if !s.opts.RequireLogin || s.opts.Accounts == nil {
		s.renderStatus(w, r, http.StatusNotFound, errorPage(s.page(w, r, "", "No accounts here"), "No accounts here",
			"Morning Deck is running in local mode, on this machine only, without accounts. Accounts and API tokens come with sign-in, when it listens beyond this machine (or with --require-login)."))
		return false
	}
	return true
}

func (s *Server) renderAccount(w http.ResponseWriter, r *http.Request, status int, v AccountView) {
	v.User = currentUser(r)
	toks, err := s.opts.Accounts.APITokens(r.Context(), v.User.ID)
	if err != nil {
		s.serverError(w, r, err)
		return
	}
	for _, t := range toks {
		created := t.CreatedAt
		v.Tokens = append(v.Tokens, TokenView{ID: t.ID, Name: t.Name, Created: s.timeView(&created), LastUsed: s.timeView(t.LastUsedAt)})
	}
	w.Header().Set("Cache-Control", "no-store")
	s.renderStatus(w, r, status, accountPage(s.page(w, r, "account", "Account"), v))
}

func (s *Server) accountPage(w http.ResponseWriter, r *http.Request) {
	if s.accountOn(w, r) {
		s.renderAccount(w, r, http.StatusOK, AccountView{})
	}
}

func (s *Server) createToken(w http.ResponseWriter, r *http.Request) {
	if !s.accountOn(w, r) {
		return
	}
	name := r.PostFormValue("name")
	_, secret, err := s.opts.Accounts.NewAPIToken(r.Context(), userID(r), name)
	if err != nil {
		if app.ErrorCode(err) != app.EINVALID {
			s.serverError(w, r, err)
			return
		}
		s.renderAccount(w, r, http.StatusUnprocessableEntity, AccountView{TokError: app.ErrorMessage(err)})
		return
	}
	// Rendered, not redirected: the secret must not travel in a flash cookie or a URL.
	s.renderAccount(w, r, http.StatusOK, AccountView{NewToken: secret, NewName: strings.TrimSpace(name)})
}

func (s *Server) deleteToken(w http.ResponseWriter, r *http.Request) {
	if !s.accountOn(w, r) {
		return
	}
	id, ok := pathID(r)
	if !ok {
		s.notFound(w, r)
		return
	}
	if err := s.opts.Accounts.DeleteAPIToken(r.Context(), userID(r), id); err != nil {
		s.appError(w, r, err)
		return
	}
	s.redirect(w, r, "/account", flashSuccess("Token revoked."))
}

func (s *Server) changePassword(w http.ResponseWriter, r *http.Request) {
	if !s.accountOn(w, r) {
		return
	}
	u := currentUser(r)
	// The current-password check is a sign-in by another door: it has the same limit.
	if wait, ok := s.loginLimit.allow("password"+strconv.FormatInt(u.ID, 10), time.Now()); !ok {
		secs := retryAfter(w, wait)
		s.renderAccount(w, r, http.StatusTooManyRequests, AccountView{PassError: fmt.Sprintf("Too many attempts to check the current password. Try again in %d seconds.", secs)})
		return
	}
	if _, err := s.opts.Accounts.CheckPassword(r.Context(), u.Name, r.PostFormValue("current")); err != nil {
		if app.ErrorCode(err) != app.EUNAUTHORIZED {
			s.serverError(w, r, err)
			return
		}
		s.renderAccount(w, r, http.StatusUnprocessableEntity, AccountView{PassError: "The current password is not right."})
		return
	}
	if err := s.opts.Accounts.SetPassword(r.Context(), u.ID, r.PostFormValue("new")); err != nil {
		if app.ErrorCode(err) != app.EINVALID {
			s.serverError(w, r, err)
			return
		}
		s.renderAccount(w, r, http.StatusUnprocessableEntity, AccountView{PassError: app.ErrorMessage(err)})
		return
	}
	// Every session ended with the change, this one too: sign in again with the new password.
	clearSessionCookie(w, r)
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}
