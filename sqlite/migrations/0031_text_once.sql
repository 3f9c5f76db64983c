-- Issue 26, item 4: an item's plain text is not stored beside the sanitized HTML it is derived
-- from. text_content (4.3 MB of the benchmark's 28 MB: 1,000 feeds × 20 items) is empty when
-- the text is the HTML's own, and the text is derived from clean_content on read
-- (htmltext.Of); it holds a text only when that is another text (an article's text read from
-- the linked page, a mail's "no text" notice). The conversion of the rows stored before is done
-- in Go after this script, in its transaction (sqlite.migrateTextOnce): SQL cannot derive the
-- text.
--
-- The search index can then no longer read its text from the items (an external-content FTS5
-- table over the view items_search, 0028): it is contentless (it keeps no text, as before, and
-- needs none to take a row out: contentless_delete), fed by IndexItems with the text derived
-- in Go. The triggers only take out a deleted item's row, and mark an indexed item whose
-- indexed text changed (fts_stale): IndexItems indexes it again with its next batch.
drop trigger items_fts_update;
drop trigger items_fts_delete;
drop table items_fts;
drop view items_search;

create virtual table items_fts using fts5 (title, summary, text_content, tags, content = '', contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2');

create table fts_stale (id integer primary key) strict;

create trigger items_fts_update after update of title, summary, text_content, clean_content, tags on items
when old.id <= (select last_id from fts_state) and (old.title is not new.title or old.summary is not new.summary
  or old.text_content is not new.text_content or old.clean_content is not new.clean_content or old.tags is not new.tags)
begin
  insert or ignore into fts_stale (id) values (new.id);
end;

create trigger items_fts_delete after delete on items
when old.id <= (select last_id from fts_state) begin
  delete from items_fts where rowid = old.id;
  delete from fts_stale where id = old.id;
end;

-- A score reasoning's publication date ("No interests set yet · published 2 Nov 2026": 43 bytes
-- of every row of the benchmark's) is the row's published_at again: it is stored as char(29)
-- and read back from published_at (app.StoredReasoning, app.ReasoningOf), in UTC as Go's
-- "2 Jan 2006" writes it.
update items set score_reasoning = replace(score_reasoning, 'published ' || cast(strftime('%d', published_at) as integer) || ' ' ||
    substr('JanFebMarAprMayJunJulAugSepOctNovDec', cast(strftime('%m', published_at) as integer) * 3 - 2, 3) || ' ' || strftime('%Y', published_at),
    char(29))
  where published_at is not null and instr(score_reasoning, 'published ') > 0 and instr(score_reasoning, char(29)) = 0;
