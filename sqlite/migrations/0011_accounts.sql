-- Accounts for exposure beyond localhost: passwords (bcrypt), sessions and API tokens. Tokens
-- are stored as SHA-256 hashes only. In local mode the default user (id 1) has no password.
alter table users add column password_hash text not null default '';
alter table users add column is_admin integer not null default 0;
update users set is_admin = 1 where id = 1;

create table sessions (
  token_hash text primary key,
  user_id integer not null references users (id) on delete cascade,
  created_at text not null,
  expires_at text not null
) strict;
create index sessions_user_idx on sessions (user_id);
create index sessions_expires_idx on sessions (expires_at);

create table api_tokens (
  id integer primary key,
  user_id integer not null references users (id) on delete cascade,
  name text not null,
  token_hash text not null unique,
  created_at text not null,
  last_used_at text
) strict;
create index api_tokens_user_idx on api_tokens (user_id);

-- A random secret of this installation: it derives the briefings' feed tokens.
create table app_secrets (
  name text primary key,
  value blob not null
) strict;
insert into app_secrets (name, value) values ('feed', randomblob(32));
