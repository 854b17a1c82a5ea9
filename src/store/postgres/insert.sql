-- A paste with an owner or an author (`insert.rs`), in one statement: the
-- paste, its row of paste_search if it has an owner (migration 11), and
-- its bytes added to its owner's usage.
-- $1 to $21 the columns of pastes, $22 to $24 snip_search_vector's words
-- (migration 9), $25 the owner's quota in bytes.
-- The owner's usage row is written last: every create of a tenant updates
-- it and holds it until its commit, so the tenant's creates wait for each
-- other only through this statement's end and the commit, not through
-- writing the paste.
-- Answers how many pastes were inserted (0: the ID is taken) and how many
-- usage rows took the paste (0 for a paste with an owner: over its quota,
-- and the caller rolls back).
WITH paste AS (
    INSERT INTO pastes (id, created_at, expires_at, burn, encrypted, lang, name,
        content_type, size, delete_token_hash, owner, visibility, redirect, body,
        proof_verifier, proof_iterations, proof_salt, body_encoding, files,
        author_subject, author_name)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
        $17, $18, $19, $20, $21)
    ON CONFLICT (id) DO NOTHING
    RETURNING id, owner, created_at, expires_at, size
), searchable AS (
    INSERT INTO paste_search (id, owner, created_at, expires_at, words)
    SELECT id, owner, created_at, expires_at, snip_search_vector($22, $23, $24)
    FROM paste WHERE owner IS NOT NULL
), usage AS (
    INSERT INTO owner_usage AS u (owner, bytes, pastes)
    SELECT owner, size, 1 FROM paste WHERE owner IS NOT NULL
    ON CONFLICT (owner) DO UPDATE SET bytes = u.bytes + excluded.bytes, pastes = u.pastes + 1
    WHERE u.bytes + excluded.bytes <= $25
    RETURNING 1
)
SELECT (SELECT count(*) FROM paste), (SELECT count(*) FROM usage)
