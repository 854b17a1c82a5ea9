-- 3: browser sessions; revoking a token (or deleting its tenant) deletes them.
CREATE TABLE sessions (
    hash       bytea PRIMARY KEY,
    token_hash bytea NOT NULL REFERENCES tokens (hash) ON DELETE CASCADE,
    created_at bigint NOT NULL,
    expires_at bigint NOT NULL
);
CREATE INDEX sessions_token ON sessions (token_hash);
