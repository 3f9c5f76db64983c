package views_test

import (
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
)

// TestOfflineApp: the manifest, the service worker at the root with the shell's hashed URLs, and
// the pages it keeps; a page kept as an offline copy opens nothing (the item stays unread) and
// leaves a pending message for the reader's next page.
func TestOfflineApp(t *testing.T) {
	e := newEnv(t)
	src := e.createSource("https://a.example/feed", "A")
	e.fetch(src.ID, app.Item{GUID: "1", Title: "One"}, app.Item{GUID: "2", Title: "Two"})
	res, body := e.get("/manifest.webmanifest")
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/manifest+json" || !strings.Contains(body, `"display": "standalone"`) || !strings.Contains(body, `"start_url": "/"`) || !strings.Contains(body, `"/app-icon-512.png"`) {
		t.Fatalf("manifest: %d %s", res.StatusCode, body)
	}
	for _, size := range []int{192, 512} {
		res, body := e.get(fmt.Sprintf("/app-icon-%d.png", size))
		img, err := png.Decode(strings.NewReader(body))
		if res.StatusCode != 200 || err != nil || img.Bounds().Dx() != size || img.Bounds().Dy() != size {
			t.Fatalf("icon %d: %d %v", size, res.StatusCode, err)
		}
		if _, _, _, a := img.At(0, 0).RGBA(); a != 0 { // the rounded corner is transparent
			t.Fatalf("icon %d: its corner is not transparent", size)
		}
		if r, g, b, _ := img.At(size/2, size*3/4).RGBA(); r>>8 != 0x1f || g>>8 != 0x5f || b>>8 != 0xa8 {
			t.Fatalf("icon %d: not blue under its lines: %d %d %d", size, r>>8, g>>8, b>>8)
		}
	}
	res, body = e.get("/sw.js")
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/javascript") || res.Header.Get("Service-Worker-Allowed") != "/" ||
		!strings.HasPrefix(body, `var SHELL = ["/static/app.`) || !strings.Contains(body, `addEventListener("fetch"`) {
		t.Fatalf("sw.js: %d %v %.200s", res.StatusCode, res.Header, body)
	}
	_, page := e.get("/items")
	if !strings.Contains(page, `<link rel="manifest" href="/manifest.webmanifest">`) {
		t.Fatal("pages do not link the manifest")
	}
	_, body = e.get("/offline/pages")
	var list struct{ Pages []string }
	if err := json.Unmarshal([]byte(body), &list); err != nil || len(list.Pages) != 4 || list.Pages[0] != "/" || list.Pages[1] != "/items" || !strings.HasPrefix(list.Pages[2], "/items/") {
		t.Fatalf("offline pages: %v %s", err, body)
	}
	// An offline copy of an item's page marks nothing read.
	res, _ = e.send(http.MethodGet, list.Pages[2], http.Header{"X-Offline-Copy": {"1"}}, nil)
	if res.StatusCode != 200 {
		t.Fatalf("offline copy: %d", res.StatusCode)
	}
	var read int
	if err := e.db.Read.QueryRow(`select count(*) from items where read_at is not null`).Scan(&read); err != nil || read != 0 {
		t.Fatalf("an offline copy marked %d items read (%v)", read, err)
	}
	if res, _ = e.get(list.Pages[2]); res.StatusCode != 200 {
		t.Fatal(res.StatusCode)
	}
	if err := e.db.Read.QueryRow(`select count(*) from items where read_at is not null`).Scan(&read); err != nil || read != 1 {
		t.Fatalf("opening the item marked %d items read, want 1 (%v)", read, err)
	}
}
