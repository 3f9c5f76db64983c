package views_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/views"
)

// Issue 27, N9, where the user sees it: a model the operator did not allow on their LLM is
// refused by the settings API (400, as every invalid setting) and the Settings page (the message, nothing saved).
func TestSettingsRefuseModelNotOffered(t *testing.T) {
	e := newAuthEnvOpts(t, func(o *views.Options) {
		o.Settings = app.NewUserSettings(o.Settings.Store, nil, app.OperatorLLM{BaseURL: "http://llm.operator.example/v1", Model: "small", Exposed: true}, nil)
	})
	tok := e.token(e.bob)
	res, body := e.req("PATCH", "/api/settings", `{"llmModel": "gpt-huge"}`, "Authorization", tok)
	if res.StatusCode != http.StatusBadRequest || !strings.Contains(body, `is not offered on this server's LLM`) {
		t.Errorf("API: %d %s", res.StatusCode, body)
	}
	if res, body := e.req("PATCH", "/api/settings", `{"llmModel": "small"}`, "Authorization", tok); res.StatusCode != http.StatusOK {
		t.Errorf("the operator's model: %d %s", res.StatusCode, body)
	}
	cookie := e.login("bob", "another long secret")
	res, body = e.req("POST", "/settings", url.Values{"llmBaseUrl": {""}, "llmModel": {"gpt-huge"}}.Encode(), "Cookie", cookie)
	if res.StatusCode == http.StatusSeeOther {
		res, body = e.req("GET", res.Header.Get("Location"), "", "Cookie", cookie+"; "+cookieHeader(res))
	}
	if !strings.Contains(body, "is not offered on this server&#39;s LLM") && !strings.Contains(body, "is not offered on this server's LLM") {
		t.Errorf("Settings page: %d, the message is not shown", res.StatusCode)
	}
	if res, body := e.req("GET", "/api/settings", "", "Authorization", tok); !strings.Contains(body, `"llmModel":"small"`) {
		t.Errorf("stored: %d %s", res.StatusCode, body)
	}
}

// cookieHeader is the cookies a response sets, as a Cookie header's value.
func cookieHeader(res *http.Response) string {
	var parts []string
	for _, c := range res.Cookies() {
		parts = append(parts, c.Name+"="+c.Value)
	}
	return strings.Join(parts, "; ")
}
