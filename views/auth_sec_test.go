package views_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
)

// Issue 11's lower-severity findings, each as it was reproduced.
func TestAuthHardening(t *testing.T) {
	t.Run("a signed-out 404 under a briefing's feed.xml shows nobody's counts or admin links", func(t *testing.T) {
		e := newAuthEnv(t)
		b := &app.Briefing{UserID: e.ann.ID, Name: "Ann's", Time: "07:00", Timezone: "UTC"}
		if err := (&app.Briefings{Store: e.db}).Save(context.Background(), b); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{fmt.Sprintf("/briefings/%d/feed.xml", b.ID), "/briefings/999/feed.xml", "/briefings/x/feed.xml"} {
			res, body := e.req("GET", path, "")
			if res.StatusCode != http.StatusNotFound {
				t.Fatalf("%s: %d", path, res.StatusCode)
			}
			for _, leak := range []string{`href="/queues"`, `data-testid="account-link"`, "ann", `class="badge`} {
				if strings.Contains(body, leak) {
					t.Errorf("%s: the signed-out 404 page shows %q", path, leak)
				}
			}
		}
	})

	t.Run("a tab or another control character in next= never reaches the Location header", func(t *testing.T) {
		e := newAuthEnv(t)
		for _, next := range []string{"/\t/evil.example/", "/\n/evil.example", "/\r\nSet-Cookie: x=y", "/ /evil.example", "/\u200b/evil.example", "/sources\x00"} {
			res, _ := e.req("POST", "/login", url.Values{"name": {"ann"}, "password": {"correct horse battery"}, "next": {next}}.Encode())
			if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" {
				t.Errorf("next %q: %d Location %q, want /", next, res.StatusCode, res.Header.Get("Location"))
			}
		}
		res, _ := e.req("POST", "/login", url.Values{"name": {"ann"}, "password": {"correct horse battery"}, "next": {"/items?unread=1"}}.Encode())
		if res.Header.Get("Location") != "/items?unread=1" {
			t.Errorf("a plain local path: Location %q", res.Header.Get("Location"))
		}
	})

	t.Run("the change-password check is rate limited", func(t *testing.T) {
		e := newAuthEnv(t)
		cookie := e.login("bob", "another long secret")
		last := 0
		for i := range 12 {
			res, _ := e.req("POST", "/account/password", url.Values{"current": {fmt.Sprintf("guess number %d", i)}, "new": {"a brand new secret"}}.Encode(), "Cookie", cookie)
			last = res.StatusCode
		}
		if last != http.StatusTooManyRequests {
			t.Fatalf("the 12th wrong current password in a row: %d", last)
		}
		// Another user is not held back by bob's guesses.
		other := e.login("ann", "correct horse battery")
		if res, _ := e.req("POST", "/account/password", url.Values{"current": {"wrong"}, "new": {"a brand new secret"}}.Encode(), "Cookie", other); res.StatusCode != http.StatusUnprocessableEntity {
			t.Errorf("ann's first attempt: %d", res.StatusCode)
		}
	})

	t.Run("a password change revokes the user's API tokens, not another user's", func(t *testing.T) {
		e := newAuthEnv(t)
		bobs, anns := e.token(e.bob), e.token(e.ann)
		if res, _ := e.req("GET", "/api/briefings", "", "Authorization", bobs); res.StatusCode != 200 {
			t.Fatalf("token before: %d", res.StatusCode)
		}
		cookie := e.login("bob", "another long secret")
		res, body := e.req("POST", "/account/password", url.Values{"current": {"another long secret"}, "new": {"a brand new secret"}}.Encode(), "Cookie", cookie)
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("change: %d %s", res.StatusCode, body)
		}
		if res, _ := e.req("GET", "/api/briefings", "", "Authorization", bobs); res.StatusCode != http.StatusUnauthorized {
			t.Errorf("bob's token after his password change: %d", res.StatusCode)
		}
		if res, _ := e.req("GET", "/api/briefings", "", "Authorization", anns); res.StatusCode != 200 {
			t.Errorf("ann's token after bob's password change: %d", res.StatusCode)
		}
	})
}
