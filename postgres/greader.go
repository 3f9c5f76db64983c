package postgres

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

// The queries of the Google Reader API (greader.Store) that the item and source stores do not
// have, as package sqlite's greader.go. Hidden items are never part of a stream.

var _ greader.Store = (*DB)(nil)

// sortFormat writes an item's sort time into a stream's continuation: SQLite's stored format,
// so that a continuation reads the same on both engines.
const sortFormat = "2006-01-02T15:04:05.000Z"

// ReaderRefs returns a page of the user's items in the stream st, only the fields a list of
// references needs, newest first (or oldest first) by the app's sort time (published, else
// fetched), then id; st.Oldest and st.Newest bound the time the item was fetched;
// st.AfterSort/AfterID continue after the last item of the previous page.
func (db *DB) ReaderRefs(ctx context.Context, userID int64, st *greader.Stream, limit int) ([]*app.Item, []string, error) {
	var q strings.Builder
	args := []any{userID}
	arg := func(v any) string { args = append(args, v); return fmt.Sprintf("$%d", len(args)) }
	q.WriteString(`select id, source_id, created_at, published_at, read_at, starred, score, coalesce(published_at, created_at) as sort_at
		from items where user_id = $1 and not hidden`)
	if st.SourceID != 0 {
		q.WriteString(` and source_id = ` + arg(st.SourceID))
	}
	if st.FolderID != 0 {
		q.WriteString(` and source_id in (select id from sources where folder_id = ` + arg(st.FolderID) + `)`)
	}
	switch st.ReadState {
	case 1:
		q.WriteString(` and read_at is null`)
	case 2:
		q.WriteString(` and read_at is not null`)
	}
	switch st.StarState {
	case 1:
		q.WriteString(` and starred`)
	case 2:
		q.WriteString(` and not starred`)
	}
	if st.MinScore > 0 {
		q.WriteString(` and score >= ` + arg(st.MinScore))
	}
	if !st.Oldest.IsZero() {
		q.WriteString(` and created_at >= ` + arg(dbTime(st.Oldest)))
	}
	if !st.Newest.IsZero() {
		q.WriteString(` and created_at <= ` + arg(dbTime(st.Newest)))
	}
	if st.AfterSort != "" {
		after, err := time.Parse(time.RFC3339Nano, st.AfterSort)
		if err != nil {
			return nil, nil, app.Errorf(app.EINVALID, "The continuation %q is not one this server gave.", st.AfterSort)
		}
		op := "<"
		if st.OldestFirst {
			op = ">"
		}
		q.WriteString(` and (coalesce(published_at, created_at), id) ` + op + ` (` + arg(after) + `::timestamptz, ` + arg(st.AfterID) + `::bigint)`)
	}
	if st.OldestFirst {
		q.WriteString(` order by coalesce(published_at, created_at), id`)
	} else {
		q.WriteString(` order by coalesce(published_at, created_at) desc, id desc`)
	}
	q.WriteString(` limit ` + arg(limit))
	type ref struct {
		it   *app.Item
		sort string
	}
	refs, err := queryAll(ctx, db, "reader item ids", func(r scanner) (ref, error) {
		it := &app.Item{UserID: userID}
		var published, readAt sql.NullTime
		var score sql.NullInt64
		var sortAt time.Time
		if err := r.Scan(&it.ID, &it.SourceID, &it.CreatedAt, &published, &readAt, &it.Starred, &score, &sortAt); err != nil {
			return ref{}, err
		}
		it.CreatedAt, it.PublishedAt, it.ReadAt = it.CreatedAt.UTC(), timePtr(published), timePtr(readAt)
		if score.Valid {
			v := int(score.Int64)
			it.Score = &v
		}
		return ref{it, sortAt.UTC().Format(sortFormat)}, nil
	}, q.String(), args...)
	if err != nil {
		return nil, nil, err
	}
	out, sorts := make([]*app.Item, len(refs)), make([]string, len(refs))
	for i, r := range refs {
		out[i], sorts[i] = r.it, r.sort
	}
	return out, sorts, nil
}

// ReaderItems returns the user's items among ids, whole, in the order of ids, each once; ids
// of other users' items or of no item are left out.
func (db *DB) ReaderItems(ctx context.Context, userID int64, ids []int64) ([]*app.Item, error) {
	all, err := queryAll(ctx, db, "reader items", func(r scanner) (*app.Item, error) { return scanItem(r) },
		`select `+itemColumns+` from items i join sources s on s.id = i.source_id where i.user_id = $1 and i.id = any($2)`, userID, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*app.Item, len(all))
	for _, it := range all {
		byID[it.ID] = it
	}
	out := make([]*app.Item, 0, len(byID))
	for _, id := range ids {
		if it := byID[id]; it != nil {
			out = append(out, it)
			delete(byID, id)
		}
	}
	return out, nil
}

// SetItemsState marks the user's items among ids read or unread and starred or not (nil leaves
// a state as it is), in one statement. It returns how many of ids are the user's items.
func (db *DB) SetItemsState(ctx context.Context, userID int64, ids []int64, read, starred *bool) (int, error) {
	if len(ids) == 0 || read == nil && starred == nil {
		return 0, nil
	}
	sets := []string{"id = id"}
	args := []any{userID, ids}
	arg := func(v any) string { args = append(args, v); return fmt.Sprintf("$%d", len(args)) }
	if read != nil {
		if *read {
			sets = append(sets, `read_at = coalesce(read_at, `+arg(db.now())+`)`)
		} else {
			sets = append(sets, `read_at = null`)
		}
	}
	if starred != nil {
		sets = append(sets, `starred = `+arg(*starred))
	}
	res, err := db.SQL.ExecContext(ctx, `update items set `+strings.Join(sets, ", ")+` where user_id = $1 and id = any($2)`, args...)
	if err != nil {
		return 0, fmt.Errorf("postgres: reader set state: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// ReaderUnreadCounts returns the user's unread items per source with the newest one's sort
// time, and how many unread items score at least topScore.
func (db *DB) ReaderUnreadCounts(ctx context.Context, userID int64, topScore int) (map[int64]int, map[int64]time.Time, int, error) {
	counts, newest := map[int64]int{}, map[int64]time.Time{}
	type count struct {
		id int64
		n  int
		at time.Time
	}
	all, err := queryAll(ctx, db, "reader unread counts", func(r scanner) (count, error) {
		var c count
		err := r.Scan(&c.id, &c.n, &c.at)
		return c, err
	}, `select source_id, count(*), max(coalesce(published_at, created_at)) from items
		where user_id = $1 and read_at is null and not hidden group by source_id`, userID)
	if err != nil {
		return nil, nil, 0, err
	}
	for _, c := range all {
		counts[c.id], newest[c.id] = c.n, c.at.UTC()
	}
	var top int
	if err := db.SQL.QueryRowContext(ctx, `select count(*) from items
		where user_id = $1 and score >= $2 and read_at is null and not hidden`, userID, topScore).Scan(&top); err != nil {
		return nil, nil, 0, fmt.Errorf("postgres: reader unread counts: %w", err)
	}
	return counts, newest, top, nil
}

// SourceIDByURL returns the id of the user's source with this address, or an ENOTFOUND error.
func (db *DB) SourceIDByURL(ctx context.Context, userID int64, url string) (int64, error) {
	var id int64
	err := db.SQL.QueryRowContext(ctx, `select id from sources where user_id = $1 and url = $2`, userID, url).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, app.Errorf(app.ENOTFOUND, "You do not follow %s.", url)
	} else if err != nil {
		return 0, fmt.Errorf("postgres: reader source: %w", err)
	}
	return id, nil
}
