-- Issue 30 (SQLite's 0030): a mail folder read over IMAP is a source (type 'imap'), each
-- newsletter an item. Where a mail source reads (the source's url says it too, never with the
-- password), and its password sealed (AES-GCM) with a key kept in a file beside the instance,
-- never in the database (app.SecretBox): read by one query only, the fetcher's.
alter table sources drop constraint sources_type_check;
alter table sources add constraint sources_type_check check (type in ('rss', 'web', 'reddit', 'imap'));

create table imap_sources (
  source_id bigint primary key references sources (id) on delete cascade,
  host text not null,
  port integer not null check (port between 1 and 65535),
  security text not null check (security in ('tls', 'starttls', 'plain')),
  username text not null,
  folder text not null,
  sender text not null default '',
  mark_read boolean not null default false,
  first_import integer not null default 50
);

-- The folder's sources of one sender each, which the folder's own source leaves their mail to.
create index imap_sources_folder_idx on imap_sources (host, username, folder) where sender <> '';

create table imap_secrets (
  source_id bigint primary key references sources (id) on delete cascade,
  sealed bytea not null
);
