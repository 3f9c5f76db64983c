package saveto_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/saveto"
)

// TestWallabagTokenKeptAndRenewed: one sign-in serves many saves while its token lives; a
// token the server stops accepting (401) is renewed once and the save goes through.
func TestWallabagTokenKeptAndRenewed(t *testing.T) {
	var signIns, saves atomic.Int32
	valid := atomic.Value{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/oauth/v2/token":
			n := signIns.Add(1)
			tok := fmt.Sprintf("t%d", n)
			valid.Store(tok)
			fmt.Fprintf(w, `{"access_token":%q,"expires_in":3600}`, tok)
		case "/api/entries.json":
			if r.Header.Get("Authorization") != "Bearer "+valid.Load().(string) {
				w.WriteHeader(401)
				return
			}
			saves.Add(1)
			fmt.Fprint(w, `{"id":1}`)
		}
	}))
	defer srv.Close()
	s := &saveto.Sender{}
	a := app.WallabagAccount{URL: srv.URL, ClientID: "c", ClientSecret: "s", Username: "u", Password: "p"}
	it := app.SavedItem{URL: "https://example.com/a", Title: "A"}
	for range 3 {
		if err := s.Wallabag(t.Context(), a, it); err != nil {
			t.Fatal(err)
		}
	}
	if signIns.Load() != 1 || saves.Load() != 3 {
		t.Fatalf("3 saves: %d sign-ins, %d saved; want 1 and 3", signIns.Load(), saves.Load())
	}
	valid.Store("revoked")
	if err := s.Wallabag(t.Context(), a, it); err != nil {
		t.Fatalf("after the token was revoked: %v", err)
	}
	if signIns.Load() != 2 || saves.Load() != 4 {
		t.Fatalf("after revocation: %d sign-ins, %d saved; want 2 and 4", signIns.Load(), saves.Load())
	}
}

// TestWebhookBounded: a receiver that stalls is given up on at the timeout with a plain
// message; one that redirects forever is stopped; a huge answer is not read whole.
func TestWebhookBounded(t *testing.T) {
	release := make(chan struct{})
	stall := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer stall.Close()
	defer close(release) // before Close, which waits for the handler
	loop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/again", http.StatusTemporaryRedirect)
	}))
	defer loop.Close()
	huge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(500)
		_, _ = io.Copy(w, io.LimitReader(neverEnding('x'), 64<<20))
	}))
	defer huge.Close()

	s := &saveto.Sender{Timeout: 300 * time.Millisecond}
	start := time.Now()
	err := s.Webhook(context.Background(), stall.URL, "k", app.SavedItem{ID: 1})
	if err == nil || !strings.Contains(app.ErrorMessage(err), "did not answer in time") || time.Since(start) > 5*time.Second {
		t.Fatalf("stalling receiver: %v after %s", err, time.Since(start))
	}
	if err := s.Webhook(context.Background(), loop.URL, "k", app.SavedItem{ID: 1}); err == nil || app.ErrorCode(err) != app.EINVALID {
		t.Fatalf("redirect loop: %v", err)
	}
	s = &saveto.Sender{}
	err = s.Webhook(context.Background(), huge.URL, "k", app.SavedItem{ID: 1})
	if err == nil || !strings.Contains(app.ErrorMessage(err), "answered 500") {
		t.Fatalf("huge error answer: %v", err)
	}
	if len(app.ErrorMessage(err)) > 300 {
		t.Fatalf("the message quotes too much of the answer: %d bytes", len(app.ErrorMessage(err)))
	}
}

type neverEnding byte

func (b neverEnding) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}
