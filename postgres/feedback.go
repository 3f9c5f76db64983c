package postgres

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/htmltext"
)

// Feedback events, reading models and background scoring, as package sqlite's feedback.go.

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
		changed = false
		if len(cancels) > 0 {
			res, err := tx.ExecContext(ctx, `delete from feedback_events where user_id = $1 and item_id = $2 and signal = any($3)`, userID, e.ItemID, cancels)
			if err != nil {
				return fmt.Errorf("postgres: cancel feedback: %w", err)
			}
			if n, _ := res.RowsAffected(); n > 0 {
				changed = true
			}
		}
		res, err := tx.ExecContext(ctx, `insert into feedback_events (user_id, item_id, signal, features, created_at) values ($1, $2, $3, $4, $5)
			on conflict (user_id, item_id, signal) do nothing`, userID, e.ItemID, e.Signal, string(features), db.now())
		if err != nil {
			return fmt.Errorf("postgres: record feedback: %w", err)
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
	var found bool
	err := db.SQL.QueryRowContext(ctx, `select exists (select 1 from feedback_events where user_id = $1 and item_id = $2 and signal = $3)`,
		userID, itemID, signal).Scan(&found)
	if err != nil {
		return false, fmt.Errorf("postgres: has feedback: %w", err)
	}
	return found, nil
}

// FeedbackEvents are the user's latest events, oldest first; a damaged row is passed over.
func (db *DB) FeedbackEvents(ctx context.Context, userID int64, limit int) ([]app.FeedbackEvent, error) {
	all, err := queryAll(ctx, db, "feedback events", func(r scanner) (*app.FeedbackEvent, error) {
		var e app.FeedbackEvent
		var features string
		if err := r.Scan(&e.ItemID, &e.Signal, &features); err != nil {
			return nil, err
		}
		var pairs [][2]string
		if json.Unmarshal([]byte(features), &pairs) != nil {
			return nil, nil
		}
		for _, p := range pairs {
			e.Keys = append(e.Keys, p[0])
			e.Labels = append(e.Labels, p[1])
		}
		return &e, nil
	}, `select coalesce(item_id, 0), signal, features from
		(select * from feedback_events where user_id = $1 order by id desc limit $2) e order by id`, userID, limit)
	if err != nil {
		return nil, err
	}
	var out []app.FeedbackEvent
	for _, e := range all {
		if e != nil {
			out = append(out, *e)
		}
	}
	return out, nil
}

// FeedbackCount is how many events the user gave.
func (db *DB) FeedbackCount(ctx context.Context, userID int64) (int, error) {
	var n int
	if err := db.SQL.QueryRowContext(ctx, `select count(*) from feedback_events where user_id = $1`, userID).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: feedback count: %w", err)
	}
	return n, nil
}

// SaveReadingModel stores the user's model and returns its new version.
func (db *DB) SaveReadingModel(ctx context.Context, userID int64, model []byte) (int64, error) {
	var v int64
	err := db.SQL.QueryRowContext(ctx, `insert into reading_models (user_id, model, version, updated_at) values ($1, $2, 1, $3)
		on conflict (user_id) do update set model = excluded.model, version = reading_models.version + 1, updated_at = excluded.updated_at
		returning version`, userID, string(model), db.now()).Scan(&v)
	if err != nil {
		return 0, fmt.Errorf("postgres: save reading model: %w", err)
	}
	return v, nil
}

// ReadingModel is the user's stored model and its version.
func (db *DB) ReadingModel(ctx context.Context, userID int64) ([]byte, int64, error) {
	var m string
	var v int64
	err := db.SQL.QueryRowContext(ctx, `select model, version from reading_models where user_id = $1`, userID).Scan(&m, &v)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, 0, nil
	} else if err != nil {
		return nil, 0, fmt.Errorf("postgres: reading model: %w", err)
	}
	return []byte(m), v, nil
}

// ResetFeedback deletes the user's events and empties their model; it returns the model's new
// version.
func (db *DB) ResetFeedback(ctx context.Context, userID int64) (int64, error) {
	var v int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `delete from feedback_events where user_id = $1`, userID); err != nil {
			return fmt.Errorf("postgres: reset feedback: %w", err)
		}
		return tx.QueryRowContext(ctx, `insert into reading_models (user_id, model, version, updated_at) values ($1, '', 1, $2)
			on conflict (user_id) do update set model = '', version = reading_models.version + 1, updated_at = excluded.updated_at
			returning version`, userID, db.now()).Scan(&v)
	})
	return v, err
}

// scoreColumns are what background scoring reads of an item.
const scoreColumns = `i.id, i.source_id, i.user_id, i.title, i.link, i.author, i.published_at, i.text_content, i.clean_content,
	case when s.name = '' then s.url else s.name end, i.tags, i.topics, i.usual_topics, i.extra`

func scanScoreItem(r scanner, extra ...any) (*app.Item, error) {
	it := &app.Item{}
	var published sql.NullTime
	var clean, tags, topics, usual, ex string
	if err := r.Scan(append([]any{&it.ID, &it.SourceID, &it.UserID, &it.Title, &it.Link, &it.Author, &published, &it.Text, &clean,
		&it.SourceName, &tags, &topics, &usual, &ex}, extra...)...); err != nil {
		return nil, err
	}
	it.ReadEnclosures(ex)
	it.Text = htmltext.Of(it.Text, clean)
	it.PublishedAt = timePtr(published)
	it.Tags, it.Topics, it.UsualTopics = decodeList(tags), decodeList(topics), decodeList(usual)
	return it, nil
}

// importTextBudget bounds the texts of one batch of a first import's items (ImportItems).
const importTextBudget = 4 << 20

// ImportItems are items of a source's first import not enriched yet: DONE, never scored; at
// most limit, and fewer when their texts pass importTextBudget (at least one).
func (db *DB) ImportItems(ctx context.Context, sourceID int64, limit int) ([]*app.Item, error) {
	rows, err := db.SQL.QueryContext(ctx, `select `+scoreColumns+` from items i join sources s on s.id = i.source_id
		where i.source_id = $1 and i.status = 'DONE' and i.enriched_by = '' and i.score is null and not i.hidden order by i.id limit $2`, sourceID, limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: import items: %w", err)
	}
	defer rows.Close()
	var out []*app.Item
	size := 0
	for size < importTextBudget && rows.Next() {
		it, err := scanScoreItem(rows)
		if err != nil {
			return nil, fmt.Errorf("postgres: import items: %w", err)
		}
		out = append(out, it)
		size += len(it.Text)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: import items: %w", err)
	}
	return out, nil
}

// UnscoredImportSources are the sources with visible items of a first import not enriched and
// no scoring job waiting.
func (db *DB) UnscoredImportSources(ctx context.Context) ([]int64, error) {
	rows, err := db.SQL.QueryContext(ctx, `select distinct source_id from items
		where status = 'DONE' and enriched_by = '' and score is null and not hidden
		and `+noLiveJob("process", "sourceId", "source_id")+` order by source_id`)
	if err != nil {
		return nil, fmt.Errorf("postgres: unscored imports: %w", err)
	}
	return scanIDs(rows)
}

// RescoreItems are the user's unread, visible items the embedded enricher scored, newest first.
func (db *DB) RescoreItems(ctx context.Context, userID, beforeID int64, limit int) ([]*app.Item, error) {
	return queryAll(ctx, db, "items to re-score", func(r scanner) (*app.Item, error) { return scanScoreItem(r) },
		`select `+scoreColumns+` from items i join sources s on s.id = i.source_id
		where i.user_id = $1 and i.id < $2 and i.read_at is null and not i.hidden and i.status = 'DONE' and i.enriched_by = $3
		order by i.id desc limit $4`, userID, beforeID, app.EnricherEmbedded, limit)
}

// RescoreLLMItems are the user's unread, visible items an LLM enriched whose own score is kept
// (base_score), newest first, with that score and reason.
func (db *DB) RescoreLLMItems(ctx context.Context, userID, beforeID int64, limit int) ([]app.BaseScored, error) {
	return queryAll(ctx, db, "LLM items to re-score", func(r scanner) (app.BaseScored, error) {
		var b app.BaseScored
		var err error
		b.Item, err = scanScoreItem(r, &b.Score, &b.Reasoning)
		return b, err
	}, `select `+scoreColumns+`, i.base_score, i.base_reasoning from items i join sources s on s.id = i.source_id
		where i.user_id = $1 and i.id < $2 and i.read_at is null and not i.hidden and i.status = 'DONE' and i.enriched_by != $3
		and i.enriched_by != '' and i.base_score is not null
		order by i.id desc limit $4`, userID, beforeID, app.EnricherEmbedded, limit)
}

// SourceAffinities is, per source of the user, the share of its items read or starred.
func (db *DB) SourceAffinities(ctx context.Context, userID int64) (map[int64]float64, error) {
	type affinity struct {
		id int64
		a  float64
	}
	all, err := queryAll(ctx, db, "source affinities", func(r scanner) (affinity, error) {
		var x affinity
		return x, r.Scan(&x.id, &x.a)
	}, `select source_id, least(1.0, (count(read_at) + count(*) filter (where starred)) * 1.0 / count(*))::float8
		from items where user_id = $1 group by source_id`, userID)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]float64, len(all))
	for _, x := range all {
		out[x.id] = x.a
	}
	return out, nil
}

// SaveScores stores background scores in one transaction. An update with an enrichment (the
// back catalogue) applies only to an item still not enriched; a re-score only to one the
// embedded enricher scored, or, FromBase, to one an LLM enriched whose own score is kept.
func (db *DB) SaveScores(ctx context.Context, ups []app.ScoreUpdate) error {
	now := db.now()
	return db.tx(ctx, func(tx *sql.Tx) error {
		for _, u := range ups {
			score, reasoning := u.Effect.Score(u.Score, u.Reasoning)
			reasoning = app.StoredReasoning(reasoning, u.Published)
			var readAt any
			if u.Effect.Read {
				readAt = now
			}
			var err error
			if e := u.Enrichment; e != nil {
				_, err = tx.ExecContext(ctx, `update items set summary = $1, tags = $2, topics = $3, usual_topics = $4, score = $5,
					score_reasoning = $6, enriched_by = $7, read_at = coalesce(read_at, $8), starred = starred or $9, hidden = hidden or $10
					where id = $11 and status = 'DONE' and enriched_by = ''`,
					e.Summary, encodeList(e.Tags), encodeList(e.Topics), encodeList(e.UsualTopics), score, reasoning, e.EnrichedBy,
					readAt, u.Effect.Star, u.Effect.Hide, u.ItemID)
			} else if u.FromBase {
				_, err = tx.ExecContext(ctx, `update items set score = $1, score_reasoning = $2 where id = $3 and enriched_by != $4
					and base_score is not null`, score, reasoning, u.ItemID, app.EnricherEmbedded)
			} else {
				_, err = tx.ExecContext(ctx, `update items set score = $1, score_reasoning = $2 where id = $3 and enriched_by = $4`,
					score, reasoning, u.ItemID, app.EnricherEmbedded)
			}
			if err != nil {
				return fmt.Errorf("postgres: save scores: %w", err)
			}
		}
		return nil
	})
}

// StartRescore reports whether the user's items need re-scoring for this model version (false
// when it, or a newer one, was re-scored already) and records that the current model is being
// applied. Of two instances starting it at once, one gets true.
func (db *DB) StartRescore(ctx context.Context, userID, version int64) (bool, error) {
	res, err := db.SQL.ExecContext(ctx, `update reading_models set rescored = version where user_id = $1 and rescored < $2`, userID, version)
	if err != nil {
		return false, fmt.Errorf("postgres: start re-scoring: %w", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// UsualTopics are the usual topics stored with an item that matched none of the user's.
func (db *DB) UsualTopics(ctx context.Context, userID, itemID int64) ([]string, error) {
	var s string
	err := db.SQL.QueryRowContext(ctx, `select usual_topics from items where id = $1 and user_id = $2`, itemID, userID).Scan(&s)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("postgres: usual topics: %w", err)
	}
	return decodeList(s), nil
}
