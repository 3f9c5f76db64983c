package views_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
)

// TestFirstSteps: a new reader is offered, on the onboarding page and then on Today, to say
// what they care about (a form that saves the interests alone, back to Today) and to create a
// briefing; each offer goes once it is done.
func TestFirstSteps(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	res, body := e.get("/")
	mustContain(t, res, body, 200, `data-testid="onboarding"`, `data-testid="first-steps"`, `action="/settings/interests"`, `data-testid="first-briefing"`)

	// Topics and the time zone set elsewhere stay as they are.
	tz := "Europe/Brussels"
	topics := []app.Topic{{Name: "Databases", Keywords: []string{"sqlite"}}}
	if _, err := (&app.UserSettings{Store: e.db}).Update(ctx, 1, app.SettingsUpdate{Timezone: &tz, Topics: &topics}); err != nil {
		t.Fatal(err)
	}
	src := e.createSource("https://example.com/feed", "Example")
	e.fetch(src.ID, app.Item{GUID: "1", Title: "SQLite grows up", Link: "https://example.com/1", Text: "x"})
	if _, body = e.get("/"); !strings.Contains(body, `data-testid="first-briefing"`) || strings.Contains(body, `data-testid="first-interests"`) {
		t.Fatal("with topics set, Today still asks for interests, or no longer offers a briefing")
	}
	if _, err := (&app.UserSettings{Store: e.db}).Update(ctx, 1, app.SettingsUpdate{Topics: &[]app.Topic{}}); err != nil {
		t.Fatal(err)
	}
	res, body = e.get("/")
	mustContain(t, res, body, 200, `data-testid="first-interests"`)

	res, _ = e.form("/settings/interests", url.Values{"interests": {"   "}, "return": {"/"}})
	if res.StatusCode != 303 || res.Header.Get("Location") != "/" {
		t.Fatalf("blank interests: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	res, _ = e.form("/settings/interests", url.Values{"interests": {"sqlite, go"}, "return": {"/"}})
	if res.StatusCode != 303 || res.Header.Get("Location") != "/" {
		t.Fatalf("save interests: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	st, err := e.db.Settings(ctx, 1)
	if err != nil || st.Interests != "sqlite, go" || st.Timezone != tz {
		t.Fatalf("settings after saving interests: %+v, %v", st, err)
	}
	if _, body = e.get("/"); strings.Contains(body, `data-testid="first-interests"`) || !strings.Contains(body, `data-testid="first-briefing"`) {
		t.Fatal("after saving interests, Today still asks for them, or no longer offers a briefing")
	}
	if code, body := e.json("POST", "/api/briefings", `{"name": "Morning"}`); code != 201 {
		t.Fatalf("create briefing: %d %s", code, body)
	}
	if _, body = e.get("/"); strings.Contains(body, `data-testid="first-steps"`) {
		t.Fatal("with interests and a briefing, Today still offers first steps")
	}
}
