package feeds_test

// Hostile and broken input. Every case is served by a real server to the real Fetcher through
// the entry points the workers use — Fetch (the fetch worker), Detect (adding a source) and
// Article (the process worker) — and must end as a readable *feeds.Error or as a bounded, clean
// result (see checkClean). TestHostilePeakMemory runs the whole set again in a child process
// and reports the peak RSS of each case.

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// hostileNow is the Fetcher's clock in these tests.
var hostileNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

type hostileCase struct {
	name  string
	entry string         // "" (Fetch), "detect" or "article"
	typ   app.SourceType // for Fetch; "" is rss
	path  string         // requested path; "" is "/"
	serve http.HandlerFunc
	// timeout is Options.Timeout; 0 is the default.
	timeout time.Duration
	// kind and message describe the error wanted; an empty kind wants a result.
	kind, message string
	// check, if set, looks further at what came back (res for Fetch, det for Detect, art for
	// Article; nil on error). base is the server's URL.
	check func(t *testing.T, r hostileResult, base string)
}

type hostileResult struct {
	res *feeds.Result
	det *feeds.Detection
	art *feeds.Article
}

// run does the case against a server at base.
func (c hostileCase) run(ctx context.Context, base string) (hostileResult, error) {
	f := feeds.New(feeds.Options{Clock: sqlitetest.NewClock(hostileNow), Timeout: c.timeout})
	u := base + c.path
	if c.path == "" {
		u = base + "/"
	}
	var r hostileResult
	var err error
	switch c.entry {
	case "detect":
		r.det, err = f.Detect(ctx, u)
	case "article":
		r.art, err = f.Article(ctx, u)
	default:
		r.res, err = f.Fetch(ctx, feeds.Request{URL: u, Type: c.typ})
	}
	return r, err
}

func TestHostileInput(t *testing.T) {
	for _, c := range hostileCases() {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(c.serve)
			defer srv.Close()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang fails, late
			defer cancel()
			r, err := c.run(ctx, srv.URL)
			if c.kind != "" {
				fe := assertKind(t, err, c.kind)
				if !strings.Contains(fe.Message, c.message) {
					t.Errorf("message %q lacks %q", fe.Message, c.message)
				}
			} else if err != nil {
				t.Fatalf("got error %v, want a result", err)
			} else {
				checkClean(t, r)
			}
			if c.check != nil {
				c.check(t, r, srv.URL)
			}
		})
	}
}

// checkClean checks what every result must be, whatever was served: at most MaxItems items,
// valid UTF-8 everywhere, bounded titles and contents, sanitized HTML and plain text free of
// the payloads below, absolute http(s) links, unique bounded GUIDs, and no date before 1970 or
// after the fetch.
func checkClean(t *testing.T, r hostileResult) {
	t.Helper()
	text := func(what, s string, maxRunes int) {
		t.Helper()
		if !utf8.ValidString(s) {
			t.Errorf("%s is not valid UTF-8: %.80q", what, s)
		}
		if n := utf8.RuneCountInString(s); n > maxRunes {
			t.Errorf("%s has %d characters, more than %d", what, n, maxRunes)
		}
	}
	html := func(what, s string) {
		t.Helper()
		text(what, s, feeds.MaxContentBytes)
		if len(s) > feeds.MaxContentBytes {
			t.Errorf("%s has %d bytes, more than %d", what, len(s), feeds.MaxContentBytes)
		}
		low := strings.ToLower(s)
		for _, bad := range []string{"<script", "<iframe", "<style", "<object", "<embed", "<form", "javascript:", "alert(", " onerror", " onclick", " onload"} {
			if strings.Contains(low, bad) {
				t.Errorf("%s holds %q: %.200s", what, bad, s[max(0, strings.Index(low, bad)-80):])
			}
		}
	}
	link := func(what, s string) {
		t.Helper()
		if s == "" {
			return
		}
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			t.Errorf("%s %q is not an absolute http(s) URL", what, s)
		}
	}
	switch {
	case r.art != nil:
		text("article title", r.art.Title, 301)
		html("article HTML", r.art.HTML)
		html("article text", r.art.Text)
		return
	case r.det != nil:
		text("detected title", r.det.Title, 301)
		link("detected URL", r.det.URL)
		for _, f := range r.det.Feeds {
			link("advertised feed", f.URL)
		}
		return
	}
	res := r.res
	text("source title", res.Title, 301)
	link("site URL", res.SiteURL)
	if len(res.Items) > feeds.MaxItems {
		t.Errorf("%d items, more than %d", len(res.Items), feeds.MaxItems)
	}
	guids := map[string]bool{}
	for i, it := range res.Items {
		what := fmt.Sprintf("item %d", i)
		text(what+" title", it.Title, 301)
		text(what+" author", it.Author, 201)
		text(what+" GUID", it.GUID, 1024)
		text(what+" raw content", it.RawContent, feeds.MaxContentBytes) // kept as it came, bounded
		if len(it.RawContent) > feeds.MaxContentBytes {
			t.Errorf("%s raw content has %d bytes", what, len(it.RawContent))
		}
		html(what+" clean content", it.CleanContent)
		html(what+" text", it.Text)
		link(what+" link", it.Link)
		// A GUID repeats only for posts with different links (the app keys them apart).
		if k := it.GUID + "\n" + it.Link; it.GUID == "" || len(it.GUID) > 1024 || guids[k] {
			t.Errorf("%s GUID %.80q empty, too long or repeated", what, it.GUID)
		} else {
			guids[k] = true
		}
		if p := it.PublishedAt; p != nil && (p.Year() < 1970 || p.After(hostileNow) || p.Location() != time.UTC) {
			t.Errorf("%s published %v", what, p)
		}
	}
}

// rssType is the Content-Type most cases serve.
const rssType = "application/rss+xml"

// hostileCases is every case, in this order: parser attacks, transport, content types,
// encodings, sizes, dates, duplicates, relative links, sanitizing, Detect and Article.
func hostileCases() []hostileCase {
	var cases []hostileCase
	for _, group := range []func() []hostileCase{
		hostileEntityCases, hostileTransportCases, hostileContentTypeCases, hostileEncodingCases, hostileSizeCases,
		hostileDateCases, hostileDuplicateCases, hostileLinkCases, hostileSanitizeCases, hostileEntryCases,
	} {
		cases = append(cases, group()...)
	}
	return cases
}

// muxOf serves each path with its handler.
func muxOf(routes map[string]http.HandlerFunc) http.HandlerFunc {
	m := http.NewServeMux()
	for p, h := range routes {
		m.HandleFunc(p, h)
	}
	return m.ServeHTTP
}

// oneTitled wants one item, titled title.
func oneTitled(title string) func(t *testing.T, r hostileResult, base string) {
	return func(t *testing.T, r hostileResult, base string) {
		t.Helper()
		if len(r.res.Items) != 1 || r.res.Items[0].Title != title {
			t.Fatalf("items %+v, want one titled %q", r.res.Items, title)
		}
	}
}

// wantTitles wants the items titled want, in order.
func wantTitles(want ...string) func(t *testing.T, r hostileResult, base string) {
	return func(t *testing.T, r hostileResult, base string) {
		t.Helper()
		var got []string
		for _, it := range r.res.Items {
			got = append(got, it.Title)
		}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Fatalf("titles %q, want %q", got, want)
		}
	}
}

// wantLinks wants the first items linked to want, in order (BASE is the server's URL).
func wantLinks(want ...string) func(t *testing.T, r hostileResult, base string) {
	return func(t *testing.T, r hostileResult, base string) {
		t.Helper()
		for i, w := range want {
			w = strings.ReplaceAll(w, "BASE", base)
			if i >= len(r.res.Items) || r.res.Items[i].Link != w {
				t.Errorf("item %d link, want %q; items %+v", i, w, r.res.Items)
			}
		}
	}
}

// wantDates wants the items published at want (RFC 3339, "nil" for none), in order.
func wantDates(want ...string) func(t *testing.T, r hostileResult, base string) {
	return func(t *testing.T, r hostileResult, base string) {
		t.Helper()
		if len(r.res.Items) != len(want) {
			t.Fatalf("%d items, want %d", len(r.res.Items), len(want))
		}
		for i, it := range r.res.Items {
			got := "nil"
			if it.PublishedAt != nil {
				got = it.PublishedAt.Format(time.RFC3339)
			}
			if got != want[i] {
				t.Errorf("%s: published %s, want %s", it.Title, got, want[i])
			}
		}
	}
}
