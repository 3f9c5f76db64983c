-- One row the health check rewrites, to prove the database takes a committed write.
create table health (
  id integer primary key check (id = 1),
  checked_at text not null
) strict;
