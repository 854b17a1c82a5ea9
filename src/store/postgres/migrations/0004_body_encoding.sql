-- 4: bodies compressed at rest (`codec`): how `body` encodes the paste's
-- body. Rows written before hold the body itself. `body` keeps
-- `STORAGE EXTERNAL`: snip compresses what is worth it, so PostgreSQL
-- need not try again.
ALTER TABLE pastes
    ADD COLUMN body_encoding text NOT NULL DEFAULT 'identity'
        CHECK (body_encoding IN ('identity', 'zstd'));
