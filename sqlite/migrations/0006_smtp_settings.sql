-- SMTP can be set per user in the UI; empty values fall back to the flags and environment.
alter table users add column smtp_host text not null default '';
alter table users add column smtp_port integer not null default 0;
alter table users add column smtp_username text not null default '';
alter table users add column smtp_password text not null default '';
alter table users add column smtp_from text not null default '';
alter table users add column smtp_tls text not null default '';
