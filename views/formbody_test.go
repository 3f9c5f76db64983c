package views_test

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestFormBodies: a page's form that cannot be read — too large, not valid form encoding, empty,
// or JSON sent to a form — is refused with a message, and nothing is saved: the settings form
// used to save every field it could not read as empty (interests, topics, time zone gone, and
// "Settings saved" on top). A form changes only the settings it holds.
func TestFormBodies(t *testing.T) {
	e := newEnv(t)
	saved := url.Values{"interests": {"sqlite, go"}, "topics": {"Databases: sqlite"}, "timezone": {"Europe/Brussels"}, "enricher": {"embedded"}, "dailyCredits": {"1000"}}
	if res, body := e.form("/settings", saved); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("save: %d %.300s", res.StatusCode, body)
	}
	unchanged := func(after string) {
		t.Helper()
		code, body := e.json("GET", "/api/settings", "")
		if code != 200 || !strings.Contains(body, `"interests":"sqlite, go"`) || !strings.Contains(body, `"timezone":"Europe/Brussels"`) || !strings.Contains(body, "Databases") {
			t.Fatalf("after %s the settings are %d %s", after, code, body)
		}
	}
	formType := "application/x-www-form-urlencoded"

	huge := "interests=" + strings.Repeat("a", 2<<20+100)
	res, body := e.do(http.MethodPost, "/settings", formType, strings.NewReader(huge))
	if res.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(body, "too large") || !strings.Contains(body, "nothing was saved") {
		t.Errorf("a 2 MiB form: %d %.500s", res.StatusCode, body)
	}
	unchanged("a form too large")

	res, body = e.do(http.MethodPost, "/settings", formType, strings.NewReader("interests=%zz&timezone=UTC"))
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, "not valid form encoding") {
		t.Errorf("a malformed form: %d %.500s", res.StatusCode, body)
	}
	unchanged("a malformed form")

	for _, c := range []struct{ name, contentType, body string }{
		{"an empty post", "", ""},
		{"JSON sent to the form", "application/json", `{"interests":"x","timezone":"UTC"}`},
	} {
		res, _ := e.do(http.MethodPost, "/settings", c.contentType, strings.NewReader(c.body))
		if flash := cookieFlash(res); res.StatusCode != http.StatusSeeOther || !strings.Contains(flash, "empty") || !strings.Contains(flash, "nothing was saved") {
			t.Errorf("%s: %d, flash %q", c.name, res.StatusCode, flash)
		}
		unchanged(c.name)
	}

	// A form with the time zone alone changes the time zone alone.
	if res, body := e.form("/settings", url.Values{"timezone": {"Asia/Tokyo"}}); res.StatusCode != http.StatusSeeOther {
		t.Fatalf("time zone alone: %d %.300s", res.StatusCode, body)
	}
	if code, body := e.json("GET", "/api/settings", ""); code != 200 || !strings.Contains(body, `"interests":"sqlite, go"`) || !strings.Contains(body, `"timezone":"Asia/Tokyo"`) {
		t.Fatalf("after saving the time zone alone: %d %s", code, body)
	}
}

// cookieFlash is the flash message a redirect carries (its cookie), decoded.
func cookieFlash(res *http.Response) string {
	for _, c := range res.Cookies() {
		if c.Name == "md_flash" {
			v, _ := base64.RawURLEncoding.DecodeString(c.Value)
			return string(v)
		}
	}
	return ""
}
