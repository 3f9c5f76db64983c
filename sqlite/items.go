package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/htmltext"
)

func encodeExtra(m map[string]any) string {
	if len(m) == 0 {
		return "{}"
	}
	b, err := json.Marshal(m)
	if err != nil {
		return "{}"
	}
	return string(b)
}

func encodeList(l []string) string {
	if len(l) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(l)
	return string(b)
}

func decodeList(s string) []string {
	var l []string
	if s != "" && s != "[]" {
		_ = json.Unmarshal([]byte(s), &l)
	}
	return l
}

// summaryIsText is the stored summary of an item whose summary is its whole text (migration
// 0028, issue 26): the text is stored once and read back as the summary too.
//
// An item's text is not stored beside the sanitized HTML it is the plain text of (migration
// 0031): text_content is empty and the text is derived on read (htmltext.Of); it holds a text
// only when that text is not the HTML's (an article's text read from the linked page, a mail's
// "no text" notice). htmltext.Stored is what to store.
const summaryIsText = "\x1e"

// storedSummary is what is stored for an item's summary: summaryIsText when it is the text.
func storedSummary(summary, text string) string {
	if summary != "" && summary == text {
		return summaryIsText
	}
	return summary
}

// itemColumns: raw_content is no longer read (nor stored: see insertItemsTx); rows stored
// before keep it until they are pruned.
const itemColumns = `i.id, i.source_id, i.user_id, i.guid, i.title, i.link, i.author, i.published_at, '',
	i.clean_content, i.text_content, i.extra, i.status, i.created_at, case when s.name = '' then s.url else s.name end,
	i.summary, i.tags, i.topics, i.score, i.score_reasoning, i.enriched_by, i.attempts, i.last_error,
	i.read_at, i.starred, i.hidden`

func scanItem(row scanner, extra ...any) (*app.Item, error) {
	var it app.Item
	var published, readAt sql.NullString
	var created, ex, tags, topics string
	var score sql.NullInt64
	dest := []any{&it.ID, &it.SourceID, &it.UserID, &it.GUID, &it.Title, &it.Link, &it.Author, &published,
		&it.RawContent, &it.CleanContent, &it.Text, &ex, &it.Status, &created, &it.SourceName,
		&it.Summary, &tags, &topics, &score, &it.ScoreReasoning, &it.EnrichedBy, &it.Attempts, &it.LastError,
		&readAt, &it.Starred, &it.Hidden}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return nil, err
	}
	it.Text = htmltext.Of(it.Text, it.CleanContent)
	if it.Summary == summaryIsText {
		it.Summary = it.Text
	}
	it.PublishedAt = parseTimePtr(published)
	it.ScoreReasoning = app.ReasoningOf(it.ScoreReasoning, it.PublishedAt)
	it.ReadAt = parseTimePtr(readAt)
	it.CreatedAt = parseTime(created)
	if ex != "" && ex != "{}" {
		_ = json.Unmarshal([]byte(ex), &it.Extra)
	}
	it.Tags, it.Topics = decodeList(tags), decodeList(topics)
	if score.Valid {
		v := int(score.Int64)
		it.Score = &v
	}
	return &it, nil
}

// Items returns the user's items matching f: newest first, by score, or by search relevance.
//
// A search ranks the items matching every word whole before those matching some word as a
// prefix only ("go modules" finds "Go modules" before "Golden modules"). Ranking costs about
// 40 µs a match, so the whole-word matches are ranked first, alone: when they fill the page
// (the usual case for a common word), the page is what the whole ranking would give, and the
// prefix matches are never ranked. Only a page they do not fill ranks both.
func (db *DB) Items(ctx context.Context, f app.ItemFilter) ([]*app.Item, error) {
	if f.Limit <= 0 || f.Limit > 500 {
		f.Limit = 50
	}
	srch := parseSearch(f.Q)
	if srch.match == "" && strings.TrimSpace(f.Q) != "" {
		return nil, app.ErrNothingToSearch
	}
	var out []*app.Item
	var err error
	switch {
	case srch.exact == "":
		out, err = db.items(ctx, f, srch, matchAll)
	case f.Sort == "date" || f.Sort == "score":
		// Relevance does not order the page: the matches need no ranking at all.
		out, err = db.items(ctx, f, srch, matchUnranked)
	default:
		out, err = db.items(ctx, f, srch, matchWhole)
		switch {
		case err != nil || len(out) == f.Limit:
		case len(out) > 0 || f.Offset == 0:
			// The whole-word matches end on this page: the prefix matches follow them, from
			// their first.
			rest := f
			rest.Offset, rest.Limit = 0, f.Limit-len(out)
			var more []*app.Item
			more, err = db.items(ctx, rest, srch, matchPrefixOnly)
			out = append(out, more...)
		default:
			// A page past the whole-word matches: where the prefix matches start depends on how
			// many whole-word matches there are.
			out, err = db.items(ctx, f, srch, matchWholeThenPrefix)
		}
	}
	if err != nil {
		return nil, err
	}
	if srch.match != "" && len(out) > 0 {
		if err := db.snippets(ctx, srch.match, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// How a search's matches are found and ranked (Items).
type matchMode int

const (
	matchAll             matchMode = iota // srch.match, ranked (or no search at all)
	matchWhole                            // srch.exact only, ranked
	matchWholeThenPrefix                  // srch.exact ranked first, then srch.match
	matchPrefixOnly                       // srch.match less srch.exact, ranked
	matchUnranked                         // srch.exact and srch.match, not ranked (sorted by date or score)
)

// items runs one query of Items: the page of ids chosen on small columns (and indexes), then
// the whole rows of that page only; sorting wide rows with their content is what makes a
// list slow.
func (db *DB) items(ctx context.Context, f app.ItemFilter, srch search, mode matchMode) ([]*app.Item, error) {
	var q strings.Builder
	args := []any{}
	fts := srch.match
	if fts != "" {
		// Rank the newest matches only: a common word matches most items, and ranking them
		// all would take seconds. Snippets are made for the page of results alone, below.
		// MATERIALIZED and CROSS JOIN keep the matches as the outer loop; otherwise the planner
		// may walk every item of the user and probe the full-text index for each.
		const ranked = `bm25(items_fts, 10.0, 4.0, 1.0, 6.0)`
		newest := ` order by rowid desc limit ` + fmt.Sprint(maxRanked)
		switch mode {
		case matchAll:
			q.WriteString(`with m as materialized (select rowid as id, ` + ranked + ` as rank from items_fts
				where items_fts match ?` + newest + `),`)
			args = append(args, fts)
		case matchWhole:
			q.WriteString(`with m as materialized (select rowid as id, ` + ranked + ` as rank from items_fts
				where items_fts match ?` + newest + `),`)
			args = append(args, srch.exact)
		case matchWholeThenPrefix:
			// Whole words first: the items matching every word whole rank before those that
			// match as prefixes only.
			q.WriteString(`with m as materialized (select id, min(rank) as rank from (
					select * from (select rowid as id, ` + ranked + ` - 1000000.0 as rank from items_fts
						where items_fts match ?` + newest + `)
					union all
					select * from (select rowid as id, ` + ranked + ` as rank from items_fts
						where items_fts match ?` + newest + `))
				group by id),`)
			args = append(args, srch.exact, fts)
		case matchPrefixOnly:
			q.WriteString(`with m as materialized (select * from (select rowid as id, ` + ranked + ` as rank from items_fts
					where items_fts match ?` + newest + `)
				where id not in (select rowid from items_fts where items_fts match ?` + newest + `)),`)
			args = append(args, fts, srch.exact)
		case matchUnranked:
			q.WriteString(`with m as materialized (
					select * from (select rowid as id, 0 as rank from items_fts where items_fts match ?` + newest + `)
					union
					select * from (select rowid as id, 0 as rank from items_fts where items_fts match ?` + newest + `)),`)
			args = append(args, srch.exact, fts)
		}
		q.WriteString(`
			page as (select i.id, m.rank from m cross join items i on i.id = m.id where i.user_id = ?`)
		args = append(args, f.UserID)
		for _, lit := range srch.literals {
			// The index has no punctuation: "c++" must be in the text as typed.
			like := "%" + strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(lit) + "%"
			// A text derived from the HTML (text_content empty, 0031) is looked for in the HTML
			// (a literal is letters, digits and + # . only: the same there).
			q.WriteString(` and (i.title like ? escape '\' or i.summary like ? escape '\' or i.text_content like ? escape '\'
				or (i.text_content = '' and i.clean_content like ? escape '\'))`)
			args = append(args, like, like, like, like)
		}
	} else {
		// One source's items: its own index, whatever the planner guesses from the other filters
		// (the unread view's index would scan the whole river for them).
		if f.SourceID != 0 {
			q.WriteString(`with page as (select i.id, 0 as rank from items i indexed by items_source_sort_idx where i.user_id = ?`)
		} else {
			q.WriteString(`with page as (select i.id, 0 as rank from items i where i.user_id = ?`)
		}
		args = append(args, f.UserID)
	}
	if f.SourceID != 0 {
		q.WriteString(` and i.source_id = ?`)
		args = append(args, f.SourceID)
	}
	switch {
	case f.FolderID > 0:
		q.WriteString(` and i.source_id in (select id from sources where folder_id = ?)`)
		args = append(args, f.FolderID)
	case f.FolderID < 0:
		q.WriteString(` and i.source_id in (select id from sources where user_id = ? and folder_id is null)`)
		args = append(args, f.UserID)
	}
	switch f.Status {
	case "":
	case app.ItemError:
		q.WriteString(` and i.status = 'ERROR'`) // written out, so that its partial index applies
	case app.ItemNew, app.ItemPending, app.ItemProcessing:
		q.WriteString(` and i.status = ? and i.` + inFlight) // the same: items in flight are few
		args = append(args, f.Status)
	default:
		q.WriteString(` and i.status = ?`)
		args = append(args, f.Status)
	}
	if f.Hidden {
		q.WriteString(` and i.hidden = 1`)
	} else {
		q.WriteString(` and i.hidden = 0`)
	}
	if f.Unread && !f.ReadSince.IsZero() {
		q.WriteString(` and (i.read_at is null or i.read_at >= ?)`)
		args = append(args, FormatTime(f.ReadSince))
	} else if f.Unread {
		q.WriteString(` and i.read_at is null`)
	}
	if f.Starred {
		q.WriteString(` and i.starred = 1`)
	}
	if f.MinScore > 0 {
		q.WriteString(` and i.score >= ?`)
		args = append(args, f.MinScore)
	}
	if f.Topic != "" {
		q.WriteString(` and exists (select 1 from json_each(i.topics) where lower(value) = lower(?))`)
		args = append(args, f.Topic)
	}
	if f.Tag != "" {
		q.WriteString(` and exists (select 1 from json_each(i.tags) where value = lower(?))`)
		args = append(args, f.Tag)
	}
	var order string
	switch {
	case fts != "" && f.Sort != "date" && f.Sort != "score":
		order = `rank, id desc`
	case f.Sort == "score":
		order = `score is null, score desc, sort_at desc, id desc`
	default:
		order = `sort_at desc, id desc`
	}
	q.WriteString(` order by ` + strings.NewReplacer("score", "i.score", "sort_at", "coalesce(i.published_at, i.created_at)", "id desc", "i.id desc", "rank", "rank").Replace(order))
	q.WriteString(` limit ? offset ?)
		select ` + itemColumns + `, page.rank from page join items i on i.id = page.id join sources s on s.id = i.source_id
		order by ` + strings.NewReplacer("score", "i.score", "sort_at", "coalesce(i.published_at, i.created_at)", "id desc", "i.id desc", "rank", "page.rank").Replace(order))
	args = append(args, f.Limit, max(f.Offset, 0))
	rows, err := db.Read.QueryContext(ctx, q.String(), args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: items: %w", err)
	}
	defer rows.Close()
	var out []*app.Item
	for rows.Next() {
		var rank float64
		it, err := scanItem(rows, &rank)
		if err != nil {
			return nil, fmt.Errorf("sqlite: items: %w", err)
		}
		out = append(out, it)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: items: %w", err)
	}
	return out, nil
}

// maxRanked bounds how many of the newest matches a search ranks by relevance: ranking costs
// about 40 µs a match, so a word found in most of 100,000 items would take seconds.
const maxRanked = 500

// snippets sets the search snippet of each item: a window of its summary or text around the
// first match, the matching words between \x01 and \x02. It is done here rather than with FTS5's
// app.Snippet(), which re-runs the query per row: for a prefix of a word found in most items that
// cost 7 ms a row.
func (db *DB) snippets(ctx context.Context, q string, items []*app.Item) error {
	terms := snippetTerms(q)
	for _, it := range items {
		it.Snippet = app.Snippet(terms, it.Summary, it.Text, it.Title)
	}
	return ctx.Err()
}

func snippetTerms(q string) []app.SnippetTerm {
	var out []app.SnippetTerm
	for _, part := range strings.Split(q, `"`) {
		// parseSearch wrote each term as "word" or "word"*; phrases as "a b".
		for _, w := range strings.Fields(part) {
			if w == "*" {
				if len(out) > 0 {
					out[len(out)-1].Prefix = true
				}
				continue
			}
			out = append(out, app.SnippetTerm{Word: app.FoldWord(w)})
		}
	}
	return out
}

// search is what a person typed, made into FTS5 queries.
type search struct {
	// match finds the items: every word must match, the words as prefixes.
	match string
	// exact is match with whole words only; its items rank first ("go" before "Golden").
	// Empty when it would be match again.
	exact string
	// literals are words whose punctuation carries meaning ("c++", ".net", "node.js"): the
	// index drops the punctuation, so an item must also contain the word as typed.
	literals []string
}

// parseSearch turns what a person typed into an FTS5 query (match): every word must match, as
// a prefix; quoted phrases stay phrases; FTS5 syntax characters are neutralized.
func parseSearch(q string) search {
	q = strings.TrimSpace(q)
	var s search
	if q == "" {
		return s
	}
	var terms, exact []string
	for len(q) > 0 {
		q = strings.TrimLeftFunc(q, unicode.IsSpace)
		if q == "" {
			break
		}
		if q[0] == '"' {
			end := strings.IndexByte(q[1:], '"')
			phrase := q[1:]
			if end >= 0 {
				phrase, q = q[1:end+1], q[end+2:]
			} else {
				q = ""
			}
			if w := app.CleanTerm(phrase); w != "" {
				terms = append(terms, `"`+w+`"`)
				exact = append(exact, `"`+w+`"`)
			}
			continue
		}
		end := strings.IndexFunc(q, unicode.IsSpace)
		word := q
		if end >= 0 {
			word, q = q[:end], q[end:]
		} else {
			q = ""
		}
		w := app.CleanTerm(word)
		if w == "" {
			continue
		}
		if lit := literalTerm(word); lit != "" {
			// "c++" is the token "c" in the index, exactly (not every word starting with c),
			// and the text must hold "c++"; "node.js" is the phrase "node js".
			terms = append(terms, `"`+w+`"`)
			exact = append(exact, `"`+w+`"`)
			s.literals = append(s.literals, lit)
			continue
		}
		for _, part := range strings.Fields(w) {
			terms = append(terms, `"`+part+`"*`)
			exact = append(exact, `"`+part+`"`)
		}
	}
	s.match = strings.Join(terms, " ")
	if e := strings.Join(exact, " "); e != s.match {
		s.exact = e
	}
	return s
}

// literalTerm returns the word as it must appear in the text when its punctuation means
// something: a + or # after letters (C++, C#, F#), a dot before or between letters (.NET,
// node.js, asp.net); "" for an ordinary word, whose punctuation is only punctuation
// ("database)", "end.").
func literalTerm(word string) string {
	w := strings.TrimFunc(word, func(r rune) bool { return strings.ContainsRune(`()[]{}<>,;:!?'"`, r) })
	w = strings.TrimRight(w, ".")
	w = strings.TrimLeftFunc(w, func(r rune) bool { return r != '.' && !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if w == "" {
		return ""
	}
	meaningful := false
	for i, r := range w {
		switch r {
		case '+', '#':
			meaningful = meaningful || i > 0
		case '.':
			meaningful = meaningful || i+1 < len(w)
		default:
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
				return "" // other punctuation: taken as a separator
			}
		}
	}
	if !meaningful {
		return ""
	}
	return strings.ToLower(w)
}

// Item returns one of the user's items.
func (db *DB) Item(ctx context.Context, userID, id int64) (*app.Item, error) {
	it, err := scanItem(db.Read.QueryRowContext(ctx, `select `+itemColumns+` from items i join sources s on s.id = i.source_id where i.id = ? and i.user_id = ?`, id, userID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, app.Errorf(app.ENOTFOUND, "Item %d not found.", id)
	} else if err != nil {
		return nil, fmt.Errorf("sqlite: item: %w", err)
	}
	return it, nil
}

// UpdateItem marks an item read or unread, starred or not, hidden or shown.
func (db *DB) UpdateItem(ctx context.Context, userID, id int64, u app.ItemUpdate) (*app.Item, error) {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `select count(*) from items where id = ? and user_id = ?`, id, userID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return app.Errorf(app.ENOTFOUND, "Item %d not found.", id)
		}
		if u.Read != nil {
			var at any
			if *u.Read {
				at = db.now()
			}
			if _, err := tx.ExecContext(ctx, `update items set read_at = case when ? is null then null else coalesce(read_at, ?) end where id = ?`, at, at, id); err != nil {
				return fmt.Errorf("sqlite: mark item read: %w", err)
			}
		}
		if u.Starred != nil {
			if _, err := tx.ExecContext(ctx, `update items set starred = ? where id = ?`, *u.Starred, id); err != nil {
				return fmt.Errorf("sqlite: star item: %w", err)
			}
		}
		if u.Hidden != nil {
			if _, err := tx.ExecContext(ctx, `update items set hidden = ? where id = ?`, *u.Hidden, id); err != nil {
				return fmt.Errorf("sqlite: hide item: %w", err)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return db.Item(ctx, userID, id)
}

// SetFullText stores the linked page's article, read on the reader's demand, as an item's
// content (sanitized HTML), and marks it full text. The item's text (its excerpt, what search
// and the enricher read) stays the feed's.
func (db *DB) SetFullText(ctx context.Context, userID, id int64, html string) (*app.Item, error) {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		// The text derived from the feed's HTML (0031) is stored now: it stays the item's.
		var text, clean string
		err := tx.QueryRowContext(ctx, `select text_content, clean_content from items where id = ? and user_id = ?`, id, userID).Scan(&text, &clean)
		if err == sql.ErrNoRows {
			return app.Errorf(app.ENOTFOUND, "Item %d not found.", id)
		} else if err != nil {
			return fmt.Errorf("sqlite: set full text: %w", err)
		}
		_, err = tx.ExecContext(ctx, `update items set clean_content = ?, text_content = ?,
			extra = json_set(case when json_valid(extra) then extra else '{}' end, '$.`+app.ExtraFullText+`', json('true'))
			where id = ? and user_id = ?`, html, htmltext.Stored(htmltext.Of(text, clean), html), id, userID)
		if err != nil {
			return fmt.Errorf("sqlite: set full text: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return db.Item(ctx, userID, id)
}

// CountItems returns how many items the user has (of one source when sourceID is not 0).
func (db *DB) CountItems(ctx context.Context, userID, sourceID int64) (int, error) {
	var n int
	var err error
	if sourceID == 0 {
		err = db.Read.QueryRowContext(ctx, `select count(*) from items where user_id = ?`, userID).Scan(&n)
	} else {
		// Two statements, not "(? = 0 or source_id = ?)": that form cannot use the source's
		// index and counted every item of the user. The owner is checked once, on the source,
		// so that the count reads the index only.
		err = db.Read.QueryRowContext(ctx, `select count(*) from items
			where source_id = ?1 and (select user_id from sources where id = ?1) = ?2`, sourceID, userID).Scan(&n)
	}
	if err != nil {
		return 0, fmt.Errorf("sqlite: count items: %w", err)
	}
	return n, nil
}

// Counts returns the user's item counts, the unread one up to unreadCap when it is above 0.
func (db *DB) Counts(ctx context.Context, userID int64, unreadCap int) (app.ItemCounts, error) {
	var c app.ItemCounts
	// Each count is answered by a partial index (migration 0013), not by reading the items; the
	// unread count reads one index entry an unread item (95,000 of them: 13 ms), so the
	// navigation's, which shows "999+" past 999, stops at its cap.
	st, err := db.readStmt(ctx, `select
		(select count(*) from (select 1 from items indexed by items_unread_idx where user_id = ?1 and read_at is null and hidden = 0 limit ?2)),
		(select count(*) from items where user_id = ?1 and starred = 1),
		(select count(*) from items where user_id = ?1 and status = 'ERROR'),
		(select count(*) from items where user_id = ?1 and hidden = 1)`)
	if err == nil {
		err = st.QueryRowContext(ctx, userID, sqlLimit(unreadCap)).Scan(&c.Unread, &c.Starred, &c.Errors, &c.Hidden)
	}
	if err != nil {
		return c, fmt.Errorf("sqlite: counts: %w", err)
	}
	return c, nil
}

// sqlLimit is a LIMIT's value for a cap: none (-1) when the cap is 0 or less.
func sqlLimit(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

// qIndexCurrent says whether the search index holds every item as it is.
const qIndexCurrent = `select (select last_id from fts_state) >= (select coalesce(max(id), 0) from items)
	and not exists (select 1 from fts_stale)`

// IndexItems adds items stored since the last call to the search index, up to batch at a time,
// and indexes again up to batch items whose indexed text changed since they were indexed
// (fts_stale, marked by trigger: an enrichment's summary and tags, an article's text); it
// returns how many it indexed. One transaction (and one index flush) per batch keeps ingestion
// fast; searches see new items, and changed ones as changed, once this has run (the app runs it
// every few seconds).
func (db *DB) IndexItems(ctx context.Context, batch int) (int, error) {
	// Nothing new or changed (most calls of an idle server's indexer, every 2 s): said by a read,
	// without a write transaction (issue 26: an idle server's writes and wake-ups).
	if st, err := db.readStmt(ctx, qIndexCurrent); err == nil {
		var current bool
		if err := st.QueryRowContext(ctx).Scan(&current); err == nil && current {
			return 0, nil
		}
	}
	var n int
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var last, top int64
		if err := tx.QueryRowContext(ctx, `select last_id, (select coalesce(max(id), 0) from items) from fts_state`).Scan(&last, &top); err != nil {
			return fmt.Errorf("sqlite: index items: %w", err)
		}
		if top > last {
			upto := min(top, last+int64(batch))
			k, err := indexRows(ctx, tx, `where id > ? and id <= ?`, last, upto)
			if err != nil {
				return err
			}
			n += k
			if _, err := tx.ExecContext(ctx, `update fts_state set last_id = ?`, upto); err != nil {
				return fmt.Errorf("sqlite: index items: %w", err)
			}
		}
		// Changed since indexed: out of the index, then in again as they are now.
		var ids []any
		rows, err := tx.QueryContext(ctx, `select id from fts_stale order by id limit ?`, batch)
		if err != nil {
			return fmt.Errorf("sqlite: index items: %w", err)
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return fmt.Errorf("sqlite: index items: %w", err)
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil || len(ids) == 0 {
			return err
		}
		in := "(" + strings.Repeat("?, ", len(ids)-1) + "?)"
		if _, err := tx.ExecContext(ctx, `delete from items_fts where rowid in `+in, ids...); err != nil {
			return fmt.Errorf("sqlite: index items again: %w", err)
		}
		k, err := indexRows(ctx, tx, `where id in `+in, ids...)
		if err != nil {
			return err
		}
		n += k
		if _, err := tx.ExecContext(ctx, `delete from fts_stale where id in `+in, ids...); err != nil {
			return fmt.Errorf("sqlite: index items again: %w", err)
		}
		return nil
	})
	return n, err
}

// indexRows adds the items that where selects (the condition of a select on items) to the
// search index, and returns how many. What is indexed of an item: its title, its summary (its
// text when the summary is the text: summaryIsText, 0028), its text (empty then: the text is
// indexed once, as the summary, and ranked as a summary is) and its tags. The text is derived
// from the HTML here (htmltext.Of); the index keeps none of it (contentless, 0031).
func indexRows(ctx context.Context, tx *sql.Tx, where string, args ...any) (int, error) {
	rows, err := tx.QueryContext(ctx, `select id, title, summary, text_content, clean_content, tags from items `+where+` order by id`, args...)
	if err != nil {
		return 0, fmt.Errorf("sqlite: index items: %w", err)
	}
	type row struct {
		id                         int64
		title, summary, text, tags string
	}
	var rs []row
	for rows.Next() {
		var r row
		var clean string
		if err := rows.Scan(&r.id, &r.title, &r.summary, &r.text, &clean, &r.tags); err != nil {
			rows.Close()
			return 0, fmt.Errorf("sqlite: index items: %w", err)
		}
		r.text = htmltext.Of(r.text, clean)
		if r.summary == summaryIsText {
			r.summary, r.text = r.text, ""
		}
		rs = append(rs, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("sqlite: index items: %w", err)
	}
	if len(rs) == 0 {
		return 0, nil
	}
	st, err := tx.PrepareContext(ctx, `insert into items_fts (rowid, title, summary, text_content, tags) values (?, ?, ?, ?, ?)`)
	if err != nil {
		return 0, fmt.Errorf("sqlite: index items: %w", err)
	}
	defer st.Close()
	for _, r := range rs {
		if _, err := st.ExecContext(ctx, r.id, r.title, r.summary, r.text, r.tags); err != nil {
			return 0, fmt.Errorf("sqlite: index items: %w", err)
		}
	}
	return len(rs), nil
}

// changedAt is the status_changed_at an item of this status is stored with: the time (at) for an
// item in flight (NEW, PENDING, PROCESSING), which the processing scheduler and the stuck-item
// recovery read (items_status_changed_idx, migration 0023); none for an item out of flight (DONE,
// ERROR), for which nothing reads it (issue 26, migration 0029: 24 bytes of every item's row).
func changedAt(status app.ItemStatus, at string) any {
	switch status {
	case app.ItemNew, app.ItemPending, app.ItemProcessing:
		return at
	}
	return nil
}

var _ app.ItemStore = (*DB)(nil)
var _ app.FilterStore = (*DB)(nil)

// qInsertItems are the statements that insert 1, 2, 4, 8 and 16 items at once: a fetch's items
// go in as few statements as the sizes add up to (20 = 16 + 4). A statement of many rows opens
// the table's and its indexes' cursors once, instead of once an item, and crosses database/sql
// once (issue 14).
var qInsertItems = func() (qs [5]string) {
	const row = `(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
	for i := range qs {
		qs[i] = hot(`insert into items (source_id, user_id, guid, title, link, author, published_at, raw_content, clean_content, text_content, extra, status, created_at, status_changed_at,
		summary, tags, topics, usual_topics, score, score_reasoning, enriched_by, read_at, starred, hidden)
	values ` + strings.Repeat(row+", ", 1<<i-1) + row + ` on conflict (source_id, guid) do nothing returning id`)
	}
	return qs
}()

// insertItemsTx stores a fetch's items of src with the given status, within tx, and returns
// the ids of those that were new (a re-fetch never duplicates an item: same source, same GUID).
// The content is stored once in the form the app reads, sanitized (clean_content); its plain
// text, which search indexes and the enrichers read, is derived from it (text_content is empty:
// htmltext.Stored, migration 0031) unless it is another text; the raw HTML as the
// feed sent it is not stored (raw_content stays empty): nothing reads it, and it made every
// item's row, its WAL frames and every later rewrite of the row (scoring) larger (issue 14).
// An item enriched before it is stored (a first import scored by its fetch) is stored with its
// enrichment and the filters' effect on it.
func (db *DB) insertItemsTx(ctx context.Context, tx *sql.Tx, src *app.Source, items []app.Item, status app.ItemStatus, now time.Time) ([]int64, error) {
	created := FormatTime(now)
	changed := changedAt(status, created)
	ids := make([]int64, 0, len(items))
	args := make([]any, 0, 24*min(len(items), 16))
	for len(items) > 0 {
		k := len(qInsertItems) - 1
		for 1<<k > len(items) {
			k--
		}
		args = args[:0]
		for i := range items[:1<<k] {
			it := &items[i]
			args = append(args, src.ID, src.UserID, it.GUID, it.Title, it.Link, it.Author, formatTimePtr(it.PublishedAt),
				"", it.CleanContent, it.StoredText(), encodeExtra(it.Extra), status, created, changed,
				storedSummary(it.Summary, it.Text), encodeList(it.Tags), encodeList(it.Topics), encodeList(it.UsualTopics), it.Score, app.StoredReasoning(it.ScoreReasoning, it.PublishedAt), it.EnrichedBy,
				formatTimePtr(it.ReadAt), it.Starred, it.Hidden)
		}
		items = items[1<<k:]
		rows, err := db.stmt(ctx, tx, qInsertItems[k]).QueryContext(ctx, args...)
		if err != nil {
			return ids, fmt.Errorf("sqlite: insert items: %w", err)
		}
		added, err := scanIDs(rows) // the new ones: a GUID already stored returns no row
		if err != nil {
			return ids, fmt.Errorf("sqlite: insert items: %w", err)
		}
		ids = append(ids, added...)
	}
	return ids, nil
}
