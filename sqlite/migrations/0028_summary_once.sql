-- Issue 26, item 4: every item field stored once. The embedded enricher's summary of a short
-- item is its whole text (the benchmark's 1,000 feeds × 20 items: 4.3 MB of summaries, each the
-- item's text_content again), and the search index held that text twice (in its summary and its
-- text_content columns). Such a summary is now stored as char(30) ("the summary is the text",
-- sqlite.summaryIsText) and read back as text_content.
--
-- The search index reads its text through the view items_search, which gives such an item's
-- text once, as its summary (ranked as a summary is), with an empty text_content; the index is
-- built again over it (its content table cannot be changed in place), and the triggers index
-- and take out what the view gives.
drop trigger items_fts_update;
drop trigger items_fts_delete;
drop table items_fts;

update items set summary = char(30) where summary = text_content and summary != '';

create view items_search as select id, title,
  iif(summary = char(30), text_content, summary) as summary,
  iif(summary = char(30), '', text_content) as text_content,
  tags
  from items;

create virtual table items_fts using fts5 (title, summary, text_content, tags, content = 'items_search', content_rowid = 'id',
  tokenize = 'unicode61 remove_diacritics 2');

insert into items_fts (rowid, title, summary, text_content, tags)
  select id, title, summary, text_content, tags from items_search where id <= (select last_id from fts_state);

create trigger items_fts_update after update of title, summary, text_content, tags on items
when old.id <= (select last_id from fts_state) begin
  insert into items_fts (items_fts, rowid, title, summary, text_content, tags) values ('delete', old.id, old.title,
    iif(old.summary = char(30), old.text_content, old.summary), iif(old.summary = char(30), '', old.text_content), old.tags);
  insert into items_fts (rowid, title, summary, text_content, tags) values (new.id, new.title,
    iif(new.summary = char(30), new.text_content, new.summary), iif(new.summary = char(30), '', new.text_content), new.tags);
end;

create trigger items_fts_delete after delete on items
when old.id <= (select last_id from fts_state) begin
  insert into items_fts (items_fts, rowid, title, summary, text_content, tags) values ('delete', old.id, old.title,
    iif(old.summary = char(30), old.text_content, old.summary), iif(old.summary = char(30), '', old.text_content), old.tags);
end;
