-- Issue 16: a briefing can be limited to the sources of one folder. Deleting the folder sets
-- it to null: the briefing then covers every source again (its page says so), as a briefing
-- whose chosen sources were all deleted does.
alter table briefings add column folder_id integer references folders (id) on delete set null;
create index briefings_folder_idx on briefings (folder_id);
