-- Issue 14: the pipeline's status index held every item, though its queries look only for items
-- still on their way (NEW, PENDING, PROCESSING): the scheduler's NEW items and the stuck ones.
-- Every item a first fetch stores is DONE already (scored in its fetch), and every processed
-- item ends DONE, so the index now holds only the items in flight: one B-tree fewer written for
-- each item of a first import, and an entry removed rather than moved when processing ends.
-- Its queries write out the same condition (sqlite.inFlight), so that SQLite can use it.
drop index items_status_changed_idx;
create index items_status_changed_idx on items (status, status_changed_at) where status in ('NEW', 'PENDING', 'PROCESSING');
