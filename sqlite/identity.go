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
// ?2 (a JSON array) or starts with one of ?3. Every branch is a search of the (source_id,
// guid) key of its table, one probe per key or prefix (the cross joins keep the lists
// outside, so that their values probe the keys): a fetch of 50 entries reads the 50 items it
// already has and a few index pages. A prefix ends in ':' and is followed by hex digits, all
// below '~'.
const qKnownItems = `
select i.guid, i.link, i.title, i.published_at, null from json_each(?2) k cross join items i on i.source_id = ?1 and i.guid = k.value
union all
select i.guid, i.link, i.title, i.published_at, null from json_each(?3) p cross join items i on i.source_id = ?1 and i.guid >= p.value and i.guid < p.value || '~'
union all
select t.guid, '', '', null, t.pruned_at from json_each(?2) k cross join item_tombstones t on t.source_id = ?1 and t.guid = k.value
union all
select t.guid, '', '', null, t.pruned_at from json_each(?3) p cross join item_tombstones t on t.source_id = ?1 and t.guid >= p.value and t.guid < p.value || '~'`

// KnownItems returns the items and tombstones of q.SourceID that q's keys and prefixes find
// (app.IdentifyItems decides with them which post each fetched entry is).
func (db *DB) KnownItems(ctx context.Context, q app.IdentityQuery) ([]app.KnownItem, error) {
	if len(q.Keys) == 0 && len(q.Prefixes) == 0 {
		return nil, nil
	}
	list := func(m map[string]string) string {
		l := make([]string, 0, len(m))
		for k := range m {
			l = append(l, k)
		}
		b, _ := json.Marshal(l)
		return string(b)
	}
	rows, err := db.Read.QueryContext(ctx, qKnownItems, q.SourceID, list(q.Keys), list(q.Prefixes))
	if err != nil {
		return nil, fmt.Errorf("sqlite: known items: %w", err)
	}
	defer rows.Close()
	var out []app.KnownItem
	for rows.Next() {
		var k app.KnownItem
		var published, pruned sql.NullString
		if err := rows.Scan(&k.Key, &k.Link, &k.Title, &published, &pruned); err != nil {
			return nil, fmt.Errorf("sqlite: known items: %w", err)
		}
		k.PrunedAt, k.Published = parseTimePtr(pruned), parseTimePtr(published)
		var ok bool
		if k.GUID, ok = q.Keys[k.Key]; !ok {
			k.GUID = q.Prefixes[k.Key[:min(len(k.Key), app.IdentityPrefixLen)]]
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: known items: %w", err)
	}
	return out, nil
}
