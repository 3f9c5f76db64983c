package views_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite"
)

// corpusFeeds is the folder of real feeds the repository carries (testdata/corpus/feeds).
func corpusFeeds(t *testing.T) string {
	t.Helper()
	d := "../testdata/corpus/feeds"
	if _, err := os.Stat(filepath.Join(d, "PaulDixExplainsNothing.xml")); err != nil {
		t.Fatalf("the test corpus is missing (%v): the Reader API tests ingest its feeds", err)
	}
	return d
}

// ingest follows a corpus feed for the user and stores what a real fetch of it finds, as the
// fetch worker would. It returns the source.
func ingest(t *testing.T, db *sqlite.DB, feedSrv *httptest.Server, userID int64, name string) *app.Source {
	t.Helper()
	ctx := context.Background()
	fq := queue.NewFetchQueue(queue.FetchQueueOptions{Store: db})
	src, err := (&app.Sources{Store: db, Queue: fq}).Add(ctx, app.AddSource{UserID: userID, URL: feedSrv.URL + "/" + name, Type: app.SourceRSS})
	if err != nil {
		t.Fatal(err)
	}
	res, err := feeds.New(feeds.Options{}).Fetch(ctx, feeds.Request{URL: src.URL, Type: app.SourceRSS})
	if err != nil || len(res.Items) == 0 {
		t.Fatalf("fetch %s: %d items, %v", name, len(res.Items), err)
	}
	started, err := db.StartFetch(ctx, src.ID, time.Minute)
	if err != nil || started == nil {
		t.Fatalf("start fetch: %v %v", started, err)
	}
	if _, err := db.FinishFetch(ctx, started, &app.FetchResult{Items: res.Items, Title: res.Title}, nil); err != nil {
		t.Fatal(err)
	}
	src, err = db.Source(ctx, userID, src.ID)
	if err != nil {
		t.Fatal(err)
	}
	return src
}

// score sets an item's score, as enrichment would have.
func score(t *testing.T, db *sqlite.DB, id int64, s int) {
	t.Helper()
	if _, err := db.Write.Exec(`update items set score = ?, status = 'DONE' where id = ?`, s, id); err != nil {
		t.Fatal(err)
	}
}

// grClient talks to the Reader API as an app does, with the token ClientLogin gave.
type grClient struct {
	t    *testing.T
	base string
	auth string
}

func (c *grClient) do(method, path string, form url.Values, headers ...string) (*http.Response, string) {
	c.t.Helper()
	var req *http.Request
	var err error
	if method == http.MethodPost {
		req, err = http.NewRequest(method, c.base+path, strings.NewReader(form.Encode()))
		if err == nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
	} else {
		u := c.base + path
		if len(form) > 0 {
			u += "?" + form.Encode()
		}
		req, err = http.NewRequest(method, u, nil)
	}
	if err != nil {
		c.t.Fatal(err)
	}
	if c.auth != "" {
		req.Header.Set("Authorization", "GoogleLogin auth="+c.auth)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := client().Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return res, string(b)
}

// ok sends a request that must answer 200 and returns the body.
func (c *grClient) ok(method, path string, form url.Values) string {
	c.t.Helper()
	res, body := c.do(method, path, form)
	if res.StatusCode != http.StatusOK {
		c.t.Fatalf("%s %s %v: %d %s", method, path, form, res.StatusCode, body)
	}
	return body
}

// fails sends a request that must answer status, with a message containing want.
func (c *grClient) fails(status int, want, method, path string, form url.Values) {
	c.t.Helper()
	res, body := c.do(method, path, form)
	if res.StatusCode != status || !strings.Contains(body, want) {
		c.t.Errorf("%s %s %.200v: got %d %q, want %d with %q", method, path, form, res.StatusCode, body, status, want)
	}
}

// clientLogin signs in and returns a client with the token.
func clientLogin(t *testing.T, base, name, pass string) *grClient {
	t.Helper()
	c := &grClient{t: t, base: base}
	body := c.ok(http.MethodPost, gr+"/accounts/ClientLogin", url.Values{"Email": {name}, "Passwd": {pass}, "service": {"reader"}})
	for _, line := range strings.Split(body, "\n") {
		if v, ok := strings.CutPrefix(line, "Auth="); ok && v != "" {
			c.auth = v
			return c
		}
	}
	t.Fatalf("ClientLogin answered no Auth line: %q", body)
	return nil
}

type grRefs struct {
	ItemRefs []struct {
		ID        string `json:"id"`
		Timestamp string `json:"timestampUsec"`
	} `json:"itemRefs"`
	Continuation string `json:"continuation"`
}

type grItem struct {
	ID         string   `json:"id"`
	Title      string   `json:"title"`
	Categories []string `json:"categories"`
	Published  int64    `json:"published"`
	Crawl      string   `json:"crawlTimeMsec"`
	Canonical  []struct {
		Href string `json:"href"`
	} `json:"canonical"`
	Origin struct {
		StreamID string `json:"streamId"`
		Title    string `json:"title"`
	} `json:"origin"`
	Summary struct {
		Content string `json:"content"`
	} `json:"summary"`
}

type grStream struct {
	ID           string   `json:"id"`
	Items        []grItem `json:"items"`
	Continuation string   `json:"continuation"`
}

// ids reads every page of a stream's ids, following the continuation.
func (c *grClient) ids(params url.Values) []int64 {
	c.t.Helper()
	var out []int64
	for pages := 0; ; pages++ {
		if pages > 100 {
			c.t.Fatal("the continuation never ends")
		}
		r := decodeJSON[grRefs](c.t, c.ok(http.MethodGet, gr+"/reader/api/0/stream/items/ids", params))
		for _, ref := range r.ItemRefs {
			id, err := strconv.ParseInt(ref.ID, 10, 64)
			if err != nil {
				c.t.Fatalf("item ref id %q is not decimal", ref.ID)
			}
			out = append(out, id)
		}
		if r.Continuation == "" {
			return out
		}
		params = cloneValues(params)
		params.Set("c", r.Continuation)
	}
}

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = slices.Clone(vs)
	}
	return out
}

func itemIDsOf(t *testing.T, db *sqlite.DB, f app.ItemFilter) []int64 {
	t.Helper()
	f.Limit = 500
	items, err := db.Items(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for _, it := range items {
		ids = append(ids, it.ID)
	}
	return ids
}

func sameSet(a, b []int64) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func longID(id int64) string { return fmt.Sprintf("tag:google.com,2005:reader/item/%016x", id) }
