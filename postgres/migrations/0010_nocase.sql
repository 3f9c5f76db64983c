-- SQLite's `collate nocase` folds ASCII letters only; lower() folded every letter, so two
-- folders "É" and "é" of one SQLite database could not both be migrated (the unique index on
-- lower(name) refused the second), and a user "émile" was found by the name "Émile", which
-- SQLite's store refuses. md_nocase is collate nocase, as a function: the same names are the same
-- on both engines.
create function md_nocase(t text) returns text
  language sql immutable strict parallel safe
  return translate(t, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz');

drop index folders_user_name_idx;
create unique index folders_user_name_idx on folders (user_id, md_nocase(name));
drop index users_lower_name_idx;
create index users_nocase_name_idx on users (md_nocase(name));
