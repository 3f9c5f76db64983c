-- Folders (one level) that sources belong to, the unread count per source, and feed icons.
create table folders (
  id integer primary key,
  user_id integer not null references users (id) on delete cascade,
  name text not null collate nocase check (length(name) between 1 and 100),
  created_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ')),
  unique (user_id, name)
) strict;

-- A source in no folder has folder_id null; deleting a folder leaves its sources unfiled.
alter table sources add column folder_id integer references folders (id) on delete set null;
create index sources_folder_idx on sources (folder_id);

-- Unread counts per source (and so per folder) count this partial index's entries of a source
-- instead of reading its items.
create index items_source_unread_idx on items (source_id) where read_at is null and hidden = 0;

-- Each source's icon, fetched once and refreshed rarely. An empty data with an error says the
-- site has no usable icon (the initials stay), so it is not asked again before the refresh.
create table source_icons (
  source_id integer primary key references sources (id) on delete cascade,
  content_type text not null default '',
  data blob not null default x'',
  etag text not null default '',
  error text not null default '',
  fetched_at text not null
) strict;
