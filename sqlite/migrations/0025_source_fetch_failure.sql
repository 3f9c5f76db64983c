-- The kind of a source's last failed fetch (app.FetchFailure: 'dns', 'connect', 'timeout',
-- 'network', 'http_status', 'parse', …; '' when its last fetch succeeded), decided in Go from the
-- fetcher's error and written with last_error. The summary counted the sources that could not
-- reach their host by matching last_error against the fetcher's messages; it reads this instead.
alter table sources add column fetch_failure text not null default '';

-- Once, for the sources that failed before this column: their kind from the messages the
-- fetcher wrote (app/feeds/http.go), with the patterns the summary used for the unreachable ones.
update sources set fetch_failure = case
    when last_error like '%could not be found.' then 'dns'
    when last_error like '%did not answer%' or last_error like '%timed out.' then 'timeout'
    when last_error like '%refused the connection.' or last_error like '%could not be reached.'
      or last_error like 'Could not connect to %' then 'connect'
    when last_error like 'The connection to % failed.' then 'network'
    when last_error = 'The response was cut short or corrupted.' then 'cut_short'
    when last_error like 'The secure connection to %' then 'tls'
    when last_error like 'The server answered %' then 'http_status'
    when last_error like 'The response is larger than %' then 'too_large'
    when last_error like 'The content is not a feed we can read%' then 'parse'
    else 'other'
  end
  where last_error != '';

-- The summary's count of unreachable sources (those whose kind is app.FetchFailure.Unreachable)
-- reads this index alone (error_count is in it so that it covers the count): it holds only the
-- failing sources, by kind, so a source enters it when it starts failing and leaves it when a
-- fetch succeeds.
create index sources_unreachable_idx on sources (user_id, status, fetch_failure, error_count) where error_count > 0;
