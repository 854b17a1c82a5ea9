-- 6: the person behind a session opened through OpenID Connect (both NULL
-- for a session opened with a token).
ALTER TABLE sessions ADD COLUMN subject text, ADD COLUMN person_name text;
