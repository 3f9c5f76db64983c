-- Briefings: scheduled reports of the best items, and the reports they produced.
create table briefings (
  id integer primary key,
  user_id integer not null references users (id) on delete cascade,
  name text not null,
  focus text not null default '',
  source_ids text not null default '[]', -- empty: every source
  frequency text not null default 'DAILY' check (frequency in ('DAILY', 'WEEKLY')),
  day_of_week integer not null default 1 check (day_of_week between 0 and 6),
  time_of_day text not null default '07:00',
  timezone text not null default 'UTC',
  item_limit integer not null default 10 check (item_limit between 1 and 100),
  min_score integer not null default 0 check (min_score between 0 and 100),
  email_enabled integer not null default 0,
  recipients text not null default '[]',
  status text not null default 'ACTIVE' check (status in ('ACTIVE', 'PAUSED', 'QUEUED', 'PROCESSING', 'ERROR')),
  last_executed_at text,
  status_changed_at text,
  last_error text not null default '',
  created_at text not null default (strftime('%Y-%m-%dT%H:%M:%fZ'))
) strict;

create index briefings_status_idx on briefings (status);

-- A report never changes once written: its items are copies, as they were at generation.
create table reports (
  id integer primary key,
  briefing_id integer not null references briefings (id) on delete cascade,
  user_id integer not null references users (id) on delete cascade,
  generated_at text not null,
  period_start text not null,
  period_end text not null,
  overview text not null default '',
  item_count integer not null default 0
) strict;

create index reports_briefing_idx on reports (briefing_id, generated_at desc);

create table report_items (
  report_id integer not null references reports (id) on delete cascade,
  rank integer not null,
  item_id integer references items (id) on delete set null,
  source_name text not null default '',
  title text not null,
  link text not null default '',
  summary text not null default '',
  score integer not null default 0,
  score_reasoning text not null default '',
  also_covered_by text not null default '[]', -- [{"title","link","source"}]
  primary key (report_id, rank)
) strict;
