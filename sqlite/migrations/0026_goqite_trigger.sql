-- Issue 26: the queues are goqite's, with goqite's own schema (sqlite/goqite/schema_sqlite.sql,
-- a verbatim copy of the module's schema_sqlite.sql). 0001 created goqite's table and index but
-- left out its trigger keeping `updated` current; here it is, as goqite writes it. It rewrites
-- a row that the receive or extend just changed, in the same page, so it adds no page to the
-- log (measured in BENCHMARKS.md, session 11).
create trigger goqite_updated_timestamp after update on goqite begin
  update goqite set updated = strftime('%Y-%m-%dT%H:%M:%fZ') where id = old.id;
end;
