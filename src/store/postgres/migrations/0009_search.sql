-- 9: searching a tenant's pastes (`core::search`): the searchable words of
-- a paste with an owner, weighted A (its names), B (its languages) and D
-- (its text), as snip computes them (the body may be compressed or
-- encrypted, which SQL cannot see into), with a GIN index over them. NULL
-- for pastes without an owner, which no search reaches; rows written before
-- this migration are filled in at start (`postgres/search.rs`).
ALTER TABLE pastes
    ADD COLUMN search tsvector;
CREATE INDEX pastes_search ON pastes USING gin (search);
-- The rows still to fill in: empty once they are, so every start finds
-- that out at once.
CREATE INDEX pastes_unsearched ON pastes (id) WHERE owner IS NOT NULL AND search IS NULL;
-- The vector of a paste's words (each argument words joined by spaces, which
-- the 'simple' configuration keeps as they are: no stemming, no stop words).
-- STRICT: NULL in (a paste without an owner), NULL out.
CREATE FUNCTION snip_search_vector(names text, langs text, content text)
    RETURNS tsvector
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    AS $$
        SELECT setweight(to_tsvector('simple', names), 'A')
            || setweight(to_tsvector('simple', langs), 'B')
            || to_tsvector('simple', content)
    $$;
