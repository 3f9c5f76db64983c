package sqlite

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

const briefingColumns = `id, user_id, name, focus, source_ids, frequency, day_of_week, time_of_day, timezone, item_limit,
	min_score, email_enabled, recipients, status, last_executed_at, last_error, created_at, topic, email_empty, mark_read,
	folder_id, coalesce((select f.name from folders f where f.id = briefings.folder_id), '')`

func scanBriefing(row scanner) (*app.Briefing, error) {
	var b app.Briefing
	var srcs, recips, created string
	var last sql.NullString
	var folder sql.NullInt64
	if err := row.Scan(&b.ID, &b.UserID, &b.Name, &b.Focus, &srcs, &b.Frequency, &b.DayOfWeek, &b.Time, &b.Timezone, &b.ItemLimit,
		&b.MinScore, &b.EmailEnabled, &recips, &b.Status, &last, &b.LastError, &created, &b.Topic, &b.EmailWhenEmpty, &b.MarkRead,
		&folder, &b.FolderName); err != nil {
		return nil, err
	}
	if folder.Valid {
		b.FolderID = &folder.Int64
	}
	_ = json.Unmarshal([]byte(srcs), &b.SourceIDs)
	_ = json.Unmarshal([]byte(recips), &b.Recipients)
	b.LastExecutedAt = parseTimePtr(last)
	b.CreatedAt = parseTime(created)
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
// checks that the briefing's sources are the user's.
func (db *DB) SaveBriefing(ctx context.Context, b *app.Briefing) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		for _, id := range b.SourceIDs {
			var n int
			if err := tx.QueryRowContext(ctx, `select count(*) from sources where id = ? and user_id = ?`, id, b.UserID).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				return app.Errorf(app.EINVALID, "Source %d not found.", id)
			}
		}
		b.FolderName = ""
		if b.FolderID != nil {
			err := tx.QueryRowContext(ctx, `select name from folders where id = ? and user_id = ?`, *b.FolderID, b.UserID).Scan(&b.FolderName)
			if errors.Is(err, sql.ErrNoRows) {
				return app.Errorf(app.EINVALID, "Folder %d not found.", *b.FolderID)
			} else if err != nil {
				return fmt.Errorf("sqlite: briefing folder: %w", err)
			}
		}
		args := []any{b.Name, b.Focus, jsonText(b.SourceIDs), b.Frequency, b.DayOfWeek, b.Time, b.Timezone, b.ItemLimit, b.MinScore,
			b.EmailEnabled, jsonText(b.Recipients), b.Topic, b.EmailWhenEmpty, b.MarkRead, b.FolderID}
		if b.ID == 0 {
			if b.Status == "" {
				b.Status = app.BriefingActive
			}
			b.CreatedAt = db.clock.Now().UTC().Truncate(time.Millisecond)
			err := tx.QueryRowContext(ctx, `insert into briefings (name, focus, source_ids, frequency, day_of_week, time_of_day, timezone,
				item_limit, min_score, email_enabled, recipients, topic, email_empty, mark_read, folder_id, user_id, status, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) returning id`,
				append(args, b.UserID, b.Status, FormatTime(b.CreatedAt))...).Scan(&b.ID)
			if err != nil {
				return fmt.Errorf("sqlite: insert briefing: %w", err)
			}
			return nil
		}
		res, err := tx.ExecContext(ctx, `update briefings set name = ?, focus = ?, source_ids = ?, frequency = ?, day_of_week = ?,
			time_of_day = ?, timezone = ?, item_limit = ?, min_score = ?, email_enabled = ?, recipients = ?, topic = ?, email_empty = ?, mark_read = ?, folder_id = ? where id = ? and user_id = ?`,
			append(args, b.ID, b.UserID)...)
		if err != nil {
			return fmt.Errorf("sqlite: update briefing: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return app.Errorf(app.ENOTFOUND, "Briefing %d not found.", b.ID)
		}
		return nil
	})
}

// Briefing returns one of the user's briefings (userID 0: any user's, for workers).
func (db *DB) Briefing(ctx context.Context, userID, id int64) (*app.Briefing, error) {
	b, err := scanBriefing(db.Read.QueryRowContext(ctx, `select `+briefingColumns+` from briefings where id = ? and (? = 0 or user_id = ?)`, id, userID, userID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, app.Errorf(app.ENOTFOUND, "Briefing %d not found.", id)
	} else if err != nil {
		return nil, fmt.Errorf("sqlite: briefing: %w", err)
	}
	return b, nil
}

// Briefings returns the user's briefings by name (userID 0: every user's, for the scheduler).
func (db *DB) Briefings(ctx context.Context, userID int64) ([]*app.Briefing, error) {
	rows, err := db.Read.QueryContext(ctx, `select `+briefingColumns+` from briefings where (? = 0 or user_id = ?) order by lower(name), id`, userID, userID)
	if err != nil {
		return nil, fmt.Errorf("sqlite: briefings: %w", err)
	}
	defer rows.Close()
	var out []*app.Briefing
	for rows.Next() {
		b, err := scanBriefing(rows)
		if err != nil {
			return nil, fmt.Errorf("sqlite: briefings: %w", err)
		}
		out = append(out, b)
	}
	return out, rows.Err()
}

// DeleteBriefing deletes a briefing and its reports.
func (db *DB) DeleteBriefing(ctx context.Context, userID, id int64) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `delete from briefings where id = ? and user_id = ?`, id, userID)
		if err != nil {
			return fmt.Errorf("sqlite: delete briefing: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return app.Errorf(app.ENOTFOUND, "Briefing %d not found.", id)
		}
		return nil
	})
}

// SetBriefingPaused pauses (PAUSED) or resumes (ACTIVE) a briefing.
func (db *DB) SetBriefingPaused(ctx context.Context, userID, id int64, paused bool) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		from, to := "'ACTIVE', 'ERROR'", app.BriefingPaused
		if !paused {
			from, to = "'PAUSED'", app.BriefingActive
		}
		res, err := tx.ExecContext(ctx, `update briefings set status = ? where id = ? and user_id = ? and status in (`+from+`)`, to, id, userID)
		if err != nil {
			return fmt.Errorf("sqlite: pause briefing: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			if _, err := db.Briefing(ctx, userID, id); err != nil {
				return err
			}
			return app.Errorf(app.ECONFLICT, "The briefing is running; try again in a moment.")
		}
		return nil
	})
}

// QueueBriefing marks a briefing QUEUED and calls enqueue in the same transaction, when it is
// ACTIVE or ERROR and (unless force) has not run since dueAt. It reports whether it queued it:
// two schedulers racing, or a crash and restart, never queue one period twice.
func (db *DB) QueueBriefing(ctx context.Context, id int64, dueAt *time.Time, enqueue func(ctx context.Context, tx *sql.Tx) error) (bool, error) {
	var queued bool
	err := db.tx(ctx, func(tx *sql.Tx) error {
		q := `update briefings set status = 'QUEUED', status_changed_at = ?, last_error = '' where id = ? and status in ('ACTIVE', 'ERROR')`
		args := []any{db.now(), id}
		if dueAt != nil {
			q += ` and (last_executed_at is null or last_executed_at < ?)`
			args = append(args, FormatTime(*dueAt))
		}
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("sqlite: queue briefing: %w", err)
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
	var ok bool
	err := db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `update briefings set status = 'PROCESSING', status_changed_at = ? where id = ? and status in ('QUEUED', 'PROCESSING')`, db.now(), id)
		if err != nil {
			return fmt.Errorf("sqlite: start briefing: %w", err)
		}
		n, _ := res.RowsAffected()
		ok = n == 1
		return nil
	})
	if err != nil || !ok {
		return nil, err
	}
	return db.Briefing(ctx, 0, id)
}

// Candidates returns the DONE, visible items of the briefing's sources that arrived in
// [from, to) — or were published in it, having arrived before to — best scored first, at most
// limit. They are read lean, for ranking tens of thousands: the columns ranking and grouping
// use (id, source, title, link, times, the stored score and its reason) and only the opening
// of the text (CandidateOpening characters); CandidateTexts reads more of the text and
// CandidateDetails the summary, tags and topics of the few that are chosen.
func (db *DB) Candidates(ctx context.Context, b *app.Briefing, from, to time.Time, limit int) ([]*app.Item, error) {
	q := fmt.Sprintf(`select i.id, i.source_id, i.title, i.link, i.published_at, i.created_at, case when s.name = '' then s.url else s.name end,
		substr(i.text_content, 1, %d), iif(i.text_content = '', substr(i.clean_content, 1, %d), ''), i.score, i.score_reasoning, i.extra
		from items i join sources s on s.id = i.source_id
		where i.user_id = ? and i.status = 'DONE' and i.hidden = 0
		and i.created_at < ? and (i.created_at >= ? or (i.published_at >= ? and i.published_at < ?))`, app.CandidateOpening, htmltext.HTMLPrefix(app.CandidateOpening))
	args := []any{b.UserID, FormatTime(to), FormatTime(from), FormatTime(from), FormatTime(to)}
	if len(b.SourceIDs) > 0 {
		q += ` and i.source_id in (` + strings.TrimSuffix(strings.Repeat("?,", len(b.SourceIDs)), ",") + `)`
		for _, id := range b.SourceIDs {
			args = append(args, id)
		}
	}
	if b.FolderID != nil {
		q += ` and s.folder_id = ?`
		args = append(args, *b.FolderID)
	}
	if b.Topic != "" {
		// The item's own topics, or the source's usual ones when it matched none (issue 12).
		q += ` and exists (select 1 from json_each(case when i.topics = '[]' then i.usual_topics else i.topics end) where lower(value) = lower(?))`
		args = append(args, b.Topic)
	}
	q += ` order by i.score is null, i.score desc, i.id desc limit ?`
	args = append(args, limit)
	rows, err := db.Read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: briefing candidates: %w", err)
	}
	defer rows.Close()
	var out []*app.Item
	for rows.Next() {
		it := &app.Item{UserID: b.UserID, Status: app.ItemDone}
		var published sql.NullString
		var created string
		var score sql.NullInt64
		var clean, extra string
		if err := rows.Scan(&it.ID, &it.SourceID, &it.Title, &it.Link, &published, &created, &it.SourceName, &it.Text, &clean, &score, &it.ScoreReasoning, &extra); err != nil {
			return nil, fmt.Errorf("sqlite: briefing candidates: %w", err)
		}
		it.Text = htmltext.Prefix(it.Text, clean, app.CandidateOpening)
		it.ReadEnclosures(extra)
		it.PublishedAt = parseTimePtr(published)
		it.ScoreReasoning = app.ReasoningOf(it.ScoreReasoning, it.PublishedAt)
		it.CreatedAt = parseTime(created)
		if score.Valid {
			v := int(score.Int64)
			it.Score = &v
		}
		out = append(out, it)
	}
	return out, rows.Err()
}

// CandidateDetails returns the summary, tags and topics of the user's items ids (the chosen
// stories of a report), by id.
func (db *DB) CandidateDetails(ctx context.Context, userID int64, ids []int64) (map[int64]*app.Item, error) {
	out := make(map[int64]*app.Item, len(ids))
	for len(ids) > 0 {
		n := min(len(ids), 500)
		args := []any{userID}
		for _, id := range ids[:n] {
			args = append(args, id)
		}
		rows, err := db.Read.QueryContext(ctx, `select id, summary, text_content, iif(summary = char(30) and text_content = '', clean_content, ''), tags, topics from items where user_id = ? and id in (`+
			strings.TrimSuffix(strings.Repeat("?,", n), ",")+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("sqlite: candidate details: %w", err)
		}
		for rows.Next() {
			var it app.Item
			var text, clean, tags, topics string
			if err := rows.Scan(&it.ID, &it.Summary, &text, &clean, &tags, &topics); err != nil {
				rows.Close()
				return nil, fmt.Errorf("sqlite: candidate details: %w", err)
			}
			if it.Summary == summaryIsText {
				it.Summary = htmltext.Of(text, clean)
			}
			it.Tags, it.Topics = decodeList(tags), decodeList(topics)
			out[it.ID] = &it
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
		ids = ids[n:]
	}
	return out, nil
}

// CandidateTexts returns the texts of the user's items ids, cut to maxChars characters.
func (db *DB) CandidateTexts(ctx context.Context, userID int64, ids []int64, maxChars int) (map[int64]string, error) {
	out := make(map[int64]string, len(ids))
	for len(ids) > 0 {
		n := min(len(ids), 500)
		args := []any{maxChars, htmltext.HTMLPrefix(maxChars), userID}
		for _, id := range ids[:n] {
			args = append(args, id)
		}
		rows, err := db.Read.QueryContext(ctx, `select id, substr(text_content, 1, ?1), iif(text_content = '', substr(clean_content, 1, ?2), '')
			from items where user_id = ?3 and id in (`+
			strings.TrimSuffix(strings.Repeat("?,", n), ",")+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("sqlite: candidate texts: %w", err)
		}
		for rows.Next() {
			var id int64
			var text, clean string
			if err := rows.Scan(&id, &text, &clean); err != nil {
				rows.Close()
				return nil, fmt.Errorf("sqlite: candidate texts: %w", err)
			}
			out[id] = htmltext.Prefix(text, clean, maxChars)
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
		ids = ids[n:]
	}
	return out, nil
}

// FinishBriefing stores the report, sets lastExecutedAt to the run's time and the briefing back
// to ACTIVE, and runs then (the email deliveries' seam), all in one transaction.
func (db *DB) FinishBriefing(ctx context.Context, b *app.Briefing, r *app.Report, then app.TxFunc) error {
	return db.tx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `insert into reports (briefing_id, user_id, generated_at, period_start, period_end, overview, item_count, preview)
			values (?, ?, ?, ?, ?, ?, ?, ?) returning id`, b.ID, b.UserID, FormatTime(r.GeneratedAt), FormatTime(r.PeriodStart), FormatTime(r.PeriodEnd),
			r.Overview, len(r.Items), r.Preview).Scan(&r.ID)
		if err != nil {
			return fmt.Errorf("sqlite: insert report: %w", err)
		}
		for _, it := range r.Items {
			if _, err := tx.ExecContext(ctx, `insert into report_items (report_id, rank, item_id, source_name, title, link, summary, score, score_reasoning, also_covered_by)
				values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, r.ID, it.Rank, it.ItemID, it.SourceName, it.Title, it.Link, it.Summary, it.Score,
				it.ScoreReasoning, jsonText(it.AlsoCoveredBy)); err != nil {
				return fmt.Errorf("sqlite: insert report item: %w", err)
			}
		}
		// A preview ("Run now") leaves the scheduled period where it was.
		if _, err := tx.ExecContext(ctx, `update briefings set status = 'ACTIVE', last_executed_at = case when ? then last_executed_at else ? end,
			last_error = '', status_changed_at = ? where id = ?`, r.Preview, FormatTime(r.PeriodEnd), db.now(), b.ID); err != nil {
			return fmt.Errorf("sqlite: finish briefing: %w", err)
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
		if _, err := tx.ExecContext(ctx, `update briefings set status = 'ERROR', last_error = ?, status_changed_at = ? where id = ?`, msg, db.now(), id); err != nil {
			return fmt.Errorf("sqlite: fail briefing: %w", err)
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
	var ids []int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `update briefings set status = 'ACTIVE', status_changed_at = ?
			where status in ('QUEUED', 'PROCESSING') and status_changed_at < ? and `+noLiveJob("briefing", "briefingId", "id")+`
			returning id`, db.now(), FormatTime(cutoff))
		if err != nil {
			return fmt.Errorf("sqlite: reset stuck briefings: %w", err)
		}
		ids, err = scanIDs(rows)
		return err
	})
	return ids, err
}

// Reports returns a briefing's reports, newest first, without their items.
func (db *DB) Reports(ctx context.Context, userID, briefingID int64, limit int) ([]*app.Report, error) {
	rows, err := db.Read.QueryContext(ctx, `select `+reportColumns+` from reports
		where briefing_id = ? and user_id = ? order by generated_at desc, id desc limit ?`, briefingID, userID, max(limit, 1))
	if err != nil {
		return nil, fmt.Errorf("sqlite: reports: %w", err)
	}
	defer rows.Close()
	var out []*app.Report
	for rows.Next() {
		r, err := scanReport(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

const reportColumns = `id, briefing_id, user_id, generated_at, period_start, period_end, overview, item_count, preview`

func scanReport(row scanner) (*app.Report, error) {
	var r app.Report
	var gen, from, to string
	if err := row.Scan(&r.ID, &r.BriefingID, &r.UserID, &gen, &from, &to, &r.Overview, &r.ItemCount, &r.Preview); err != nil {
		return nil, err
	}
	r.GeneratedAt, r.PeriodStart, r.PeriodEnd = parseTime(gen), parseTime(from), parseTime(to)
	return &r, nil
}

// Report returns one of the user's reports with its items.
func (db *DB) Report(ctx context.Context, userID, id int64) (*app.Report, error) {
	r, err := scanReport(db.Read.QueryRowContext(ctx, `select `+reportColumns+`
		from reports where id = ? and (? = 0 or user_id = ?)`, id, userID, userID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, app.Errorf(app.ENOTFOUND, "Report %d not found.", id)
	} else if err != nil {
		return nil, fmt.Errorf("sqlite: report: %w", err)
	}
	items, err := db.reportItems(ctx, `report_id = ?`, id)
	if err != nil {
		return nil, err
	}
	r.Items = items[id]
	return r, nil
}

// ReportsWithItems returns a briefing's latest reports (up to limit, newest first), each with
// its items, in two queries however many reports there are: what the briefing's feed shows.
func (db *DB) ReportsWithItems(ctx context.Context, userID, briefingID int64, limit int) ([]*app.Report, error) {
	reports, err := db.Reports(ctx, userID, briefingID, limit)
	if err != nil || len(reports) == 0 {
		return reports, err
	}
	items, err := db.reportItems(ctx, `report_id in (select id from reports where briefing_id = ? and user_id = ?
		order by generated_at desc, id desc limit ?)`, briefingID, userID, max(limit, 1))
	if err != nil {
		return nil, err
	}
	for _, r := range reports {
		r.Items = items[r.ID]
	}
	return reports, nil
}

// reportItems returns the items of the reports that where selects, by report, each report's
// in rank order.
func (db *DB) reportItems(ctx context.Context, where string, args ...any) (map[int64][]app.ReportItem, error) {
	rows, err := db.Read.QueryContext(ctx, `select report_id, rank, item_id, source_name, title, link, summary, score, score_reasoning, also_covered_by
		from report_items where `+where+` order by report_id, rank`, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: report items: %w", err)
	}
	defer rows.Close()
	out := map[int64][]app.ReportItem{}
	for rows.Next() {
		var reportID int64
		var it app.ReportItem
		var item sql.NullInt64
		var also string
		if err := rows.Scan(&reportID, &it.Rank, &item, &it.SourceName, &it.Title, &it.Link, &it.Summary, &it.Score, &it.ScoreReasoning, &also); err != nil {
			return nil, fmt.Errorf("sqlite: report items: %w", err)
		}
		if item.Valid {
			it.ItemID = &item.Int64
		}
		_ = json.Unmarshal([]byte(also), &it.AlsoCoveredBy)
		out[reportID] = append(out[reportID], it)
	}
	return out, rows.Err()
}

var _ app.BriefingStore = (*DB)(nil)

// MarkReportRead marks the unread stories of one of the user's reports read; it returns how many.
func (db *DB) MarkReportRead(ctx context.Context, userID, reportID int64) (int, error) {
	var n int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `update items set read_at = ? where user_id = ? and read_at is null
			and id in (select ri.item_id from report_items ri join reports r on r.id = ri.report_id where r.id = ? and r.user_id = ?)`,
			db.now(), userID, reportID, userID)
		if err != nil {
			return fmt.Errorf("sqlite: mark report read: %w", err)
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return int(n), err
}

// RemoveRecipient takes an address off a briefing's recipients (compared without case); with
// none left, the briefing stops emailing. It reports whether the address was a recipient.
func (db *DB) RemoveRecipient(ctx context.Context, briefingID int64, to string) (bool, error) {
	var removed bool
	err := db.tx(ctx, func(tx *sql.Tx) error {
		var recips string
		if err := tx.QueryRowContext(ctx, `select recipients from briefings where id = ?`, briefingID).Scan(&recips); errors.Is(err, sql.ErrNoRows) {
			return app.Errorf(app.ENOTFOUND, "Briefing %d not found.", briefingID)
		} else if err != nil {
			return fmt.Errorf("sqlite: remove recipient: %w", err)
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
		if _, err := tx.ExecContext(ctx, `update briefings set recipients = ?, email_enabled = email_enabled and ? where id = ?`,
			jsonText(keep), len(keep) > 0, briefingID); err != nil {
			return fmt.Errorf("sqlite: remove recipient: %w", err)
		}
		return nil
	})
	return removed, err
}
