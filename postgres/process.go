package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/htmltext"
)

var _ app.EnrichingStore = (*DB)(nil)

// PendTx marks the given NEW items PENDING within tx, unless their user has no credits left
// (then they stay NEW until the refill). It returns the items it marked.
func (db *DB) PendTx(ctx context.Context, tx *sql.Tx, ids []int64) ([]app.PendingItem, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	// One statement for the lot, in the order given.
	rows, err := tx.QueryContext(ctx, `update items set status = 'PENDING', status_changed_at = $1
		where id = any($2) and status = 'NEW' and not hidden and (select credits from users u where u.id = items.user_id) > 0
		returning id, published_at`, db.now(), ids)
	if err != nil {
		return nil, fmt.Errorf("postgres: pend items: %w", err)
	}
	defer rows.Close()
	marked := map[int64]*time.Time{}
	for rows.Next() {
		var id int64
		var published sql.NullTime
		if err := rows.Scan(&id, &published); err != nil {
			return nil, fmt.Errorf("postgres: pend items: %w", err)
		}
		marked[id] = timePtr(published)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: pend items: %w", err)
	}
	var out []app.PendingItem
	for _, id := range ids {
		if p, ok := marked[id]; ok {
			out = append(out, app.PendingItem{ID: id, PublishedAt: p})
			delete(marked, id)
		}
	}
	return out, nil
}

// NewItems returns up to limit NEW items whose users have credits, newest first.
func (db *DB) NewItems(ctx context.Context, limit int) ([]int64, error) {
	rows, err := db.SQL.QueryContext(ctx, `select i.id from items i join users u on u.id = i.user_id
		where i.status = 'NEW' and not i.hidden and u.credits > 0
		order by coalesce(i.published_at, i.created_at) desc, i.id desc limit $1`, limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: new items: %w", err)
	}
	return scanIDs(rows)
}

// PendAndEnqueue marks the items PENDING and calls enqueue for each marked one, in one
// transaction; it stops at app.ErrQueueFull. Two instances pending the same item: the second's
// update waits for the first's commit and then finds it no longer NEW, so it is queued once.
func (db *DB) PendAndEnqueue(ctx context.Context, ids []int64, enqueue func(ctx context.Context, tx *sql.Tx, it app.PendingItem) error) (int, error) {
	var n int
	err := db.tx(ctx, func(tx *sql.Tx) error {
		n = 0
		for _, id := range ids {
			pend, err := db.PendTx(ctx, tx, []int64{id})
			if err != nil {
				return err
			}
			if len(pend) == 0 {
				continue
			}
			if err := enqueue(ctx, tx, pend[0]); errors.Is(err, app.ErrQueueFull) {
				_, err := tx.ExecContext(ctx, `update items set status = 'NEW' where id = $1`, id)
				return err
			} else if err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return n, err
}

// StartProcessing marks an item PROCESSING and returns what enrichment needs. It returns nil
// when there is nothing to do: the item is gone, already DONE or ERROR, or being processed by a
// live worker (since less than staleAfter); an item whose user has no credits goes back to NEW.
func (db *DB) StartProcessing(ctx context.Context, id int64, staleAfter time.Duration) (*app.ProcessInput, error) {
	now := db.now()
	var userID, sourceID int64
	var ok bool
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var credits int
		err := tx.QueryRowContext(ctx, `update items set status = 'PROCESSING', status_changed_at = $1
			where id = $2 and (status in ('NEW', 'PENDING') or (status = 'PROCESSING' and status_changed_at < $3))
			returning user_id, source_id, (select credits from users u where u.id = items.user_id)`,
			now, id, now.Add(-staleAfter)).Scan(&userID, &sourceID, &credits)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		} else if err != nil {
			return fmt.Errorf("postgres: start processing: %w", err)
		}
		if credits <= 0 {
			_, err := tx.ExecContext(ctx, `update items set status = 'NEW', status_changed_at = $1 where id = $2`, now, id)
			return err
		}
		ok = true
		return nil
	})
	if err != nil || !ok {
		return nil, err
	}
	in := &app.ProcessInput{}
	if in.Item, err = db.Item(ctx, userID, id); err != nil {
		return nil, err
	}
	if in.Settings, err = db.Settings(ctx, userID); err != nil {
		return nil, err
	}
	if in.Filters, err = db.Filters(ctx, userID); err != nil {
		return nil, err
	}
	if in.SourceTopics, in.SourceAffinity, err = db.SourceContext(ctx, sourceID, id); err != nil {
		return nil, err
	}
	return in, nil
}

// SourceContext returns a source's three most common topics among its enriched items (except
// one) and the share of its 200 newest items that were read or starred.
func (db *DB) SourceContext(ctx context.Context, sourceID, exceptItemID int64) ([]string, float64, error) {
	topics, err := queryAll(ctx, db, "source topics", func(r scanner) (string, error) {
		var t string
		var c int
		return t, r.Scan(&t, &c)
	}, `select j, count(*) c from items i, jsonb_array_elements_text(i.topics::jsonb) j
		where i.source_id = $1 and i.id != $2 and i.status = 'DONE' group by j order by c desc, j collate "C" limit 3`, sourceID, exceptItemID)
	if err != nil {
		return nil, 0, err
	}
	var a float64
	err = db.SQL.QueryRowContext(ctx, `select coalesce((count(read_at) + count(*) filter (where starred)) * 1.0 / nullif(count(*), 0), 0)
		from (select read_at, starred from items where source_id = $1 order by id desc limit 200) r`, sourceID).Scan(&a)
	if err != nil {
		return nil, 0, fmt.Errorf("postgres: source affinity: %w", err)
	}
	return topics, min(a, 1), nil
}

// FinishProcessing stores the result, deducts one credit (none for a hidden item, nor when
// no enrichment was made), marks the item DONE, and runs then, all in one transaction. The
// search vector follows (a generated column).
func (db *DB) FinishProcessing(ctx context.Context, it *app.Item, r app.ProcessResult, then app.TxFunc) error {
	now := db.now()
	return db.tx(ctx, func(tx *sql.Tx) error {
		e := r.Enrichment
		if e == nil {
			e = &app.Enrichment{}
		}
		var score any
		s, reasoning := r.Effect.Score(e.Score, e.Reasoning)
		reasoning = app.StoredReasoning(reasoning, it.PublishedAt) // the row has the date (0011)
		if r.Enrichment != nil {
			score = s
		}
		var readAt any
		if r.Effect.Read {
			readAt = now
		}
		var baseScore any
		var baseReasoning string
		if r.Base != nil {
			baseScore, baseReasoning = max(0, min(100, r.Base.Score)), r.Base.Reasoning
		}
		// An article's text read now is stored as is (it is not the HTML's own: 0011).
		newText := ""
		if r.Text != it.Text {
			newText = r.Text
		}
		res, err := tx.ExecContext(ctx, `update items set status = 'DONE', status_changed_at = $1,
			summary = $2, tags = $3, topics = $4, usual_topics = $5,
			score = $6, score_reasoning = $7, enriched_by = $8, last_error = '', attempts = attempts + 1,
			prompt_tokens = prompt_tokens + $9, completion_tokens = completion_tokens + $10,
			text_content = case when $11 != '' then $11 else text_content end,
			read_at = coalesce(read_at, $12), starred = starred or $13, hidden = hidden or $14,
			extra = (case when $15 != '' then `+jsonObject("extra")+` || jsonb_build_object('`+app.ExtraArticleError+`', $15::text)
				else `+jsonObject("extra")+` - '`+app.ExtraArticleError+`' end)::text,
			base_score = $16, base_reasoning = $17
			where id = $18 and status = 'PROCESSING'`,
			now, e.Summary, encodeList(e.Tags), encodeList(e.Topics), encodeList(e.UsualTopics), score, reasoning, e.EnrichedBy,
			e.PromptTokens, e.CompletionTokens, newText, readAt, r.Effect.Star, r.Effect.Hide,
			r.ArticleError, baseScore, baseReasoning, it.ID)
		if err != nil {
			return fmt.Errorf("postgres: finish processing: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 1 && r.Enrichment != nil {
			if _, err := tx.ExecContext(ctx, `update users set credits = greatest(credits - 1, 0) where id = $1`, it.UserID); err != nil {
				return fmt.Errorf("postgres: deduct credit: %w", err)
			}
		}
		if then != nil {
			return then(ctx, tx)
		}
		return nil
	})
}

// jsonObject is a text column holding a JSON object, as jsonb: {} when it holds anything else.
func jsonObject(col string) string {
	return `coalesce(case when jsonb_typeof(md_json_or_null(convert_to(` + col + `, 'UTF8'))) = 'object' then md_json_or_null(convert_to(` + col + `, 'UTF8')) end, '{}')`
}

// FailProcessing records a failed attempt: the item goes back to PENDING for the queue's
// retry, or to ERROR (the dead letter, with its message) after the last attempt.
func (db *DB) FailProcessing(ctx context.Context, id int64, msg string, final bool, then app.TxFunc) error {
	status := app.ItemPending
	if final {
		status = app.ItemError
	}
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `update items set status = $1, status_changed_at = $2, last_error = $3, attempts = attempts + 1 where id = $4`,
			status, db.now(), msg, id)
		if err != nil {
			return fmt.Errorf("postgres: fail processing: %w", err)
		}
		if then != nil {
			return then(ctx, tx)
		}
		return nil
	})
}

// AbandonProcessingTx marks an item still PENDING or PROCESSING ERROR with msg, in tx (its job
// is being dead-lettered, and is already deleted in tx). An item with another live job is left
// alone: it was retried by hand between its last failure and this dead letter.
func (db *DB) AbandonProcessingTx(ctx context.Context, tx *sql.Tx, id int64, msg string) error {
	_, err := tx.ExecContext(ctx, `update items set status = 'ERROR', status_changed_at = $1, last_error = $2
		where id = $3 and status in ('PENDING', 'PROCESSING') and `+noLiveJob("process", "itemId", "id"), db.now(), msg, id)
	if err != nil {
		return fmt.Errorf("postgres: abandon processing: %w", err)
	}
	return nil
}

// ResetStuckItems sets items PENDING or PROCESSING since before cutoff, whose job is gone, back
// to NEW.
func (db *DB) ResetStuckItems(ctx context.Context, cutoff time.Time) ([]int64, error) {
	rows, err := db.SQL.QueryContext(ctx, `update items set status = 'NEW', status_changed_at = $1
		where status in ('PENDING', 'PROCESSING') and status_changed_at < $2 and `+noLiveJob("process", "itemId", "id")+`
		returning id`, db.now(), dbTime(cutoff))
	if err != nil {
		return nil, fmt.Errorf("postgres: reset stuck items: %w", err)
	}
	return scanIDs(rows)
}

// RecentTexts returns the texts of the most recent items, to seed the enricher's statistics.
func (db *DB) RecentTexts(ctx context.Context, limit int) ([]string, error) {
	return queryAll(ctx, db, "recent texts", func(r scanner) (string, error) {
		var title, text, clean string
		err := r.Scan(&title, &text, &clean)
		return title + " " + htmltext.Prefix(text, clean, 4000), err
	}, `select title, substr(text_content, 1, 4000), case when text_content = '' then substr(clean_content, 1, $2) else '' end
		from items order by id desc limit $1`, limit, htmltext.HTMLPrefix(4000))
}
