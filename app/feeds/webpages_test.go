package feeds_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/feeds"
)

// TestWebPagesPickArticlesAsAReaderWould reads real-looking pages saved in testdata/web, each
// with the articles a reader would pick from it (written by hand), and compares: every article
// found under its title, nothing else taken (issue 15: in-text and chrome links, symbol
// permalinks, timestamps as titles, photo credits glued onto titles).
func TestWebPagesPickArticlesAsAReaderWould(t *testing.T) {
	pages := []struct {
		file string
		want []string // "title → path"
	}{
		{"news-home.html", []string{
			"Ferry strike ends after nine days → /local/2026/03/01/ferry-strike-ends-after-nine-days",
			"Fish prices fall again → /business/2026/03/01/fish-prices-fall-again",
			"Rowing club wins cup → /sport/2026/02/28/rowing-club-wins-cup",
			"Lighthouse museum reopens → /culture/2026/02/28/lighthouse-museum-reopens",
			"New bike lanes → /local/2026/02/27/new-bike-lanes",
			"Harbour crane collapse: inquiry opens → /local/2026/02/26/harbour-crane-collapse-inquiry",
			"School roof repairs delayed → /local/2026/02/25/school-roof-repairs-delayed",
		}},
		{"blog-index.html", []string{
			"Moving to a static site → /2026/03/moving-to-a-static-site/",
			"The tram line is open → /2026/02/tram-line-open/",
			"Reading list, February → /2026/02/reading-list-february/",
		}},
		{"forum-list.html", []string{
			"Laser cutter alignment → /t/8812/laser-cutter-alignment",
			"3D printed hinges → /t/8810/3d-printed-hinges",
			"Soldering fumes → /t/8807/soldering-fumes",
			"CNC? → /t/8801/cnc",
		}},
	}
	f := feeds.New(feeds.Options{})
	found, wanted, extra := 0, 0, 0
	for _, pg := range pages {
		b, err := os.ReadFile(filepath.Join("testdata", "web", pg.file))
		if err != nil {
			t.Fatal(err)
		}
		srv := serveBytes(t, "text/html; charset=utf-8", b)
		res := fetch(t, f, srv.URL+"/", app.SourceWeb)
		var got []string
		for _, it := range res.Items {
			got = append(got, it.Title+" → "+strings.TrimPrefix(it.Link, srv.URL))
		}
		want := map[string]bool{}
		for _, w := range pg.want {
			want[w] = true
		}
		wanted += len(pg.want)
		for _, g := range got {
			if want[g] {
				found++
				delete(want, g)
			} else {
				extra++
				t.Errorf("%s: took %q, which a reader would not", pg.file, g)
			}
		}
		for w := range want {
			t.Errorf("%s: missed %q", pg.file, w)
		}
		if strings.Join(got, "\n") != strings.Join(pg.want, "\n") && len(want) == 0 {
			t.Errorf("%s: order differs from the page's:\n%s", pg.file, strings.Join(got, "\n"))
		}
	}
	t.Logf("%d of %d articles found, %d links taken that are not articles", found, wanted, extra)
}
