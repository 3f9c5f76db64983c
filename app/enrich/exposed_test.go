package enrich_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// llmServer is an OpenAI-compatible server that records the Authorization headers it receives
// and answers with status (200: a chat completion).
type llmServer struct {
	*httptest.Server
	mu    sync.Mutex
	auths []string
	hits  atomic.Int64
}

func newLLMServer(t *testing.T, status int, body string) *llmServer {
	s := &llmServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.hits.Add(1)
		s.mu.Lock()
		s.auths = append(s.auths, r.Header.Get("Authorization"))
		s.mu.Unlock()
		if status != http.StatusOK {
			http.Error(w, body, status)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"choices":[{"message":{"content":"{\"ok\": true}"}}],"usage":{"prompt_tokens":3,"completion_tokens":2}}`))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *llmServer) authorizations() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.auths...)
}

// exposed is the wiring of an exposed app (main.go): two users on a real database, the
// operator's LLM with its key, and the fetch SSRF guard on the servers users choose.
func exposed(t *testing.T, operator string, allow ...netip.Prefix) (*enrich.Chooser, int64, int64, func(userID int64, u app.SettingsUpdate)) {
	t.Helper()
	db := sqlitetest.New(t)
	ctx := context.Background()
	admin, err := db.CreateUser(ctx, "admin", "x", true)
	if err != nil {
		t.Fatal(err)
	}
	second, err := db.CreateUser(ctx, "second", "x", false)
	if err != nil {
		t.Fatal(err)
	}
	c := &enrich.Chooser{Default: app.EnricherLLM, Settings: db,
		LLM:  enrich.LLMOptions{BaseURL: operator + "/v1", Model: "m", APIKey: "sk-operator-secret-key"},
		Dial: feeds.Guard{Allow: allow}.Dialer(0).DialContext, Exposed: true}
	set := func(userID int64, u app.SettingsUpdate) {
		t.Helper()
		if err := u.Validate(); err != nil {
			t.Fatal(err)
		}
		if _, err := db.UpdateSettings(ctx, userID, u); err != nil {
			t.Fatal(err)
		}
	}
	return c, admin.ID, second.ID, set
}

func ptr[T any](v T) *T { return &v }

// A second user who points the LLM at their own server never receives the operator's key.
func TestExposedOperatorKeyStaysWithOperatorServer(t *testing.T) {
	ctx := context.Background()
	op := newLLMServer(t, http.StatusOK, "")
	theirs := newLLMServer(t, http.StatusOK, "")
	// The second user's server is on loopback here; the allow-list stands for "a public server".
	c, admin, second, set := exposed(t, op.URL, netip.MustParsePrefix("127.0.0.1/32"))

	if err := c.TestLLM(ctx, admin); err != nil {
		t.Fatal(err)
	}
	set(second, app.SettingsUpdate{LLMBaseURL: ptr(theirs.URL + "/v1")})
	if err := c.TestLLM(ctx, second); err != nil {
		t.Fatal(err)
	}
	set(second, app.SettingsUpdate{LLMAPIKey: ptr("sk-their-own")})
	if err := c.TestLLM(ctx, second); err != nil {
		t.Fatal(err)
	}
	// The same server under another spelling is still not the operator's... unless it is the operator's.
	set(second, app.SettingsUpdate{LLMBaseURL: ptr(op.URL + "/v1/"), LLMAPIKey: ptr("")})
	if err := c.TestLLM(ctx, second); err != nil {
		t.Fatal(err)
	}

	if got := op.authorizations(); len(got) != 2 || got[0] != "Bearer sk-operator-secret-key" || got[1] != "Bearer sk-operator-secret-key" {
		t.Errorf("operator's server got %q, want the operator's key twice", got)
	}
	got := theirs.authorizations()
	if len(got) != 2 || got[0] != "" || got[1] != "Bearer sk-their-own" {
		t.Errorf("second user's server got %q, want no key, then their own", got)
	}
	for _, a := range got {
		if strings.Contains(a, "operator") {
			t.Errorf("the operator's key reached a user's server: %q", a)
		}
	}
}

// While exposed, a user's LLM base URL cannot reach this machine or its network, and the
// answer of a server they reach is not shown back (status line only).
func TestExposedLLMBaseURLGuarded(t *testing.T) {
	ctx := context.Background()
	op := newLLMServer(t, http.StatusOK, "")
	internal := newLLMServer(t, http.StatusOK, "")
	c, admin, second, set := exposed(t, op.URL)

	set(second, app.SettingsUpdate{LLMBaseURL: ptr(internal.URL + "/v1")})
	err := c.TestLLM(ctx, second)
	if err == nil || !strings.Contains(err.Error(), "private or local address") {
		t.Errorf("a private LLM base URL: error %v, want the guard's refusal", err)
	}
	if n := internal.hits.Load(); n != 0 {
		t.Errorf("the internal server received %d requests", n)
	}
	for _, u := range []string{"http://[::ffff:127.0.0.1]:1/v1", "http://[64:ff9b::7f00:1]:1/v1", "http://169.254.169.254/v1", "http://localhost:1/v1"} {
		set(second, app.SettingsUpdate{LLMBaseURL: ptr(u)})
		if err := c.TestLLM(ctx, second); err == nil || !strings.Contains(err.Error(), "address") {
			t.Errorf("%s: error %v, want the guard's refusal", u, err)
		}
	}
	// The operator's own server (configured by the operator, on loopback) still works.
	if err := c.TestLLM(ctx, admin); err != nil {
		t.Errorf("operator's LLM: %v", err)
	}
}

func TestExposedLLMErrorBodiesNotEchoed(t *testing.T) {
	ctx := context.Background()
	op := newLLMServer(t, http.StatusOK, "")
	leaky := newLLMServer(t, http.StatusInternalServerError, `{"error":{"message":"db password is hunter2 at 10.0.0.5"}}`)
	c, _, second, set := exposed(t, op.URL, netip.MustParsePrefix("127.0.0.1/32"))
	set(second, app.SettingsUpdate{LLMBaseURL: ptr(leaky.URL + "/v1")})
	err := c.TestLLM(ctx, second)
	if err == nil || !strings.Contains(err.Error(), "500") {
		t.Fatalf("error %v, want the status line", err)
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("the server's error body reached the user: %v", err)
	}
}

// In local mode the one user is the operator: the configured key serves the base URL they set.
func TestLocalModeKeyServesTheOwnersURL(t *testing.T) {
	ctx := context.Background()
	op := newLLMServer(t, http.StatusOK, "")
	theirs := newLLMServer(t, http.StatusOK, "")
	c, admin, _, set := exposed(t, op.URL)
	c.Dial, c.Exposed = nil, false
	set(admin, app.SettingsUpdate{LLMBaseURL: ptr(theirs.URL + "/v1")})
	if err := c.TestLLM(ctx, admin); err != nil {
		t.Fatal(err)
	}
	if got := theirs.authorizations(); len(got) != 1 || got[0] != "Bearer sk-operator-secret-key" {
		t.Errorf("local mode: %q", got)
	}
}
