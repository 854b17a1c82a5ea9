-- A page of an owner's live pastes matching a search, best first (`search.rs`).
-- $1 owner, $2 the query's words joined by spaces (every one must match),
-- $3 now, $4 most rows, $5 rows to skip (the cursor's position), $6 most
-- matches ranked.
-- Only the newest $6 matches are ranked: ranking reads each candidate's
-- vector, so a word found in most of a large tenant's pastes would cost a
-- read of every one. The planner finds the newest matches in the narrow
-- rows of paste_search (migration 11) by walking paste_search_newest
-- newest first (a common word matches early) or through the GIN index (a
-- rarer word, fewer rows): which is faster depends on the words, so the
-- statement is planned for each search's own ($2), never once for all
-- (`search.rs` sends it unprepared).
-- Ranking uses the vectors the first step read, and only the page's rows
-- of pastes are read, for their metadata.
-- ts_rank weighs a word in a name (A) most, then in a language (B), then in
-- the text (D); ties go to the newest paste.
WITH candidates AS (
    SELECT id, created_at, words
    FROM paste_search, websearch_to_tsquery('simple', $2) AS query
    WHERE owner = $1
      AND words @@ query
      AND (expires_at IS NULL OR expires_at > $3)
    ORDER BY created_at DESC
    LIMIT $6
), ranked AS (
    SELECT id AS hit, created_at AS made, ts_rank(words, query) AS rank
    FROM candidates, websearch_to_tsquery('simple', $2) AS query
    ORDER BY rank DESC, made DESC, hit
    LIMIT $4 OFFSET $5
)
SELECT {META_COLUMNS}
FROM ranked JOIN pastes ON pastes.id = ranked.hit
ORDER BY rank DESC, made DESC, hit
