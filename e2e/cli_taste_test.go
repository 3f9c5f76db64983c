package e2e_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestCLIFeedback: items more/less, taste show/reset, and enrich ID agreeing with what the
// scoring of a first import stored (issue 12).
func TestCLIFeedback(t *testing.T) {
	feed := feedbackFeed()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprint(w, feed)
	}))
	defer srv.Close()
	dir := t.TempDir()
	mustRun(t, dir, "source", "add", srv.URL+"/feed", "--type", "rss")
	mustRun(t, dir, "fetch") // the first import, scored by the fetch
	startServer(t, dir)

	type itemJSON struct {
		ID             int64    `json:"id"`
		Title          string   `json:"title"`
		Score          *int     `json:"score"`
		ScoreReasoning string   `json:"scoreReasoning"`
		Topics         []string `json:"topics"`
	}
	items := func() map[string]itemJSON {
		var list []itemJSON
		if err := json.Unmarshal([]byte(mustRun(t, dir, "items", "list", "--json", "--limit", "100")), &list); err != nil {
			t.Fatal(err)
		}
		out := map[string]itemJSON{}
		for _, it := range list {
			out[it.Title] = it
		}
		return out
	}
	for deadline := time.Now().Add(patience); ; time.Sleep(300 * time.Millisecond) {
		all, scored := items(), 0
		for _, it := range all {
			if it.Score != nil {
				scored++
			}
		}
		if len(all) == 34 && scored == 34 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d items of the first import scored", scored, len(all))
		}
	}
	all := items()
	liked, similar := all["Sourdough starter: feeding a lively levain"], all["Sourdough loaves with an open crumb"]

	// enrich ID shows what was stored.
	out := mustRun(t, dir, "enrich", fmt.Sprint(similar.ID))
	if want := fmt.Sprintf("Score:    %d — %s", *similar.Score, similar.ScoreReasoning); !strings.Contains(out, want) {
		t.Errorf("enrich %d says\n%s\nstored: %s", similar.ID, out, want)
	}

	if out, errOut, err := run(t, dir, "items", "more", "999999"); err == nil || !strings.Contains(errOut, "Item 999999 not found.") {
		t.Errorf("items more on a missing item: %v %q %q", err, out, errOut)
	}
	if out := mustRun(t, dir, "taste", "show"); !strings.Contains(out, "Nothing learned yet") {
		t.Errorf("taste show before any feedback: %q", out)
	}
	out = mustRun(t, dir, "items", "more", fmt.Sprint(liked.ID))
	if !regexp.MustCompile(`Noted: you will see more items like \d+; [1-9]\d* unread items scored again`).MatchString(out) {
		t.Errorf("items more said %q", out)
	}
	if now := items()[similar.Title]; !strings.Contains(now.ScoreReasoning, "you liked similar items") || *now.Score <= *similar.Score {
		t.Errorf("after items more: %d %q (was %d)", *now.Score, now.ScoreReasoning, *similar.Score)
	}
	out = mustRun(t, dir, "items", "less", fmt.Sprint(all["Notes on the volcano eruption lava"].ID))
	if !strings.Contains(out, "fewer items like") {
		t.Errorf("items less said %q", out)
	}
	out = mustRun(t, dir, "taste", "show")
	if !strings.Contains(out, "Learned from 2 signals") || !strings.Contains(strings.ToLower(out), "levain") {
		t.Errorf("taste show: %q", out)
	}
	var learned struct {
		Signals int `json:"signals"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, dir, "taste", "show", "--json")), &learned); err != nil || learned.Signals != 2 {
		t.Errorf("taste show --json: %+v %v", learned, err)
	}
	if out := mustRun(t, dir, "taste", "reset"); !strings.Contains(out, "Forgot what was learned") {
		t.Errorf("taste reset said %q", out)
	}
	if now := items()[similar.Title]; strings.Contains(now.ScoreReasoning, "similar items") {
		t.Errorf("after taste reset: %q", now.ScoreReasoning)
	}
	if out := mustRun(t, dir, "taste", "show"); !strings.Contains(out, "Nothing learned yet") {
		t.Errorf("taste show after reset: %q", out)
	}
}
