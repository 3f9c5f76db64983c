package queue_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/morningdeck/morningdeck/app"
)

// TestFetchFailureKinds: a fetch that fails stores the kind of its failure with the source,
// decided from the fetcher's error, and the summary counts as unreachable only the sources
// whose fetch did not reach their host.
func TestFetchFailureKinds(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/500":
			http.Error(w, "broken", http.StatusInternalServerError)
		case "/bad.xml":
			w.Header().Set("Content-Type", "application/rss+xml")
			// Broken past what the parser repairs (a truncated or mis-nested feed is read).
			_, _ = w.Write([]byte(`<?xml version="1.0"?>< not xml at all &&& <`))
		}
	}))
	defer srv.Close()
	// A port nothing listens on (9, discard): the connection is refused. (A port freed by
	// closing a listener may be another test's server by the time it is fetched.)
	refused := "http://127.0.0.1:9/feed.xml"

	p := newPipeline(t, nil, 100)
	p.run(t)
	cases := []struct {
		url  string
		want app.FetchFailure
	}{
		{srv.URL + "/500", app.FailureHTTPStatus},
		{refused, app.FailureConnect},
		{"http://feed.invalid/feed.xml", app.FailureDNS},
		{srv.URL + "/bad.xml", app.FailureParse},
	}
	ids := make([]int64, len(cases))
	for i, c := range cases {
		ids[i] = p.add(t, c.url, 15).ID
	}
	p.drain(t)
	for i, c := range cases {
		var kind string
		if err := p.db.Read.QueryRow(`select fetch_failure from sources where id = ?`, ids[i]).Scan(&kind); err != nil {
			t.Fatal(err)
		}
		src := p.source(t, ids[i])
		if app.FetchFailure(kind) != c.want || src.LastError == "" || src.ErrorCount != 1 {
			t.Errorf("%s: kind %q, error %q (%d); want kind %q, blamed", c.url, kind, src.LastError, src.ErrorCount, c.want)
		}
	}
	s, err := p.db.SourceSummary(context.Background(), app.DefaultUserID)
	if err != nil {
		t.Fatal(err)
	}
	if s.Errors != 4 || s.Unreachable != 2 {
		t.Errorf("summary %+v: want 4 failing, 2 of them unreachable (refused, not found)", s)
	}
}
