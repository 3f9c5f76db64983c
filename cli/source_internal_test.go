package cli

import (
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
)

// The table's columns are as wide as their content: a long last error (its own line) and a
// name with a line break in it shift nothing.
func TestWriteSourcesColumnsFitContent(t *testing.T) {
	var b strings.Builder
	srcs := []*app.Source{
		{ID: 1, Name: "Go blog", Type: app.SourceRSS, URL: "https://go.dev/blog/feed.atom",
			LastError: "The host go.dev answered 503 Service Unavailable: it may be down for maintenance; we will try again later."},
		{ID: 12, Name: "Hacker\nNews", Type: app.SourceRSS, URL: "https://news.ycombinator.com/rss"},
	}
	if err := writeSources(&b, srcs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	head := lines[0]
	if !strings.HasPrefix(head, "ID  NAME         FOLDER  TYPE") {
		t.Errorf("NAME is not as wide as the longest name (\"Hacker News\"):\n%s", b.String())
	}
	if !strings.HasPrefix(lines[3], "12  Hacker News  ") {
		t.Errorf("row %q", lines[3])
	}
	if !strings.HasPrefix(lines[2], "    last error: The host go.dev answered 503") {
		t.Errorf("error line %q", lines[2])
	}
}
