package views_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
)

// TestReadingOptions: Settings → Reading stores mark-as-read-on-scroll (off by default) and the
// compact density per user; the lists' pages carry them for app.js and app.css, and the API
// reads and changes them.
func TestReadingOptions(t *testing.T) {
	e := newEnv(t)
	src := e.createSource("https://a.example/feed", "A")
	e.fetch(src.ID, app.Item{GUID: "1", Title: "One"})
	_, body := e.get("/items")
	if strings.Contains(body, "data-mark-read-on-scroll") || strings.Contains(body, "density-compact") {
		t.Fatal("reading options on by default")
	}
	_, body = e.get("/settings")
	if !strings.Contains(body, `data-testid="reading-settings"`) || !strings.Contains(body, `value="" checked data-testid="density-comfortable"`) {
		t.Fatalf("no reading options, or not comfortable by default:\n%s", body)
	}
	res, _ := e.form("/settings/reading", url.Values{"markReadOnScroll": {"on"}, "density": {"compact"}})
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/settings" {
		t.Fatalf("save: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	for _, path := range []string{"/items", "/sources/1", "/"} {
		_, body = e.get(path)
		if !strings.Contains(body, `<body class="density-compact" data-mark-read-on-scroll>`) {
			t.Fatalf("%s: the body does not carry the options", path)
		}
	}
	_, body = e.get("/settings")
	if !strings.Contains(body, `checked data-testid="mark-read-on-scroll"`) || !strings.Contains(body, `checked data-testid="density-compact"`) {
		t.Fatal("the settings page does not show the saved options")
	}
	if code, got := e.json(http.MethodGet, "/api/settings", ""); code != 200 || !strings.Contains(got, `"markReadOnScroll":true`) || !strings.Contains(got, `"density":"compact"`) {
		t.Fatalf("API: %d %s", code, got)
	}
	if code, got := e.json(http.MethodPatch, "/api/settings", `{"density":"comfortable","markReadOnScroll":false}`); code != 200 || !strings.Contains(got, `"markReadOnScroll":false`) || !strings.Contains(got, `"density":"comfortable"`) {
		t.Fatalf("API patch: %d %s", code, got)
	}
	if code, got := e.json(http.MethodPatch, "/api/settings", `{"density":"tiny"}`); code != http.StatusBadRequest && code != http.StatusUnprocessableEntity {
		t.Fatalf("a density that is not one: %d %s", code, got)
	}
	res, _ = e.form("/settings/reading", url.Values{"density": {"tiny"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("a form's bad density: %d", res.StatusCode)
	}
	_, body = e.get("/items")
	if strings.Contains(body, "density-compact") || strings.Contains(body, "data-mark-read-on-scroll") {
		t.Fatal("options still on after they were turned off")
	}
}
