-- 5: several files in one paste (`core::files`): a several-file paste's
-- file table, as the JSON of its `files` (name, size, lang, content_type
-- of each file, in body order). `NULL` for a one-file paste, and for every
-- row written before.
ALTER TABLE pastes
    ADD COLUMN files text;
