-- 1: pastes, per-owner usage, tenants, tokens, shared rate buckets.
CREATE TABLE pastes (
    id                text PRIMARY KEY,
    created_at        bigint NOT NULL,
    expires_at        bigint,
    burn              boolean NOT NULL,
    encrypted         boolean NOT NULL,
    lang              text,
    name              text,
    content_type      text NOT NULL,
    size              bigint NOT NULL,
    delete_token_hash bytea NOT NULL,
    owner             text,
    visibility        text NOT NULL,
    redirect          text,
    body              bytea NOT NULL
);
-- Bodies are often already compressed or encrypted; pglz would mostly
-- burn CPU on them, so TOAST stores them out of line, uncompressed.
ALTER TABLE pastes ALTER COLUMN body SET STORAGE EXTERNAL;
CREATE INDEX pastes_expiry ON pastes (expires_at) WHERE expires_at IS NOT NULL;
CREATE INDEX pastes_owner ON pastes (owner, created_at DESC, id) WHERE owner IS NOT NULL;
CREATE TABLE owner_usage (
    owner  text PRIMARY KEY,
    bytes  bigint NOT NULL,
    pastes bigint NOT NULL
);
CREATE TABLE tenants (
    name            text PRIMARY KEY,
    created_at      bigint NOT NULL,
    max_bytes       bigint,
    max_paste_bytes bigint,
    rate_count      integer,
    rate_per_secs   integer,
    burst           integer
);
CREATE TABLE tokens (
    hash       bytea PRIMARY KEY,
    id         text NOT NULL UNIQUE,
    tenant     text NOT NULL REFERENCES tenants (name) ON DELETE CASCADE,
    read_only  boolean NOT NULL,
    created_at bigint NOT NULL,
    expires_at bigint
);
CREATE INDEX tokens_tenant ON tokens (tenant);
CREATE TABLE rate_buckets (
    key     text PRIMARY KEY,
    tat     bigint NOT NULL,
    allowed boolean NOT NULL
);
