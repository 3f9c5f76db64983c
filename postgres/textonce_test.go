package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/htmltext"
	"github.com/morningdeck/morningdeck/postgres"
	"github.com/morningdeck/morningdeck/postgres/pgtest"
)

// TestTextStoredOnce (issue 26, item 4, as SQLite's): an item's plain text is not stored beside
// its HTML, and is read as before; search finds the words of its content; the reasoning's date
// is the row's; migration 0011's step empties the texts stored before that are their HTML's.
func TestTextStoredOnce(t *testing.T) {
	ctx := context.Background()
	db := pgtest.New(t)
	src := &app.Source{UserID: 1, Type: app.SourceRSS, URL: "http://x/feed", RefreshIntervalMinutes: 15}
	if err := db.CreateSource(ctx, src, nil); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 2, 3, 0, 0, 0, time.UTC)
	var items []app.Item
	for _, g := range []string{"a", "b"} {
		clean := `<p>Zeppelins &amp; airships <b>over</b> the ` + g + ` valley.</p><ul><li>Helium</li><li>Hydrogen</li></ul>`
		items = append(items, app.Item{GUID: g, Title: "Airships " + g, CleanContent: clean, Text: htmltext.Text(clean), PublishedAt: &at,
			ScoreReasoning: "No interests set yet · published 2 Nov 2026"})
	}
	items[1].Text = "An article about blimps."
	if _, err := db.FinishFetch(ctx, src, &app.FetchResult{Items: items}, nil); err != nil {
		t.Fatal(err)
	}
	stored := func() map[string][2]string {
		rows, err := db.SQL.QueryContext(ctx, `select guid, text_content, score_reasoning from items`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		out := map[string][2]string{}
		for rows.Next() {
			var g, s, r string
			if err := rows.Scan(&g, &s, &r); err != nil {
				t.Fatal(err)
			}
			out[g] = [2]string{s, r}
		}
		return out
	}
	if got := stored(); got["a"] != [2]string{"", "No interests set yet · \x1d"} || got["b"][0] != "An article about blimps." {
		t.Errorf("stored: %q", got)
	}
	all, err := db.Items(ctx, app.ItemFilter{UserID: 1, Limit: 10})
	if err != nil || len(all) != 2 {
		t.Fatalf("items: %v, %v", all, err)
	}
	for _, it := range all {
		if it.Text != items[0].Text && it.GUID == "a" || it.Text != items[1].Text && it.GUID == "b" || it.ScoreReasoning != items[0].ScoreReasoning {
			t.Errorf("%s: text %q reasoning %q", it.GUID, it.Text, it.ScoreReasoning)
		}
	}
	for q, want := range map[string]int{"hydrogen": 1, "blimps": 1, "valley": 1} {
		got, err := db.Items(ctx, app.ItemFilter{UserID: 1, Q: q, Limit: 10})
		if err != nil || len(got) != want {
			t.Errorf("search %q: %d, %v", q, len(got), err)
		}
	}
	// A database from before 0011: the texts stored; the step empties a's, keeps b's.
	if _, err := db.SQL.ExecContext(ctx, `update items set text_content = $1 where guid = 'a'`, items[0].Text); err != nil {
		t.Fatal(err)
	}
	tx, err := db.SQL.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := postgres.MigrateTextOnce(ctx, tx); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := stored(); got["a"][0] != "" || got["b"][0] != "An article about blimps." {
		t.Errorf("after the step: %q", got)
	}
	if got, err := db.Items(ctx, app.ItemFilter{UserID: 1, Q: "hydrogen", Limit: 10}); err != nil || len(got) != 1 || got[0].Text != items[0].Text {
		t.Errorf("search hydrogen after the step: %v, %v", got, err)
	}
	// 0011's conversion of a reasoning stored before: the date written as Go writes it.
	var r string
	if err := db.SQL.QueryRowContext(ctx, `select replace('x · published 2 Nov 2026', 'published ' || to_char($1::timestamptz at time zone 'UTC', 'FMDD Mon YYYY'), chr(29))`,
		at.Add(20*time.Hour)).Scan(&r); err != nil || r != "x · \x1d" {
		t.Errorf("0011's reasoning: %q, %v", r, err)
	}
}
