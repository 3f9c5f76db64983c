-- Learning from the reader (issue 12): what each user told Morning Deck about items, explicitly
-- ("more like this", "less like this") or by reading (opened, starred, hidden, read to the end,
-- marked read unopened), with the item's features as they were when the event happened, so the
-- per-user model can be retrained from the events alone; and the model itself, per user.
create table feedback_events (
	id integer primary key,
	user_id integer not null references users(id) on delete cascade,
	item_id integer references items(id) on delete set null,
	signal text not null,
	features text not null default '[]', -- JSON [[key, label], …]
	created_at text not null
);
-- One event per item and signal: opening an item twice says no more than once.
create unique index feedback_events_item_signal on feedback_events (user_id, item_id, signal);
create index feedback_events_user on feedback_events (user_id, id);

create table reading_models (
	user_id integer primary key references users(id) on delete cascade,
	model text not null default '',
	version integer not null default 0,   -- bumped at every retrain
	rescored integer not null default 0,  -- the version the user's unread items were scored with
	updated_at text not null
);

-- The topics an item's source usually has, for an item that matches none of the user's topics:
-- a briefing or filter by topic may include it, the UI shows them as "usually …"; they are never
-- the item's own topics.
alter table items add column usual_topics text not null default '[]';
