-- What every page asks, kept cheap for users with thousands of sources and a large river.
-- The views of the river (unread, starred, hidden by filters, failed) each have a partial index
-- in the river's date order: the page reads its 30 rows, and the navigation's counts count
-- index entries instead of reading every item.
create index items_unread_idx on items (user_id, coalesce(published_at, created_at) desc, id desc) where read_at is null and hidden = 0;
create index items_starred_idx on items (user_id, coalesce(published_at, created_at) desc, id desc) where starred = 1;
create index items_hidden_idx on items (user_id, coalesce(published_at, created_at) desc, id desc) where hidden = 1;
create index items_error_idx on items (user_id, coalesce(published_at, created_at) desc, id desc) where status = 'ERROR';
-- Best first (Today), as Items orders it; one source's newest first.
create index items_user_best_idx on items (user_id, score is null, score desc, coalesce(published_at, created_at) desc, id desc);
create index items_source_sort_idx on items (source_id, coalesce(published_at, created_at) desc, id desc);
-- The Sources page in name order, and the source summary of every page (a covering index).
create index sources_user_name_idx on sources (user_id, lower(name), id);
create index sources_user_state_idx on sources (user_id, status, error_count, fetch_status);
