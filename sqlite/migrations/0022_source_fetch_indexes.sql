-- Issue 14: every fetch moved its source three times in both of these indexes (QUEUED when
-- queued, FETCHING when claimed, IDLE when done), each move a page written to the log, and an
-- all-304 cycle is little else. The scheduler's index now holds only the sources it can pick
-- (idle, not paused), by when they are due ('' for never fetched: first): queueing takes a
-- source out, finishing puts it back, claiming leaves it alone. The stuck-source index goes: the
-- check for stuck sources runs every five minutes and reads the sources table (10,000 rows in a
-- few milliseconds).
drop index sources_due_idx;
create index sources_due_idx on sources (coalesce(next_fetch_at, '')) where fetch_status = 'IDLE' and status in ('ACTIVE', 'ERROR');
drop index sources_stuck_idx;
