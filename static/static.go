// Package static holds the stylesheet, scripts and icons of the web UI, embedded in the binary
// and served under content-hashed names so browsers may cache them forever.
package static

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io"
	"io/fs"
	"net/http"
	"path"
	"strings"
	"time"
)

//go:embed *.css *.js *.svg
var files embed.FS

// asset is one embedded file with its hashed name.
type asset struct {
	name   string // app.css
	hashed string // app.3f2a1c9d.css
	etag   string
	ctype  string
}

// contentTypes are the media types of the files' extensions, as Go's mime package has them
// built in. mime.TypeByExtension would read the system's MIME database for them, and keep
// its half a megabyte for the life of the process (issue 26).
var contentTypes = map[string]string{
	".css": "text/css; charset=utf-8",
	".js":  "text/javascript; charset=utf-8",
	".svg": "image/svg+xml",
}

var (
	byName   = map[string]*asset{}
	byHashed = map[string]*asset{}
	started  = time.Now()
)

func init() {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		panic(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		// The file is hashed as it is read, not copied: its bytes stay in the binary, and are
		// served from there (issue 26: a copy on the heap for the life of the process).
		f, err := files.Open(e.Name())
		if err != nil {
			panic(err)
		}
		sum := sha256.New()
		if _, err := io.Copy(sum, f); err != nil {
			panic(err)
		}
		f.Close()
		h := hex.EncodeToString(sum.Sum(nil))[:10]
		ext := path.Ext(e.Name())
		a := &asset{
			name:   e.Name(),
			hashed: strings.TrimSuffix(e.Name(), ext) + "." + h + ext,
			etag:   `"` + h + `"`,
			ctype:  contentTypes[ext],
		}
		if a.ctype == "" {
			a.ctype = "application/octet-stream"
		}
		byName[a.name] = a
		byHashed[a.hashed] = a
	}
}

// Path returns the URL of an embedded file under its content-hashed name, for example
// Path("app.css") == "/static/app.3f2a1c9d0e.css". An unknown name is returned unhashed.
func Path(name string) string {
	if a, ok := byName[name]; ok {
		return "/static/" + a.hashed
	}
	return "/static/" + name
}

// icons are the ids of the symbols in icons.svg, the UI's icon sprite.
var icons = func() map[string]bool {
	body, err := files.ReadFile("icons.svg")
	if err != nil {
		panic(err)
	}
	ids := map[string]bool{}
	for _, part := range strings.Split(string(body), `<symbol id="`)[1:] {
		if id, _, ok := strings.Cut(part, `"`); ok {
			ids[id] = true
		}
	}
	return ids
}()

// Icon returns the URL of one of the sprite's icons, for <use href>: "/static/icons.HASH.svg#refresh".
// A name the sprite does not have gets its "info" icon.
func Icon(name string) string {
	if !icons[name] {
		name = "info"
	}
	return Path("icons.svg") + "#" + name
}

// Handler serves the files under /static/. Hashed names are cached for a year as immutable;
// plain names (for tools and old links) must be revalidated.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "Method not allowed.", http.StatusMethodNotAllowed)
			return
		}
		name := strings.TrimPrefix(r.URL.Path, "/static/")
		a, immutable := byHashed[name]
		if !immutable {
			if a = byName[name]; a == nil {
				http.NotFound(w, r)
				return
			}
		}
		h := w.Header()
		h.Set("Content-Type", a.ctype)
		h.Set("ETag", a.etag)
		h.Set("X-Content-Type-Options", "nosniff")
		if immutable {
			h.Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			h.Set("Cache-Control", "no-cache")
		}
		f, err := files.Open(a.name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		defer f.Close()
		http.ServeContent(w, r, "", started, f.(io.ReadSeeker))
	})
}

// Body returns an embedded file's bytes (nil for an unknown name): the service worker is served
// at the site's root, with the hashed names of the files it keeps, not under /static/.
func Body(name string) []byte {
	if _, ok := byName[name]; ok {
		b, _ := files.ReadFile(name)
		return b
	}
	return nil
}

// Shell is the hashed URLs of the files every page needs (stylesheet, scripts, icons): what the
// service worker keeps for reading offline.
func Shell() []string {
	return []string{Path("app.css"), Path("app.js"), Path("htmx.min.js"), Path("icon.svg"), Path("icons.svg")}
}
