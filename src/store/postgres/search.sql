-- A page of an owner's live pastes matching a search, best first (`search.rs`).
-- $1 owner, $2 the query's words joined by spaces (every one must match),
-- $3 now, $4 most rows, $5 rows to skip (the cursor's position).
-- ts_rank weighs a word in a name (A) most, then in a language (B), then in
-- the text (D); ties go to the newest paste.
SELECT {META_COLUMNS}
FROM pastes, websearch_to_tsquery('simple', $2) AS query
WHERE owner = $1
  AND search @@ query
  AND (expires_at IS NULL OR expires_at > $3)
ORDER BY ts_rank(search, query) DESC, created_at DESC, id
LIMIT $4 OFFSET $5
