-- Retention (sqlite/retention.go): pruning old items, and keeping them from coming back.

-- Prune walks the items older than the cutoff by arrival. Without this index it would read every
-- row, and a row's created_at lies behind its content (overflow pages).
create index items_created_idx on items (created_at);

-- Deleting an item looks for reports that reference it (Prune's own test, and the foreign key's
-- "on delete set null"); without this index each delete scanned all of report_items.
create index report_items_item_idx on report_items (item_id);

-- Tombstones of pruned items. A feed keeps its older entries, and the fetcher stores every entry
-- whose (source_id, guid) it does not have: a pruned entry still in its feed would come back as a
-- new item. The trigger below drops such an insert silently (the fetcher sees "already stored")
-- and records when a fetch last offered the entry (seen_at: a fetch time, like items.created_at).
-- A tombstone is deleted by Prune once a fetch of its source at least 30 days after its last
-- sighting (or after the pruning) brought something else but not this entry: it left the feed.
create table item_tombstones (
  source_id integer not null references sources (id) on delete cascade,
  guid text not null,
  pruned_at text not null,
  seen_at text,
  primary key (source_id, guid)
) strict, without rowid;

create trigger items_tombstone before insert on items
when exists (select 1 from item_tombstones where source_id = new.source_id and guid = new.guid)
begin
  update item_tombstones set seen_at = coalesce(new.created_at, strftime('%Y-%m-%dT%H:%M:%fZ'))
    where source_id = new.source_id and guid = new.guid;
  select raise(ignore);
end;
