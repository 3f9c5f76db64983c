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
	_ app.BriefingStore    = (*DB)(nil)
	_ app.BriefingRunStore = (*DB)(nil)
	_ app.UnsubscribeStore = (*DB)(nil)
)

const briefingColumns = `id, user_id, name, focus, source_ids, frequency, day_of_week, time_of_day, timezone, item_limit,
	min_score, email_enabled, recipients, status, last_executed_at, last_error, created_at, topic, email_empty, mark_read,
	folder_id, coalesce((select f.name from folders f where f.id = briefings.folder_id), '')`

func scanBriefing(row scanner) (*app.Briefing, error) {
	var b app.Briefing
	var srcs, recips string
	var last sql.NullTime
	var folder sql.NullInt64
	if err := row.Scan(&b.ID, &b.UserID, &b.Name, &b.Focus, &srcs, &b.Frequency, &b.DayOfWeek, &b.Time, &b.Timezone, &b.ItemLimit,
		&b.MinScore, &b.EmailEnabled, &recips, &b.Status, &last, &b.LastError, &b.CreatedAt, &b.Topic, &b.EmailWhenEmpty, &b.MarkRead,
		&folder, &b.FolderName); err != nil {
		return nil, err
	}
	if folder.Valid {
		b.FolderID = &folder.Int64
	}
	_ = json.Unmarshal([]byte(srcs), &b.SourceIDs)
	_ = json.Unmarshal([]byte(recips), &b.Recipients)
	b.LastExecutedAt, b.CreatedAt = timePtr(last), b.CreatedAt.UTC()
	return &b, nil
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	if string(b) == "null" {
		return "[]"
	}
	return string(b)
}

// SaveBriefing inserts (ID 0) or updates a briefing that app.Briefings.Save validated; it
// checks that the briefing's sources and folder are the user's.
func (db *DB) SaveBriefing(ctx context.Context, b *app.Briefing) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		if len(b.SourceIDs) > 0 {
			var mine int
			if err := tx.QueryRowContext(ctx, `select count(*) from sources where id = any($1) and user_id = $2`, b.SourceIDs, b.UserID).Scan(&mine); err != nil {
				return err
			}
			if mine != len(uniq(b.SourceIDs)) {
				for _, id := range b.SourceIDs {
					var found bool
					if err := tx.QueryRowContext(ctx, `select exists (select 1 from sources where id = $1 and user_id = $2)`, id, b.UserID).Scan(&found); err != nil {
						return err
					}
					if !found {
						return app.Errorf(app.EINVALID, "Source %d not found.", id)
					}
				}
			}
		}
		b.FolderName = ""
		if b.FolderID != nil {
			err := tx.QueryRowContext(ctx, `select name from folders where id = $1 and user_id = $2`, *b.FolderID, b.UserID).Scan(&b.FolderName)
			if errors.Is(err, sql.ErrNoRows) {
				return app.Errorf(app.EINVALID, "Folder %d not found.", *b.FolderID)
			} else if err != nil {
				return fmt.Errorf("postgres: briefing folder: %w", err)
			}
		}
		args := []any{b.Name, b.Focus, jsonText(b.SourceIDs), b.Frequency, b.DayOfWeek, b.Time, b.Timezone, b.ItemLimit, b.MinScore,
			b.EmailEnabled, jsonText(b.Recipients), b.Topic, b.EmailWhenEmpty, b.MarkRead, b.FolderID}
		if b.ID == 0 {
			if b.Status == "" {
				b.Status = app.BriefingActive
			}
			b.CreatedAt = db.now()
			err := tx.QueryRowContext(ctx, `insert into briefings (name, focus, source_ids, frequency, day_of_week, time_of_day, timezone,
				item_limit, min_score, email_enabled, recipients, topic, email_empty, mark_read, folder_id, user_id, status, created_at)
				values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) returning id`,
				append(args, b.UserID, b.Status, b.CreatedAt)...).Scan(&b.ID)
			if err != nil {
				return fmt.Errorf("postgres: insert briefing: %w", err)
			}
			return nil
		}
		res, err := tx.ExecContext(ctx, `update briefings set name = $1, focus = $2, source_ids = $3, frequency = $4, day_of_week = $5,
			time_of_day = $6, timezone = $7, item_limit = $8, min_score = $9, email_enabled = $10, recipients = $11, topic = $12, email_empty = $13,
			mark_read = $14, folder_id = $15 where id = $16 and user_id = $17`, append(args, b.ID, b.UserID)...)
		if err != nil {
			return fmt.Errorf("postgres: update briefing: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return app.Errorf(app.ENOTFOUND, "Briefing %d not found.", b.ID)
		}
		return nil
	})
}

func uniq(ids []int64) map[int64]bool {
	m := make(map[int64]bool, len(ids))
	for _, id := range ids {
		m[id] = true
	}
	return m
}

// Briefing returns one of the user's briefings (userID 0: any user's, for workers).
func (db *DB) Briefing(ctx context.Context, userID, id int64) (*app.Briefing, error) {
	b, err := scanBriefing(db.SQL.QueryRowContext(ctx, `select `+briefingColumns+` from briefings where id = $1 and ($2::bigint = 0 or user_id = $2::bigint)`, id, userID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, app.Errorf(app.ENOTFOUND, "Briefing %d not found.", id)
	} else if err != nil {
		return nil, fmt.Errorf("postgres: briefing: %w", err)
	}
	return b, nil
}

// Briefings returns the user's briefings by name (userID 0: every user's, for the scheduler).
func (db *DB) Briefings(ctx context.Context, userID int64) ([]*app.Briefing, error) {
	return queryAll(ctx, db, "briefings", scanBriefing, `select `+briefingColumns+` from briefings
		where ($1::bigint = 0 or user_id = $1::bigint) order by lower(name), id`, userID)
}

// DeleteBriefing deletes a briefing and its reports.
func (db *DB) DeleteBriefing(ctx context.Context, userID, id int64) error {
	res, err := db.SQL.ExecContext(ctx, `delete from briefings where id = $1 and user_id = $2`, id, userID)
	if err != nil {
		return fmt.Errorf("postgres: delete briefing: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return app.Errorf(app.ENOTFOUND, "Briefing %d not found.", id)
	}
	return nil
}

// SetBriefingPaused pauses (PAUSED) or resumes (ACTIVE) a briefing; a running one cannot be.
func (db *DB) SetBriefingPaused(ctx context.Context, userID, id int64, paused bool) error {
	from, to := []string{app.BriefingActive, app.BriefingError}, app.BriefingPaused
	if !paused {
		from, to = []string{app.BriefingPaused}, app.BriefingActive
	}
	res, err := db.SQL.ExecContext(ctx, `update briefings set status = $1 where id = $2 and user_id = $3 and status = any($4)`, to, id, userID, from)
	if err != nil {
		return fmt.Errorf("postgres: pause briefing: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		if _, err := db.Briefing(ctx, userID, id); err != nil {
			return err
		}
		return app.Errorf(app.ECONFLICT, "The briefing is running; try again in a moment.")
	}
	return nil
}

// QueueBriefing marks a briefing QUEUED and calls enqueue in the same transaction, when it is
// ACTIVE or ERROR and (unless force) has not run since dueAt. It reports whether it queued it:
// two schedulers racing (two instances), or a crash and restart, never queue one period twice —
// the second's update waits for the first's commit and then finds the briefing QUEUED.
func (db *DB) QueueBriefing(ctx context.Context, id int64, dueAt *time.Time, enqueue func(ctx context.Context, tx *sql.Tx) error) (bool, error) {
	var queued bool
	err := db.tx(ctx, func(tx *sql.Tx) error {
		queued = false
		res, err := tx.ExecContext(ctx, `update briefings set status = 'QUEUED', status_changed_at = $1, last_error = ''
			where id = $2 and status in ('ACTIVE', 'ERROR') and ($3::timestamptz is null or last_executed_at is null or last_executed_at < $3::timestamptz)`,
			db.now(), id, timeArg(dueAt))
		if err != nil {
			return fmt.Errorf("postgres: queue briefing: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		queued = true
		return enqueue(ctx, tx)
	})
	return queued, err
}

// StartBriefing moves a QUEUED briefing to PROCESSING; nil when there is nothing to do.
func (db *DB) StartBriefing(ctx context.Context, id int64) (*app.Briefing, error) {
	res, err := db.SQL.ExecContext(ctx, `update briefings set status = 'PROCESSING', status_changed_at = $1 where id = $2 and status in ('QUEUED', 'PROCESSING')`, db.now(), id)
	if err != nil {
		return nil, fmt.Errorf("postgres: start briefing: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return nil, nil
	}
	return db.Briefing(ctx, 0, id)
}

// Candidates returns the DONE, visible items of the briefing's sources that arrived in
// [from, to) — or were published in it, having arrived before to — best scored first, at most
// limit, read lean (see package sqlite's).
func (db *DB) Candidates(ctx context.Context, b *app.Briefing, from, to time.Time, limit int) ([]*app.Item, error) {
	args := []any{b.UserID, dbTime(to), dbTime(from)}
	arg := func(v any) string { args = append(args, v); return fmt.Sprintf("$%d", len(args)) }
	q := fmt.Sprintf(`select i.id, i.source_id, i.title, i.link, i.published_at, i.created_at, case when s.name = '' then s.url else s.name end,
		substr(i.text_content, 1, %d), case when i.text_content = '' then substr(i.clean_content, 1, %d) else '' end, i.score, i.score_reasoning, i.extra
		from items i join sources s on s.id = i.source_id
		where i.user_id = $1 and i.status = 'DONE' and not i.hidden
		and i.created_at < $2 and (i.created_at >= $3 or (i.published_at >= $3 and i.published_at < $2))`, app.CandidateOpening, htmltext.HTMLPrefix(app.CandidateOpening))
	if len(b.SourceIDs) > 0 {
		q += ` and i.source_id = any(` + arg(b.SourceIDs) + `)`
	}
	if b.FolderID != nil {
		q += ` and s.folder_id = ` + arg(*b.FolderID)
	}
	if b.Topic != "" {
		// The item's own topics, or the source's usual ones when it matched none (issue 12).
		q += ` and exists (select 1 from jsonb_array_elements_text((case when i.topics = '[]' then i.usual_topics else i.topics end)::jsonb) v
			where lower(v) = lower(` + arg(b.Topic) + `))`
	}
	q += ` order by i.score is null, i.score desc, i.id desc limit ` + arg(limit)
	return queryAll(ctx, db, "briefing candidates", func(r scanner) (*app.Item, error) {
		it := &app.Item{UserID: b.UserID, Status: app.ItemDone}
		var published sql.NullTime
		var score sql.NullInt64
		var clean, extra string
		if err := r.Scan(&it.ID, &it.SourceID, &it.Title, &it.Link, &published, &it.CreatedAt, &it.SourceName, &it.Text, &clean, &score, &it.ScoreReasoning, &extra); err != nil {
			return nil, err
		}
		it.Text = htmltext.Prefix(it.Text, clean, app.CandidateOpening)
		it.ReadEnclosures(extra)
		it.PublishedAt, it.CreatedAt = timePtr(published), it.CreatedAt.UTC()
		it.ScoreReasoning = app.ReasoningOf(it.ScoreReasoning, it.PublishedAt)
		if score.Valid {
			v := int(score.Int64)
			it.Score = &v
		}
		return it, nil
	}, q, args...)
}

// CandidateDetails returns the summary, tags and topics of the user's items ids, by id.
func (db *DB) CandidateDetails(ctx context.Context, userID int64, ids []int64) (map[int64]*app.Item, error) {
	items, err := queryAll(ctx, db, "candidate details", func(r scanner) (*app.Item, error) {
		var it app.Item
		var tags, topics string
		if err := r.Scan(&it.ID, &it.Summary, &tags, &topics); err != nil {
			return nil, err
		}
		it.Tags, it.Topics = decodeList(tags), decodeList(topics)
		return &it, nil
	}, `select id, summary, tags, topics from items where user_id = $1 and id = any($2)`, userID, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]*app.Item, len(items))
	for _, it := range items {
		out[it.ID] = it
	}
	return out, nil
}

// CandidateTexts returns the texts of the user's items ids, cut to maxChars characters.
func (db *DB) CandidateTexts(ctx context.Context, userID int64, ids []int64, maxChars int) (map[int64]string, error) {
	type text struct {
		id int64
		s  string
	}
	texts, err := queryAll(ctx, db, "candidate texts", func(r scanner) (text, error) {
		var t text
		var clean string
		err := r.Scan(&t.id, &t.s, &clean)
		t.s = htmltext.Prefix(t.s, clean, maxChars)
		return t, err
	}, `select id, substr(text_content, 1, $1), case when text_content = '' then substr(clean_content, 1, $4) else '' end
		from items where user_id = $2 and id = any($3)`, maxChars, userID, ids, htmltext.HTMLPrefix(maxChars))
	if err != nil {
		return nil, err
	}
	out := make(map[int64]string, len(texts))
	for _, t := range texts {
		out[t.id] = t.s
	}
	return out, nil
}

// FinishBriefing stores the report, sets lastExecutedAt to the run's time and the briefing back
// to ACTIVE, and runs then (the email deliveries' seam), all in one transaction.
func (db *DB) FinishBriefing(ctx context.Context, b *app.Briefing, r *app.Report, then app.TxFunc) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `insert into reports (briefing_id, user_id, generated_at, period_start, period_end, overview, item_count, preview)
			values ($1, $2, $3, $4, $5, $6, $7, $8) returning id`, b.ID, b.UserID, dbTime(r.GeneratedAt), dbTime(r.PeriodStart), dbTime(r.PeriodEnd),
			r.Overview, len(r.Items), r.Preview).Scan(&r.ID)
		if err != nil {
			return fmt.Errorf("postgres: insert report: %w", err)
		}
		for _, it := range r.Items {
			if _, err := tx.ExecContext(ctx, `insert into report_items (report_id, rank, item_id, source_name, title, link, summary, score, score_reasoning, also_covered_by)
				values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`, r.ID, it.Rank, it.ItemID, it.SourceName, it.Title, it.Link, it.Summary, it.Score,
				it.ScoreReasoning, jsonText(it.AlsoCoveredBy)); err != nil {
				return fmt.Errorf("postgres: insert report item: %w", err)
			}
		}
		// A preview ("Run now") leaves the scheduled period where it was.
		if _, err := tx.ExecContext(ctx, `update briefings set status = 'ACTIVE', last_executed_at = case when $1 then last_executed_at else $2 end,
			last_error = '', status_changed_at = $3 where id = $4`, r.Preview, dbTime(r.PeriodEnd), db.now(), b.ID); err != nil {
			return fmt.Errorf("postgres: finish briefing: %w", err)
		}
		if then != nil {
			return then(ctx, tx)
		}
		return nil
	})
}

// FailBriefing records a failed run: ERROR with the reason (the scheduler tries again next period).
func (db *DB) FailBriefing(ctx context.Context, id int64, msg string, then app.TxFunc) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `update briefings set status = 'ERROR', last_error = $1, status_changed_at = $2 where id = $3`, msg, db.now(), id); err != nil {
			return fmt.Errorf("postgres: fail briefing: %w", err)
		}
		if then != nil {
			return then(ctx, tx)
		}
		return nil
	})
}

// ResetStuckBriefings sets briefings QUEUED or PROCESSING since before cutoff, whose job is gone,
// back to ACTIVE.
func (db *DB) ResetStuckBriefings(ctx context.Context, cutoff time.Time) ([]int64, error) {
	rows, err := db.SQL.QueryContext(ctx, `update briefings set status = 'ACTIVE', status_changed_at = $1
		where status in ('QUEUED', 'PROCESSING') and status_changed_at < $2 and `+noLiveJob("briefing", "briefingId", "id")+`
		returning id`, db.now(), dbTime(cutoff))
	if err != nil {
		return nil, fmt.Errorf("postgres: reset stuck briefings: %w", err)
	}
	return scanIDs(rows)
}

const reportColumns = `id, briefing_id, user_id, generated_at, period_start, period_end, overview, item_count, preview`

func scanReport(row scanner) (*app.Report, error) {
	var r app.Report
	if err := row.Scan(&r.ID, &r.BriefingID, &r.UserID, &r.GeneratedAt, &r.PeriodStart, &r.PeriodEnd, &r.Overview, &r.ItemCount, &r.Preview); err != nil {
		return nil, err
	}
	r.GeneratedAt, r.PeriodStart, r.PeriodEnd = r.GeneratedAt.UTC(), r.PeriodStart.UTC(), r.PeriodEnd.UTC()
	return &r, nil
}

// Reports returns a briefing's reports, newest first, without their items.
func (db *DB) Reports(ctx context.Context, userID, briefingID int64, limit int) ([]*app.Report, error) {
	return queryAll(ctx, db, "reports", scanReport, `select `+reportColumns+` from reports
		where briefing_id = $1 and user_id = $2 order by generated_at desc, id desc limit $3`, briefingID, userID, max(limit, 1))
}

// Report returns one of the user's reports with its items (userID 0: any user's).
func (db *DB) Report(ctx context.Context, userID, id int64) (*app.Report, error) {
	r, err := scanReport(db.SQL.QueryRowContext(ctx, `select `+reportColumns+` from reports where id = $1 and ($2::bigint = 0 or user_id = $2::bigint)`, id, userID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, app.Errorf(app.ENOTFOUND, "Report %d not found.", id)
	} else if err != nil {
		return nil, fmt.Errorf("postgres: report: %w", err)
	}
	items, err := db.reportItems(ctx, `report_id = $1`, id)
	if err != nil {
		return nil, err
	}
	r.Items = items[id]
	return r, nil
}

// ReportsWithItems returns a briefing's latest reports (up to limit, newest first), each with
// its items, in two queries.
func (db *DB) ReportsWithItems(ctx context.Context, userID, briefingID int64, limit int) ([]*app.Report, error) {
	reports, err := db.Reports(ctx, userID, briefingID, limit)
	if err != nil || len(reports) == 0 {
		return reports, err
	}
	ids := make([]int64, len(reports))
	for i, r := range reports {
		ids[i] = r.ID
	}
	items, err := db.reportItems(ctx, `report_id = any($1)`, ids)
	if err != nil {
		return nil, err
	}
	for _, r := range reports {
		r.Items = items[r.ID]
	}
	return reports, nil
}

// reportItems returns the items of the reports that where selects, by report, in rank order.
func (db *DB) reportItems(ctx context.Context, where string, args ...any) (map[int64][]app.ReportItem, error) {
	type row struct {
		report int64
		it     app.ReportItem
	}
	rows, err := queryAll(ctx, db, "report items", func(r scanner) (row, error) {
		var x row
		var item sql.NullInt64
		var also string
		if err := r.Scan(&x.report, &x.it.Rank, &item, &x.it.SourceName, &x.it.Title, &x.it.Link, &x.it.Summary, &x.it.Score, &x.it.ScoreReasoning, &also); err != nil {
			return x, err
		}
		if item.Valid {
			x.it.ItemID = &item.Int64
		}
		_ = json.Unmarshal([]byte(also), &x.it.AlsoCoveredBy)
		return x, nil
	}, `select report_id, rank, item_id, source_name, title, link, summary, score, score_reasoning, also_covered_by
		from report_items where `+where+` order by report_id, rank`, args...)
	if err != nil {
		return nil, err
	}
	out := map[int64][]app.ReportItem{}
	for _, x := range rows {
		out[x.report] = append(out[x.report], x.it)
	}
	return out, nil
}

// MarkReportRead marks the unread stories of one of the user's reports read; it returns how many.
func (db *DB) MarkReportRead(ctx context.Context, userID, reportID int64) (int, error) {
	res, err := db.SQL.ExecContext(ctx, `update items set read_at = $1 where user_id = $2 and read_at is null
		and id in (select ri.item_id from report_items ri join reports r on r.id = ri.report_id where r.id = $3 and r.user_id = $2)`,
		db.now(), userID, reportID)
	if err != nil {
		return 0, fmt.Errorf("postgres: mark report read: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// RemoveRecipient takes an address off a briefing's recipients (compared without case); with
// none left, the briefing stops emailing. It reports whether the address was a recipient. The
// briefing's row is locked while its list is rewritten.
func (db *DB) RemoveRecipient(ctx context.Context, briefingID int64, to string) (bool, error) {
	var removed bool
	err := db.tx(ctx, func(tx *sql.Tx) error {
		removed = false
		var recips string
		if err := tx.QueryRowContext(ctx, `select recipients from briefings where id = $1 for update`, briefingID).Scan(&recips); errors.Is(err, sql.ErrNoRows) {
			return app.Errorf(app.ENOTFOUND, "Briefing %d not found.", briefingID)
		} else if err != nil {
			return fmt.Errorf("postgres: remove recipient: %w", err)
		}
		var list, keep []string
		_ = json.Unmarshal([]byte(recips), &list)
		for _, r := range list {
			if strings.EqualFold(strings.TrimSpace(r), strings.TrimSpace(to)) {
				removed = true
				continue
			}
			keep = append(keep, r)
		}
		if !removed {
			return nil
		}
		if _, err := tx.ExecContext(ctx, `update briefings set recipients = $1, email_enabled = email_enabled and $2 where id = $3`,
			jsonText(keep), len(keep) > 0, briefingID); err != nil {
			return fmt.Errorf("postgres: remove recipient: %w", err)
		}
		return nil
	})
	return removed, err
}
