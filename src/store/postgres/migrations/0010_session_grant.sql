-- 10: what the identity provider said of a signed-in person, kept with the
-- session: their groups, the tenants those allowed at sign-in (the session's
-- and those it may switch to), the refresh token that asks the provider
-- again, and when it was last asked (all NULL for a session opened with a
-- token). A person in no tenant's group has a session without a token.
ALTER TABLE sessions
    ALTER COLUMN token_hash DROP NOT NULL,
    ADD COLUMN groups text[],
    ADD COLUMN tenants text[],
    ADD COLUMN refresh_token text,
    ADD COLUMN checked_at bigint;
