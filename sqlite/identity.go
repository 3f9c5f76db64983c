package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/morningdeck/morningdeck/app"
)

var _ app.IdentityStore = (*DB)(nil)

// qKnownItems finds, in one read, the items and tombstones of a source whose key is one of
// ?2's or starts with one of ?3's (arrays of [what, feed GUID]). Every branch is a search of
// the (source_id, guid) key of its table, one probe per key or prefix: a fetch of 50 entries
// reads the 50 items it already has and a few index pages (the cross joins keep the lists
// outside, so that their values probe the keys). A prefix ends in ':' and is
// followed by hex digits, all below '~'.
const qKnownItems = `
with k(key, guid) as (select value->>0, value->>1 from json_each(?2)),
     p(lo, guid) as (select value->>0, value->>1 from json_each(?3))
select i.guid, k.guid, i.link, i.title, null from k cross join items i on i.source_id = ?1 and i.guid = k.key
union all
select i.guid, p.guid, i.link, i.title, null from p cross join items i on i.source_id = ?1 and i.guid >= p.lo and i.guid < p.lo || '~'
union all
select t.guid, k.guid, '', '', t.pruned_at from k cross join item_tombstones t on t.source_id = ?1 and t.guid = k.key
union all
select t.guid, p.guid, '', '', t.pruned_at from p cross join item_tombstones t on t.source_id = ?1 and t.guid >= p.lo and t.guid < p.lo || '~'`

// KnownItems returns the items and tombstones of q.SourceID that q's keys and prefixes find
// (app.IdentifyItems decides with them which post each fetched entry is).
func (db *DB) KnownItems(ctx context.Context, q app.IdentityQuery) ([]app.KnownItem, error) {
	if len(q.Keys) == 0 && len(q.Prefixes) == 0 {
		return nil, nil
	}
	pairs := func(m map[string]string) string {
		l := make([][2]string, 0, len(m))
		for k, g := range m {
			l = append(l, [2]string{k, g})
		}
		b, _ := json.Marshal(l)
		return string(b)
	}
	rows, err := db.Read.QueryContext(ctx, qKnownItems, q.SourceID, pairs(q.Keys), pairs(q.Prefixes))
	if err != nil {
		return nil, fmt.Errorf("sqlite: known items: %w", err)
	}
	defer rows.Close()
	var out []app.KnownItem
	for rows.Next() {
		var k app.KnownItem
		var pruned sql.NullString
		if err := rows.Scan(&k.Key, &k.GUID, &k.Link, &k.Title, &pruned); err != nil {
			return nil, fmt.Errorf("sqlite: known items: %w", err)
		}
		k.PrunedAt = parseTimePtr(pruned)
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: known items: %w", err)
	}
	return out, nil
}
