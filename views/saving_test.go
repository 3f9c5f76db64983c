package views_test

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/saveto"
)

// wallabagServer is a local server that answers as Wallabag's API does: the OAuth password
// grant at /oauth/v2/token and POST /api/entries.json with the token it gave.
type wallabagServer struct {
	*httptest.Server
	mu      sync.Mutex
	entries []url.Values
	tokens  int
}

func newWallabag(t *testing.T) *wallabagServer {
	w := &wallabagServer{}
	w.Server = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		_ = r.ParseForm()
		w.mu.Lock()
		defer w.mu.Unlock()
		switch r.URL.Path {
		case "/oauth/v2/token":
			rw.Header().Set("Content-Type", "application/json")
			switch {
			case r.PostForm.Get("grant_type") != "password":
				rw.WriteHeader(400)
				fmt.Fprint(rw, `{"error":"unsupported_grant_type"}`)
			case r.PostForm.Get("client_id") != "1_client" || r.PostForm.Get("client_secret") != "client-secret-xyz":
				rw.WriteHeader(400)
				fmt.Fprint(rw, `{"error":"invalid_client","error_description":"The client credentials are invalid"}`)
			case r.PostForm.Get("username") != "ann" || r.PostForm.Get("password") != "wallabag-pass-123":
				rw.WriteHeader(400)
				fmt.Fprint(rw, `{"error":"invalid_grant","error_description":"Invalid username and password combination"}`)
			default:
				w.tokens++
				fmt.Fprintf(rw, `{"access_token":"tok-%d","expires_in":3600,"token_type":"bearer","scope":null,"refresh_token":"r"}`, w.tokens)
			}
		case "/api/entries.json":
			if r.Method != http.MethodPost || !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer tok-") {
				rw.WriteHeader(401)
				fmt.Fprint(rw, `{"error":"invalid_grant","error_description":"The access token provided is invalid."}`)
				return
			}
			w.entries = append(w.entries, r.PostForm)
			rw.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(rw, `{"id":%d,"url":%q}`, len(w.entries), r.PostForm.Get("url"))
		default:
			http.NotFound(rw, r)
		}
	}))
	t.Cleanup(w.Close)
	return w
}

// TestSaveElsewhere: a reader sets up a webhook and a Wallabag account in Settings; the
// account is signed in to before it is kept (a wrong password or client is refused, in plain
// words, and nothing is stored); "Save" on a card and on the item page then sends the item to
// both — the webhook receives it as JSON, signed with the secret the page shows, and Wallabag
// gets its link, title and tags — and a failing webhook is named while Wallabag still saves.
// The Wallabag password and client secret never come back in a page or an API answer.
func TestSaveElsewhere(t *testing.T) {
	wb := newWallabag(t)
	var hookMu sync.Mutex
	var hookBodies [][]byte
	var hookHeaders []http.Header
	hookStatus := 200
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		hookMu.Lock()
		defer hookMu.Unlock()
		hookBodies, hookHeaders = append(hookBodies, b), append(hookHeaders, r.Header.Clone())
		w.WriteHeader(hookStatus)
		if hookStatus != 200 {
			fmt.Fprint(w, "receiver is down for maintenance")
		}
	}))
	defer hook.Close()

	e := newEnv(t)
	src := e.createSource("https://paper.example/feed", "The Paper")
	e.fetch(src.ID, app.Item{GUID: "a", Title: "Harbour bridge to be rebuilt", Link: "https://paper.example/bridge", Text: "The council voted to rebuild the bridge.", Author: "Ann Writer"},
		app.Item{GUID: "b", Title: "A note", Text: "No link here."})
	var id, noLink int64
	if err := e.db.Read.QueryRow(`select id from items where guid = 'a'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	if err := e.db.Read.QueryRow(`select id from items where guid = 'b'`).Scan(&noLink); err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.Write.Exec(`update items set tags = '["bridges","council"]' where id = ?`, id); err != nil {
		t.Fatal(err)
	}

	// Before any setup: no Save button, and the settings card is there.
	_, page := e.get("/items")
	if strings.Contains(page, `data-testid="save-item"`) {
		t.Fatal("a Save button is shown with nowhere to save to")
	}
	_, settings := e.get("/settings")
	if !strings.Contains(settings, `data-testid="save-settings"`) {
		t.Fatal("Settings has no Save items elsewhere card")
	}

	form := func(vals url.Values) (string, string) {
		t.Helper()
		res, body := e.form("/settings/saving", vals)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("save settings: %d %.300s", res.StatusCode, body)
		}
		kind, msg, _ := strings.Cut(cookieFlash(res), "\n")
		return kind, msg
	}
	account := url.Values{"wallabagUrl": {wb.URL + "/"}, "wallabagClientId": {"1_client"}, "wallabagClientSecret": {"client-secret-xyz"},
		"wallabagUsername": {"ann"}, "wallabagPassword": {"wrong"}}
	for _, c := range []struct {
		name  string
		vals  url.Values
		words string
	}{
		{"a wrong password", account, "refused the sign-in"},
		{"an unknown client", withValue(account, "wallabagClientSecret", "nope", "wallabagPassword", "wallabag-pass-123"), "does not know this client"},
		{"no Wallabag there", withValue(account, "wallabagUrl", hook.URL+"/nothing", "wallabagPassword", "wallabag-pass-123"), "answered the sign-in with no access token"},
		{"a host that does not exist", withValue(account, "wallabagUrl", "http://wallabag.invalid", "wallabagPassword", "wallabag-pass-123"), "could not be reached"},
		{"a missing field", url.Values{"wallabagUrl": {wb.URL}, "wallabagUsername": {"ann"}}, "needs its address, a client ID and secret"},
		{"not an address", url.Values{"webhookUrl": {"ftp://x"}}, "must be an http(s) address"},
	} {
		kind, msg := form(c.vals)
		if kind != "error" || !strings.Contains(msg, c.words) {
			t.Errorf("%s: flash %s %q, want an error saying %q", c.name, kind, msg, c.words)
		}
	}
	if st := e.settingsRow(t); st.WallabagURL != "" || st.WebhookURL != "" {
		t.Fatalf("a refused setup was stored: %+v", st)
	}

	kind, msg := form(withValue(account, "wallabagPassword", "wallabag-pass-123", "webhookUrl", hook.URL+"/in"))
	if kind != "success" {
		t.Fatalf("a good setup: %s %q", kind, msg)
	}
	_, settings = e.get("/settings")
	for _, secret := range []string{"wallabag-pass-123", "client-secret-xyz"} {
		if strings.Contains(settings, secret) {
			t.Fatalf("the settings page shows %q", secret)
		}
		if _, body := e.json(http.MethodGet, "/api/settings", ""); strings.Contains(body, secret) {
			t.Fatalf("the settings API shows %q", secret)
		}
	}
	m := regexp.MustCompile(`id="webhook-secret" readonly value="([0-9a-f]{64})"`).FindStringSubmatch(settings)
	if m == nil {
		t.Fatal("the settings page shows no webhook signing secret")
	}
	secret := m[1]
	// Blank secret fields keep what is stored: changing the user name alone signs in again with it.
	if kind, msg := form(url.Values{"wallabagUrl": {wb.URL}, "wallabagClientId": {"1_client"}, "wallabagUsername": {"ann"}, "webhookUrl": {hook.URL + "/in"}}); kind != "success" {
		t.Fatalf("saving again with blank secrets: %s %q", kind, msg)
	}
	if st := e.settingsRow(t); st.WallabagPassword != "wallabag-pass-123" || st.WebhookSecret != secret {
		t.Fatalf("saving again changed the stored password or the webhook's secret: %+v", st)
	}

	// Save on a card, with htmx: the card comes back saying where it went.
	hookMu.Lock()
	hookBodies, hookHeaders = nil, nil // the sign-in tried against it above ("no Wallabag there")
	hookMu.Unlock()
	_, page = e.get("/items")
	if !strings.Contains(page, `data-testid="save-item"`) || !strings.Contains(page, `title="Save to Wallabag and your webhook (e)"`) {
		t.Fatal("no Save button on the cards after setup")
	}
	res, card := e.send(http.MethodPost, fmt.Sprintf("/items/%d/save", id), http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Hx-Request": {"true"}},
		strings.NewReader(url.Values{"return": {"/items"}}.Encode()))
	if res.StatusCode != 200 || !strings.Contains(card, `data-testid="save-result"`) || !strings.Contains(card, "Saved to Wallabag and your webhook.") {
		t.Fatalf("htmx save: %d %.500s", res.StatusCode, card)
	}
	wb.mu.Lock()
	got := wb.entries
	wb.mu.Unlock()
	if len(got) != 1 || got[0].Get("url") != "https://paper.example/bridge" || got[0].Get("title") != "Harbour bridge to be rebuilt" || got[0].Get("tags") != "bridges,council" {
		t.Fatalf("Wallabag received %v", got)
	}
	hookMu.Lock()
	if len(hookBodies) != 1 {
		t.Fatalf("the webhook was called %d times", len(hookBodies))
	}
	body, h := hookBodies[0], hookHeaders[0]
	hookMu.Unlock()
	var ts int64
	fmt.Sscan(h.Get(saveto.HeaderTimestamp), &ts)
	if ts == 0 || h.Get(saveto.HeaderSignature) != saveto.Sign(secret, ts, body) || h.Get(saveto.HeaderEvent) != "item.saved" {
		t.Fatalf("the webhook's signature does not verify with the page's secret: %v", h)
	}
	var p saveto.Payload
	if err := json.Unmarshal(body, &p); err != nil {
		t.Fatal(err)
	}
	if p.Event != "item.saved" || p.Item.ID != id || p.Item.URL != "https://paper.example/bridge" || p.Item.Author != "Ann Writer" ||
		p.Item.Source.Name != "The Paper" || p.Item.Source.URL != "https://paper.example/feed" || len(p.Item.Tags) != 2 {
		t.Fatalf("webhook payload: %s", body)
	}

	// On the item page, without htmx: a message after the redirect. The webhook failing is
	// named; Wallabag still saves.
	hookMu.Lock()
	hookStatus = 503
	hookMu.Unlock()
	_, itemPage := e.get(fmt.Sprintf("/items/%d", id))
	if !strings.Contains(itemPage, `data-testid="save-item"`) {
		t.Fatal("no Save button on the item page")
	}
	res, _ = e.form(fmt.Sprintf("/items/%d/save", id), url.Values{"return": {fmt.Sprintf("/items/%d", id)}})
	kind, msg, _ = strings.Cut(cookieFlash(res), "\n")
	if res.StatusCode != http.StatusSeeOther || kind != "error" || !strings.Contains(msg, "Saved to Wallabag, but not everywhere") ||
		!strings.Contains(msg, "The webhook answered 503 Service Unavailable") || !strings.Contains(msg, "receiver is down") {
		t.Fatalf("a failing webhook: %d %s %q", res.StatusCode, kind, msg)
	}
	if wb.mu.Lock(); len(wb.entries) != 2 {
		t.Fatalf("Wallabag has %d entries, want 2", len(wb.entries))
	}
	wb.mu.Unlock()

	// The API, and an item with no link: Wallabag cannot keep it, and says so.
	code, answer := e.json(http.MethodPost, fmt.Sprintf("/api/items/%d/save", noLink), "")
	if code != http.StatusBadRequest || !strings.Contains(html.UnescapeString(answer), "links to no page") {
		t.Fatalf("API save of an item without a link: %d %s", code, answer)
	}
	hookMu.Lock()
	hookStatus = 200
	hookMu.Unlock()
	// Forgetting the account and the webhook takes the button away.
	if kind, msg := form(url.Values{"wallabagRemove": {"on"}, "webhookUrl": {""}}); kind != "success" {
		t.Fatalf("forget: %s %q", kind, msg)
	}
	if _, page = e.get("/items"); strings.Contains(page, `data-testid="save-item"`) {
		t.Fatal("the Save button stays after the places were removed")
	}
	if code, answer = e.json(http.MethodPost, fmt.Sprintf("/api/items/%d/save", id), ""); code != http.StatusBadRequest || !strings.Contains(answer, "Nowhere to save to yet") {
		t.Fatalf("API save with nowhere to save: %d %s", code, answer)
	}
}

// withValue is vals with some fields changed (name, value, name, value…).
func withValue(vals url.Values, kv ...string) url.Values {
	out := url.Values{}
	for k, v := range vals {
		out[k] = append([]string(nil), v...)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out.Set(kv[i], kv[i+1])
	}
	return out
}

// settingsRow is the user's stored settings, read through the store.
func (e *env) settingsRow(t *testing.T) *app.Settings {
	t.Helper()
	st, err := e.db.Settings(t.Context(), 1)
	if err != nil {
		t.Fatal(err)
	}
	return st
}
