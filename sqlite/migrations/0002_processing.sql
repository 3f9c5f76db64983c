-- The processing pipeline: enrichment results, reading state, settings, credits, filters, search.

alter table items add column text_content text not null default '';
alter table items add column summary text not null default '';
alter table items add column tags text not null default '[]';
alter table items add column topics text not null default '[]';
alter table items add column score integer;
alter table items add column score_reasoning text not null default '';
alter table items add column enriched_by text not null default '';
alter table items add column attempts integer not null default 0;
alter table items add column last_error text not null default '';
alter table items add column status_changed_at text;
alter table items add column read_at text;
alter table items add column starred integer not null default 0;
alter table items add column hidden integer not null default 0;
alter table items add column prompt_tokens integer not null default 0;
alter table items add column completion_tokens integer not null default 0;

-- The item lists sort by publication (else arrival) or by score.
create index items_user_sort_idx on items (user_id, coalesce(published_at, created_at) desc, id desc);
create index items_user_score_idx on items (user_id, score desc);
create index items_status_changed_idx on items (status, status_changed_at);

alter table users add column interests text not null default '';
alter table users add column topics text not null default '[]';
alter table users add column enricher text not null default '';
alter table users add column credits integer not null default 1000;
alter table users add column daily_credits integer not null default 1000;
alter table users add column credits_refilled_at text;
alter table users add column timezone text not null default '';

alter table sources add column topics text not null default '[]';

-- Filter rules (the moderation step), per user and optionally per source.
create table filters (
  id integer primary key,
  user_id integer not null references users (id) on delete cascade,
  source_id integer references sources (id) on delete cascade,
  name text not null default '',
  field text not null check (field in ('any', 'title', 'content', 'author', 'link', 'tags', 'topics')),
  match text not null check (match in ('keywords', 'regex')),
  pattern text not null,
  action text not null check (action in ('hide', 'read', 'star', 'score')),
  score_delta integer not null default 0,
  enabled integer not null default 1,
  created_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ'))
) strict;

create index filters_user_idx on filters (user_id);

-- Full-text search over title, summary, content and tags. External content: the index reads
-- the text from items, so it is not stored twice. New items are indexed in batches by
-- IndexItems (one index flush per batch, not per fetch); fts_state.last_id is the highest item
-- id indexed, and the triggers keep already indexed rows in step.
create virtual table items_fts using fts5 (title, summary, text_content, tags, content = 'items', content_rowid = 'id',
  tokenize = 'unicode61 remove_diacritics 2');

create table fts_state (id integer primary key check (id = 1), last_id integer not null) strict;
insert into fts_state (id, last_id) values (1, 0);

create trigger items_fts_update after update of title, summary, text_content, tags on items
when old.id <= (select last_id from fts_state) begin
  insert into items_fts (items_fts, rowid, title, summary, text_content, tags) values ('delete', old.id, old.title, old.summary, old.text_content, old.tags);
  insert into items_fts (rowid, title, summary, text_content, tags) values (new.id, new.title, new.summary, new.text_content, new.tags);
end;

create trigger items_fts_delete after delete on items
when old.id <= (select last_id from fts_state) begin
  insert into items_fts (items_fts, rowid, title, summary, text_content, tags) values ('delete', old.id, old.title, old.summary, old.text_content, old.tags);
end;
