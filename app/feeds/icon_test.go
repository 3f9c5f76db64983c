package feeds_test

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
)

// pngBytes is a real 16×16 PNG image.
func pngBytes(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 16, 16))
	for x := range 16 {
		img.Set(x, x, color.RGBA{R: 200, A: 255})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// icoBytes is a real ICO file holding one 16×16 PNG image (the form browsers and Windows read).
func icoBytes(t *testing.T) []byte {
	t.Helper()
	p := pngBytes(t)
	var b bytes.Buffer
	b.Write([]byte{0, 0, 1, 0, 1, 0})          // reserved, type 1 (icon), 1 image
	b.Write([]byte{16, 16, 0, 0, 1, 0, 32, 0}) // 16×16, no palette, 1 plane, 32 bpp
	n := uint32(len(p))
	b.Write([]byte{byte(n), byte(n >> 8), byte(n >> 16), byte(n >> 24)})
	b.Write([]byte{22, 0, 0, 0}) // offset of the image data
	b.Write(p)
	return b.Bytes()
}

func TestIcon(t *testing.T) {
	ctx := context.Background()
	f := feeds.New(feeds.Options{})
	pngData, icoData := pngBytes(t), icoBytes(t)

	t.Run("the page's link rel=icon comes first", func(t *testing.T) {
		mux := http.NewServeMux()
		mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte(`<html><head><link rel="apple-touch-icon" href="/touch.png"><link rel="shortcut icon" href="static/i.png"></head><body>hi</body></html>`))
		})
		mux.HandleFunc("/static/i.png", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(pngData) })
		mux.HandleFunc("/touch.png", func(w http.ResponseWriter, r *http.Request) {
			t.Error("touch icon asked for although the icon was fine")
		})
		srv := httptest.NewServer(mux)
		defer srv.Close()
		ic, err := f.Icon(ctx, srv.URL+"/")
		if err != nil || ic.ContentType != "image/png" || !bytes.Equal(ic.Data, pngData) || ic.ETag == "" {
			t.Fatalf("icon %+v, %v", ic, err)
		}
	})
	t.Run("then apple-touch-icon, then /favicon.ico", func(t *testing.T) {
		mux := http.NewServeMux()
		mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write([]byte(`<html><head><link rel="icon" href="/broken.png"><link rel="apple-touch-icon" href="/gone.png"></head></html>`))
		})
		mux.HandleFunc("/broken.png", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write([]byte("<html>not an image</html>")) })
		mux.HandleFunc("/favicon.ico", func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(icoData) })
		srv := httptest.NewServer(mux)
		defer srv.Close()
		ic, err := f.Icon(ctx, srv.URL)
		if err != nil || ic.ContentType != "image/x-icon" || !bytes.Equal(ic.Data, icoData) {
			t.Fatalf("icon %+v, %v", ic, err)
		}
	})
	for _, tc := range []struct {
		name    string
		handler http.HandlerFunc
		want    string
	}{
		{"an icon over 64 KB is refused", func(w http.ResponseWriter, r *http.Request) {
			_, _ = w.Write(append(append([]byte{}, pngData...), make([]byte, 70<<10)...))
		}, "larger than 64 KB"},
		{"an icon of unknown length over 64 KB is refused", func(w http.ResponseWriter, r *http.Request) {
			w.(http.Flusher).Flush() // no Content-Length: chunked
			for range 70 {
				_, _ = w.Write(make([]byte, 1024))
			}
		}, "larger than 64 KB"},
		{"HTML served as an icon is refused", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write([]byte("<html><script>alert(1)</script></html>"))
		}, "not a PNG, ICO, GIF, JPEG or WebP"},
		{"an SVG is refused", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "image/svg+xml")
			_, _ = w.Write([]byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>`))
		}, "not a PNG, ICO, GIF, JPEG or WebP"},
		{"a redirect loop ends", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, r.URL.Path, http.StatusFound)
		}, "redirect"},
		{"a missing icon says so", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }, "404"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			ic, err := f.Icon(ctx, srv.URL+"/")
			if err == nil || ic != nil || !strings.Contains(strings.ToLower(err.Error()), strings.ToLower(tc.want)) {
				t.Fatalf("icon %v, error %v; want an error with %q", ic, err, tc.want)
			}
		})
	}
	t.Run("magic numbers", func(t *testing.T) {
		for in, want := range map[string]string{
			string(pngData): "image/png", string(icoData): "image/x-icon", "GIF89a\x01\x00": "image/gif",
			"\xFF\xD8\xFF\xE0": "image/jpeg", "RIFF\x00\x00\x00\x00WEBPVP8 ": "image/webp", "<svg/>": "", "": "", "\x00\x00\x01\x00\x00\x00": "",
		} {
			if got := app.SniffIcon([]byte(in)); got != want {
				t.Errorf("SniffIcon(%q) = %q, want %q", in[:min(len(in), 8)], got, want)
			}
		}
	})
}
