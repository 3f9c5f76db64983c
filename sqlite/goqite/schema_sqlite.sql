-- goqite's schema for SQLite, copied verbatim (below this comment) from maragu.dev/goqite v0.4.0,
-- schema_sqlite.sql: goqite does not export it (only its internal test package embeds it).
-- TestGoqiteSchema checks that the migrations give a database exactly this schema, and that
-- this copy is still the module's file.
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

create trigger goqite_updated_timestamp after update on goqite begin
  update goqite set updated = strftime('%Y-%m-%dT%H:%M:%fZ') where id = old.id;
end;

create index goqite_queue_priority_created_idx on goqite (queue, priority desc, created);
