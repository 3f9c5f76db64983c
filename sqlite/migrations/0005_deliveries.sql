-- One email delivery per (report, recipient).
create table deliveries (
  id integer primary key,
  report_id integer not null references reports (id) on delete cascade,
  recipient text not null,
  status text not null default 'PENDING' check (status in ('PENDING', 'SENDING', 'SENT', 'FAILED', 'SKIPPED')),
  attempts integer not null default 0,
  last_error text not null default '',
  sent_at text,
  created_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ')),
  unique (report_id, recipient)
) strict;
