package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/htmltext"
)

var (
	_ app.ItemStore   = (*DB)(nil)
	_ app.FilterStore = (*DB)(nil)
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

// itemColumns: raw_content is not read (nor stored), as in SQLite.
const itemColumns = `i.id, i.source_id, i.user_id, i.guid, i.title, i.link, i.author, i.published_at, '',
	i.clean_content, i.text_content, i.extra, i.status, i.created_at, case when s.name = '' then s.url else s.name end,
	i.summary, i.tags, i.topics, i.score, i.score_reasoning, i.enriched_by, i.attempts, i.last_error,
	i.read_at, i.starred, i.hidden`

func scanItem(row scanner, extra ...any) (*app.Item, error) {
	var it app.Item
	var published, readAt sql.NullTime
	var ex, tags, topics string
	var score sql.NullInt64
	dest := []any{&it.ID, &it.SourceID, &it.UserID, &it.GUID, &it.Title, &it.Link, &it.Author, &published,
		&it.RawContent, &it.CleanContent, &it.Text, &ex, &it.Status, &it.CreatedAt, &it.SourceName,
		&it.Summary, &tags, &topics, &score, &it.ScoreReasoning, &it.EnrichedBy, &it.Attempts, &it.LastError,
		&readAt, &it.Starred, &it.Hidden}
	if err := row.Scan(append(dest, extra...)...); err != nil {
		return nil, err
	}
	it.PublishedAt, it.ReadAt, it.CreatedAt = timePtr(published), timePtr(readAt), it.CreatedAt.UTC()
	// The reasoning's date is the row's; text_content is empty when it is the HTML's text (0011).
	it.ScoreReasoning = app.ReasoningOf(it.ScoreReasoning, it.PublishedAt)
	it.Text = htmltext.Of(it.Text, it.CleanContent)
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

// maxRanked bounds how many of the newest matches a search ranks by relevance, as in SQLite.
const maxRanked = 500

// Items returns the user's items matching f: newest first, by score, or by search relevance.
// A search ranks the items matching every word whole before those matching some word as a
// prefix only ("go modules" finds "Go modules" before "Golden modules"), then by ts_rank with
// the columns' weights; like SQLite, it ranks the newest maxRanked matches of each query.
func (db *DB) Items(ctx context.Context, f app.ItemFilter) ([]*app.Item, error) {
	if f.Limit <= 0 || f.Limit > 500 {
		f.Limit = 50
	}
	srch := parseSearch(f.Q)
	if srch.match == "" && strings.TrimSpace(f.Q) != "" {
		return nil, app.ErrNothingToSearch
	}
	var q strings.Builder
	var args []any
	arg := func(v any) string { args = append(args, v); return fmt.Sprintf("$%d", len(args)) }
	user := arg(f.UserID)
	ranked := srch.match != "" && f.Sort != "date" && f.Sort != "score"
	if srch.match != "" {
		// The matches, newest first, of the prefix query and of the whole-word one.
		match := arg(srch.match)
		exact := match
		if srch.exact != "" {
			exact = arg(srch.exact)
		}
		newest := func(tsq string) string {
			return `(select id from items where user_id = ` + user + ` and search @@ to_tsquery('morningdeck', ` + tsq + `) order by id desc limit ` + fmt.Sprint(maxRanked) + `)`
		}
		m := newest(match)
		if srch.exact != "" {
			m += ` union ` + newest(exact)
		}
		q.WriteString(`with m as materialized (` + m + `),
			page as (select i.id, case when i.search @@ to_tsquery('morningdeck', ` + exact + `) then 1 else 0 end as whole,
				ts_rank('{0.1, 0.4, 0.6, 1.0}', i.search, to_tsquery('morningdeck', ` + match + `)) as rank
			from m join items i on i.id = m.id where i.user_id = ` + user)
		for _, lit := range srch.literals {
			// The index has no punctuation: "c++" must be in the text as typed.
			// A text derived from the HTML (text_content empty, 0011) is looked for in the HTML
			// (a literal is letters, digits and + # . only: the same there).
			like := arg(likePattern(lit))
			q.WriteString(` and (i.title ilike ` + like + ` or i.summary ilike ` + like + ` or i.text_content ilike ` + like + `
				or (i.text_content = '' and i.clean_content ilike ` + like + `))`)
		}
	} else {
		q.WriteString(`with page as (select i.id, 0 as whole, 0 as rank from items i where i.user_id = ` + user)
	}
	if f.SourceID != 0 {
		q.WriteString(` and i.source_id = ` + arg(f.SourceID))
	}
	switch {
	case f.FolderID > 0:
		q.WriteString(` and i.source_id in (select id from sources where folder_id = ` + arg(f.FolderID) + `)`)
	case f.FolderID < 0:
		q.WriteString(` and i.source_id in (select id from sources where user_id = ` + user + ` and folder_id is null)`)
	}
	switch f.Status {
	case "":
	case app.ItemError:
		q.WriteString(` and i.status = 'ERROR'`) // written out, so that its partial index applies
	case app.ItemNew, app.ItemPending, app.ItemProcessing:
		q.WriteString(` and i.status = ` + arg(f.Status) + ` and i.status in ('NEW', 'PENDING', 'PROCESSING')`)
	default:
		q.WriteString(` and i.status = ` + arg(f.Status))
	}
	if f.Hidden {
		q.WriteString(` and i.hidden`)
	} else {
		q.WriteString(` and not i.hidden`)
	}
	if f.Unread && !f.ReadSince.IsZero() {
		q.WriteString(` and (i.read_at is null or i.read_at >= ` + arg(dbTime(f.ReadSince)) + `)`)
	} else if f.Unread {
		q.WriteString(` and i.read_at is null`)
	}
	if f.Starred {
		q.WriteString(` and i.starred`)
	}
	if f.MinScore > 0 {
		q.WriteString(` and i.score >= ` + arg(f.MinScore))
	}
	if f.Topic != "" {
		q.WriteString(` and exists (select 1 from jsonb_array_elements_text(i.topics::jsonb) v where lower(v) = lower(` + arg(f.Topic) + `))`)
	}
	if f.Tag != "" {
		q.WriteString(` and exists (select 1 from jsonb_array_elements_text(i.tags::jsonb) v where v = lower(` + arg(f.Tag) + `))`)
	}
	var order string
	switch {
	case ranked:
		order = `whole desc, rank desc, id desc`
	case f.Sort == "score":
		order = `score is null, score desc, sort_at desc, id desc`
	default:
		order = `sort_at desc, id desc`
	}
	inner := strings.NewReplacer("score", "i.score", "sort_at", "coalesce(i.published_at, i.created_at)", "id desc", "i.id desc", "whole desc", "whole desc", "rank desc", "rank desc").Replace(order)
	outer := strings.NewReplacer("score", "i.score", "sort_at", "coalesce(i.published_at, i.created_at)", "id desc", "i.id desc", "whole desc", "page.whole desc", "rank desc", "page.rank desc").Replace(order)
	q.WriteString(` order by ` + inner + ` limit ` + arg(f.Limit) + ` offset ` + arg(max(f.Offset, 0)) + `)
		select ` + itemColumns + ` from page join items i on i.id = page.id join sources s on s.id = i.source_id
		order by ` + outer)
	out, err := queryAll(ctx, db, "items", func(r scanner) (*app.Item, error) { return scanItem(r) }, q.String(), args...)
	if err != nil {
		return nil, err
	}
	if srch.match != "" {
		for _, it := range out {
			it.Snippet = app.Snippet(srch.terms, it.Summary, it.Text, it.Title)
		}
	}
	return out, nil
}

// Item returns one of the user's items.
func (db *DB) Item(ctx context.Context, userID, id int64) (*app.Item, error) {
	it, err := scanItem(db.SQL.QueryRowContext(ctx, `select `+itemColumns+` from items i join sources s on s.id = i.source_id where i.id = $1 and i.user_id = $2`, id, userID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, app.Errorf(app.ENOTFOUND, "Item %d not found.", id)
	} else if err != nil {
		return nil, fmt.Errorf("postgres: item: %w", err)
	}
	return it, nil
}

// UpdateItem marks an item read or unread, starred or not, hidden or shown, in one statement.
// An item read keeps the time it was first read.
func (db *DB) UpdateItem(ctx context.Context, userID, id int64, u app.ItemUpdate) (*app.Item, error) {
	sets := []string{"id = id"}
	args := []any{id, userID}
	arg := func(v any) string { args = append(args, v); return fmt.Sprintf("$%d", len(args)) }
	if u.Read != nil {
		if *u.Read {
			sets = append(sets, `read_at = coalesce(read_at, `+arg(db.now())+`)`)
		} else {
			sets = append(sets, `read_at = null`)
		}
	}
	if u.Starred != nil {
		sets = append(sets, `starred = `+arg(*u.Starred))
	}
	if u.Hidden != nil {
		sets = append(sets, `hidden = `+arg(*u.Hidden))
	}
	res, err := db.SQL.ExecContext(ctx, `update items set `+strings.Join(sets, ", ")+` where id = $1 and user_id = $2`, args...)
	if err != nil {
		return nil, fmt.Errorf("postgres: update item: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, app.Errorf(app.ENOTFOUND, "Item %d not found.", id)
	}
	return db.Item(ctx, userID, id)
}

// SetFullText stores the linked page's article, read on the reader's demand, as an item's
// content (sanitized HTML), and marks it full text. The item's text stays the feed's.
func (db *DB) SetFullText(ctx context.Context, userID, id int64, html string) (*app.Item, error) {
	err := db.tx(ctx, func(tx *sql.Tx) error {
		// The text derived from the feed's HTML (0011) is stored now: it stays the item's.
		var text, clean string
		err := tx.QueryRowContext(ctx, `select text_content, clean_content from items where id = $1 and user_id = $2 for update`, id, userID).Scan(&text, &clean)
		if err == sql.ErrNoRows {
			return app.Errorf(app.ENOTFOUND, "Item %d not found.", id)
		} else if err != nil {
			return fmt.Errorf("postgres: set full text: %w", err)
		}
		_, err = tx.ExecContext(ctx, `update items set clean_content = $1, text_content = $2,
			extra = (coalesce(case when jsonb_typeof(md_json_or_null(convert_to(extra, 'UTF8'))) = 'object' then md_json_or_null(convert_to(extra, 'UTF8')) end, '{}')
				|| jsonb_build_object('`+app.ExtraFullText+`', true))::text
			where id = $3 and user_id = $4`, html, htmltext.Stored(htmltext.Of(text, clean), html), id, userID)
		if err != nil {
			return fmt.Errorf("postgres: set full text: %w", err)
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
		err = db.SQL.QueryRowContext(ctx, `select count(*) from items where user_id = $1`, userID).Scan(&n)
	} else {
		err = db.SQL.QueryRowContext(ctx, `select count(*) from items
			where source_id = $1 and (select user_id from sources where id = $1) = $2`, sourceID, userID).Scan(&n)
	}
	if err != nil {
		return 0, fmt.Errorf("postgres: count items: %w", err)
	}
	return n, nil
}

// Counts returns the user's item counts, the unread one up to unreadCap when it is above 0.
func (db *DB) Counts(ctx context.Context, userID int64, unreadCap int) (app.ItemCounts, error) {
	var c app.ItemCounts
	err := db.SQL.QueryRowContext(ctx, `select
		(select count(*) from (select 1 from items where user_id = $1 and read_at is null and not hidden limit $2) u),
		(select count(*) from items where user_id = $1 and starred),
		(select count(*) from items where user_id = $1 and status = 'ERROR'),
		(select count(*) from items where user_id = $1 and hidden)`, userID, sqlLimit(unreadCap)).Scan(&c.Unread, &c.Starred, &c.Errors, &c.Hidden)
	if err != nil {
		return c, fmt.Errorf("postgres: counts: %w", err)
	}
	return c, nil
}

// MarkRead marks the user's unread, not hidden items read: of one source (SourceID not 0), of
// one folder's sources (FolderID not 0), with at least MinScore (not 0), starred only, and
// fetched no later than Before (zero for any). It returns how many it marked.
func (db *DB) MarkRead(ctx context.Context, userID int64, scope app.ReadScope) (int, error) {
	args := []any{db.now(), userID}
	arg := func(v any) string { args = append(args, v); return fmt.Sprintf("$%d", len(args)) }
	q := `update items set read_at = $1 where user_id = $2 and read_at is null and not hidden`
	if scope.SourceID != 0 {
		q += ` and source_id = ` + arg(scope.SourceID)
	}
	if scope.FolderID != 0 {
		q += ` and source_id in (select id from sources where user_id = $2 and folder_id = ` + arg(scope.FolderID) + `)`
	}
	if scope.MinScore > 0 {
		q += ` and score >= ` + arg(scope.MinScore)
	}
	if scope.StarredOnly {
		q += ` and starred`
	}
	if !scope.Before.IsZero() {
		q += ` and created_at <= ` + arg(dbTime(scope.Before))
	}
	res, err := db.SQL.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("postgres: mark read: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// RetryItem puts an ERROR item (or a DONE one, to enrich it again) back to PENDING with a fresh
// attempt count and calls enqueue in the same transaction.
func (db *DB) RetryItem(ctx context.Context, userID, id int64, enqueue func(ctx context.Context, tx *sql.Tx, it app.PendingItem) error) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		var published sql.NullTime
		err := tx.QueryRowContext(ctx, `update items set status = 'PENDING', status_changed_at = $1, attempts = 0, last_error = ''
			where id = $2 and user_id = $3 and status in ('ERROR', 'DONE', 'NEW') returning published_at`, db.now(), id, userID).Scan(&published)
		if errors.Is(err, sql.ErrNoRows) {
			var status string
			if err := tx.QueryRowContext(ctx, `select status from items where id = $1 and user_id = $2`, id, userID).Scan(&status); errors.Is(err, sql.ErrNoRows) {
				return app.Errorf(app.ENOTFOUND, "Item %d not found.", id)
			}
			return app.Errorf(app.ECONFLICT, "Item %d is already being processed.", id)
		} else if err != nil {
			return fmt.Errorf("postgres: retry item: %w", err)
		}
		return enqueue(ctx, tx, app.PendingItem{ID: id, PublishedAt: timePtr(published)})
	})
}

// itemsPerInsert bounds the rows of one insert statement (24 parameters a row; PostgreSQL
// takes up to 65,535 parameters a statement).
const itemsPerInsert = 256

// insertItemsTx stores a fetch's items of src with the given status, within tx, and returns
// the ids of those that were new (same source, same GUID: stored once; a tombstoned GUID is
// skipped by the items_tombstone trigger). The raw HTML is not stored, as in SQLite.
func insertItemsTx(ctx context.Context, tx *sql.Tx, src *app.Source, items []app.Item, status app.ItemStatus, now time.Time) ([]int64, error) {
	ids := make([]int64, 0, len(items))
	for len(items) > 0 {
		chunk := items[:min(len(items), itemsPerInsert)]
		items = items[len(chunk):]
		var q strings.Builder
		q.WriteString(`insert into items (source_id, user_id, guid, title, link, author, published_at, raw_content, clean_content, text_content, extra, status, created_at, status_changed_at,
			summary, tags, topics, usual_topics, score, score_reasoning, enriched_by, read_at, starred, hidden) values `)
		args := make([]any, 0, 24*len(chunk))
		for i := range chunk {
			it := &chunk[i]
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteByte('(')
			for k := range 24 {
				if k > 0 {
					q.WriteString(", ")
				}
				fmt.Fprintf(&q, "$%d", len(args)+k+1)
			}
			q.WriteByte(')')
			args = append(args, src.ID, src.UserID, it.GUID, it.Title, it.Link, it.Author, timeArg(it.PublishedAt),
				"", it.CleanContent, it.StoredText(), encodeExtra(it.Extra), status, now, now,
				it.Summary, encodeList(it.Tags), encodeList(it.Topics), encodeList(it.UsualTopics), it.Score, app.StoredReasoning(it.ScoreReasoning, it.PublishedAt), it.EnrichedBy,
				timeArg(it.ReadAt), it.Starred, it.Hidden)
		}
		q.WriteString(` on conflict (source_id, guid) do nothing returning id`)
		rows, err := tx.QueryContext(ctx, q.String(), args...)
		if err != nil {
			return ids, fmt.Errorf("postgres: insert items: %w", err)
		}
		added, err := scanIDs(rows)
		if err != nil {
			return ids, fmt.Errorf("postgres: insert items: %w", err)
		}
		ids = append(ids, added...)
	}
	return ids, nil
}

// Filters returns the user's filter rules; a rule that no longer compiles is skipped.
func (db *DB) Filters(ctx context.Context, userID int64) ([]*app.Filter, error) {
	all, err := queryAll(ctx, db, "filters", func(r scanner) (*app.Filter, error) {
		var f app.Filter
		var src sql.NullInt64
		if err := r.Scan(&f.ID, &f.UserID, &src, &f.Name, &f.Field, &f.Match, &f.Pattern, &f.Action, &f.ScoreDelta, &f.Enabled, &f.CreatedAt); err != nil {
			return nil, err
		}
		if src.Valid {
			f.SourceID = &src.Int64
		}
		f.CreatedAt = f.CreatedAt.UTC()
		return &f, nil
	}, `select id, user_id, source_id, name, field, match, pattern, action, score_delta, enabled, created_at from filters where user_id = $1 order by id`, userID)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, f := range all {
		if f.Validate() == nil {
			out = append(out, f)
		}
	}
	return out, nil
}

// CreateFilter stores a filter rule that app.Reading.AddFilter validated; it checks that the
// rule's source is the user's.
func (db *DB) CreateFilter(ctx context.Context, f *app.Filter) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		if f.SourceID != nil {
			var found bool
			if err := tx.QueryRowContext(ctx, `select exists (select 1 from sources where id = $1 and user_id = $2)`, *f.SourceID, f.UserID).Scan(&found); err != nil {
				return err
			}
			if !found {
				return app.Errorf(app.EINVALID, "Source %d not found.", *f.SourceID)
			}
		}
		return tx.QueryRowContext(ctx, `insert into filters (user_id, source_id, name, field, match, pattern, action, score_delta, enabled, created_at)
			values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning id`, f.UserID, f.SourceID, f.Name, f.Field, f.Match, f.Pattern, f.Action, f.ScoreDelta, f.Enabled, db.now()).Scan(&f.ID)
	})
}

// DeleteFilter deletes a filter rule.
func (db *DB) DeleteFilter(ctx context.Context, userID, id int64) error {
	res, err := db.SQL.ExecContext(ctx, `delete from filters where id = $1 and user_id = $2`, id, userID)
	if err != nil {
		return fmt.Errorf("postgres: delete filter: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return app.Errorf(app.ENOTFOUND, "Filter %d not found.", id)
	}
	return nil
}
