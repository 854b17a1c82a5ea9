//! The PostgreSQL schema and its versioned migrations.
//!
//! Migrations are numbered and applied in order, each in the same transaction
//! that records it in `snip_migrations`. The whole run holds a transaction-level
//! advisory lock, so when several instances start at once one migrates and the
//! others wait, then find nothing left to do. A database migrated by a newer
//! snip (a version this binary does not know) is refused rather than guessed at.

use deadpool_postgres::ClientWrapper;

use super::{StoreError, db_error};

/// Advisory lock key: "snip" in ASCII, so it does not collide with other applications' keys.
const MIGRATION_LOCK: i64 = 0x736e_6970;

/// The migrations, in order; the version of each is its position plus one.
/// Never edit one that has shipped: add a new one.
const MIGRATIONS: &[&str] = &[
    // 1: pastes, per-owner usage, tenants, tokens, shared rate buckets.
    "CREATE TABLE pastes (
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
     );",
    // 2: proof of key (docs/envelope.md): the verifier and the public
    // key-derivation parameters; NULL for pastes without one.
    "ALTER TABLE pastes
        ADD COLUMN proof_verifier   bytea,
        ADD COLUMN proof_iterations integer,
        ADD COLUMN proof_salt       bytea;",
    // 3: browser sessions; revoking a token (or deleting its tenant) deletes them.
    "CREATE TABLE sessions (
        hash       bytea PRIMARY KEY,
        token_hash bytea NOT NULL REFERENCES tokens (hash) ON DELETE CASCADE,
        created_at bigint NOT NULL,
        expires_at bigint NOT NULL
     );
     CREATE INDEX sessions_token ON sessions (token_hash);",
    // 4: bodies compressed at rest (`codec`): how `body` encodes the paste's
    // body. Rows written before hold the body itself. `body` keeps
    // `STORAGE EXTERNAL`: snip compresses what is worth it, so PostgreSQL
    // need not try again.
    "ALTER TABLE pastes
        ADD COLUMN body_encoding text NOT NULL DEFAULT 'identity'
            CHECK (body_encoding IN ('identity', 'zstd'));",
];

/// The schema version this binary writes.
pub const VERSION: i64 = MIGRATIONS.len() as i64;

/// Creates `schema` if needed and brings it to [`VERSION`].
pub async fn migrate(client: &mut ClientWrapper, schema: Option<&str>) -> Result<(), StoreError> {
    let tx = client.transaction().await.map_err(db_error)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(db_error)?;
    if let Some(schema) = schema {
        // The name was validated (`[a-z_][a-z0-9_]*`), so quoting it is enough.
        tx.batch_execute(&format!("CREATE SCHEMA IF NOT EXISTS \"{schema}\""))
            .await
            .map_err(db_error)?;
    }
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS snip_migrations (
            version    bigint PRIMARY KEY,
            applied_at timestamptz NOT NULL DEFAULT now()
         )",
    )
    .await
    .map_err(db_error)?;
    let current: i64 = tx
        .query_one("SELECT coalesce(max(version), 0) FROM snip_migrations", &[])
        .await
        .map_err(db_error)?
        .get(0);
    if current > VERSION {
        return Err(StoreError::backend(format!(
            "the database schema is at version {current}, newer than this snip knows ({VERSION}); upgrade snip"
        )));
    }
    for (index, sql) in MIGRATIONS.iter().enumerate().skip(current as usize) {
        let version = index as i64 + 1;
        tx.batch_execute(sql).await.map_err(db_error)?;
        tx.execute(
            "INSERT INTO snip_migrations (version) VALUES ($1)",
            &[&version],
        )
        .await
        .map_err(db_error)?;
        tracing::info!(version, "applied database migration");
    }
    tx.commit().await.map_err(db_error)
}

/// Checks a schema name: it is put into SQL text, so only a safe alphabet passes.
pub fn validate_schema(name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let ok = (1..=63).contains(&name.len())
        && chars
            .next()
            .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{name:?} is not a schema name: 1 to 63 characters of a-z, 0-9 and _, not starting with a digit"
        ))
    }
}
