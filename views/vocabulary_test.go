package views_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/enrich"
	"github.com/morningdeck/morningdeck/queue"
	"github.com/morningdeck/morningdeck/views"
)

// Settings → "Words that go with your interests": learned from the reader's items in the real
// database, each offered as a button that adds it to the interest.
func TestVocabularyPage(t *testing.T) {
	e := newEnv(t)
	pq := queue.NewProcessQueue(queue.ProcessQueueOptions{Store: e.db})
	fq := queue.NewFetchQueue(queue.FetchQueueOptions{Store: e.db, Capacity: 1000})
	settings := &app.UserSettings{Store: e.db}
	enriching := &app.Enriching{Store: e.db, Queue: pq, Offline: enrich.NewEmbedded(enrich.EmbeddedOptions{}), Scoring: e.db}
	srv := httptest.NewServer(views.New(views.Options{Sources: &app.Sources{Store: e.db, Queue: fq}, Reading: &app.Reading{Store: e.db, Queue: pq},
		Settings: settings, Vocabulary: enriching.Vocabulary, Enricher: views.EnricherInfo{Default: "embedded"}}))
	t.Cleanup(srv.Close)
	e.srv = srv

	// Two security outlets writing about vulnerabilities with CVE numbers and exploits, and a
	// cooking blog.
	news := []string{
		"OpenSSH fixes two vulnerabilities|CVE-2025-26465 is a security vulnerability in OpenSSH; an exploit is public.",
		"Tomcat vulnerability exploited|CVE-2025-24813 lets attackers run code; the exploit appeared days after the patch.",
		"Ivanti patches security vulnerabilities|CVE-2025-0282 was exploited as a zero-day; an exploit kit followed.",
		"Chrome zero-day vulnerability|Google patched CVE-2025-2783, a security vulnerability with an exploit in the wild.",
		"Fortinet authentication bypass vulnerability|CVE-2024-55591 is exploited; the exploit gives super-admin rights.",
		"Patch Tuesday fixes security vulnerabilities|Six zero-days, CVE-2025-24983 among them, have a working exploit.",
	}
	for s, name := range []string{"Security Week", "The Record"} {
		src := e.createSource(fmt.Sprintf("https://security%d.example/feed", s), name)
		var items []app.Item
		for i, n := range news {
			title, text, _ := strings.Cut(n, "|")
			items = append(items, app.Item{GUID: fmt.Sprint(s, i), Title: title, Text: text, Link: fmt.Sprintf("https://security%d.example/%d", s, i)})
		}
		e.fetch(src.ID, items...)
	}
	cook := e.createSource("https://cooking.example/feed", "Cooking")
	var dishes []app.Item
	for i, d := range []string{"Tomato soup", "Bread at home", "Lentil curry", "Apple pie", "Green salad", "Roast chicken", "Pasta with pesto", "Risotto"} {
		dishes = append(dishes, app.Item{GUID: fmt.Sprint("c", i), Title: d, Text: d + " with a few good ingredients, cooked slowly; the recipe serves four.", Link: fmt.Sprintf("https://cooking.example/%d", i)})
	}
	e.fetch(cook.ID, dishes...)
	if _, err := e.db.Write.Exec(`update items set status = 'DONE', enriched_by = ?`, app.EnricherEmbedded); err != nil {
		t.Fatal(err)
	}
	interests := "security vulnerabilities\ncooking\nsports"
	if _, err := settings.Update(context.Background(), 1, app.SettingsUpdate{Interests: &interests}); err != nil {
		t.Fatal(err)
	}

	_, body := e.get("/settings")
	if !strings.Contains(body, `href="/settings/vocabulary"`) {
		t.Fatal("Settings does not link the words that go with the interests")
	}
	res, body := e.get("/settings/vocabulary")
	if res.StatusCode != http.StatusOK || !strings.Contains(body, `data-testid="vocabulary-interest"`) {
		t.Fatalf("vocabulary page: %d %s", res.StatusCode, body)
	}
	// An interest that names a news section says what it is read as, before it has any match.
	if !strings.Contains(body, `data-testid="vocabulary-section"`) || !strings.Contains(body, "Read as the news section “sports”") || !strings.Contains(body, "nba") {
		t.Fatalf("the sports interest does not say it is read as the news section:\n%s", body)
	}
	if strings.Count(body, `data-testid="vocabulary-section"`) != 1 {
		t.Fatalf("an interest that names no section is shown as one:\n%s", body)
	}
	// What the interest already finds as kinds of its words (the lexicon's: a CVE is a kind of
	// vulnerability) is shown, and not offered again as a word to add.
	kinds := body[strings.Index(body, `data-testid="vocabulary-kinds"`)+1:]
	if !strings.Contains(body, `data-testid="vocabulary-kinds"`) || !strings.Contains(kinds[:strings.Index(kinds, "</p>")], "CVE") {
		t.Fatalf("the kinds security vulnerabilities finds (CVE) are not shown:\n%s", body)
	}
	if strings.Contains(body, `name="word" value="CVE"`) {
		t.Fatalf("CVE, which the interest finds already, is offered as a word to add:\n%s", body)
	}
	if strings.Contains(body, `value="recipe"`) || strings.Contains(body, `value="OpenSSH"`) {
		t.Fatalf("a word of one source, or of another interest, is offered for security vulnerabilities:\n%s", body)
	}
	res, _ = e.form("/settings/vocabulary", url.Values{"interest": {"security vulnerabilities"}, "word": {"CVE"}})
	if res.StatusCode != http.StatusSeeOther {
		t.Fatalf("add: %d", res.StatusCode)
	}
	st, err := settings.Get(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	if st.Interests != "security vulnerabilities (also: CVE)\ncooking\nsports" {
		t.Fatalf("interests after adding CVE: %q", st.Interests)
	}
	// A kind that is not what the reader means is removed: it goes to the interest's "(not: …)"
	// list and is no longer shown among the kinds.
	if !strings.Contains(body, `name="kind" value="zero-day"`) {
		t.Fatalf("the kind zero-day has no remove button:\n%s", body)
	}
	// remove takes word out of interest and checks the interests after, and that the page no
	// longer offers it but still offers other.
	remove := func(interest, word, want, other string) {
		t.Helper()
		res, _ := e.form("/settings/vocabulary/remove", url.Values{"interest": {interest}, "kind": {word}})
		if res.StatusCode != http.StatusSeeOther {
			t.Fatalf("remove %s: %d", word, res.StatusCode)
		}
		if st, _ := settings.Get(context.Background(), 1); st.Interests != want {
			t.Fatalf("interests after removing %s: %q, want %q", word, st.Interests, want)
		}
		if _, body := e.get("/settings/vocabulary"); strings.Contains(body, `name="kind" value="`+word+`"`) || !strings.Contains(body, `name="kind" value="`+other+`"`) {
			t.Fatalf("after removing %s, the page is wrong:\n%s", word, body)
		}
	}
	remove("security vulnerabilities (also: CVE)", "zero-day", "security vulnerabilities (also: CVE) (not: zero-day)\ncooking\nsports", "buffer overflow")
	back := "security vulnerabilities (also: CVE)\ncooking\nsports"
	if _, err := settings.Update(context.Background(), 1, app.SettingsUpdate{Interests: &back}); err != nil {
		t.Fatal(err)
	}
	// An interest that is gone, or a word that would split the interest, adds nothing.
	for _, v := range []url.Values{
		{"interest": {"knitting"}, "word": {"yarn"}},
		{"interest": {"cooking"}, "word": {"a, b"}},
	} {
		res, _ = e.form("/settings/vocabulary", v)
		if res.StatusCode != http.StatusSeeOther || !strings.Contains(res.Header.Get("Location"), "/settings/vocabulary") {
			t.Fatalf("add %v: %d %s", v, res.StatusCode, res.Header.Get("Location"))
		}
	}
	if st, _ := settings.Get(context.Background(), 1); st.Interests != "security vulnerabilities (also: CVE)\ncooking\nsports" {
		t.Fatalf("a refused word changed the interests: %q", st.Interests)
	}

	// An interest's forms in other languages and scripts (a country's names) are shown, each
	// removable as a kind is.
	withCountry := "Turkey\ncooking"
	if _, err := settings.Update(context.Background(), 1, app.SettingsUpdate{Interests: &withCountry}); err != nil {
		t.Fatal(err)
	}
	_, body = e.get("/settings/vocabulary")
	if !strings.Contains(body, `data-testid="vocabulary-translations"`) || !strings.Contains(body, `name="kind" value="Türkei"`) || !strings.Contains(body, `name="kind" value="Турция"`) {
		t.Fatalf("Turkey's names in other languages are not shown with remove buttons:\n%s", body)
	}
	remove("Turkey", "Türkei", "Turkey (not: Türkei)\ncooking", "Турция")

	// A place before an interest's first subject qualifies the subjects after it: the page says
	// so, and how to follow them anywhere.
	withPlace := "Indian economy and markets\ncooking"
	if _, err := settings.Update(context.Background(), 1, app.SettingsUpdate{Interests: &withPlace}); err != nil {
		t.Fatal(err)
	}
	_, body = e.get("/settings/vocabulary")
	i := strings.Index(body, `data-testid="vocabulary-qualified"`)
	if i < 0 {
		t.Fatalf("the place that qualifies markets is not shown:\n%s", body)
	}
	if hint := body[i:]; !strings.Contains(hint[:strings.Index(hint, "</p>")], "“markets” is read with “Indian” before it: it counts fully only in items that also name Indian") {
		t.Fatalf("the qualified subject's hint is wrong: %s", hint[:strings.Index(hint, "</p>")])
	}
	if strings.Count(body, `data-testid="vocabulary-qualified"`) != 1 {
		t.Fatalf("an interest without a place is shown as qualified:\n%s", body)
	}
}
