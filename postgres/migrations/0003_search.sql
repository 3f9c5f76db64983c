-- Full-text search on PostgreSQL's own (issue 29, item 3): a tsvector of each item, kept by
-- the server (a stored generated column, so every insert and update of the text keeps it
-- current: no indexer to run, unlike SQLite's FTS5 table fed by IndexItems) and a GIN index.
--
-- What matches is made as close as the engines allow to SQLite's FTS5 (unicode61,
-- remove_diacritics 2): words are lower-cased and stripped of their accents (the unaccent
-- dictionary, in a configuration of ours), and ASCII punctuation separates words
-- (md_search_text), so that "node.js" is the words node and js in both engines, as FTS5's
-- tokenizer makes them. Non-ASCII letters are told from punctuation by the database's
-- LC_CTYPE: create the database with a UTF-8 locale (C.UTF-8, en_US.UTF-8), not C.
-- The weights are SQLite's bm25 weights' order: title (A), tags (B), summary (C), text (D).

create extension if not exists unaccent;

create text search configuration morningdeck (copy = simple);
alter text search configuration morningdeck
  alter mapping for asciiword, word, numword, asciihword, hword, numhword, hword_asciipart, hword_part, hword_numpart
  with unaccent, simple;

create function md_search_text(t text) returns text
  language sql immutable parallel safe
  as $$ select translate(t, '!"#$%&''()*+,-./:;<=>?@[\]^_`{|}~', '                                ') $$;

alter table items add column search tsvector generated always as (
  setweight(to_tsvector('morningdeck'::regconfig, md_search_text(title)), 'A') ||
  setweight(to_tsvector('morningdeck'::regconfig, md_search_text(tags)), 'B') ||
  setweight(to_tsvector('morningdeck'::regconfig, md_search_text(summary)), 'C') ||
  setweight(to_tsvector('morningdeck'::regconfig, md_search_text(text_content)), 'D')
) stored;

create index items_search_idx on items using gin (search);

-- A queue message's body as JSON, or null when it is not JSON (the stuck-entity recovery reads
-- goqite's bodies: package postgres's noLiveJob).
create function md_json_or_null(b bytea) returns jsonb
  language plpgsql immutable parallel safe as $$
begin
  return convert_from(b, 'UTF8')::jsonb;
exception when others then
  return null;
end;
$$;
