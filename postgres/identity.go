package postgres

import (
	"context"
	"database/sql"

	"github.com/morningdeck/morningdeck/app"
)

var _ app.IdentityStore = (*DB)(nil)

// qKnownItems finds, in one read, the items and tombstones of a source whose key is one of $2
// or starts with one of $3 (text arrays): every branch probes the (source_id, guid) key of its
// table once per key or prefix. A prefix ends in ':' and is followed by hex digits, all below
// '~'. The guid columns are in the C collation (migration 0002), so a prefix's range is a byte
// range, as in SQLite, and the key's index serves it.
const qKnownItems = `
select i.guid, i.link, i.title, i.published_at, null::timestamptz from unnest($2::text[]) k cross join items i where i.source_id = $1 and i.guid = k
union all
select i.guid, i.link, i.title, i.published_at, null from unnest($3::text[]) p cross join items i
	where i.source_id = $1 and i.guid >= p and i.guid < p || '~'
union all
select t.guid, '', '', null, t.pruned_at from unnest($2::text[]) k cross join item_tombstones t where t.source_id = $1 and t.guid = k
union all
select t.guid, '', '', null, t.pruned_at from unnest($3::text[]) p cross join item_tombstones t
	where t.source_id = $1 and t.guid >= p and t.guid < p || '~'`

// KnownItems returns the items and tombstones of q.SourceID that q's keys and prefixes find
// (app.IdentifyItems decides with them which post each fetched entry is).
func (db *DB) KnownItems(ctx context.Context, q app.IdentityQuery) ([]app.KnownItem, error) {
	if len(q.Keys) == 0 && len(q.Prefixes) == 0 {
		return nil, nil
	}
	list := func(m map[string]string) []string {
		l := make([]string, 0, len(m))
		for k := range m {
			l = append(l, k)
		}
		return l
	}
	return queryAll(ctx, db, "known items", func(r scanner) (app.KnownItem, error) {
		var k app.KnownItem
		var published, pruned sql.NullTime
		if err := r.Scan(&k.Key, &k.Link, &k.Title, &published, &pruned); err != nil {
			return k, err
		}
		k.PrunedAt, k.Published = timePtr(pruned), timePtr(published)
		var ok bool
		if k.GUID, ok = q.Keys[k.Key]; !ok {
			k.GUID = q.Prefixes[k.Key[:min(len(k.Key), app.IdentityPrefixLen)]]
		}
		return k, nil
	}, qKnownItems, q.SourceID, list(q.Keys), list(q.Prefixes))
}
