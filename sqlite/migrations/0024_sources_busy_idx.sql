-- Issue 14: sources_user_state_idx held fetch_status, so every fetch moved its source in it three
-- times (QUEUED, FETCHING, IDLE), each move an entry deleted and another written elsewhere in the
-- index. The summary's states (status, error count) change only when a fetch starts or stops
-- failing; the sources being fetched have their own small index, which holds only them: an
-- entry added when a source is queued and removed when its fetch ends.
drop index sources_user_state_idx;
create index sources_user_state_idx on sources (user_id, status, error_count);
create index sources_busy_idx on sources (user_id) where fetch_status != 'IDLE';
