-- The queues' tables of ours beside goqite's (migration 1): dead letters, finished-job
-- counters by minute (keyed by text, "2006-01-02T15:04", as package queue writes them), and the
-- pause switch, shared by every instance on this database.

create table queue_dead (
  id text primary key,
  queue text not null,
  kind text not null default '',
  body bytea not null,
  attempts integer not null default 0,
  error text not null default '',
  failed_at timestamptz not null default now()
);
create index queue_dead_queue_failed_idx on queue_dead (queue, failed_at);

create table queue_done (
  queue text not null,
  minute text not null,
  ok integer not null default 0,
  failed integer not null default 0,
  primary key (queue, minute)
);

create table queue_state (
  queue text primary key,
  paused boolean not null default false
);

-- The health check's committed write.
create table health (
  id integer primary key check (id = 1),
  checked_at timestamptz not null
);
