package views_test

import (
	"regexp"
	"strings"
	"testing"
)

// TestPickerOrder: the pickers list sources as they read, "Feed 2" before "Feed 10", whatever
// the case.
func TestPickerOrder(t *testing.T) {
	e := newEnv(t)
	for _, name := range []string{"Feed 10", "feed 2", "Alpha", "Feed 1"} {
		e.createSource("https://example.com/"+strings.ReplaceAll(name, " ", "")+".xml", name)
	}
	res, body := e.get("/briefings")
	if res.StatusCode != 200 {
		t.Fatalf("GET /briefings: %d", res.StatusCode)
	}
	var got []string
	for _, m := range regexp.MustCompile(`name="sourceIds" value="\d+"[^>]*/?>\s*([^<]+)</label>`).FindAllStringSubmatch(body, -1) {
		got = append(got, strings.TrimSpace(m[1]))
	}
	if strings.Join(got, ",") != "Alpha,Feed 1,feed 2,Feed 10" {
		t.Fatalf("the briefing form's sources: %q", got)
	}
}
