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

create index items_user_score_idx on items (user_id, score desc);
create index items_user_created_idx on items (user_id, created_at desc);
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

-- Full-text search over title, summary, content and tags, kept in step by triggers.
create virtual table items_fts using fts5 (title, summary, content, tags, tokenize = 'unicode61 remove_diacritics 2');

create trigger items_fts_insert after insert on items begin
  insert into items_fts (rowid, title, summary, content, tags) values (new.id, new.title, new.summary, new.text_content, new.tags);
end;

create trigger items_fts_update after update of title, summary, text_content, tags on items begin
  update items_fts set title = new.title, summary = new.summary, content = new.text_content, tags = new.tags where rowid = new.id;
end;

create trigger items_fts_delete after delete on items begin
  delete from items_fts where rowid = old.id;
end;
