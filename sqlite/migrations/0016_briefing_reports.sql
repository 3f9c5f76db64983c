-- Issue 13: a "Run now" writes a preview report that does not move the briefing's schedule;
-- a briefing can mark a report's items read when the report is opened; a secret of this
-- installation signs the one-click unsubscribe links of report emails.
alter table reports add column preview integer not null default 0;
alter table briefings add column mark_read integer not null default 0;
insert into app_secrets (name, value) values ('unsubscribe', randomblob(32));
