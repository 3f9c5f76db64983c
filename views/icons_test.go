package views_test

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
)

func TestSourceIcons(t *testing.T) {
	var icon bytes.Buffer
	if err := png.Encode(&icon, image.NewGray(image.Rect(0, 0, 8, 8))); err != nil {
		t.Fatal(err)
	}
	asked := 0
	mux := http.NewServeMux()
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`<link rel=icon href=/i.png>`))
	})
	mux.HandleFunc("/i.png", func(w http.ResponseWriter, r *http.Request) { asked++; _, _ = w.Write(icon.Bytes()) })
	site := httptest.NewServer(mux)
	defer site.Close()
	bare := httptest.NewServer(http.NotFoundHandler())
	defer bare.Close()

	e := newEnv(t)
	withIcon := e.createSource(site.URL+"/feed.xml", "Has one")
	without := e.createSource(bare.URL+"/feed.xml", "Has none")
	svc := &app.Sources{Store: e.db, Icons: feeds.Adapter{Fetcher: feeds.New(feeds.Options{})}}
	if n, err := svc.RefreshIcons(t.Context(), 10); err != nil || n != 2 {
		t.Fatalf("refresh: %d %v", n, err)
	}
	// Fetched once: a second round finds nothing due (the refresh is 30 days away).
	if n, err := svc.RefreshIcons(t.Context(), 10); err != nil || n != 0 || asked != 1 {
		t.Fatalf("second refresh: %d %v (icon asked %d times)", n, err, asked)
	}

	res, body := e.get(fmt.Sprintf("/icons/%d", withIcon.ID))
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "image/png" || body != icon.String() ||
		res.Header.Get("ETag") == "" || res.Header.Get("Cache-Control") == "" || res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("icon: %d %v", res.StatusCode, res.Header)
	}
	req, _ := http.NewRequest(http.MethodGet, e.srv.URL+fmt.Sprintf("/icons/%d", withIcon.ID), nil)
	req.Header.Set("If-None-Match", res.Header.Get("ETag"))
	if again, err := http.DefaultClient.Do(req); err != nil || again.StatusCode != http.StatusNotModified {
		t.Fatalf("revalidation: %v %v", again, err)
	}
	if res, _ := e.get(fmt.Sprintf("/icons/%d", without.ID)); res.StatusCode != 404 {
		t.Errorf("no icon: %d", res.StatusCode)
	}
	if res, _ := e.get("/icons/abc"); res.StatusCode != 404 {
		t.Errorf("bad id: %d", res.StatusCode)
	}
	// The pages show the icon, and the initials where there is none.
	res, page := e.get("/sources")
	mustContain(t, res, page, 200, fmt.Sprintf(`src="/icons/%d"`, withIcon.ID))
	if bytes.Contains([]byte(page), []byte(fmt.Sprintf(`src="/icons/%d"`, without.ID))) {
		t.Error("an icon for the source without one")
	}
}
