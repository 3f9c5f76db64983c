package views_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/greader"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
	"github.com/morningdeck/morningdeck/views"
)

// authEnv is a server that requires sign-in, with two accounts: ann (the admin) and bob.
type authEnv struct {
	t        *testing.T
	db       *sqlite.DB
	srv      *httptest.Server
	accounts *app.Accounts
	ann, bob *app.User
}

func newAuthEnv(t *testing.T) *authEnv { t.Helper(); return newAuthEnvOpts(t, nil) }

// newAuthEnvOpts is newAuthEnv with the server's options changed by set (nil: as they are).
func newAuthEnvOpts(t *testing.T, set func(*views.Options)) *authEnv {
	t.Helper()
	db := sqlitetest.New(t)
	fq := queue.NewFetchQueue(queue.FetchQueueOptions{Store: db})
	pq := queue.NewProcessQueue(queue.ProcessQueueOptions{Store: db})
	accounts := &app.Accounts{Store: db, Cost: bcrypt.MinCost}
	ctx := context.Background()
	ann, err := accounts.AddUser(ctx, "ann", "correct horse battery", false) // the first: admin, owns user 1
	if err != nil {
		t.Fatal(err)
	}
	bob, err := accounts.AddUser(ctx, "bob", "another long secret", false)
	if err != nil {
		t.Fatal(err)
	}
	admin := &queue.Admin{List: []*queue.Queue{fq.Queue, pq.Queue}, Store: db}
	srcs := &app.Sources{Store: db, Queue: fq}
	o := views.Options{Sources: srcs, Reader: &greader.Reader{Store: db, Sources: srcs}, Version: "v-test",
		Reading: &app.Reading{Store: db, Queue: pq}, Settings: &app.UserSettings{Store: db}, Briefings: &app.Briefings{Store: db},
		Queues: admin, Accounts: accounts, RequireLogin: true}
	if set != nil {
		set(&o)
	}
	h := views.New(o)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &authEnv{t: t, db: db, srv: srv, accounts: accounts, ann: ann, bob: bob}
}

// client is a cookie-less HTTP client that does not follow redirects.
func client() *http.Client {
	return &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// req sends a request with optional headers ("Cookie", "Authorization", ...).
func (e *authEnv) req(method, path, body string, headers ...string) (*http.Response, string) {
	e.t.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, r)
	if err != nil {
		e.t.Fatal(err)
	}
	if strings.HasPrefix(body, "{") {
		req.Header.Set("Content-Type", "application/json")
	} else if body != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// login signs in through the form and returns the session cookie header value.
func (e *authEnv) login(name, password string) string {
	e.t.Helper()
	res, body := e.req("POST", "/login", url.Values{"name": {name}, "password": {password}}.Encode())
	if res.StatusCode != http.StatusSeeOther {
		e.t.Fatalf("login %s: %d %s", name, res.StatusCode, body)
	}
	for _, c := range res.Cookies() {
		if c.Name == "md_session" {
			return "md_session=" + c.Value
		}
	}
	e.t.Fatal("no session cookie")
	return ""
}

func (e *authEnv) token(u *app.User) string {
	e.t.Helper()
	_, secret, err := e.accounts.NewAPIToken(context.Background(), u.ID, "test")
	if err != nil {
		e.t.Fatal(err)
	}
	return "Bearer " + secret
}

func TestSignIn(t *testing.T) {
	t.Run("pages send to the sign-in page, the API answers 401; a wrong password is refused; a session works until sign-out", func(t *testing.T) {
		e := newAuthEnv(t)
		res, _ := e.req("GET", "/items?unread=1", "")
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/login?next=%2Fitems%3Funread%3D1" {
			t.Fatalf("page without session: %d %s", res.StatusCode, res.Header.Get("Location"))
		}
		res, body := e.req("GET", "/api/sources", "")
		if res.StatusCode != http.StatusUnauthorized || !strings.Contains(body, `"error"`) {
			t.Fatalf("API without token: %d %s", res.StatusCode, body)
		}
		for _, open := range []string{"/healthz", "/login", "/static/app.css"} {
			if res, _ := e.req("GET", open, ""); res.StatusCode == http.StatusSeeOther || res.StatusCode == http.StatusUnauthorized {
				t.Errorf("%s needs a session: %d", open, res.StatusCode)
			}
		}
		res, body = e.req("POST", "/login", url.Values{"name": {"ann"}, "password": {"wrong password!"}}.Encode())
		if res.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "Wrong user name or password.") {
			t.Fatalf("wrong password: %d", res.StatusCode)
		}
		res, body = e.req("POST", "/login", url.Values{"name": {"nobody"}, "password": {"whatever123"}}.Encode())
		if res.StatusCode != http.StatusUnauthorized || !strings.Contains(body, "Wrong user name or password.") {
			t.Fatalf("unknown user: %d", res.StatusCode)
		}

		res, _ = e.req("POST", "/login", url.Values{"name": {"ann"}, "password": {"correct horse battery"}, "next": {"/sources"}}.Encode())
		if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/sources" {
			t.Fatalf("sign-in: %d %s", res.StatusCode, res.Header.Get("Location"))
		}
		c := res.Cookies()[0]
		if c.Name != "md_session" || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Secure {
			t.Fatalf("cookie %+v", c)
		}
		res, _ = e.req("POST", "/login", url.Values{"name": {"ann"}, "password": {"correct horse battery"}, "next": {"//evil.example/"}}.Encode(),
			"X-Forwarded-Proto", "https")
		if res.Header.Get("Location") != "/" || !res.Cookies()[0].Secure {
			t.Fatalf("behind TLS: %s secure=%v (an open redirect, or no Secure cookie)", res.Header.Get("Location"), res.Cookies()[0].Secure)
		}
		cookie := "md_session=" + c.Value
		res, body = e.req("GET", "/", "", "Cookie", cookie)
		if res.StatusCode != 200 || !strings.Contains(body, `data-testid="account-link"`) {
			t.Fatalf("signed in: %d", res.StatusCode)
		}
		if res, _ := e.req("POST", "/logout", "", "Cookie", cookie); res.StatusCode != http.StatusSeeOther {
			t.Fatalf("logout: %d", res.StatusCode)
		}
		if res, _ := e.req("GET", "/", "", "Cookie", cookie); res.StatusCode != http.StatusSeeOther {
			t.Fatal("the session still works after sign-out")
		}
	})

	t.Run("each user sees only their own data, by session and by API token; the queues are the admin's", func(t *testing.T) {
		e := newAuthEnv(t)
		annTok, bobTok := e.token(e.ann), e.token(e.bob)
		res, body := e.req("POST", "/api/sources", `{"url": "https://ann.example/feed.xml", "type": "rss", "name": "Ann's feed"}`, "Authorization", annTok)
		if res.StatusCode != http.StatusCreated {
			t.Fatalf("ann creates: %d %s", res.StatusCode, body)
		}
		src := decodeJSON[sourceJSON](t, body)
		if _, err := e.db.Write.Exec(`insert into items (source_id, user_id, guid, title, link, status, created_at) values (?, ?, 'g1', 'Ann only', 'https://ann.example/1', 'DONE', ?)`,
			src.ID, e.ann.ID, time.Now().UTC().Format(sqlite.TimeFormat)); err != nil {
			t.Fatal(err)
		}
		var itemID int64
		_ = e.db.Read.QueryRow(`select id from items where guid = 'g1'`).Scan(&itemID)
		res, body = e.req("POST", "/api/briefings", `{"name": "Ann's morning"}`, "Authorization", annTok)
		if res.StatusCode != http.StatusCreated {
			t.Fatalf("ann's briefing: %d %s", res.StatusCode, body)
		}
		briefing := decodeJSON[map[string]any](t, body)
		bID := int64(briefing["id"].(float64))

		for _, c := range []struct{ method, path, body string }{
			{"GET", fmt.Sprintf("/api/sources/%d", src.ID), ""},
			{"PATCH", fmt.Sprintf("/api/sources/%d", src.ID), `{"name": "mine now"}`},
			{"DELETE", fmt.Sprintf("/api/sources/%d", src.ID), ""},
			{"GET", fmt.Sprintf("/api/items/%d", itemID), ""},
			{"PATCH", fmt.Sprintf("/api/items/%d", itemID), `{"starred": true}`},
			{"GET", fmt.Sprintf("/api/briefings/%d", bID), ""},
			{"DELETE", fmt.Sprintf("/api/briefings/%d", bID), ""},
		} {
			if res, body := e.req(c.method, c.path, c.body, "Authorization", bobTok); res.StatusCode != http.StatusNotFound {
				t.Errorf("bob %s %s: %d %s", c.method, c.path, res.StatusCode, body)
			}
		}
		for _, path := range []string{"/api/sources", "/api/items", "/api/briefings"} {
			_, body := e.req("GET", path, "", "Authorization", bobTok)
			if body != "[]\n" {
				t.Errorf("bob's %s: %s", path, body)
			}
			_, body = e.req("GET", path, "", "Authorization", annTok)
			if body == "[]\n" {
				t.Errorf("ann's %s is empty", path)
			}
		}
		bob := e.login("bob", "another long secret")
		for _, page := range []string{fmt.Sprintf("/sources/%d", src.ID), fmt.Sprintf("/items/%d", itemID), fmt.Sprintf("/briefings/%d/edit", bID)} {
			if res, _ := e.req("GET", page, "", "Cookie", bob); res.StatusCode != http.StatusNotFound {
				t.Errorf("bob sees %s: %d", page, res.StatusCode)
			}
		}
		_, body = e.req("GET", "/sources", "", "Cookie", bob)
		if strings.Contains(body, "Ann&#39;s feed") || strings.Contains(body, "Ann's feed") {
			t.Error("bob's sources page lists ann's source")
		}
		for _, admin := range []string{"/queues", "/admin/queue-stats"} {
			if res, _ := e.req("GET", admin, "", "Cookie", bob); res.StatusCode != http.StatusForbidden {
				t.Errorf("bob %s: %d", admin, res.StatusCode)
			}
			if res, _ := e.req("GET", admin, "", "Cookie", e.login("ann", "correct horse battery")); res.StatusCode != http.StatusOK {
				t.Errorf("ann %s: %d", admin, res.StatusCode)
			}
		}
		// The admin's token serves the machine endpoint, not the page (issue 27, N3).
		if res, _ := e.req("GET", "/admin/queue-stats", "", "Authorization", annTok); res.StatusCode != http.StatusOK {
			t.Errorf("ann's token, /admin/queue-stats: %d", res.StatusCode)
		}
		if res, _ := e.req("GET", "/queues", "", "Authorization", annTok); res.StatusCode != http.StatusForbidden {
			t.Errorf("ann's token, /queues: %d", res.StatusCode)
		}
		if _, body := e.req("GET", "/", "", "Cookie", bob); strings.Contains(body, `data-testid="nav-queues"`) {
			t.Error("the Queues link is shown to a user who is not an admin")
		}
		if res, _ := e.req("GET", "/api/sources", "", "Authorization", "Bearer md_not-a-token"); res.StatusCode != http.StatusUnauthorized {
			t.Errorf("a made-up token: %d", res.StatusCode)
		}
	})

	t.Run("a briefing's feed is reachable with its token only", func(t *testing.T) {
		e := newAuthEnv(t)
		b := &app.Briefing{UserID: e.bob.ID, Name: "Bob's evening", Time: "19:00", Timezone: "UTC"}
		if err := (&app.Briefings{Store: e.db}).Save(context.Background(), b); err != nil {
			t.Fatal(err)
		}
		path := fmt.Sprintf("/briefings/%d/feed.xml", b.ID)
		if res, _ := e.req("GET", path, ""); res.StatusCode != http.StatusNotFound {
			t.Fatalf("no token: %d", res.StatusCode)
		}
		if res, _ := e.req("GET", path+"?token=0123456789abcdef0123456789abcdef", ""); res.StatusCode != http.StatusNotFound {
			t.Fatalf("a wrong token: %d", res.StatusCode)
		}
		tok, _ := e.accounts.FeedToken(context.Background(), b.ID)
		res, body := e.req("GET", path+"?token="+tok, "")
		if res.StatusCode != 200 || !strings.Contains(body, "Bob&#39;s evening") && !strings.Contains(body, "Bob's evening") {
			t.Fatalf("with its token: %d %s", res.StatusCode, body)
		}
	})
}

func TestRequestProtection(t *testing.T) {
	t.Run("a cross-origin post is refused (CSRF), also in local mode; same-origin and non-browser clients pass", func(t *testing.T) {
		e := newEnv(t)
		post := func(headers map[string]string) int {
			req, _ := http.NewRequest("POST", e.srv.URL+"/sources/refresh", strings.NewReader(""))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			for k, v := range headers {
				req.Header.Set(k, v)
			}
			res, err := e.c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			return res.StatusCode
		}
		if code := post(map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}); code != http.StatusForbidden {
			t.Errorf("cross-site with Sec-Fetch-Site: %d", code)
		}
		if code := post(map[string]string{"Origin": "https://evil.example"}); code != http.StatusForbidden {
			t.Errorf("cross-origin by Origin only (an older browser): %d", code)
		}
		if code := post(map[string]string{"Sec-Fetch-Site": "same-origin", "Origin": e.srv.URL}); code != http.StatusSeeOther {
			t.Errorf("same origin: %d", code)
		}
		if code := post(nil); code != http.StatusSeeOther {
			t.Errorf("no browser headers (curl): %d", code)
		}
	})

	t.Run("every response carries the security headers", func(t *testing.T) {
		e := newEnv(t)
		res, _ := e.get("/")
		for h, want := range map[string]string{"Content-Security-Policy": "frame-ancestors 'none'", "X-Content-Type-Options": "nosniff",
			"Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"} {
			if !strings.Contains(res.Header.Get(h), want) {
				t.Errorf("%s: %q", h, res.Header.Get(h))
			}
		}
		if csp := res.Header.Get("Content-Security-Policy"); strings.Contains(csp, "unsafe-inline") || !strings.Contains(csp, "script-src 'self'") {
			t.Errorf("CSP allows inline script: %s", csp)
		}
	})

	t.Run("sign-in attempts and API requests are rate limited", func(t *testing.T) {
		e := newAuthEnv(t)
		var last int
		for i := range 12 {
			res, _ := e.req("POST", "/login", url.Values{"name": {"ann"}, "password": {fmt.Sprintf("guess number %d", i)}}.Encode())
			last = res.StatusCode
		}
		if last != http.StatusTooManyRequests {
			t.Fatalf("the 12th wrong password in a row: %d", last)
		}
		tok := e.token(e.bob)
		limited := 0
		for range 150 {
			res, _ := e.req("GET", "/api/briefings", "", "Authorization", tok)
			if res.StatusCode == http.StatusTooManyRequests {
				limited++
				if res.Header.Get("Retry-After") == "" {
					t.Fatal("429 without Retry-After")
				}
			}
		}
		if limited == 0 {
			t.Fatal("150 API requests at once were not limited")
		}
	})
}
