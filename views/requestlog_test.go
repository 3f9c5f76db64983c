package views_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/morningdeck/morningdeck/views"
)

// syncBuffer is a log the server writes from its handlers' goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRequestLog: with LogRequests every request is logged with its method, path, status,
// duration and user, and no credential: not the Reader API's Authorization header, T or
// auth parameters, ClientLogin's password, an API token, a feed token or a form's password.
func TestRequestLog(t *testing.T) {
	var buf syncBuffer
	e := newAuthEnvOpts(t, func(o *views.Options) {
		o.Log = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
		o.LogRequests = true
	})
	c := clientLogin(t, e.srv.URL, "ann", "correct horse battery")
	c.ok(http.MethodGet, gr+"/reader/api/0/stream/items/ids?s=user/-/state/com.google/reading-list&n=20&T=write-token-123&auth="+url.QueryEscape(c.auth), nil)
	_, token, err := e.accounts.NewAPIToken(context.Background(), e.bob.ID, "script")
	if err != nil {
		t.Fatal(err)
	}
	if res, _ := e.req(http.MethodGet, "/api/sources", "", "Authorization", "Bearer "+token); res.StatusCode != http.StatusOK {
		t.Fatalf("API with a token: %d", res.StatusCode)
	}
	e.req(http.MethodPost, "/login", "name=ann&password=a+wrong+password+here")
	e.req(http.MethodGet, "/briefings/1/feed.xml?token=feed-secret-456", "")
	e.req(http.MethodGet, gr+"/accounts/ClientLogin?Email=ann&Passwd=query-password-789", "")

	log := buf.String()
	for _, secret := range []string{"correct horse battery", "correct+horse", c.auth, "write-token-123", token, "a wrong password", "a+wrong", "feed-secret-456", "query-password-789"} {
		if strings.Contains(log, secret) {
			t.Errorf("the log holds the secret %q:\n%s", secret, log)
		}
	}
	lines := map[string]string{} // "METHOD path" → its log line
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, "msg=request") {
			var method, path string
			for _, f := range strings.Fields(l) {
				if m, ok := strings.CutPrefix(f, "method="); ok {
					method = m
				} else if p, ok := strings.CutPrefix(f, "path="); ok {
					path = p
				}
			}
			lines[method+" "+path] = l
		}
	}
	for path, want := range map[string][]string{
		"POST " + gr + "/accounts/ClientLogin": {"status=200", "user=" + strconv.FormatInt(e.ann.ID, 10)},
		"GET " + gr + "/reader/api/0/stream/items/ids": {"status=200", "user=" + strconv.FormatInt(e.ann.ID, 10),
			"T=REDACTED", "auth=REDACTED", "n=20", "duration="},
		"GET /api/sources":                    {"status=200", "user=" + strconv.FormatInt(e.bob.ID, 10)},
		"POST /login":                         {"status=401"},
		"GET /briefings/1/feed.xml":           {"token=REDACTED"},
		"GET " + gr + "/accounts/ClientLogin": {"Email=REDACTED", "Passwd=REDACTED"},
	} {
		l, ok := lines[path]
		if !ok {
			t.Errorf("no request line for %s:\n%s", path, log)
			continue
		}
		for _, w := range want {
			if !strings.Contains(l, w) {
				t.Errorf("%s: the line lacks %q: %s", path, w, l)
			}
		}
	}
}

// Without LogRequests nothing is logged per request.
func TestRequestLogOff(t *testing.T) {
	var buf syncBuffer
	e := newAuthEnvOpts(t, func(o *views.Options) {
		o.Log = slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	e.req(http.MethodGet, "/healthz", "")
	if strings.Contains(buf.String(), "msg=request") {
		t.Fatalf("requests logged without LogRequests:\n%s", buf.String())
	}
}
