package views

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// requestLog logs every request once it is answered (Options.LogRequests): its method, path,
// status, duration, bytes sent and user, and its query with the values that are credentials
// redacted. Headers (Authorization, cookies) and bodies (passwords, forms) are never logged.
func (s *Server) requestLog(next http.Handler) http.Handler {
	if !s.opts.LogRequests {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		note := &requestNote{}
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), requestNoteKey{}, note)))
		status := sw.status
		if status == 0 {
			status = http.StatusOK
		}
		attrs := []slog.Attr{
			slog.String("method", r.Method),
			slog.String("path", app.Shorten(r.URL.Path, 300)),
			slog.Int("status", status),
			slog.Duration("duration", time.Since(start).Round(time.Microsecond)),
			slog.Int64("bytes", sw.bytes),
		}
		if q := redactQuery(r.URL.RawQuery); q != "" {
			attrs = append(attrs, slog.String("query", app.Shorten(q, 300)))
		}
		switch {
		case note.user != 0:
			attrs = append(attrs, slog.Int64("user", note.user))
		case !s.opts.RequireLogin:
			attrs = append(attrs, slog.Int64("user", localUser.ID))
		}
		s.log.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs...)
	})
}

// requestNote is what the request log learns while the request is served: who it acted for
// (the sign-in, or the Reader API's own, sets it; see noteUser).
type requestNote struct{ user int64 }

type requestNoteKey struct{}

// noteUser tells the request log who the request acts for.
func noteUser(r *http.Request, u *app.User) {
	if n, ok := r.Context().Value(requestNoteKey{}).(*requestNote); ok && u != nil {
		n.user = u.ID
	}
}

// secretParams are the query parameters whose values are credentials or personal: the
// Reader API's T and auth (and ClientLogin's Email and Passwd, which some apps send in the
// query), a briefing feed's token, a report email's unsubscribe signature and address.
var secretParams = map[string]bool{
	"t": true, "auth": true, "token": true, "access_token": true, "api_key": true, "apikey": true, "key": true,
	"passwd": true, "password": true, "pass": true, "email": true, "sig": true, "signature": true, "to": true,
	"session": true, "code": true, "client_secret": true,
}

// redactQuery is a query with the values of secretParams replaced by "REDACTED" (the names
// stay: what was sent is still plain); a query that does not parse is left out whole.
func redactQuery(raw string) string {
	if raw == "" {
		return ""
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return "(unreadable query left out)"
	}
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		for _, v := range q[k] {
			if b.Len() > 0 {
				b.WriteByte('&')
			}
			b.WriteString(url.QueryEscape(k))
			b.WriteByte('=')
			if secretParams[strings.ToLower(k)] {
				b.WriteString("REDACTED")
			} else {
				b.WriteString(url.QueryEscape(v))
			}
		}
	}
	return b.String()
}

// statusWriter remembers the status and counts the bytes of an answer.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// Flush sends what is buffered (an htmx fragment, a long answer) on.
func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
