-- 2: proof of key (docs/envelope.md): the verifier and the public
-- key-derivation parameters; NULL for pastes without one.
ALTER TABLE pastes
    ADD COLUMN proof_verifier   bytea,
    ADD COLUMN proof_iterations integer,
    ADD COLUMN proof_salt       bytea;
