package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/htmltext"
)

// Feedback events, reading models (migration 0015) and background scoring (issue 12).

var (
	_ app.FeedbackStore = (*DB)(nil)
	_ app.ScoringStore  = (*DB)(nil)
)

// RecordFeedback stores an event unless the item has it already and removes the item's events
// of the cancelled signals, in one transaction.
func (db *DB) RecordFeedback(ctx context.Context, userID int64, e app.FeedbackEvent, cancels []string) (bool, error) {
	pairs := make([][2]string, 0, len(e.Keys))
	for i, k := range e.Keys {
		l := ""
		if i < len(e.Labels) {
			l = e.Labels[i]
		}
		pairs = append(pairs, [2]string{k, l})
	}
	features, _ := json.Marshal(pairs)
	changed := false
	err := db.tx(ctx, func(tx *sql.Tx) error {
		for _, c := range cancels {
			res, err := tx.ExecContext(ctx, `delete from feedback_events where user_id = ? and item_id = ? and signal = ?`, userID, e.ItemID, c)
			if err != nil {
				return fmt.Errorf("sqlite: cancel feedback: %w", err)
			}
			if n, _ := res.RowsAffected(); n > 0 {
				changed = true
			}
		}
		res, err := tx.ExecContext(ctx, `insert into feedback_events (user_id, item_id, signal, features, created_at) values (?, ?, ?, ?, ?)
			on conflict (user_id, item_id, signal) do nothing`, userID, e.ItemID, e.Signal, string(features), db.now())
		if err != nil {
			return fmt.Errorf("sqlite: record feedback: %w", err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			changed = true
		}
		return nil
	})
	return changed, err
}

// HasFeedback reports whether the item has an event of this signal.
func (db *DB) HasFeedback(ctx context.Context, userID, itemID int64, signal string) (bool, error) {
	var n int
	err := db.Read.QueryRowContext(ctx, `select count(*) from feedback_events where user_id = ? and item_id = ? and signal = ?`,
		userID, itemID, signal).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("sqlite: has feedback: %w", err)
	}
	return n > 0, nil
}

// FeedbackEvents are the user's latest events, oldest first.
func (db *DB) FeedbackEvents(ctx context.Context, userID int64, limit int) ([]app.FeedbackEvent, error) {
	rows, err := db.Read.QueryContext(ctx, `select coalesce(item_id, 0), signal, features from
		(select * from feedback_events where user_id = ? order by id desc limit ?) order by id`, userID, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: feedback events: %w", err)
	}
	defer rows.Close()
	var out []app.FeedbackEvent
	for rows.Next() {
		var e app.FeedbackEvent
		var features string
		if err := rows.Scan(&e.ItemID, &e.Signal, &features); err != nil {
			return nil, fmt.Errorf("sqlite: feedback events: %w", err)
		}
		var pairs [][2]string
		if json.Unmarshal([]byte(features), &pairs) != nil {
			continue // a damaged row teaches nothing rather than failing every retrain
		}
		for _, p := range pairs {
			e.Keys = append(e.Keys, p[0])
			e.Labels = append(e.Labels, p[1])
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// FeedbackCount is how many events the user gave.
func (db *DB) FeedbackCount(ctx context.Context, userID int64) (int, error) {
	var n int
	if err := db.Read.QueryRowContext(ctx, `select count(*) from feedback_events where user_id = ?`, userID).Scan(&n); err != nil {
		return 0, fmt.Errorf("sqlite: feedback count: %w", err)
	}
	return n, nil
}

// SaveReadingModel stores the user's model and returns its new version.
func (db *DB) SaveReadingModel(ctx context.Context, userID int64, model []byte) (int64, error) {
	var v int64
	err := db.Write.QueryRowContext(ctx, `insert into reading_models (user_id, model, version, updated_at) values (?, ?, 1, ?)
		on conflict (user_id) do update set model = excluded.model, version = reading_models.version + 1, updated_at = excluded.updated_at
		returning version`, userID, string(model), db.now()).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("sqlite: save reading model: %w", describe(err))
	}
	return v, nil
}

// ReadingModel is the user's stored model and its version.
func (db *DB) ReadingModel(ctx context.Context, userID int64) ([]byte, int64, error) {
	var m string
	var v int64
	err := db.Read.QueryRowContext(ctx, `select model, version from reading_models where user_id = ?`, userID).Scan(&m, &v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, nil
	} else if err != nil {
		return nil, 0, fmt.Errorf("sqlite: reading model: %w", err)
	}
	return []byte(m), v, nil
}

// ResetFeedback deletes the user's events and empties their model; it returns the model's new
// version.
func (db *DB) ResetFeedback(ctx context.Context, userID int64) (int64, error) {
	var v int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `delete from feedback_events where user_id = ?`, userID); err != nil {
			return fmt.Errorf("sqlite: reset feedback: %w", err)
		}
		return tx.QueryRowContext(ctx, `insert into reading_models (user_id, model, version, updated_at) values (?, '', 1, ?)
			on conflict (user_id) do update set model = '', version = reading_models.version + 1, updated_at = excluded.updated_at
			returning version`, userID, db.now()).Scan(&v)
	})
	return v, err
}

// scoreColumns are what background scoring reads of an item.
const scoreColumns = `i.id, i.source_id, i.user_id, i.title, i.link, i.author, i.published_at, i.text_content, i.clean_content,
	case when s.name = '' then s.url else s.name end, i.tags, i.topics, i.usual_topics, i.extra`

func scanScoreItems(rows *sql.Rows) ([]*app.Item, error) { return scanScoreItemsUpTo(rows, 0) }

// scanScoreItemsUpTo reads items until their texts reach maxText bytes (at least one item; 0:
// no bound), so that a batch of long texts does not hold them all in memory at once.
func scanScoreItemsUpTo(rows *sql.Rows, maxText int) ([]*app.Item, error) {
	defer rows.Close()
	var out []*app.Item
	size := 0
	for (maxText <= 0 || size < maxText) && rows.Next() {
		it, err := scanScoreItem(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, it)
		size += len(it.Text)
	}
	return out, rows.Err()
}

// scanScoreItem reads an item of scoreColumns, and then the extra columns of the query.
func scanScoreItem(r scanner, extra ...any) (*app.Item, error) {
	it := &app.Item{}
	var published sql.NullString
	var clean, tags, topics, usual, ex string
	if err := r.Scan(append([]any{&it.ID, &it.SourceID, &it.UserID, &it.Title, &it.Link, &it.Author, &published, &it.Text, &clean,
		&it.SourceName, &tags, &topics, &usual, &ex}, extra...)...); err != nil {
		return nil, err
	}
	it.Text = htmltext.Of(it.Text, clean)
	it.PublishedAt = parseTimePtr(published)
	it.Tags, it.Topics, it.UsualTopics = decodeList(tags), decodeList(topics), decodeList(usual)
	it.ReadEnclosures(ex)
	return it, nil
}

// importTextBudget bounds the texts of one batch of a first import's items (ImportItems): a
// thousand ordinary posts are well under it, a feed of long full-text articles gets smaller
// batches instead of holding tens of megabytes at once.
const importTextBudget = 4 << 20

// ImportItems are items of a source's first import not enriched yet: DONE, never scored; at
// most limit, and fewer when their texts pass importTextBudget.
func (db *DB) ImportItems(ctx context.Context, sourceID int64, limit int) ([]*app.Item, error) {
	rows, err := db.Read.QueryContext(ctx, `select `+scoreColumns+` from items i join sources s on s.id = i.source_id
		where i.source_id = ? and i.status = 'DONE' and i.enriched_by = '' and i.score is null and i.hidden = 0 order by i.id limit ?`, sourceID, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: import items: %w", err)
	}
	out, err := scanScoreItemsUpTo(rows, importTextBudget)
	if err != nil {
		return nil, fmt.Errorf("sqlite: import items: %w", err)
	}
	return out, nil
}

// UnscoredImportSources are the sources with visible items of a first import not enriched and
// no scoring job waiting (the fetch that stored them queued one in the same transaction).
func (db *DB) UnscoredImportSources(ctx context.Context) ([]int64, error) {
	rows, err := db.Read.QueryContext(ctx, `select distinct source_id from items
		where status = 'DONE' and enriched_by = '' and score is null and hidden = 0
		and `+noLiveJob("process", "sourceId", "source_id")+` order by source_id`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: unscored imports: %w", err)
	}
	return scanIDs(rows)
}

// RescoreItems are the user's unread, visible items the embedded enricher scored, newest first.
func (db *DB) RescoreItems(ctx context.Context, userID, beforeID int64, limit int) ([]*app.Item, error) {
	rows, err := db.Read.QueryContext(ctx, `select `+scoreColumns+` from items i join sources s on s.id = i.source_id
		where i.user_id = ? and i.id < ? and i.read_at is null and i.hidden = 0 and i.status = 'DONE' and i.enriched_by = ?
		order by i.id desc limit ?`, userID, beforeID, app.EnricherEmbedded, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: items to re-score: %w", err)
	}
	out, err := scanScoreItems(rows)
	if err != nil {
		return nil, fmt.Errorf("sqlite: items to re-score: %w", err)
	}
	return out, nil
}

// RescoreLLMItems are the user's unread, visible items an LLM enriched whose own score is kept
// (base_score), newest first, with that score and reason.
func (db *DB) RescoreLLMItems(ctx context.Context, userID, beforeID int64, limit int) ([]app.BaseScored, error) {
	rows, err := db.Read.QueryContext(ctx, `select `+scoreColumns+`, i.base_score, i.base_reasoning from items i
		join sources s on s.id = i.source_id
		where i.user_id = ? and i.id < ? and i.read_at is null and i.hidden = 0 and i.status = 'DONE' and i.enriched_by != ?
		and i.enriched_by != '' and i.base_score is not null
		order by i.id desc limit ?`, userID, beforeID, app.EnricherEmbedded, limit)
	if err != nil {
		return nil, fmt.Errorf("sqlite: LLM items to re-score: %w", err)
	}
	defer rows.Close()
	var out []app.BaseScored
	for rows.Next() {
		var b app.BaseScored
		it, err := scanScoreItem(rows, &b.Score, &b.Reasoning)
		if err != nil {
			return nil, fmt.Errorf("sqlite: LLM items to re-score: %w", err)
		}
		b.Item = it
		out = append(out, b)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: LLM items to re-score: %w", err)
	}
	return out, nil
}

// SourceAffinities is, per source of the user, the share of its latest items read or starred.
func (db *DB) SourceAffinities(ctx context.Context, userID int64) (map[int64]float64, error) {
	rows, err := db.Read.QueryContext(ctx, `select source_id, min(1.0, (sum(read_at is not null) + sum(starred)) * 1.0 / count(*))
		from items where user_id = ? group by source_id`, userID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: source affinities: %w", err)
	}
	defer rows.Close()
	out := map[int64]float64{}
	for rows.Next() {
		var id int64
		var a float64
		if err := rows.Scan(&id, &a); err != nil {
			return nil, err
		}
		out[id] = a
	}
	return out, rows.Err()
}

// SourceContext is a source's usual topics (of its enriched items other than exceptItemID)
// and the share of its latest 200 items the user read or starred.
func (db *DB) SourceContext(ctx context.Context, sourceID, exceptItemID int64) ([]string, float64, error) {
	rows, err := db.Read.QueryContext(ctx, `select j.value, count(*) c from items i, json_each(i.topics) j
		where i.source_id = ? and i.id != ? and i.status = 'DONE' group by j.value order by c desc, j.value limit 3`, sourceID, exceptItemID)
	if err != nil {
		return nil, 0, fmt.Errorf("sqlite: source topics: %w", err)
	}
	var topics []string
	for rows.Next() {
		var t string
		var c int
		if err := rows.Scan(&t, &c); err != nil {
			rows.Close()
			return nil, 0, err
		}
		topics = append(topics, t)
	}
	rows.Close()
	var a float64
	err = db.Read.QueryRowContext(ctx, `select coalesce((sum(read_at is not null) + sum(starred)) * 1.0 / nullif(count(*), 0), 0)
		from (select read_at, starred from items where source_id = ? order by id desc limit 200)`, sourceID).Scan(&a)
	if err != nil {
		return nil, 0, fmt.Errorf("sqlite: source affinity: %w", err)
	}
	return topics, min(a, 1), nil
}

var (
	// summary: summaryIsText when it is the item's text (0028), as the scorer read it (ScoreUpdate.Text).
	qSaveEnrichment = hot(`update items set summary = ?, tags = ?, topics = ?, usual_topics = ?, score = ?,
		score_reasoning = ?, enriched_by = ?, read_at = coalesce(read_at, ?), starred = max(starred, ?), hidden = max(hidden, ?)
		where id = ? and status = 'DONE' and enriched_by = ''`)
	qSaveScore = hot(`update items set score = ?, score_reasoning = ? where id = ? and enriched_by = ?`)
)

// SaveScores stores background scores in one transaction. An update with an enrichment (the
// back catalogue) applies only to an item still not enriched; a re-score only to one the
// embedded enricher scored (an LLM may have enriched it since), or, FromBase, to one an LLM
// enriched whose own score is kept.
func (db *DB) SaveScores(ctx context.Context, ups []app.ScoreUpdate) error {
	now := db.now()
	return db.tx(ctx, func(tx *sql.Tx) error {
		// Prepared once at open: a first import saves thousands of scores, and parsing the
		// statement again for each was a tenth of the first ingestion's CPU (issue 14).
		enrichStmt, rescoreStmt := db.stmt(ctx, tx, qSaveEnrichment), db.stmt(ctx, tx, qSaveScore)
		for _, u := range ups {
			score, reasoning := u.Effect.Score(u.Score, u.Reasoning)
			reasoning = app.StoredReasoning(reasoning, u.Published)
			var readAt any
			if u.Effect.Read {
				readAt = now
			}
			var err error
			if e := u.Enrichment; e != nil {
				_, err = enrichStmt.ExecContext(ctx, storedSummary(e.Summary, u.Text), encodeList(e.Tags), encodeList(e.Topics), encodeList(e.UsualTopics), score, reasoning, e.EnrichedBy,
					readAt, u.Effect.Star, u.Effect.Hide, u.ItemID)
			} else if u.FromBase {
				_, err = tx.ExecContext(ctx, `update items set score = ?, score_reasoning = ? where id = ? and enriched_by != ?
					and base_score is not null`, score, reasoning, u.ItemID, app.EnricherEmbedded)
			} else {
				_, err = rescoreStmt.ExecContext(ctx, score, reasoning, u.ItemID, app.EnricherEmbedded)
			}
			if err != nil {
				return fmt.Errorf("sqlite: save scores: %w", err)
			}
		}
		return nil
	})
}

// StartRescore reports whether the user's items need re-scoring for this model version (false
// when it, or a newer one, was re-scored already) and records that the current model — the
// one the re-score uses, maybe newer than the job's — is being applied.
func (db *DB) StartRescore(ctx context.Context, userID, version int64) (bool, error) {
	res, err := db.Write.ExecContext(ctx, `update reading_models set rescored = version where user_id = ? and rescored < ?`,
		userID, version)
	if err != nil {
		return false, fmt.Errorf("sqlite: start re-scoring: %w", describe(err))
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// UsualTopics are the usual topics stored with an item that matched none of the user's.
func (db *DB) UsualTopics(ctx context.Context, userID, itemID int64) ([]string, error) {
	var s string
	err := db.Read.QueryRowContext(ctx, `select usual_topics from items where id = ? and user_id = ?`, itemID, userID).Scan(&s)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("sqlite: usual topics: %w", err)
	}
	return decodeList(s), nil
}
