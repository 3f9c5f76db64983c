package sqlite_test

import (
	"context"
	"testing"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/htmltext"
	"github.com/morningdeck/morningdeck/sqlite"
	"github.com/morningdeck/morningdeck/sqlite/sqlitetest"
)

// textOnceItems are a feed's items as the fetcher makes them: sanitized HTML and its text.
func textOnceItems(guids ...string) []app.Item {
	var out []app.Item
	for i, g := range guids {
		clean := `<p>Zeppelins &amp; airships <b>over</b> the ` + g + ` valley.</p><ul><li>Helium</li><li>Hydrogen</li></ul>`
		at := time.Date(2026, 11, 2, i, 0, 0, 0, time.UTC)
		out = append(out, app.Item{GUID: g, Title: "Airships " + g, Link: "http://x/" + g, CleanContent: clean, Text: htmltext.Text(clean), PublishedAt: &at})
	}
	return out
}

func storedTexts(t *testing.T, db *sqlite.DB) map[string]string {
	t.Helper()
	rows, err := db.Read.Query(`select guid, text_content from items`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var g, s string
		if err := rows.Scan(&g, &s); err != nil {
			t.Fatal(err)
		}
		out[g] = s
	}
	return out
}

func searchGUIDs(t *testing.T, db *sqlite.DB, q string) []string {
	t.Helper()
	got, err := db.Items(context.Background(), app.ItemFilter{UserID: 1, Q: q, Limit: 50})
	if err != nil {
		t.Fatalf("search %q: %v", q, err)
	}
	var out []string
	for _, it := range got {
		out = append(out, it.GUID)
	}
	return out
}

// TestTextStoredOnce (issue 26, item 4): an item's plain text is not stored beside the HTML it is
// the text of; every reader sees the same text as before (the item, scoring, briefings, the
// enricher's statistics), search finds the words of its content and, once indexed again, of
// what changed; an article's text that is not the HTML's is kept; the reader's full text keeps
// the item's text.
func TestTextStoredOnce(t *testing.T) {
	ctx := context.Background()
	db := sqlitetest.New(t)
	src := newSource(t, db, "http://x/feed")
	items := textOnceItems("a", "b", "c")
	want := items[0].Text
	if want != "Zeppelins & airships over the a valley. Helium Hydrogen" {
		t.Fatalf("the text: %q", want)
	}
	if _, err := db.FinishFetch(ctx, src, &app.FetchResult{Items: items}, nil); err != nil {
		t.Fatal(err)
	}
	for g, s := range storedTexts(t, db) {
		if s != "" {
			t.Errorf("%s: text_content %q stored beside its HTML", g, s)
		}
	}
	if _, err := db.IndexItems(ctx, 100); err != nil {
		t.Fatal(err)
	}
	id := map[string]int64{}
	all, err := db.Items(ctx, app.ItemFilter{UserID: 1, Limit: 50})
	if err != nil || len(all) != 3 {
		t.Fatalf("items: %d, %v", len(all), err)
	}
	for _, it := range all {
		id[it.GUID] = it.ID
		if it.Text != htmltext.Text(it.CleanContent) {
			t.Errorf("%s: text %q", it.GUID, it.Text)
		}
	}
	if got := searchGUIDs(t, db, "hydrogen"); len(got) != 3 {
		t.Errorf("search hydrogen (a word of the content only): %v", got)
	}
	// Scoring, briefings and the enricher's statistics read the same text.
	imp, err := db.ImportItems(ctx, src.ID, 10)
	if err != nil || len(imp) != 3 {
		t.Fatalf("import items: %d, %v", len(imp), err)
	}
	for _, it := range imp {
		if it.ID == id["a"] && it.Text != want {
			t.Errorf("scoring reads %q, want %q", it.Text, want)
		}
	}
	texts, err := db.CandidateTexts(ctx, 1, []int64{id["a"]}, 20)
	if err != nil || texts[id["a"]] != "Zeppelins & airships" {
		t.Errorf("candidate texts: %v, %v", texts, err)
	}
	recent, err := db.RecentTexts(ctx, 1)
	if err != nil || len(recent) != 1 || recent[0] != "Airships c "+htmltext.Text(items[2].CleanContent) {
		t.Errorf("recent texts: %q, %v", recent, err)
	}
	// A summary that is the text: stored once, read as the text; searched by its words after
	// the item is indexed again.
	if err := db.SaveScores(ctx, []app.ScoreUpdate{{ItemID: id["a"], Score: 40, Text: want, Reasoning: "No interests set yet · published 2 Nov 2026", Published: items[0].PublishedAt,
		Enrichment: &app.Enrichment{Summary: want, Tags: []string{"dirigible"}, EnrichedBy: app.EnricherEmbedded}}}); err != nil {
		t.Fatal(err)
	}
	var summary, text, reason string
	if err := db.Read.QueryRow(`select summary, text_content, score_reasoning from items where id = ?`, id["a"]).Scan(&summary, &text, &reason); err != nil ||
		summary != "\x1e" || text != "" || reason != "No interests set yet · \x1d" {
		t.Errorf("stored summary %q text %q reasoning %q (%v)", summary, text, reason, err)
	}
	if it, err := db.Item(ctx, 1, id["a"]); err != nil || it.Summary != want || it.Text != want || it.ScoreReasoning != "No interests set yet · published 2 Nov 2026" {
		t.Errorf("item a: %+v, %v", it, err)
	}
	if got := searchGUIDs(t, db, "dirigible"); len(got) != 0 {
		t.Errorf("search dirigible before indexing again: %v", got)
	}
	if n, err := db.IndexItems(ctx, 100); err != nil || n != 1 {
		t.Errorf("indexed again: %d, %v", n, err)
	}
	if got := searchGUIDs(t, db, "dirigible"); len(got) != 1 || got[0] != "a" {
		t.Errorf("search dirigible: %v", got)
	}
	if got := searchGUIDs(t, db, "helium"); len(got) != 3 {
		t.Errorf("search helium after indexing again: %v", got)
	}
	// An article's text read by processing is another text: stored.
	if _, err := db.Write.Exec(`update items set status = 'PROCESSING' where id = ?`, id["b"]); err != nil {
		t.Fatal(err)
	}
	b, err := db.Item(ctx, 1, id["b"])
	if err != nil {
		t.Fatal(err)
	}
	article := "The whole article about blimps and the b valley."
	if err := db.FinishProcessing(ctx, b, app.ProcessResult{Text: article, Enrichment: &app.Enrichment{Summary: "Blimps.", EnrichedBy: app.EnricherEmbedded}}, nil); err != nil {
		t.Fatal(err)
	}
	if s := storedTexts(t, db)["b"]; s != article {
		t.Errorf("b: stored %q, want the article's text", s)
	}
	if _, err := db.IndexItems(ctx, 100); err != nil {
		t.Fatal(err)
	}
	if got := searchGUIDs(t, db, "blimps"); len(got) != 1 || got[0] != "b" {
		t.Errorf("search blimps: %v", got)
	}
	// The reader's full text replaces the HTML; the item's text stays the feed's.
	c, err := db.SetFullText(ctx, 1, id["c"], "<p>Another page entirely.</p>")
	if err != nil || c.Text != htmltext.Text(items[2].CleanContent) || c.CleanContent != "<p>Another page entirely.</p>" {
		t.Errorf("full text: %+v, %v", c, err)
	}
	// A literal searched as typed (punctuation the index drops) is looked for in the HTML.
	lit := []app.Item{
		{GUID: "cpp", Title: "Languages", CleanContent: "<p>Written in <i>modern</i> C++ today.</p>"},
		{GUID: "c", Title: "Languages", CleanContent: "<p>Written in <i>modern</i> C today.</p>"},
	}
	for i := range lit {
		lit[i].Text = htmltext.Text(lit[i].CleanContent)
	}
	if _, err := db.FinishFetch(ctx, src, &app.FetchResult{Items: lit}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.IndexItems(ctx, 100); err != nil {
		t.Fatal(err)
	}
	if got := searchGUIDs(t, db, "c++ written"); len(got) != 1 || got[0] != "cpp" {
		t.Errorf("search c++: %v", got)
	}
	// Deletes take items out of the index; the index is consistent.
	if _, err := db.Write.Exec(`delete from items where id = ?`, id["c"]); err != nil {
		t.Fatal(err)
	}
	// b's indexed text is its article's now, c is gone.
	if got := searchGUIDs(t, db, "helium"); len(got) != 1 || got[0] != "a" {
		t.Errorf("search helium after a delete: %v", got)
	}
	if _, err := db.Write.Exec(`insert into items_fts (items_fts, rank) values ('integrity-check', 1)`); err != nil {
		t.Errorf("search index integrity: %v", err)
	}
}

// TestMigration0031TextOnce: a database from before migration 0031 (every item's text stored,
// an external-content search index) is migrated: the texts that are their HTML's are emptied,
// another text is kept, and search finds what it found.
func TestMigration0031TextOnce(t *testing.T) {
	ctx := context.Background()
	db := sqlitetest.New(t)
	src := newSource(t, db, "http://x/feed")
	if _, err := db.FinishFetch(ctx, src, &app.FetchResult{Items: textOnceItems("a", "b", "c")}, nil); err != nil {
		t.Fatal(err)
	}
	// Back to the schema before 0031 (0028's), every text stored; b's is an article's.
	db2 := migrateAgain(t, db,
		`drop trigger items_fts_update`, `drop trigger items_fts_delete`, `drop table items_fts`, `drop table fts_stale`,
		`delete from schema_migrations where version = 31`,
		`update items set text_content = 'Zeppelins & airships over the ' || guid || ' valley. Helium Hydrogen'`,
		`update items set text_content = 'An article about blimps.' where guid = 'b'`,
		`update items set summary = char(30) where guid = 'c'`,
		`update items set score_reasoning = 'No interests set yet · published 2 Nov 2026'`,
		`create view items_search as select id, title, iif(summary = char(30), text_content, summary) as summary,
		  iif(summary = char(30), '', text_content) as text_content, tags from items`,
		`create virtual table items_fts using fts5 (title, summary, text_content, tags, content = 'items_search', content_rowid = 'id',
		  tokenize = 'unicode61 remove_diacritics 2')`,
		`create trigger items_fts_update after update of title, summary, text_content, tags on items
		when old.id <= (select last_id from fts_state) begin
		  insert into items_fts (items_fts, rowid, title, summary, text_content, tags) values ('delete', old.id, old.title,
		    iif(old.summary = char(30), old.text_content, old.summary), iif(old.summary = char(30), '', old.text_content), old.tags);
		  insert into items_fts (rowid, title, summary, text_content, tags) values (new.id, new.title,
		    iif(new.summary = char(30), new.text_content, new.summary), iif(new.summary = char(30), '', new.text_content), new.tags);
		end`,
		`create trigger items_fts_delete after delete on items
		when old.id <= (select last_id from fts_state) begin
		  insert into items_fts (items_fts, rowid, title, summary, text_content, tags) values ('delete', old.id, old.title,
		    iif(old.summary = char(30), old.text_content, old.summary), iif(old.summary = char(30), '', old.text_content), old.tags);
		end`,
		`update fts_state set last_id = (select max(id) from items where guid != 'c')`,
		`insert into items_fts (rowid, title, summary, text_content, tags) select id, title, summary, text_content, tags from items_search
		  where id <= (select last_id from fts_state)`,
	)
	if got := storedTexts(t, db2); got["a"] != "" || got["c"] != "" || got["b"] != "An article about blimps." {
		t.Errorf("stored texts after the migration: %q", got)
	}
	var reasons []string
	rows, err := db2.Read.Query(`select score_reasoning from items`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var r string
		_ = rows.Scan(&r)
		reasons = append(reasons, r)
	}
	rows.Close()
	for _, r := range reasons {
		if r != "No interests set yet · \x1d" {
			t.Errorf("stored reasoning %q: the date is the row's", r)
		}
	}
	if got := searchGUIDs(t, db2, "blimps"); len(got) != 1 || got[0] != "b" {
		t.Errorf("search blimps: %v", got)
	}
	if got := searchGUIDs(t, db2, "hydrogen"); len(got) != 1 || got[0] != "a" {
		t.Errorf("search hydrogen before c is indexed: %v", got)
	}
	if _, err := db2.IndexItems(ctx, 100); err != nil {
		t.Fatal(err)
	}
	if got := searchGUIDs(t, db2, "hydrogen"); len(got) != 2 {
		t.Errorf("search hydrogen: %v", got)
	}
	c, err := db2.Items(ctx, app.ItemFilter{UserID: 1, Q: "valley", Limit: 50})
	if err != nil || len(c) != 2 {
		t.Fatalf("search valley: %d, %v", len(c), err)
	}
	for _, it := range c {
		if it.GUID == "c" && (it.Summary != it.Text || it.Text != "Zeppelins & airships over the c valley. Helium Hydrogen") {
			t.Errorf("c: summary %q text %q", it.Summary, it.Text)
		}
		if it.ScoreReasoning != "No interests set yet · published 2 Nov 2026" {
			t.Errorf("%s: reasoning %q", it.GUID, it.ScoreReasoning)
		}
	}
	if _, err := db2.Write.Exec(`insert into items_fts (items_fts, rank) values ('integrity-check', 1)`); err != nil {
		t.Errorf("search index integrity: %v", err)
	}
}
