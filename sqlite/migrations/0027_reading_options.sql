-- Reading options of Settings (issue 28): mark items read as they scroll past (off by
-- default) and the list's density ('' comfortable, 'compact').
alter table users add column mark_read_on_scroll integer not null default 0;
alter table users add column density text not null default '';
