-- 11: the search vectors move out of `pastes` into a table of their own, one
-- row per paste with an owner, holding only what a search's first step
-- reads: the owner, the dates and the vector, kept in the row (STORAGE
-- MAIN: compressed there before it is moved out of it). A search walks or
-- bitmap-scans these narrow rows, not `pastes`' wide ones with their
-- bodies, and ranks vectors without a read of the TOAST table for each
-- (docs/design.md, Search). A row goes when its paste does (ON DELETE
-- CASCADE); a paste's dates never change. `words` is NULL for a paste
-- stored before migration 9 and not yet filled in at start
-- (`postgres/search.rs`), which an index of those rows finds at once.
CREATE TABLE paste_search (
    id text PRIMARY KEY REFERENCES pastes (id) ON DELETE CASCADE,
    owner text NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint,
    words tsvector
);
ALTER TABLE paste_search ALTER COLUMN words SET STORAGE MAIN;
INSERT INTO paste_search (id, owner, created_at, expires_at, words)
    SELECT id, owner, created_at, expires_at, search FROM pastes WHERE owner IS NOT NULL;
CREATE INDEX paste_search_newest ON paste_search (owner, created_at DESC, id);
CREATE INDEX paste_search_words ON paste_search USING gin (words);
CREATE INDEX paste_search_unfilled ON paste_search (id) WHERE words IS NULL;
-- Drops pastes_search and pastes_unsearched with it.
ALTER TABLE pastes DROP COLUMN search;
