-- Issue 30: a mail folder read over IMAP is a source (type 'imap'), each newsletter an item.
--
-- sources.type's check admits 'imap'. A check constraint cannot be altered, and rebuilding
-- sources would (with foreign keys on, as every connection has them) delete every item through
-- their cascade; the check only is changed, in the stored schema, as SQLite documents for
-- changes that leave the table's content as it is (lang_altertable.html, "making other kinds
-- of table schema changes"). writable_schema = RESET reloads the schema in this connection.
pragma writable_schema = on;
update sqlite_schema set sql = replace(sql, 'check (type in (''rss'', ''web'', ''reddit''))', 'check (type in (''rss'', ''web'', ''reddit'', ''imap''))')
  where type = 'table' and name = 'sources';
pragma writable_schema = reset;

-- The check took 'imap' (were the stored text not 0001's, the replace would have changed
-- nothing): a mail source can be stored, or this migration fails here, not a later insert.
insert into sources (user_id, type, url) select id, 'imap', 'imap://migration-0030-check' from users order by id limit 1;
delete from sources where url = 'imap://migration-0030-check';

-- Where a mail source reads: the server, the user and the folder (the source's url says them
-- too, as imaps://user@host:993/Folder, and never holds the password), one sender's mail only
-- when sender is not '', whether messages are marked read on the server, and how many of the
-- latest messages the first fetch takes. The fetch's cursor (UIDVALIDITY and the last UID read)
-- is the source's etag.
create table imap_sources (
  source_id integer primary key references sources (id) on delete cascade,
  host text not null,
  port integer not null check (port between 1 and 65535),
  security text not null check (security in ('tls', 'starttls', 'plain')),
  username text not null,
  folder text not null,
  sender text not null default '',
  mark_read integer not null default 0,
  first_import integer not null default 50
) strict;

-- The folder's sources of one sender each, which the folder's own source leaves their mail to.
create index imap_sources_folder_idx on imap_sources (host, username, folder) where sender != '';

-- The account's password, sealed (AES-GCM) with a key kept in a file beside the database, never
-- in it (app.SecretBox). Read by one query only, the fetcher's (sqlite.DB.MailAccount); no page,
-- API answer, export or log reads this table.
create table imap_secrets (
  source_id integer primary key references sources (id) on delete cascade,
  sealed blob not null
) strict;
