package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/morningdeck/morningdeck/app"
	"github.com/morningdeck/morningdeck/app/greader"
)

// The queries of the Google Reader API (greader.Reader, greader.Store) that the item and source
// stores do not have: pages of item ids by crawl-time window with a keyset continuation, items
// by a list of ids, reading state of many items at once, unread counts per source, and marking
// a scope read (which the Items page and the CLI use too). Each is scoped to one user. Hidden
// items (put aside by the user's filters) are never part of a stream.

var _ greader.Store = (*DB)(nil)

// ReaderRefs returns a page of the user's items in the stream st, only the fields a list of
// references needs (ID, SourceID, CreatedAt, PublishedAt, ReadAt, Starred, Score), newest first
// (or oldest first) by the app's sort time (published, else fetched), then id. st.Oldest and
// st.Newest bound the time the item was fetched (the crawl time, so that a client asking for
// "everything since my last sync" also gets items published long ago but fetched since).
// st.AfterSort/AfterID continue after the last item of the previous page ("" for the first).
func (db *DB) ReaderRefs(ctx context.Context, userID int64, st *greader.Stream, limit int) ([]*app.Item, []string, error) {
	sourceID, folderID, readState, starState, minScore := st.SourceID, st.FolderID, st.ReadState, st.StarState, st.MinScore
	oldest, newest, oldestFirst, afterSort, afterID := st.Oldest, st.Newest, st.OldestFirst, st.AfterSort, st.AfterID
	var q strings.Builder
	args := []any{userID}
	q.WriteString(`select id, source_id, created_at, published_at, read_at, starred, score, coalesce(published_at, created_at) as sort_at
		from items where user_id = ? and hidden = 0`)
	if sourceID != 0 {
		q.WriteString(` and source_id = ?`)
		args = append(args, sourceID)
	}
	if folderID != 0 {
		q.WriteString(` and source_id in (select id from sources where folder_id = ?)`)
		args = append(args, folderID)
	}
	switch readState {
	case 1:
		q.WriteString(` and read_at is null`)
	case 2:
		q.WriteString(` and read_at is not null`)
	}
	switch starState {
	case 1:
		q.WriteString(` and starred = 1`)
	case 2:
		q.WriteString(` and starred = 0`)
	}
	if minScore > 0 {
		q.WriteString(` and score >= ?`)
		args = append(args, minScore)
	}
	if !oldest.IsZero() {
		q.WriteString(` and created_at >= ?`)
		args = append(args, FormatTime(oldest))
	}
	if !newest.IsZero() {
		q.WriteString(` and created_at <= ?`)
		args = append(args, FormatTime(newest))
	}
	if afterSort != "" {
		if oldestFirst {
			q.WriteString(` and (coalesce(published_at, created_at) > ? or coalesce(published_at, created_at) = ? and id > ?)`)
		} else {
			q.WriteString(` and (coalesce(published_at, created_at) < ? or coalesce(published_at, created_at) = ? and id < ?)`)
		}
		args = append(args, afterSort, afterSort, afterID)
	}
	if oldestFirst {
		q.WriteString(` order by coalesce(published_at, created_at), id`)
	} else {
		q.WriteString(` order by coalesce(published_at, created_at) desc, id desc`)
	}
	q.WriteString(` limit ?`)
	args = append(args, limit)
	rows, err := db.Read.QueryContext(ctx, q.String(), args...)
	if err != nil {
		return nil, nil, fmt.Errorf("sqlite: reader item ids: %w", err)
	}
	defer rows.Close()
	var out []*app.Item
	var sorts []string
	for rows.Next() {
		it := &app.Item{UserID: userID}
		var created, sortAt string
		var published, readAt sql.NullString
		var score sql.NullInt64
		if err := rows.Scan(&it.ID, &it.SourceID, &created, &published, &readAt, &it.Starred, &score, &sortAt); err != nil {
			return nil, nil, fmt.Errorf("sqlite: reader item ids: %w", err)
		}
		it.CreatedAt = parseTime(created)
		it.PublishedAt = parseTimePtr(published)
		it.ReadAt = parseTimePtr(readAt)
		if score.Valid {
			v := int(score.Int64)
			it.Score = &v
		}
		out = append(out, it)
		sorts = append(sorts, sortAt)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("sqlite: reader item ids: %w", err)
	}
	return out, sorts, nil
}

// ReaderItems returns the user's items among ids, whole, in the order of ids; ids of other
// users' items or of no item are left out.
func (db *DB) ReaderItems(ctx context.Context, userID int64, ids []int64) ([]*app.Item, error) {
	byID := make(map[int64]*app.Item, len(ids))
	for start := 0; start < len(ids); start += 500 {
		chunk := ids[start:min(start+500, len(ids))]
		args := []any{userID}
		for _, id := range chunk {
			args = append(args, id)
		}
		rows, err := db.Read.QueryContext(ctx, `select `+itemColumns+` from items i join sources s on s.id = i.source_id
			where i.user_id = ? and i.id in (?`+strings.Repeat(",?", len(chunk)-1)+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("sqlite: reader items: %w", err)
		}
		for rows.Next() {
			it, err := scanItem(rows)
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("sqlite: reader items: %w", err)
			}
			byID[it.ID] = it
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("sqlite: reader items: %w", err)
		}
	}
	out := make([]*app.Item, 0, len(byID))
	for _, id := range ids {
		if it := byID[id]; it != nil {
			out = append(out, it)
			delete(byID, id) // an id asked for twice is answered once
		}
	}
	return out, nil
}

// SetItemsState marks the user's items among ids read or unread and starred or not (nil
// leaves a state as it is), in one transaction. It returns how many of ids are the user's
// items; the others are left alone.
func (db *DB) SetItemsState(ctx context.Context, userID int64, ids []int64, read, starred *bool) (int, error) {
	if len(ids) == 0 || read == nil && starred == nil {
		return 0, nil
	}
	var found int
	err := db.tx(ctx, func(tx *sql.Tx) error {
		now := db.now()
		for start := 0; start < len(ids); start += 500 {
			chunk := ids[start:min(start+500, len(ids))]
			in := `(?` + strings.Repeat(",?", len(chunk)-1) + `)`
			idArgs := make([]any, 0, len(chunk)+1)
			idArgs = append(idArgs, userID)
			for _, id := range chunk {
				idArgs = append(idArgs, id)
			}
			var n int
			if err := tx.QueryRowContext(ctx, `select count(*) from items where user_id = ? and id in `+in, idArgs...).Scan(&n); err != nil {
				return fmt.Errorf("sqlite: reader set state: %w", err)
			}
			found += n
			if read != nil {
				var at any
				if *read {
					at = now
				}
				if _, err := tx.ExecContext(ctx, `update items set read_at = case when ? is null then null else coalesce(read_at, ?) end
					where user_id = ? and id in `+in, append([]any{at, at}, idArgs...)...); err != nil {
					return fmt.Errorf("sqlite: reader mark read: %w", err)
				}
			}
			if starred != nil {
				if _, err := tx.ExecContext(ctx, `update items set starred = ? where user_id = ? and id in `+in,
					append([]any{*starred}, idArgs...)...); err != nil {
					return fmt.Errorf("sqlite: reader star: %w", err)
				}
			}
		}
		return nil
	})
	return found, err
}

// MarkRead marks the user's unread, not hidden items read: of one source (SourceID not 0), of
// one folder's sources (FolderID not 0), with at least MinScore (not 0), starred only, and
// fetched no later than Before (zero for any). It returns how many it marked.
func (db *DB) MarkRead(ctx context.Context, userID int64, scope app.ReadScope) (int, error) {
	q := `update items set read_at = ? where user_id = ? and read_at is null and hidden = 0`
	args := []any{db.now(), userID}
	if scope.SourceID != 0 {
		q += ` and source_id = ?`
		args = append(args, scope.SourceID)
	}
	if scope.FolderID != 0 {
		q += ` and source_id in (select id from sources where user_id = ? and folder_id = ?)`
		args = append(args, userID, scope.FolderID)
	}
	if scope.MinScore > 0 {
		q += ` and score >= ?`
		args = append(args, scope.MinScore)
	}
	if scope.StarredOnly {
		q += ` and starred = 1`
	}
	if !scope.Before.IsZero() {
		q += ` and created_at <= ?`
		args = append(args, FormatTime(scope.Before))
	}
	var n int64
	err := db.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("sqlite: reader mark all read: %w", err)
		}
		n, _ = res.RowsAffected()
		return nil
	})
	return int(n), err
}

// ReaderUnreadCounts returns the user's unread items per source with the newest one's sort
// time, and how many unread items score at least topScore. A Reader client asks for them at
// every sync, so they come from indexes: the counts from the per-source unread index (index
// entries only), each source's newest unread item from the source's date index (its first
// entries), the top count from the best-first index (only the items scoring that high). Reading
// every unread row instead took 4 times as long with 95,000 unread items.
func (db *DB) ReaderUnreadCounts(ctx context.Context, userID int64, topScore int) (map[int64]int, map[int64]time.Time, int, error) {
	counts, newest := map[int64]int{}, map[int64]time.Time{}
	rows, err := db.Read.QueryContext(ctx, `select source_id, n, (select coalesce(i.published_at, i.created_at) from items i indexed by items_source_sort_idx
			where i.source_id = c.source_id and i.read_at is null and i.hidden = 0 order by coalesce(i.published_at, i.created_at) desc, i.id desc limit 1)
		from (select source_id, count(*) as n from items indexed by items_source_unread_idx
			where read_at is null and hidden = 0 and source_id in (select id from sources where user_id = ?) group by source_id) as c`, userID)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("sqlite: reader unread counts: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var n int
		var at sql.NullString
		if err := rows.Scan(&id, &n, &at); err != nil {
			return nil, nil, 0, fmt.Errorf("sqlite: reader unread counts: %w", err)
		}
		counts[id], newest[id] = n, parseTime(at.String)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, 0, fmt.Errorf("sqlite: reader unread counts: %w", err)
	}
	var top int
	if err := db.Read.QueryRowContext(ctx, `select count(*) from items indexed by items_user_best_idx
		where user_id = ? and (score is null) = 0 and score >= ? and read_at is null and hidden = 0`, userID, topScore).Scan(&top); err != nil {
		return nil, nil, 0, fmt.Errorf("sqlite: reader unread counts: %w", err)
	}
	return counts, newest, top, nil
}

// SourceIDByURL returns the id of the user's source with this address, or an ENOTFOUND error.
func (db *DB) SourceIDByURL(ctx context.Context, userID int64, url string) (int64, error) {
	var id int64
	err := db.Read.QueryRowContext(ctx, `select id from sources where user_id = ? and url = ?`, userID, url).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, app.Errorf(app.ENOTFOUND, "You do not follow %s.", url)
	}
	if err != nil {
		return 0, fmt.Errorf("sqlite: reader source: %w", err)
	}
	return id, nil
}
