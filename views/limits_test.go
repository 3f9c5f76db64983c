package views_test

import (
	"bytes"
	"context"
	"io"
	"mime/multipart"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/views"
)

// Issue 27, N8, where the user sees it: over an account's limit the JSON API answers 403 with
// the limit's message, the forms show it, and an OPML import says how many it skipped.
func TestPerAccountLimitsMessages(t *testing.T) {
	e := newAuthEnvOpts(t, func(o *views.Options) {
		o.Sources.Limits.Sources, o.Sources.Limits.Folders, o.Briefings.Limits.Briefings = 1, 1, 1
		o.ImportOPML = func(ctx context.Context, userID int64, r io.Reader) (int, int, []string, error) {
			res, err := o.Sources.ImportOPML(ctx, userID, r, nil)
			if res == nil {
				return 0, 0, nil, err
			}
			return res.Added, res.Skipped, res.Errors, err
		}
	})
	tok := e.token(e.bob)
	api := func(method, path, body string) (int, string) {
		res, b := e.req(method, path, body, "Authorization", tok)
		return res.StatusCode, b
	}
	if code, body := api("POST", "/api/sources", `{"url": "https://feeds.example/1.xml", "type": "rss"}`); code != http.StatusCreated {
		t.Fatalf("the first source: %d %s", code, body)
	}
	if code, body := api("POST", "/api/sources", `{"url": "https://feeds.example/2.xml", "type": "rss"}`); code != http.StatusForbidden || !strings.Contains(body, "This account follows 1 source, the most this server allows") {
		t.Errorf("a source over the limit: %d %s", code, body)
	}
	if code, body := api("POST", "/api/folders", `{"name": "News"}`); code != http.StatusCreated && code != http.StatusOK {
		t.Fatalf("the first folder: %d %s", code, body)
	}
	if code, body := api("POST", "/api/folders", `{"name": "Tech"}`); code != http.StatusForbidden || !strings.Contains(body, "This account has 1 folder, the most this server allows") {
		t.Errorf("a folder over the limit: %d %s", code, body)
	}
	if code, body := api("POST", "/api/briefings", `{"name": "Morning", "time": "07:00", "timezone": "UTC"}`); code != http.StatusCreated {
		t.Fatalf("the first briefing: %d %s", code, body)
	}
	if code, body := api("POST", "/api/briefings", `{"name": "Evening", "time": "19:00", "timezone": "UTC"}`); code != http.StatusForbidden || !strings.Contains(body, "This account has 1 briefing, the most this server allows") {
		t.Errorf("a briefing over the limit: %d %s", code, body)
	}

	cookie := e.login("bob", "another long secret")
	res, body := e.req("POST", "/sources", url.Values{"url": {"https://feeds.example/3.xml"}, "type": {"rss"}}.Encode(), "Cookie", cookie)
	if !strings.Contains(body, "This account follows 1 source, the most this server allows") {
		t.Errorf("the Add source form: %d, no message", res.StatusCode)
	}
	res, body = e.req("POST", "/briefings", url.Values{"name": {"Noon"}, "time": {"12:00"}, "timezone": {"UTC"}, "frequency": {"daily"}}.Encode(), "Cookie", cookie)
	if res.StatusCode != http.StatusForbidden || !strings.Contains(body, "This account has 1 briefing, the most this server allows") {
		t.Errorf("the New briefing form: %d, no message", res.StatusCode)
	}

	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("opml", "feeds.opml")
	_, _ = fw.Write([]byte(`<?xml version="1.0"?><opml version="2.0"><body><outline type="rss" text="a" xmlUrl="https://feeds.example/4.xml"/><outline type="rss" text="b" xmlUrl="https://feeds.example/5.xml"/></body></opml>`))
	_ = mw.Close()
	res, _ = e.req("POST", "/sources/import", buf.String(), "Cookie", cookie, "Content-Type", mw.FormDataContentType())
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("import: %d", res.StatusCode)
	}
	res, body = e.req("GET", "/sources", "", "Cookie", cookie+"; "+cookieHeader(res))
	if !strings.Contains(body, "0 added, 2 skipped") || !strings.Contains(body, "2 sources were not added: an account may follow at most 1 source on this server") {
		t.Errorf("the import's message is not shown: %d", res.StatusCode)
	}
}
