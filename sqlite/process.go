package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/htmltext"
)

// PendTx marks the given NEW items PENDING within tx, unless their user has no credits left
// (then they stay NEW until the refill). It returns the items it marked.
func (db *DB) PendTx(ctx context.Context, tx *sql.Tx, ids []int64) ([]app.PendingItem, error) {
	now := db.now()
	var out []app.PendingItem
	for _, id := range ids {
		var published sql.NullString
		err := tx.QueryRowContext(ctx, `update items set status = 'PENDING', status_changed_at = ?
			where id = ? and status = 'NEW' and hidden = 0 and (select credits from users u where u.id = items.user_id) > 0
			returning published_at`, now, id).Scan(&published)
		if err == sql.ErrNoRows {
			continue
		} else if err != nil {
			return nil, fmt.Errorf("sqlite: pend item: %w", err)
		}
		out = append(out, app.PendingItem{ID: id, PublishedAt: parseTimePtr(published)})
	}
	return out, nil
}

// inFlight is the condition of items_status_changed_idx (migration 0023), which holds only the
// items on their way through processing: a query of that index writes it out, for SQLite uses
// a partial index only for a query whose WHERE holds the index's condition as written.
const inFlight = `status in ('NEW', 'PENDING', 'PROCESSING')`

// NewItems returns up to limit NEW items whose users have credits, newest first.
func (db *DB) NewItems(ctx context.Context, limit int) ([]int64, error) {
	rows, err := db.Read.QueryContext(ctx, qNewItems, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: new items: %w", err)
	}
	return scanIDs(rows)
}

const qNewItems = `select i.id from items i join users u on u.id = i.user_id
		where i.status = 'NEW' and i.` + inFlight + ` and i.hidden = 0 and u.credits > 0
		order by coalesce(i.published_at, i.created_at) desc limit ?`

// PendAndEnqueue marks the items PENDING and calls enqueue for each marked one, in one
// transaction; it stops at app.ErrQueueFull.
func (db *DB) PendAndEnqueue(ctx context.Context, ids []int64, enqueue func(ctx context.Context, tx *sql.Tx, it app.PendingItem) error) (int, error) {
	var n int
	err := db.tx(ctx, func(tx *sql.Tx) error {
		for _, id := range ids {
			pend, err := db.PendTx(ctx, tx, []int64{id})
			if err != nil {
				return err
			}
			if len(pend) == 0 {
				continue
			}
			if err := enqueue(ctx, tx, pend[0]); err == app.ErrQueueFull {
				_, err := tx.ExecContext(ctx, `update items set status = 'NEW' where id = ?`, id)
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
	now := db.clock.Now().UTC()
	var userID, sourceID int64
	var ok bool
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var credits int
		err := tx.QueryRowContext(ctx, `update items set status = 'PROCESSING', status_changed_at = ?
			where id = ? and (status in ('NEW', 'PENDING') or (status = 'PROCESSING' and status_changed_at < ?))
			returning user_id, source_id, (select credits from users u where u.id = items.user_id)`,
			FormatTime(now), id, FormatTime(now.Add(-staleAfter))).Scan(&userID, &sourceID, &credits)
		if err == sql.ErrNoRows {
			return nil
		} else if err != nil {
			return fmt.Errorf("sqlite: start processing: %w", err)
		}
		if credits <= 0 {
			_, err := tx.ExecContext(ctx, `update items set status = 'NEW', status_changed_at = ? where id = ?`, FormatTime(now), id)
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

// FinishProcessing stores the result, deducts one credit (none for a hidden item), marks the
// item DONE, and runs then, all in one transaction. The search index follows by trigger.
func (db *DB) FinishProcessing(ctx context.Context, it *app.Item, r app.ProcessResult, then app.TxFunc) error {
	now := db.now()
	return db.tx(ctx, func(tx *sql.Tx) error {
		e := r.Enrichment
		if e == nil {
			e = &app.Enrichment{}
		}
		var score any
		s, reasoning := r.Effect.Score(e.Score, e.Reasoning)
		reasoning = app.StoredReasoning(reasoning, it.PublishedAt) // the row has the date (0031)
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
		// The item's text after this update: the article's text read now (stored as is, 0031:
		// it is not the HTML's own), or the text it was processed with. A summary that is that
		// text is stored as summaryIsText (0028).
		newText, text := "", it.Text
		if r.Text != "" && r.Text != it.Text {
			newText, text = r.Text, r.Text
		}
		summary := storedSummary(e.Summary, text)
		res, err := tx.ExecContext(ctx, `update items set status = 'DONE', status_changed_at = null,
			summary = ?,
			tags = ?, topics = ?, usual_topics = ?,
			score = ?, score_reasoning = ?, enriched_by = ?, last_error = '', attempts = attempts + 1,
			prompt_tokens = prompt_tokens + ?, completion_tokens = completion_tokens + ?,
			text_content = case when ? != '' then ? else text_content end,
			read_at = coalesce(read_at, ?), starred = max(starred, ?), hidden = max(hidden, ?),
			extra = case when ? != '' then json_set(case when json_valid(extra) then extra else '{}' end, '$.`+app.ExtraArticleError+`', ?)
				when json_valid(extra) then json_remove(extra, '$.`+app.ExtraArticleError+`') else extra end,
			base_score = ?, base_reasoning = ?
			where id = ? and status = 'PROCESSING'`,
			summary, encodeList(e.Tags), encodeList(e.Topics), encodeList(e.UsualTopics), score, reasoning, e.EnrichedBy,
			e.PromptTokens, e.CompletionTokens, newText, newText, readAt, r.Effect.Star, r.Effect.Hide,
			r.ArticleError, r.ArticleError, baseScore, baseReasoning, it.ID)
		if err != nil {
			return fmt.Errorf("sqlite: finish processing: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 1 && r.Enrichment != nil {
			if _, err := tx.ExecContext(ctx, `update users set credits = max(credits - 1, 0) where id = ?`, it.UserID); err != nil {
				return fmt.Errorf("sqlite: deduct credit: %w", err)
			}
		}
		if then != nil {
			return then(ctx, tx)
		}
		return nil
	})
}

// FailProcessing records a failed attempt: the item goes back to PENDING for the queue's
// retry, or to ERROR (the dead letter, with its message) after the last attempt.
func (db *DB) FailProcessing(ctx context.Context, id int64, msg string, final bool, then app.TxFunc) error {
	status, changed := app.ItemPending, any(db.now())
	if final {
		status, changed = app.ItemError, nil // out of flight: no time kept (changedAt)
	}
	return db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `update items set status = ?, status_changed_at = ?, last_error = ?, attempts = attempts + 1 where id = ?`,
			status, changed, msg, id)
		if err != nil {
			return fmt.Errorf("sqlite: fail processing: %w", err)
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
	_, err := tx.ExecContext(ctx, `update items set status = 'ERROR', status_changed_at = null, last_error = ?
		where id = ? and status in ('PENDING', 'PROCESSING') and `+noLiveJob("process", "itemId", "id"), msg, id)
	if err != nil {
		return fmt.Errorf("sqlite: abandon processing: %w", err)
	}
	return nil
}

// RetryItem puts an ERROR item (or a DONE one, to enrich it again) back to PENDING with a fresh
// attempt count and calls enqueue in the same transaction.
func (db *DB) RetryItem(ctx context.Context, userID, id int64, enqueue func(ctx context.Context, tx *sql.Tx, it app.PendingItem) error) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		var published sql.NullString
		err := tx.QueryRowContext(ctx, `update items set status = 'PENDING', status_changed_at = ?, attempts = 0, last_error = ''
			where id = ? and user_id = ? and status in ('ERROR', 'DONE', 'NEW') returning published_at`, db.now(), id, userID).Scan(&published)
		if err == sql.ErrNoRows {
			var status string
			if err := tx.QueryRowContext(ctx, `select status from items where id = ? and user_id = ?`, id, userID).Scan(&status); err == sql.ErrNoRows {
				return app.Errorf(app.ENOTFOUND, "Item %d not found.", id)
			}
			return app.Errorf(app.ECONFLICT, "Item %d is already being processed.", id)
		} else if err != nil {
			return fmt.Errorf("sqlite: retry item: %w", err)
		}
		return enqueue(ctx, tx, app.PendingItem{ID: id, PublishedAt: parseTimePtr(published)})
	})
}

// ResetStuckItems sets items PENDING or PROCESSING since before cutoff back to NEW.
func (db *DB) ResetStuckItems(ctx context.Context, cutoff time.Time) ([]int64, error) {
	var ids []int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `update items set status = 'NEW', status_changed_at = ?
			where status in ('PENDING', 'PROCESSING') and `+inFlight+` and status_changed_at < ? and `+noLiveJob("process", "itemId", "id")+`
			returning id`, db.now(), FormatTime(cutoff))
		if err != nil {
			return fmt.Errorf("sqlite: reset stuck items: %w", err)
		}
		ids, err = scanIDs(rows)
		return err
	})
	return ids, err
}

// RecentItems returns the texts of the most recent items, to seed the enricher's statistics.
func (db *DB) RecentTexts(ctx context.Context, limit int) ([]string, error) {
	rows, err := db.Read.QueryContext(ctx, `select title, substr(text_content, 1, 4000), iif(text_content = '', substr(clean_content, 1, ?), '') from items order by id desc limit ?`,
		htmltext.HTMLPrefix(4000), limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: recent texts: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var title, text, clean string
		if err := rows.Scan(&title, &text, &clean); err != nil {
			return nil, err
		}
		out = append(out, title+" "+htmltext.Prefix(text, clean, 4000))
	}
	return out, rows.Err()
}
