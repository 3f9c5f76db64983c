-- Saving items elsewhere (issue 28; SQLite's 0029): each user's webhook (its address and the
-- secret that signs what it receives) and Wallabag account. The client secret and password are
-- read only to sign in to Wallabag; no page, API answer or export shows them.
alter table users add column webhook_url text not null default '';
alter table users add column webhook_secret text not null default '';
alter table users add column wallabag_url text not null default '';
alter table users add column wallabag_client_id text not null default '';
alter table users add column wallabag_client_secret text not null default '';
alter table users add column wallabag_username text not null default '';
alter table users add column wallabag_password text not null default '';
