package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/morningdeck/morningdeck/app"
)

// Retention: Prune deletes old items, Vacuum gives the space back to the file system.
//
// What Prune keeps, whatever their age: starred items, items a report references (reports never
// change; report_items hold copies of the text, but the link to the item stays valid), and items
// being processed (PENDING, PROCESSING: a job is on its way for them).
//
// The search index. items_fts is a contentless FTS5 table with contentless_delete (0031): it
// stores no text, and a row is removed from it by its id. Items are indexed in batches
// (IndexItems), in id order, up to fts_state.last_id; the items_fts_delete trigger (0031) removes
// a deleted item from the index (and from fts_stale) when its id is at or below last_id, and does
// nothing for an item not indexed yet, which IndexItems will then never see (ids are never
// reused: items.id is AUTOINCREMENT). So deleting items with a plain DELETE keeps the index
// exact, and Prune relies on that trigger rather than touching items_fts itself.
//
// Resurrection. A feed keeps its older entries, and the fetcher inserts every entry whose
// (source_id, guid) it has not stored (`on conflict do nothing`): a pruned entry still in its feed
// would come back as a new item, be enriched again (a credit) and show as new. So Prune leaves a
// tombstone (source_id, guid) for each item it deletes, and a trigger on items drops any insert
// of a tombstoned entry (0010_retention.sql): FinishFetch sees "already stored". The trigger also
// records the fetch time (seen_at) each time a fetch offers the entry again. A tombstone is
// deleted when a fetch of its source at least TombstoneGrace after the entry was last seen (or
// pruned) brought something (a new item, or another tombstoned entry) but not this entry: the
// entry has left the feed. Evidence comes from fetch times only (items.created_at and seen_at),
// never from the clock, so a source that is paused, failing or answering 304 keeps its
// tombstones until it publishes again — at most the entries its feed held. A deleted source
// takes its tombstones with it (foreign key).
//
// The file. Deleted rows leave free pages in the file, which later inserts reuse: with a daily
// Prune the file grows to the size of the retention window (plus the kept items) and stays
// there (BENCHMARKS.md, "Retention and database size"), so no vacuum is needed in the steady
// state. auto_vacuum stays NONE (the default): incremental vacuum would give pages back only for
// the next day's items to take them again, would move pages around at every commit, and
// switching an existing file to it needs a full VACUUM anyway. After a one-off large prune (the
// first one on an old database, a shorter retention) the free space stays in the file:
// PruneResult.FreeBytes says how much, and Vacuum rebuilds the file to give it back.

// TombstoneGrace is how long after a fetch last offered a pruned entry (or after it was
// pruned) its tombstone is kept, once later fetches of the source show the entry has left its
// feed. Feeds that drop an entry for a while and list it again (Reddit listings, scraped pages)
// are covered up to this long.
const TombstoneGrace = 30 * 24 * time.Hour

// Prune looks at a batch of items (deleted or kept) per write transaction, and sizes the batches
// so that one holds the single write connection about pruneTxTarget: workers wait at most that
// long behind it. Most of a batch's time is the search index's (tokenizing the deleted text, then
// flushing and merging index segments at commit), which depends on the text's length and the
// disk: a fixed count took from 20 ms to 600 ms (BENCHMARKS.md).
const (
	pruneBatchStart = 200
	pruneBatchMin   = 20
	pruneBatchMax   = 2000
	pruneTxTarget   = 50 * time.Millisecond
)

// PruneResult says what Prune did.
type PruneResult = app.PruneResult

// Prune deletes the items that arrived (created_at) before olderThan, except starred items,
// items referenced by a report and items being processed (PENDING, PROCESSING). It leaves a
// tombstone for each so the fetcher does not store them again, keeps the search index exact,
// and deletes the tombstones of entries that have left their feeds (see TombstoneGrace).
// It works in small write transactions (about 50 ms each), so it can run while the workers
// write; cancelling ctx stops it between batches (what was deleted stays deleted).
//
// olderThan should leave the briefings their period: an item pruned while a briefing that
// picked it is being written makes that briefing fail. Keep at least the longest briefing
// period plus a day (8 days with weekly briefings).
func (db *DB) Prune(ctx context.Context, olderThan time.Time) (PruneResult, error) {
	var res PruneResult
	var err error
	start := time.Now()
	cutoff := FormatTime(olderThan)
	// Keyset over (created_at, id): a batch starts after the last item the previous one looked
	// at, so kept items are read once per Prune, not once per batch.
	lastAt, lastID := "", int64(0)
	batch := pruneBatchStart
	for {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		var seen int
		var ids []int64
		t0 := time.Now()
		err = db.tx(ctx, func(tx *sql.Tx) error {
			seen, ids = 0, ids[:0]
			rows, err := tx.QueryContext(ctx, `select id, created_at,
				starred = 0 and status not in ('PENDING', 'PROCESSING') and not exists (select 1 from report_items r where r.item_id = items.id)
				from items where created_at < ? and created_at >= ? and (created_at > ? or id > ?)
				order by created_at, id limit ?`, cutoff, lastAt, lastAt, lastID, batch)
			if err != nil {
				return fmt.Errorf("sqlite: prune: %w", err)
			}
			for rows.Next() {
				var id int64
				var at string
				var del bool
				if err := rows.Scan(&id, &at, &del); err != nil {
					rows.Close()
					return fmt.Errorf("sqlite: prune: %w", err)
				}
				seen++
				lastAt, lastID = at, id
				if del {
					ids = append(ids, id)
				}
			}
			if err := rows.Close(); err != nil {
				return fmt.Errorf("sqlite: prune: %w", err)
			}
			if err := rows.Err(); err != nil {
				return fmt.Errorf("sqlite: prune: %w", err)
			}
			if len(ids) == 0 {
				return nil
			}
			list, _ := json.Marshal(ids)
			if _, err := tx.ExecContext(ctx, `insert into item_tombstones (source_id, guid, pruned_at)
				select source_id, guid, ? from items where id in (select value from json_each(?))
				on conflict (source_id, guid) do nothing`, db.now(), string(list)); err != nil {
				return fmt.Errorf("sqlite: prune: tombstones: %w", err)
			}
			if _, err := tx.ExecContext(ctx, `delete from items where id in (select value from json_each(?))`, string(list)); err != nil {
				return fmt.Errorf("sqlite: prune: delete items: %w", err)
			}
			return nil
		})
		if err != nil {
			return res, err
		}
		took := time.Since(t0)
		res.Batches++
		res.Items += len(ids)
		res.LongestBatch = max(res.LongestBatch, took)
		if seen < batch {
			break
		}
		switch {
		case took > pruneTxTarget*3/2:
			batch = max(pruneBatchMin, int(float64(batch)*float64(pruneTxTarget)/float64(took)))
		case took < pruneTxTarget/2:
			batch = min(pruneBatchMax, batch*2)
		}
	}
	if res.SearchCompacted, err = db.compactSearchIndex(ctx, time.Now().Add(searchCompactBudget)); err != nil {
		return res, err
	}
	n, err := db.expireTombstones(ctx)
	res.Tombstones = n
	if err != nil {
		return res, err
	}
	if err := db.Read.QueryRowContext(ctx, `select count(*) from items where created_at < ?`, cutoff).Scan(&res.Kept); err != nil {
		return res, fmt.Errorf("sqlite: prune: %w", err)
	}
	if res.FreeBytes, err = db.freeBytes(ctx); err != nil {
		return res, err
	}
	db.log.Info("pruned", "component", "sqlite", "before", cutoff, "items", res.Items, "kept", res.Kept,
		"tombstones", res.Tombstones, "batches", res.Batches, "longestBatch", res.LongestBatch, "searchCompacted", res.SearchCompacted, "freeBytes", res.FreeBytes,
		"duration", time.Since(start))
	return res, nil
}

// expireTombstones deletes the tombstones whose entries have left their feeds: a fetch of the
// source at least TombstoneGrace after the entry was last offered (or pruned) did not offer it.
// The latest fetch of a source that brought anything is the later of its newest item's arrival
// and its tombstones' latest sighting; every entry of one fetch gets the same time, so an entry
// offered by that fetch has seen_at equal to it, never older.
func (db *DB) expireTombstones(ctx context.Context) (int, error) {
	rows, err := db.Read.QueryContext(ctx, `with t as (select source_id, max(seen_at) as seen from item_tombstones group by source_id)
		select t.source_id, coalesce(t.seen, ''),
			coalesce((select i.created_at from items i where i.id = (select max(id) from items where source_id = t.source_id)), '')
		from t`)
	if err != nil {
		return 0, fmt.Errorf("sqlite: expire tombstones: %w", err)
	}
	type expiry struct {
		source int64
		before string
	}
	var todo []expiry
	for rows.Next() {
		var id int64
		var seen, arrived string
		if err := rows.Scan(&id, &seen, &arrived); err != nil {
			rows.Close()
			return 0, fmt.Errorf("sqlite: expire tombstones: %w", err)
		}
		last := max(seen, arrived) // both in TimeFormat: they sort as text
		if last == "" {
			continue
		}
		todo = append(todo, expiry{id, FormatTime(parseTime(last).Add(-TombstoneGrace))})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("sqlite: expire tombstones: %w", err)
	}
	var total int
	for len(todo) > 0 {
		chunk := todo[:min(len(todo), 100)]
		todo = todo[len(chunk):]
		err := db.tx(ctx, func(tx *sql.Tx) error {
			for _, e := range chunk {
				res, err := tx.ExecContext(ctx, `delete from item_tombstones where source_id = ? and coalesce(seen_at, pruned_at) < ?`, e.source, e.before)
				if err != nil {
					return fmt.Errorf("sqlite: expire tombstones: %w", err)
				}
				n, _ := res.RowsAffected()
				total += int(n)
			}
			return nil
		})
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// Search index compaction. FTS5 does not remove a deleted row's entries from the index: it adds
// delete markers, and both go only when a merge of segments meets them. Its automatic merges
// reach the large old segments rarely, so under a daily prune the index kept growing: from 95 MB
// to 420 MB in 38 days for the same 63,000 items (BENCHMARKS.md). Prune therefore compacts it:
//
//   - a full compaction is FTS5's 'merge' command with a negative page count (every segment into
//     one, as 'optimize' does) but done a few hundred pages per transaction, so the workers get
//     the write connection between steps ('optimize', one transaction, took 7.6 s);
//   - it is started once, with 'merge' -N, and continued with 'merge' +N: a negative merge starts
//     over whenever new segments appeared since the previous step (the indexer, the enricher),
//     while a positive one resumes the merge in progress. A compaction the time budget cuts
//     short is resumed by the next Prune (FTS5 keeps its state in the index);
//   - a new one is started only when the index has grown past 1.5 times its size per item after
//     the last full compaction (search_compaction), not at every Prune: with a long retention
//     a day's deletions are a small part of a large index.
const (
	searchCompactGrowth = 1.5
	searchCompactBudget = 2 * time.Minute
	searchMergeStart    = 200 // pages per step, adjusted towards pruneTxTarget
	searchMergeMin      = 16
	searchMergeMax      = 4000
)

// compactSearchIndex finishes a compaction in progress and starts (and runs) a new one when the
// index has grown enough, until deadline. It reports whether a full compaction finished.
func (db *DB) compactSearchIndex(ctx context.Context, deadline time.Time) (bool, error) {
	pages := searchMergeStart
	// merge runs merge steps of the given sign until FTS5 finds nothing left to merge (false) or
	// the deadline passes (true).
	merge := func(sign int) (bool, error) {
		for {
			if err := ctx.Err(); err != nil {
				return true, err
			}
			if time.Now().After(deadline) {
				return true, nil
			}
			var worked bool
			t0 := time.Now()
			err := db.tx(ctx, func(tx *sql.Tx) error {
				var before, after int64
				if err := tx.QueryRowContext(ctx, `select total_changes()`).Scan(&before); err != nil {
					return err
				}
				if _, err := tx.ExecContext(ctx, `insert into items_fts (items_fts, rank) values ('merge', ?)`, sign*pages); err != nil {
					return err
				}
				if err := tx.QueryRowContext(ctx, `select total_changes()`).Scan(&after); err != nil {
					return err
				}
				// FTS5's documented test: a merge that did any work made at least two changes.
				worked = after-before >= 2
				return nil
			})
			if err != nil {
				return false, fmt.Errorf("sqlite: compact search index: %w", err)
			}
			if !worked {
				return false, nil
			}
			sign = 1 // a negative merge starts a full compaction; positive ones continue it
			switch took := time.Since(t0); {
			case took > pruneTxTarget*3/2:
				pages = max(searchMergeMin, int(float64(pages)*float64(pruneTxTarget)/float64(took)))
			case took < pruneTxTarget/2:
				pages = min(searchMergeMax, pages*2)
			}
		}
	}
	if cut, err := merge(1); err != nil || cut {
		return false, err
	}
	ratio, err := db.searchRowsPerItem(ctx)
	if err != nil {
		return false, err
	}
	var last float64
	err = db.Read.QueryRowContext(ctx, `select rows_per_item from search_compaction`).Scan(&last)
	if err != nil && err != sql.ErrNoRows {
		return false, fmt.Errorf("sqlite: compact search index: %w", err)
	}
	if ratio == 0 || last > 0 && ratio < last*searchCompactGrowth {
		return false, nil
	}
	if cut, err := merge(-1); err != nil || cut {
		return false, err
	}
	if ratio, err = db.searchRowsPerItem(ctx); err != nil {
		return false, err
	}
	err = db.tx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `insert into search_compaction (id, rows_per_item) values (1, ?)
			on conflict (id) do update set rows_per_item = excluded.rows_per_item`, ratio)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("sqlite: compact search index: %w", err)
	}
	return true, nil
}

// searchRowsPerItem is the size of the search index (its blocks, about a page each) per item.
func (db *DB) searchRowsPerItem(ctx context.Context) (float64, error) {
	var blocks, items int64
	if err := db.Read.QueryRowContext(ctx, `select (select count(*) from items_fts_data), (select count(*) from items)`).Scan(&blocks, &items); err != nil {
		return 0, fmt.Errorf("sqlite: search index size: %w", err)
	}
	if items == 0 {
		return 0, nil
	}
	return float64(blocks) / float64(items), nil
}

func (db *DB) freeBytes(ctx context.Context) (int64, error) {
	var free, size int64
	if err := db.Read.QueryRowContext(ctx, `select freelist_count, page_size from pragma_freelist_count(), pragma_page_size()`).Scan(&free, &size); err != nil {
		return 0, fmt.Errorf("sqlite: free pages: %w", err)
	}
	return free * size, nil
}

// Vacuum rebuilds the database file without its free pages, giving the space left by a large
// prune back to the file system, then truncates the write-ahead log (which the rebuild filled
// with a copy of the whole database). It holds the write connection throughout — the workers
// wait; about a second per 100 MB here — and needs free disk of twice the database's size
// meanwhile. Run it at a quiet time, or from the command line, after a prune whose FreeBytes is
// a large part of the file; the daily prune does not need it (free pages are reused).
func (db *DB) Vacuum(ctx context.Context) error {
	conn, err := db.Write.Conn(ctx)
	if err != nil {
		return describe(fmt.Errorf("sqlite: vacuum: %w", err))
	}
	defer conn.Close()
	start := time.Now()
	// VACUUM builds the new file as a temporary database, which temp_store(MEMORY) (our setting,
	// for sorts) would keep in RAM: a whole copy of the database. It goes to a temporary file.
	if _, err := conn.ExecContext(ctx, `pragma temp_store = file`); err != nil {
		return fmt.Errorf("sqlite: vacuum: %w", err)
	}
	defer func() { _, _ = conn.ExecContext(context.WithoutCancel(ctx), `pragma temp_store = memory`) }()
	if _, err := conn.ExecContext(ctx, `vacuum`); err != nil {
		return describe(fmt.Errorf("sqlite: vacuum: %w", err))
	}
	var busy, logPages, checkpointed int
	if err := conn.QueryRowContext(ctx, `pragma wal_checkpoint(truncate)`).Scan(&busy, &logPages, &checkpointed); err != nil {
		return describe(fmt.Errorf("sqlite: vacuum: checkpoint: %w", err))
	}
	db.log.Info("vacuumed", "component", "sqlite", "duration", time.Since(start), "walTruncated", busy == 0)
	return nil
}
