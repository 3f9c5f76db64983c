-- The search index after pruning: deleted rows leave their entries, and delete markers, in the
-- index's segments until a merge meets them. Prune compacts the index (incrementally) once it
-- has grown past 1.5 times its size per item after the last full compaction, recorded here.
create table search_compaction (
  id integer primary key check (id = 1),
  rows_per_item real not null
) strict;
