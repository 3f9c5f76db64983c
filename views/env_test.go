package views_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/app/greader"
	"github.com/morningdeck/morningdeck/app/saveto"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
	"github.com/morningdeck/morningdeck/views"
)

type env struct {
	t   *testing.T
	db  *sqlite.DB
	srv *httptest.Server
	c   *http.Client
}

func newEnv(t *testing.T) *env { return newEnvOpts(t, false) }

// newEnvWithDetector is newEnv with URL detection by the real fetcher (for sources added without a type).
func newEnvWithDetector(t *testing.T) *env { return newEnvOpts(t, true) }

func newEnvOpts(t *testing.T, detect bool) *env {
	t.Helper()
	var f *feeds.Fetcher
	if detect {
		f = feeds.New(feeds.Options{})
	}
	return newEnvWithFetcher(t, f)
}

// newEnvWithFetcher is newEnv with detection and the checks of adding done by f (none when nil).
func newEnvWithFetcher(t *testing.T, f *feeds.Fetcher) *env {
	t.Helper()
	db := sqlitetest.New(t)
	q := queue.NewFetchQueue(queue.FetchQueueOptions{Store: db, Capacity: 1000})
	pq := queue.NewProcessQueue(queue.ProcessQueueOptions{Store: db})
	bq := queue.NewBriefingQueue(queue.Options{Store: db})
	sources := &app.Sources{Store: db, Queue: q}
	reading := &app.Reading{Store: db, Queue: pq}
	if f != nil {
		sources.Detector = feeds.Detector{Fetcher: f}
		sources.Fetcher = feeds.Adapter{Fetcher: f}
		reading.Articles = feeds.Adapter{Fetcher: f}
	}
	briefings := &app.Briefings{Store: db, Queue: bq, Ranker: enrich.Ranker{Embedded: enrich.NewEmbedded(enrich.EmbeddedOptions{})}}
	h := views.New(views.Options{
		Sources: sources,
		Reader:  &greader.Reader{Store: db, Sources: sources},
		Version: "v-test",
		ImportOPML: func(ctx context.Context, userID int64, r io.Reader) (int, int, []string, error) {
			res, err := sources.ImportOPML(ctx, userID, r, nil)
			if res == nil {
				return 0, 0, nil, err
			}
			return res.Added, res.Skipped, res.Errors, err
		},
		ExportOPML: sources.ExportOPML,
		Reading:    reading,
		Settings:   &app.UserSettings{Store: db},
		Briefings:  briefings,
		Enricher:   views.EnricherInfo{Default: "embedded"},
		Saving:     &app.Saving{Settings: db, Items: db, Sources: db, Sender: &saveto.Sender{}},
	})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &env{t: t, db: db, srv: srv, c: c}
}

// do sends a request and returns the status and body.
func (e *env) do(method, path, contentType string, body io.Reader) (*http.Response, string) {
	e.t.Helper()
	h := http.Header{}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	return e.send(method, path, h, body)
}

// getIfNoneMatch GETs path as a poller holding the answer tagged tag does.
func (e *env) getIfNoneMatch(path, tag string) (*http.Response, string) {
	e.t.Helper()
	return e.send(http.MethodGet, path, http.Header{"If-None-Match": {tag}}, nil)
}

// send sends a request with headers and returns the response and its body.
func (e *env) send(method, path string, h http.Header, body io.Reader) (*http.Response, string) {
	e.t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, body)
	if err != nil {
		e.t.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	res, err := e.c.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer func() { _ = res.Body.Close() }()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return res, string(b)
}

func (e *env) json(method, path, body string) (int, string) {
	e.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	res, b := e.do(method, path, "application/json", r)
	return res.StatusCode, b
}

func (e *env) form(path string, vals url.Values) (*http.Response, string) {
	e.t.Helper()
	return e.do(http.MethodPost, path, "application/x-www-form-urlencoded", strings.NewReader(vals.Encode()))
}

func (e *env) get(path string) (*http.Response, string) {
	e.t.Helper()
	return e.do(http.MethodGet, path, "", nil)
}

type sourceJSON struct {
	ID                     int64   `json:"id"`
	URL                    string  `json:"url"`
	Name                   string  `json:"name"`
	Type                   string  `json:"type"`
	Status                 string  `json:"status"`
	FetchStatus            string  `json:"fetchStatus"`
	RefreshIntervalMinutes int     `json:"refreshIntervalMinutes"`
	LastFetchedAt          *string `json:"lastFetchedAt"`
	QueuedAt               *string `json:"queuedAt"`
	LastError              string  `json:"lastError"`
	ItemCount              int     `json:"itemCount"`
}

func decodeJSON[T any](t *testing.T, body string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(body), &v); err != nil {
		t.Fatalf("decode %q: %v", body, err)
	}
	return v
}

func (e *env) createSource(rawURL, name string) sourceJSON {
	e.t.Helper()
	code, body := e.json(http.MethodPost, "/api/sources", fmt.Sprintf(`{"url":%q,"name":%q,"type":"rss","refreshIntervalMinutes":30}`, rawURL, name))
	if code != http.StatusCreated {
		e.t.Fatalf("create source: %d %s", code, body)
	}
	return decodeJSON[sourceJSON](e.t, body)
}

// fetch stores a successful fetch of the source with the given items, as a fetch worker would.
func (e *env) fetch(id int64, items ...app.Item) {
	e.t.Helper()
	ctx := context.Background()
	src, err := e.db.StartFetch(ctx, id, time.Minute)
	if err != nil || src == nil {
		e.t.Fatalf("start fetch: %v %v", src, err)
	}
	if _, err := e.db.FinishFetch(ctx, src, &app.FetchResult{Items: items}, nil); err != nil {
		e.t.Fatal(err)
	}
}
