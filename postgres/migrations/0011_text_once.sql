-- Issue 26, item 4, as SQLite's migration 0031: an item's plain text is not stored beside the
-- sanitized HTML it is derived from. text_content is empty when the text is the HTML's own
-- (the stores derive it on read: htmltext.Of), and holds a text only when that is another text
-- (an article's text read from the linked page, a mail's "no text" notice). The rows stored
-- before are converted in Go after this script, in its transaction (postgres.migrateTextOnce).
--
-- The search vector reads the HTML's text where text_content is empty: md_html_text, the tags
-- taken out and the entities the sanitizer writes (& < > " ') read back, close enough to the
-- Go derivation for words (a tag becomes a space, where Go leaves none for an inline one).
create function md_html_text(h text) returns text
  language sql immutable parallel safe
  as $$ select replace(replace(replace(replace(replace(replace(regexp_replace(h, '<[^>]*>', ' ', 'g'),
    '&lt;', '<'), '&gt;', '>'), '&#34;', '"'), '&quot;', '"'), '&#39;', ''''), '&amp;', '&') $$;

drop index items_search_idx;
alter table items drop column search;
alter table items add column search tsvector generated always as (
  setweight(to_tsvector('morningdeck'::regconfig, md_search_text(title)), 'A') ||
  setweight(to_tsvector('morningdeck'::regconfig, md_search_text(tags)), 'B') ||
  setweight(to_tsvector('morningdeck'::regconfig, md_search_text(summary)), 'C') ||
  setweight(to_tsvector('morningdeck'::regconfig, md_search_text(
    case when text_content = '' then md_html_text(clean_content) else text_content end)), 'D')
) stored;
create index items_search_idx on items using gin (search);

-- A score reasoning's publication date ("No interests set yet · published 2 Nov 2026") is the
-- row's published_at again: it is stored as chr(29) and read back from published_at
-- (app.StoredReasoning, app.ReasoningOf), in UTC as Go's "2 Jan 2006" writes it.
update items set score_reasoning = replace(score_reasoning, 'published ' || to_char(published_at at time zone 'UTC', 'FMDD Mon YYYY'), chr(29))
  where published_at is not null and strpos(score_reasoning, 'published ') > 0 and strpos(score_reasoning, chr(29)) = 0;
