package feeds_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
)

// TestFetchFailureKind: every kind of *feeds.Error says which app.FetchFailure it is, through the
// wrapping the app sees (the Adapter's *app.FetchError); the unreachable ones are the network
// failures, except a response cut short, which reached its host.
func TestFetchFailureKind(t *testing.T) {
	kinds := map[string]app.FetchFailure{
		feeds.KindDNS:        app.FailureDNS,
		feeds.KindConnect:    app.FailureConnect,
		feeds.KindTimeout:    app.FailureTimeout,
		feeds.KindNetwork:    app.FailureNetwork,
		feeds.KindTLS:        app.FailureTLS,
		feeds.KindHTTPStatus: app.FailureHTTPStatus,
		feeds.KindTooLarge:   app.FailureTooLarge,
		feeds.KindParse:      app.FailureParse,
		feeds.KindRedirects:  app.FailureRedirects,
		feeds.KindBlocked:    app.FailureBlocked,
		feeds.KindHostPaused: app.FailureHostPaused,
		"something new":      app.FailureOther,
	}
	for kind, want := range kinds {
		fe := &feeds.Error{Kind: kind, Message: "It failed."}
		err := fmt.Errorf("fetch: %w", &app.FetchError{Message: fe.Message, Network: feeds.IsNetwork(fe), Err: fe})
		if got := app.FetchFailureOf(err); got != want {
			t.Errorf("%s: %q, want %q", kind, got, want)
		}
		if want.Unreachable() != feeds.IsNetwork(fe) {
			t.Errorf("%s: unreachable %v, but IsNetwork %v", kind, want.Unreachable(), feeds.IsNetwork(fe))
		}
	}
	if got := app.FetchFailureOf(errors.New("database is locked")); got != app.FailureOther {
		t.Errorf("an error of ours: %q", got)
	}

	t.Run("a response cut short reached its host", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Length", "100000")
			_, _ = w.Write([]byte(`<?xml version="1.0"?><rss version="2.0"><channel><title>Cut</title>`))
		}))
		defer srv.Close()
		_, err := feeds.Adapter{Fetcher: feeds.New(feeds.Options{})}.FetchSource(context.Background(), &app.Source{URL: srv.URL, Type: app.SourceRSS})
		fe := assertKind(t, err, feeds.KindNetwork)
		if got := app.FetchFailureOf(err); got != app.FailureCutShort || got.Unreachable() || !feeds.IsNetwork(fe) {
			t.Errorf("%v: %q (unreachable %v)", err, got, got.Unreachable())
		}
	})
}
