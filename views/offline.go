package views

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/static"
)

// An installable app that reads offline (issue 28, item 5): a web app manifest, a service worker
// at the site's root (static/sw.js, with the shell's hashed URLs written ahead of it) and the list
// of pages it keeps.

// offlineItems is how many of the latest items the service worker keeps for reading offline.
const offlineItems = 300

// serviceWorker answers /sw.js: from the root, so that it may serve every page.
var serviceWorker = func() []byte {
	shell, _ := json.Marshal(static.Shell())
	sum := sha256.Sum256(append(append([]byte{}, shell...), static.Body("sw.js")...))
	var b bytes.Buffer
	b.WriteString("var SHELL = " + string(shell) + ";\nvar VERSION = \"" + hex.EncodeToString(sum[:])[:10] + "\";\n")
	b.Write(static.Body("sw.js"))
	return b.Bytes()
}()

func (s *Server) serviceWorker(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Service-Worker-Allowed", "/")
	_, _ = w.Write(serviceWorker)
}

// webManifest is what a browser needs to install Morning Deck as an app.
var webManifest = func() []byte {
	b, _ := json.MarshalIndent(map[string]any{
		"name": "Morning Deck", "short_name": "Morning Deck", "id": "/", "start_url": "/", "scope": "/",
		"display": "standalone", "background_color": "#fbfaf7", "theme_color": "#1f5fa8",
		"description": "Your news, read and ranked for you, and a morning briefing.",
		"icons": []map[string]string{{"src": static.Path("icon.svg"), "sizes": "any", "type": "image/svg+xml", "purpose": "any"},
			{"src": "/app-icon-192.png", "sizes": "192x192", "type": "image/png", "purpose": "any"},
			{"src": "/app-icon-512.png", "sizes": "512x512", "type": "image/png", "purpose": "any"}},
	}, "", "  ")
	return b
}()

func (s *Server) webManifest(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/manifest+json")
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(webManifest)
}

// offlinePages lists the pages the service worker keeps: Today, Items, the latest report of each
// briefing, and the latest offlineItems items' pages.
func (s *Server) offlinePages(w http.ResponseWriter, r *http.Request) {
	pages := []string{"/", "/items"}
	bs, _ := s.briefings(r)
	for _, b := range bs {
		if reps, err := s.opts.Briefings.Reports(r.Context(), userID(r), b.ID, 5); err == nil && len(reps) > 0 {
			pages = append(pages, "/reports/"+strconv.FormatInt(app.LatestNonEmpty(reps).ID, 10))
		}
	}
	if s.opts.Reading != nil {
		items, err := s.opts.Reading.Items(r.Context(), app.ItemFilter{UserID: userID(r), Limit: offlineItems})
		if err != nil {
			s.apiError(w, r, err)
			return
		}
		for _, it := range items {
			pages = append(pages, "/items/"+strconv.FormatInt(it.ID, 10))
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"pages": pages})
}

// offlineCopy reports whether a request is the service worker keeping a page for offline: such
// a request opens nothing (an item stays unread) and takes no message meant for the reader.
func offlineCopy(r *http.Request) bool {
	return strings.TrimSpace(r.Header.Get("X-Offline-Copy")) == "1"
}
