-- A briefing can follow a topic (items classified under it) instead of, or within, chosen sources.
alter table briefings add column topic text not null default '';
