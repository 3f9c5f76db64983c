-- The daily upkeep that several instances share: the day's automatic backup is made by one of
-- them (BackupRotate inserts the day here, holding the row while pg_dump runs: another
-- instance waits, then finds the day done, or takes it over when the first failed).
create table care_runs (
  what text not null,
  day date not null,
  host text not null default '',
  at timestamptz not null,
  primary key (what, day)
);
