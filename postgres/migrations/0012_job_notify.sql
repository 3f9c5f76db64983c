-- Several instances on one database: a message goqite makes visible now (sent without a delay) is
-- announced on the channel morningdeck_jobs when its transaction commits, its payload the queue's
-- name (a lane's "#n" cut off). Every instance LISTENs there (postgres.DB.OnSent) and wakes that
-- queue's receiver, which would otherwise find the message at its next idle poll, up to
-- queue.Options.IdlePoll (8 s) later. PostgreSQL delivers the notifications of one transaction
-- with one payload once, so a transaction sending a thousand jobs announces its queue once.
-- A message sent with a delay (a retry after its backoff) is not announced: it is found by the
-- polls. This is no queue operation of ours beside goqite: goqite's rows are only read here.
create function md_job_notify() returns trigger
  language plpgsql
  as $$
begin
  if new.timeout <= clock_timestamp() + interval '1 second' then
    perform pg_notify('morningdeck_jobs', split_part(new.queue, '#', 1));
  end if;
  return null;
end;
$$;

create trigger goqite_notify after insert on goqite
  for each row execute function md_job_notify();
