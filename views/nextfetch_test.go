package views_test

import (
	"fmt"
	"regexp"
	"testing"

	"github.com/morningdeck/morningdeck/app"
)

// TestSourcesNextFetch: the Sources list says when each idle source is fetched next ("next in
// 30 min"), "due now" once that time has passed, and nothing for a paused source or one that
// is being fetched.
func TestSourcesNextFetch(t *testing.T) {
	e := newEnv(t)
	ids := map[string]int64{}
	for _, name := range []string{"Soon", "Overdue", "Paused", "Busy"} {
		src := e.createSource(fmt.Sprintf("https://%s.example/feed", name), name)
		e.fetch(src.ID, app.Item{GUID: "1", Title: "x", Link: "https://x.example/1", Text: "x"})
		ids[name] = src.ID
	}
	for _, q := range []string{
		fmt.Sprintf(`update sources set next_fetch_at = '2020-01-01T00:00:00.000Z' where id = %d`, ids["Overdue"]),
		fmt.Sprintf(`update sources set status = 'PAUSED' where id = %d`, ids["Paused"]),
		fmt.Sprintf(`update sources set fetch_status = 'QUEUED' where id = %d`, ids["Busy"]),
	} {
		if _, err := e.db.Write.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	res, body := e.get("/sources")
	if res.StatusCode != 200 {
		t.Fatalf("GET /sources: %d", res.StatusCode)
	}
	next := regexp.MustCompile(`(?s)id="source-(\d+)".*?</tr>`)
	said := map[int64]string{}
	for _, m := range next.FindAllStringSubmatch(body, -1) {
		var id int64
		fmt.Sscan(m[1], &id)
		if n := regexp.MustCompile(`(?s)data-testid="next-fetch">\s*next\s*<time[^>]*data-due[^>]*>([^<]*)</time>`).FindStringSubmatch(m[0]); n != nil {
			said[id] = n[1]
		}
	}
	want := map[int64]string{ids["Soon"]: "in 30 min", ids["Overdue"]: "due now"}
	if len(said) != len(want) || said[ids["Soon"]] != want[ids["Soon"]] || said[ids["Overdue"]] != "due now" {
		t.Fatalf("next fetch said %v; want %v (none for the paused and the busy source)", said, want)
	}
}
