-- Fewer B-trees per item (issue 14): each item stored wrote every one of them. These four are covered
-- by other indexes, measured with 100,000 items by BenchmarkItemIndexes (BENCHMARKS.md):
-- the river's pages sort by coalesce(published_at, created_at) (items_user_sort_idx and the
-- partial indexes of 0013), one source's pages by items_source_sort_idx, a source's items are
-- found by the unique (source_id, guid) index, the pipeline's status lookups by
-- items_status_changed_idx (status, status_changed_at), and the best-first lists by
-- items_user_best_idx.
drop index if exists items_user_published_idx;
drop index if exists items_source_published_idx;
drop index if exists items_status_idx;
drop index if exists items_user_score_idx;
