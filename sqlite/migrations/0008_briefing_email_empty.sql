-- A briefing can ask for its email even when the period brought nothing new.
alter table briefings add column email_empty integer not null default 0;
