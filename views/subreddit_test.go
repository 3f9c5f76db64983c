package views_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
)

// TestAddSubredditChecksIt: adding a subreddit reads it once through the fetcher (an httptest
// server stands in for reddit): one that does not exist, is private or banned, or lists nothing
// is refused with a sentence saying so, on the form and in the API; one reddit cannot answer
// for now (offline, asking to slow down) is added; an OPML import adds as written, unread.
func TestAddSubredditChecksIt(t *testing.T) {
	e := newEnvWithDetector(t)
	var requests atomic.Int32
	reddit := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		switch r.URL.Path {
		case "/r/golang/new.json":
			fmt.Fprint(w, `{"kind":"Listing","data":{"children":[{"kind":"t3","data":{"id":"1","name":"t3_1","title":"Go 1.24 is released",
				"permalink":"/r/golang/comments/1/go_124/","url":"https://go.dev/blog/go1.24","author":"gopher","created_utc":1739615400}}]}}`)
		case "/r/nosuchsub/new.json":
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"message": "Not Found", "error": 404}`)
		case "/r/secret/new.json":
			w.WriteHeader(http.StatusForbidden)
			fmt.Fprint(w, `{"reason": "private", "message": "Forbidden", "error": 403}`)
		case "/r/banned/new.json":
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"reason": "banned", "message": "Not Found", "error": 404}`)
		case "/r/nothing/new.json":
			fmt.Fprint(w, `{"kind":"Listing","data":{"children":[]}}`)
		case "/r/busy/new.json":
			w.Header().Set("Retry-After", "120")
			w.WriteHeader(http.StatusTooManyRequests)
		default:
			t.Errorf("reddit asked for %s", r.URL)
			http.NotFound(w, r)
		}
	}))
	defer reddit.Close()
	add := func(name string) (int, string) {
		t.Helper()
		return e.json(http.MethodPost, "/api/sources", fmt.Sprintf(`{"url":%q,"type":"reddit"}`, reddit.URL+"/r/"+name))
	}
	for name, says := range map[string]string{
		"nosuchsub": "r/nosuchsub cannot be read: The server answered 404",
		"secret":    "r/secret cannot be read: The server answered 403",
		"banned":    "may not exist, or be private, quarantined or banned",
		"nothing":   "r/nothing has no posts to read",
	} {
		if code, body := add(name); code != http.StatusBadRequest || !strings.Contains(body, says) {
			t.Errorf("r/%s: %d %s, want 400 saying %q", name, code, body, says)
		}
	}
	// The form says it where the address was typed.
	res, page := e.form("/sources", url.Values{"url": {reddit.URL + "/r/secret"}, "type": {"reddit"}})
	mustContain(t, res, page, http.StatusUnprocessableEntity, `data-testid="form-error"`, "r/secret cannot be read")
	// Reddit asking to slow down says nothing of the subreddit (and holds off the host: last).
	for _, name := range []string{"golang", "busy"} {
		if code, body := add(name); code != http.StatusCreated {
			t.Errorf("r/%s: %d %s, want it added", name, code, body)
		}
	}
	// Offline: nothing answers at the address; the subreddit is added, its first fetch will say.
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	if code, body := e.json(http.MethodPost, "/api/sources", fmt.Sprintf(`{"url":%q,"type":"reddit"}`, gone.URL+"/r/later")); code != http.StatusCreated {
		t.Errorf("offline: %d %s, want the subreddit added", code, body)
	}
	// An OPML import adds subreddits as written, without a request each.
	before := requests.Load()
	doc := `<?xml version="1.0"?><opml version="2.0"><body><outline type="reddit" text="x" xmlUrl="` + reddit.URL + `/r/imported"/></body></opml>`
	var buf bytes.Buffer
	buf.WriteString("--B\r\nContent-Disposition: form-data; name=\"opml\"; filename=\"a.opml\"\r\nContent-Type: text/xml\r\n\r\n" + doc + "\r\n--B--\r\n")
	if res, _ := e.do(http.MethodPost, "/sources/import", "multipart/form-data; boundary=B", &buf); res.StatusCode != 303 {
		t.Fatalf("import: %d", res.StatusCode)
	}
	_, body := e.json(http.MethodGet, "/api/sources", "")
	if !strings.Contains(body, reddit.URL+"/r/imported") {
		t.Errorf("the imported subreddit is not a source: %s", body)
	}
	if requests.Load() != before {
		t.Errorf("the import read the subreddit %d times", requests.Load()-before)
	}
}
