-- 8: people. The person who created a paste, when a person signed in through the
-- identity provider did (`PasteMeta::author`): the subject (`sub`) and the
-- display name at creation. Both NULL for every other paste, and for every
-- row written before. `visibility` takes `me` (only the author) beside
-- `unlisted` and `private` (the tenant, shown as `team`).
ALTER TABLE pastes
    ADD COLUMN author_subject text,
    ADD COLUMN author_name text;

-- The identity provider's group whose members sign in to a tenant (NULL:
-- the group named like the tenant).
ALTER TABLE tenants
    ADD COLUMN oidc_group text;
