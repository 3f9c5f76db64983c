-- A queue paused from the UI or the CLI stays paused for every process on this file, and across restarts.
create table queue_state (
	queue text primary key,
	paused integer not null default 0
) strict;
