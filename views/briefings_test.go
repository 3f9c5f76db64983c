package views_test

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/mmcdole/gofeed"

	"github.com/morningdeck/morningdeck/app"
)

func TestBriefingsAPI(t *testing.T) {
	t.Run("create, read, update, run and delete a briefing; validation errors are 400", func(t *testing.T) {
		e := newEnv(t)
		code, body := e.json("POST", "/api/briefings", `{"name": "Morning tech", "focus": "sqlite", "frequency": "DAILY", "time": "07:00", "timezone": "Europe/Brussels", "itemLimit": 5}`)
		if code != 201 || !strings.Contains(body, `"nextRunAt":"`) || !strings.Contains(body, `"status":"ACTIVE"`) {
			t.Fatalf("create: %d %s", code, body)
		}
		b := decodeJSON[map[string]any](t, body)
		id := int64(b["id"].(float64))
		code, body = e.json("PATCH", fmt.Sprintf("/api/briefings/%d", id), `{"frequency": "WEEKLY", "dayOfWeek": 1, "emailWhenEmpty": true}`)
		if code != 200 || !strings.Contains(body, `"frequency":"WEEKLY"`) || !strings.Contains(body, `"name":"Morning tech"`) || !strings.Contains(body, `"emailWhenEmpty":true`) {
			t.Fatalf("update: %d %s", code, body)
		}
		if code, body := e.json("POST", fmt.Sprintf("/api/briefings/%d/run", id), ""); code != 202 {
			t.Fatalf("run: %d %s", code, body)
		}
		if code, _ := e.json("POST", fmt.Sprintf("/api/briefings/%d/run", id), ""); code != 409 {
			t.Fatalf("second run while queued: %d", code)
		}
		for _, bad := range []string{`{"name": ""}`, `{"name": "x", "time": "7am"}`, `{"name": "x", "timezone": "Mars/Base"}`, `{"name": "x", "frequency": "HOURLY"}`,
			`{"name": "x", "itemLimit": 1000}`, `{"name": "x", "emailEnabled": true}`, `{"name": "x", "sourceIds": [42]}`, `{"name": 5}`} {
			if code, body := e.json("POST", "/api/briefings", bad); code != 400 || !strings.Contains(body, `"error"`) {
				t.Errorf("%s: %d %s", bad, code, body)
			}
		}
		if code, _ := e.json("GET", "/api/briefings/999", ""); code != 404 {
			t.Fatalf("unknown: %d", code)
		}
		if code, _ := e.json("DELETE", fmt.Sprintf("/api/briefings/%d", id), ""); code != 204 {
			t.Fatalf("delete: %d", code)
		}
	})

	t.Run("a stored report reads back with its items and coverage; its page reads like a newsletter", func(t *testing.T) {
		e := newEnv(t)
		ctx := context.Background()
		b := &app.Briefing{UserID: 1, Name: "Evening <b>news</b>", Time: "19:00", Timezone: "UTC"}
		if err := (&app.Briefings{Store: e.db}).Save(ctx, b); err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC()
		rep := &app.Report{GeneratedAt: now, PeriodStart: now.Add(-24 * time.Hour), PeriodEnd: now, Overview: "2 stories from 3 sources.",
			Items: []app.ReportItem{{Rank: 1, Title: "Tram approved <script>x</script>", Link: "https://a.example/1", Summary: "The tram.", Score: 90, ScoreReasoning: "Matches",
				AlsoCoveredBy: []app.Coverage{{Title: "Tram OK", Link: "https://b.example/2", Source: "Bruzz"}}}}}
		if err := e.db.FinishBriefing(ctx, b, rep, nil); err != nil {
			t.Fatal(err)
		}
		code, body := e.json("GET", fmt.Sprintf("/api/reports/%d", rep.ID), "")
		if code != 200 || !strings.Contains(body, `"alsoCoveredBy":[{"title":"Tram OK"`) || !strings.Contains(body, `"overview":"2 stories from 3 sources."`) || !strings.Contains(body, `"deliveries":[]`) {
			t.Fatalf("report: %d %s", code, body)
		}
		_, body = e.json("GET", fmt.Sprintf("/api/briefings/%d/reports", b.ID), "")
		if !strings.Contains(body, fmt.Sprintf(`"id":%d`, rep.ID)) {
			t.Fatalf("reports: %s", body)
		}
		res, page := e.get(fmt.Sprintf("/reports/%d", rep.ID))
		mustContain(t, res, page, 200, `data-testid="report-item"`, `data-testid="also-covered"`, "Bruzz", "2 stories from 3 sources.", "Tram approved &lt;script&gt;")
		res, page = e.get("/briefings")
		mustContain(t, res, page, 200, `data-testid="briefing"`, `data-testid="latest-report"`, "Evening &lt;b&gt;news&lt;/b&gt;", `data-testid="next-run"`)
		e.createSource("https://example.com/feed", "Example")
		res, page = e.get("/")
		mustContain(t, res, page, 200, `data-testid="today-report"`, "2 stories from 3 sources.")
	})

	t.Run("the create form re-renders with the problem and the input kept", func(t *testing.T) {
		e := newEnv(t)
		res, body := e.form("/briefings", url.Values{"name": {"Kept name"}, "time": {"07:00"}, "timezone": {"Nowhere/City"}})
		mustContain(t, res, body, 422, "Unknown time zone", "Kept name")
		res, body = e.form("/briefings", url.Values{"name": {"Mailed"}, "time": {"07:00"}, "recipients": {"not-an-address"}})
		mustContain(t, res, body, 422, "is not an email address")
		// The time is a 24-hour text field (a browser's time input shows "07:00 AM" in some
		// locales); a 12-hour or malformed time is refused with the format and kept.
		res, body = e.form("/briefings", url.Values{"name": {"Evening"}, "time": {"7pm"}})
		mustContain(t, res, body, 422, "The time of day must be HH:MM (24-hour), such as 07:00.", `value="7pm"`, `pattern="([01][0-9]|2[0-3]):[0-5][0-9]"`)
		res, _ = e.form("/briefings", url.Values{"name": {"Daily"}, "time": {"07:30"}, "timezone": {"Asia/Kolkata"}, "itemLimit": {"5"}, "recipients": {"ann@example.com, bob@example.com"}})
		if res.StatusCode != 303 {
			t.Fatalf("create: %d", res.StatusCode)
		}
		bs, _ := e.db.Briefings(context.Background(), 1)
		if len(bs) != 1 || bs[0].Time != "07:30" || bs[0].Timezone != "Asia/Kolkata" || bs[0].ItemLimit != 5 || !bs[0].EmailEnabled || len(bs[0].Recipients) != 2 {
			t.Fatalf("briefings %+v", bs)
		}
	})
}

func TestReportExports(t *testing.T) {
	t.Run("the Atom feed of reports parses with gofeed; feed-supplied text stays text in it and in Markdown", func(t *testing.T) {
		e := newEnv(t)
		ctx := context.Background()
		b := &app.Briefing{UserID: 1, Name: "Morning", Time: "07:00", Timezone: "Europe/Brussels"}
		if err := (&app.Briefings{Store: e.db}).Save(ctx, b); err != nil {
			t.Fatal(err)
		}
		now := time.Now().UTC()
		evil := `<img src=x onerror=alert(1)>[click](javascript:alert(2))`
		rep := &app.Report{GeneratedAt: now, PeriodStart: now.Add(-24 * time.Hour), PeriodEnd: now, Overview: "One story.",
			Items: []app.ReportItem{{Rank: 1, Title: evil, Link: "javascript:alert(3)", Summary: evil, Score: 80, SourceName: "S",
				AlsoCoveredBy: []app.Coverage{{Title: "t", Link: "https://ok.example/a", Source: evil}}}}}
		if err := e.db.FinishBriefing(ctx, b, rep, nil); err != nil {
			t.Fatal(err)
		}
		res, body := e.get(fmt.Sprintf("/briefings/%d/feed.xml", b.ID))
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "application/atom+xml") {
			t.Fatalf("feed: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
		}
		feed, err := gofeed.NewParser().ParseString(body)
		if err != nil || len(feed.Items) != 1 || !strings.Contains(feed.Items[0].Link, fmt.Sprintf("/reports/%d", rep.ID)) {
			t.Fatalf("parse: %v %+v", err, feed)
		}
		content := feed.Items[0].Content
		if strings.Contains(content, "<img") || strings.Contains(content, `href="javascript`) || !strings.Contains(content, "&lt;img src=x") {
			t.Fatalf("feed content not escaped: %s", content)
		}
		res, md := e.get(fmt.Sprintf("/reports/%d/markdown", rep.ID))
		if res.StatusCode != 200 || strings.Contains(md, "<img") || strings.Contains(md, "](javascript") || !strings.Contains(md, "[S](https://ok.example/a)") && !strings.Contains(md, "https://ok.example/a") {
			t.Fatalf("markdown: %d\n%s", res.StatusCode, md)
		}
	})
}

func TestBriefingEdit(t *testing.T) {
	t.Run("the edit page previews what the briefing would pick now, and saves its source picks", func(t *testing.T) {
		e := newEnv(t)
		src, _ := seedItems(t, e)
		ctx := context.Background()
		b := &app.Briefing{UserID: 1, Name: "Morning", Time: "07:00", Timezone: "UTC", MinScore: 40}
		if err := (&app.Briefings{Store: e.db}).Save(ctx, b); err != nil {
			t.Fatal(err)
		}
		res, body := e.get(fmt.Sprintf("/briefings/%d/edit", b.ID))
		mustContain(t, res, body, 200, `data-testid="briefing-preview"`, "SQLite grows up", `name="sourceIds"`)
		if strings.Contains(body, "Cycling in Brussels") {
			t.Fatal("the preview kept an item below the minimum score")
		}
		res, _ = e.form(fmt.Sprintf("/briefings/%d/edit", b.ID), url.Values{"name": {"Morning"}, "time": {"08:15"}, "timezone": {"UTC"}, "minScore": {"40"},
			"itemLimit": {"3"}, "sourceIds": {fmt.Sprint(src.ID)}})
		if res.StatusCode != 303 {
			t.Fatalf("save: %d", res.StatusCode)
		}
		got, _ := e.db.Briefing(ctx, 1, b.ID)
		if got.Time != "08:15" || len(got.SourceIDs) != 1 || got.SourceIDs[0] != src.ID || got.ItemLimit != 3 {
			t.Fatalf("saved %+v", got)
		}
		res, body = e.form(fmt.Sprintf("/briefings/%d/edit", b.ID), url.Values{"name": {""}, "time": {"08:15"}})
		mustContain(t, res, body, 422, "needs a name")
	})
}

// TestBriefingFolderScope: a briefing can cover one folder's sources, through the form's scope
// picker and the JSON API; the briefing's card says what it covers, and the edit page's preview
// picks only that folder's items.
func TestBriefingFolderScope(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	src, _ := seedItems(t, e) // "SQLite grows up", scored 88
	other := e.createSource("https://other.example/feed", "Other Feed")
	e.fetch(other.ID, app.Item{GUID: "o", Title: "Tram to the airport approved", Link: "https://other.example/o", Text: "The council approved it."})
	if _, err := e.db.Write.Exec(`update items set status = 'DONE', score = 95, summary = 'Tram.' where guid = 'o'`); err != nil {
		t.Fatal(err)
	}
	folder, err := e.db.EnsureFolder(ctx, 1, "Tech")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.db.Write.Exec(`update sources set folder_id = ? where id = ?`, folder.ID, src.ID); err != nil {
		t.Fatal(err)
	}

	res, body := e.get("/briefings")
	mustContain(t, res, body, 200, `data-testid="briefing-scope"`, `value="folder"`, "Tech (1 source)", "Covers")
	res, body = e.form("/briefings", url.Values{"name": {"Tech"}, "time": {"07:00"}, "scope": {"folder"}, "folderId": {fmt.Sprint(folder.ID)},
		"sourceIds": {fmt.Sprint(other.ID)}}) // a source checked before choosing the folder does not count
	if res.StatusCode != 303 {
		t.Fatalf("create with a folder: %d %s", res.StatusCode, body)
	}
	bs, _ := e.db.Briefings(ctx, 1)
	if len(bs) != 1 || bs[0].FolderID == nil || *bs[0].FolderID != folder.ID || len(bs[0].SourceIDs) != 0 {
		t.Fatalf("briefings %+v", bs)
	}
	id := bs[0].ID
	res, body = e.get("/briefings")
	mustContain(t, res, body, 200, "Covers: the sources of folder Tech")
	res, body = e.get(fmt.Sprintf("/briefings/%d/edit", id))
	mustContain(t, res, body, 200, "SQLite grows up", `value="folder" checked`)
	if i := strings.Index(body, `data-testid="briefing-preview"`); i < 0 || strings.Contains(body[i:], "Tram to the airport") {
		t.Fatal("the folder briefing's preview picked an item of a source outside the folder")
	}

	res, body = e.form("/briefings", url.Values{"name": {"No folder"}, "time": {"07:00"}, "scope": {"folder"}})
	mustContain(t, res, body, 422, "Choose the folder this briefing covers.", "No folder")
	res, body = e.form("/briefings", url.Values{"name": {"No sources"}, "time": {"07:00"}, "scope": {"sources"}})
	mustContain(t, res, body, 422, "Check the sources this briefing covers")

	code, body := e.json("PATCH", fmt.Sprintf("/api/briefings/%d", id), `{"folderId": null, "sourceIds": [`+fmt.Sprint(other.ID)+`]}`)
	if code != 200 || !strings.Contains(body, `"folderId":null`) {
		t.Fatalf("API: from the folder to a source: %d %s", code, body)
	}
	code, body = e.json("PATCH", fmt.Sprintf("/api/briefings/%d", id), fmt.Sprintf(`{"folderId": %d}`, folder.ID))
	if code != 400 || !strings.Contains(body, "a folder or chosen sources, not both") {
		t.Fatalf("API: a folder beside chosen sources: %d %s", code, body)
	}
	code, body = e.json("PATCH", fmt.Sprintf("/api/briefings/%d", id), fmt.Sprintf(`{"folderId": %d, "sourceIds": []}`, folder.ID))
	if code != 200 || !strings.Contains(body, fmt.Sprintf(`"folderId":%d`, folder.ID)) || !strings.Contains(body, `"folderName":"Tech"`) {
		t.Fatalf("API: back to the folder: %d %s", code, body)
	}
	if code, body := e.json("POST", "/api/briefings", `{"name": "x", "folderId": 999}`); code != 400 || !strings.Contains(body, "Folder 999 not found.") {
		t.Fatalf("API: an unknown folder: %d %s", code, body)
	}
}

// TestLatestNonEmptyReport: a run that found nothing does not hide the report before it: Today
// and the Briefings page offer the latest report with stories, and mark the empty one.
func TestLatestNonEmptyReport(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.createSource("https://example.com/feed", "Example")
	b := &app.Briefing{UserID: 1, Name: "Morning", Time: "07:00", Timezone: "UTC"}
	if err := (&app.Briefings{Store: e.db}).Save(ctx, b); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	full := &app.Report{GeneratedAt: now.Add(-time.Hour), PeriodStart: now.Add(-25 * time.Hour), PeriodEnd: now.Add(-time.Hour), Overview: "One story from one source.",
		Items: []app.ReportItem{{Rank: 1, Title: "Tram approved", Link: "https://a.example/1", Score: 80}}}
	empty := &app.Report{GeneratedAt: now, PeriodStart: now.Add(-time.Hour), PeriodEnd: now, Overview: "Nothing new between then and now."}
	for _, r := range []*app.Report{full, empty} {
		if err := e.db.FinishBriefing(ctx, b, r, nil); err != nil {
			t.Fatal(err)
		}
	}
	res, body := e.get("/")
	mustContain(t, res, body, 200, `data-testid="today-report"`, fmt.Sprintf(`href="/reports/%d"`, full.ID), "One story from one source.", `data-testid="newer-empty"`, "1 story")
	if strings.Contains(body, "Nothing new between") {
		t.Fatal("Today offers the empty report")
	}
	res, body = e.get("/briefings")
	mustContain(t, res, body, 200, `data-testid="report-empty"`)
	if !strings.Contains(body, fmt.Sprintf(`href="/reports/%d" data-testid="latest-report"`, full.ID)) {
		t.Fatalf("the Briefings page's Latest report is not the one with stories (%d):\n%s", full.ID, body)
	}
}
