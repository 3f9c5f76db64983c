-- goqite's table, as in the module's schema_sqlite.sql (with the priority column Receive needs).
create table goqite (
  id text primary key default ('m_' || lower(hex(randomblob(16)))),
  created text not null default (strftime('%Y-%m-%dT%H:%M:%fZ')),
  updated text not null default (strftime('%Y-%m-%dT%H:%M:%fZ')),
  queue text not null,
  body blob not null,
  timeout text not null default (strftime('%Y-%m-%dT%H:%M:%fZ')),
  received integer not null default 0,
  priority integer not null default 0
) strict;

-- goqite's schema also has a trigger keeping `updated` current. goqite never reads that column,
-- and the trigger doubles the write of every receive and heartbeat, so it is left out.

create index goqite_queue_priority_created_idx on goqite (queue, priority desc, created);

-- Jobs that failed their last attempt (or could not be decoded): kept, listable, retryable, discardable.
create table queue_dead (
  id text primary key,
  queue text not null,
  kind text not null default '',
  body blob not null,
  attempts integer not null default 0,
  error text not null default '',
  failed_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ'))
) strict;

create index queue_dead_queue_failed_idx on queue_dead (queue, failed_at);

-- Finished jobs per queue and minute, for throughput figures.
create table queue_done (
  queue text not null,
  minute text not null,
  ok integer not null default 0,
  failed integer not null default 0,
  primary key (queue, minute)
) strict;

create table users (
  id integer primary key,
  name text not null unique,
  created_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ'))
) strict;

insert into users (id, name) values (1, 'local');

create table sources (
  id integer primary key,
  user_id integer not null references users (id) on delete cascade,
  type text not null check (type in ('rss', 'web', 'reddit')),
  url text not null,
  name text not null default '',
  status text not null default 'ACTIVE' check (status in ('ACTIVE', 'PAUSED', 'ERROR')),
  fetch_status text not null default 'IDLE' check (fetch_status in ('IDLE', 'QUEUED', 'FETCHING')),
  refresh_interval_minutes integer not null default 15 check (refresh_interval_minutes between 1 and 10080),
  auto_interval integer not null default 0,
  last_fetched_at text,
  queued_at text,
  fetch_started_at text,
  next_fetch_at text,
  last_error text not null default '',
  error_count integer not null default 0,
  etag text not null default '',
  last_modified text not null default '',
  created_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ')),
  unique (user_id, url)
) strict;

-- The scheduler's due query: idle, not paused, by next fetch time.
create index sources_due_idx on sources (fetch_status, status, next_fetch_at);
create index sources_stuck_idx on sources (fetch_status, queued_at);

create table items (
  id integer primary key autoincrement, -- ids are never reused: the search indexer relies on it
  source_id integer not null references sources (id) on delete cascade,
  user_id integer not null references users (id) on delete cascade,
  guid text not null,
  title text not null default '',
  link text not null default '',
  author text not null default '',
  published_at text,
  raw_content text not null default '',
  clean_content text not null default '',
  extra text not null default '{}',
  status text not null default 'NEW' check (status in ('NEW', 'PENDING', 'PROCESSING', 'DONE', 'ERROR')),
  created_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ')),
  unique (source_id, guid)
) strict;

create index items_user_published_idx on items (user_id, published_at desc);
create index items_source_published_idx on items (source_id, published_at desc);
create index items_status_idx on items (status);
