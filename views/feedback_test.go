package views_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
	"github.com/morningdeck/morningdeck/app/taste"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/views"
)

// newFeedbackEnv is newEnv whose server learns from the reader (Feedback, issue 12).
func newFeedbackEnv(t *testing.T) (*env, *app.Feedback) {
	e := newEnv(t)
	pq := queue.NewProcessQueue(queue.ProcessQueueOptions{Store: e.db})
	fb := &app.Feedback{Store: e.db, Trainer: taste.Trainer{E: enrich.NewEmbedded(enrich.EmbeddedOptions{})}, Queue: pq}
	fq := queue.NewFetchQueue(queue.FetchQueueOptions{Store: e.db, Capacity: 1000})
	srv := httptest.NewServer(views.New(views.Options{Sources: &app.Sources{Store: e.db, Queue: fq}, Reading: &app.Reading{Store: e.db, Queue: pq, Feedback: fb},
		Settings: &app.UserSettings{Store: e.db}, Feedback: fb, Enricher: views.EnricherInfo{Default: "embedded"}}))
	t.Cleanup(srv.Close)
	e.srv = srv
	return e, fb
}

func TestFeedbackAPIAndPages(t *testing.T) {
	e, _ := newFeedbackEnv(t)
	_, ids := seedItems(t, e)
	a, b := strconv.FormatInt(ids["a"], 10), strconv.FormatInt(ids["b"], 10)

	code, body := e.json(http.MethodPost, "/api/items/"+a+"/feedback", `{"signal":"more"}`)
	if code != http.StatusOK || !strings.Contains(body, `"signals":1`) {
		t.Fatalf("more: %d %s", code, body)
	}
	for _, tc := range []struct {
		path, body string
		code       int
		msg        string
	}{
		{"/api/items/" + a + "/feedback", `{"signal":"love"}`, http.StatusBadRequest, "Feedback is one of more, less"},
		{"/api/items/" + a + "/feedback", `{"signal":`, http.StatusBadRequest, ""},
		{"/api/items/999999/feedback", `{"signal":"more"}`, http.StatusNotFound, "Item 999999 not found."},
		{"/api/items/abc/feedback", `{"signal":"more"}`, http.StatusNotFound, "not found"},
	} {
		code, body := e.json(http.MethodPost, tc.path, tc.body)
		if code != tc.code || !strings.Contains(body, tc.msg) {
			t.Errorf("POST %s %s: %d %s", tc.path, tc.body, code, body)
		}
	}
	// The form: "less" on another item, back to where the reader was, with a flash.
	res, _ := e.form("/items/"+b+"/feedback", url.Values{"signal": {"less"}, "return": {"/items?show=all"}})
	if res.StatusCode != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/items?show=all") {
		t.Fatalf("form: %d %s", res.StatusCode, res.Header.Get("Location"))
	}
	code, body = e.json(http.MethodGet, "/api/taste", "")
	if code != http.StatusOK || !strings.Contains(body, `"signals":2`) || !strings.Contains(body, `"positive":[`) {
		t.Fatalf("taste: %d %s", code, body)
	}

	// The cards and the item page have the buttons; Settings shows what was learned.
	_, page := e.get("/items?show=all")
	if !strings.Contains(page, `data-testid="feedback-more"`) || !strings.Contains(page, `data-key="-"`) {
		t.Error("the item cards have no More/Less like this buttons")
	}
	_, settings := e.get("/settings")
	if !strings.Contains(settings, "What Morning Deck learned") || !strings.Contains(settings, "From 2 signals") {
		t.Errorf("settings without the learned panel: %.300s", settings[strings.Index(settings, "<main"):])
	}

	// Reset from Settings and from the API.
	res, _ = e.form("/settings/taste/reset", url.Values{})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("reset: %d", res.StatusCode)
	}
	if _, body = e.json(http.MethodGet, "/api/taste", ""); !strings.Contains(body, `"signals":0`) {
		t.Errorf("after reset: %s", body)
	}
	if _, settings = e.get("/settings"); !strings.Contains(settings, `data-testid="learned-empty"`) {
		t.Error("settings after reset do not say nothing was learned")
	}
	e.json(http.MethodPost, "/api/items/"+a+"/feedback", `{"signal":"less"}`)
	if code, _ := e.json(http.MethodDelete, "/api/taste", ""); code != http.StatusNoContent {
		t.Errorf("DELETE /api/taste: %d", code)
	}
	if _, body = e.json(http.MethodGet, "/api/taste", ""); !strings.Contains(body, `"signals":0`) {
		t.Errorf("after DELETE: %s", body)
	}

	// The beacon: read to the end, answered without a page.
	req, _ := http.NewRequest(http.MethodPost, e.srv.URL+"/items/"+a+"/feedback", strings.NewReader("signal=read_to_end"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Beacon", "true")
	if r, err := e.c.Do(req); err != nil || r.StatusCode != http.StatusNoContent {
		t.Fatalf("beacon: %v %v", r, err)
	}

	// An item that matched none of the user's topics shows its source's usual ones as such.
	if _, err := e.db.Write.Exec(`update items set usual_topics = '["Security"]' where guid = 'b'`); err != nil {
		t.Fatal(err)
	}
	_, item := e.get("/items/" + b)
	if !strings.Contains(item, "usually Security") || !strings.Contains(item, `data-read-beacon="/items/`+b+`/feedback"`) {
		t.Error("the item page does not show the usual topic as such, or has no read beacon")
	}
	if _, item = e.get("/items/" + a); strings.Contains(item, "usually") {
		t.Error("an item with its own topics shows usual ones")
	}
	if _, body = e.json(http.MethodGet, "/api/taste", ""); !strings.Contains(body, `"signals":3`) { // read to the end, two openings
		t.Errorf("after the beacon and two openings: %s", body)
	}
}
