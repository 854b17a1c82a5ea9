//! The PostgreSQL schema and its versioned migrations.
//!
//! Migrations are the numbered `.sql` files of `migrations/`, compiled in,
//! and applied in order, each in the same transaction
//! that records it in `snip_migrations`. The whole run holds a transaction-level
//! advisory lock, so when several instances start at once one migrates and the
//! others wait, then find nothing left to do. A database migrated by a newer
//! snip (a version this binary does not know) is refused rather than guessed at.

use deadpool_postgres::ClientWrapper;

use super::{StoreError, db_error};

/// Advisory lock key: "snip" in ASCII, so it does not collide with other applications' keys.
const MIGRATION_LOCK: i64 = 0x736e_6970;

/// A migration's file in `migrations/`, by name without `.sql`, with its SQL.
macro_rules! migration {
    ($name:literal) => {
        ($name, include_str!(concat!("migrations/", $name, ".sql")))
    };
}

/// The migrations, in order: each file's name starts with its version,
/// which is its position here plus one. Never edit one that has shipped:
/// add a new file, and list it here.
const MIGRATIONS: &[(&str, &str)] = &[
    migration!("0001_pastes_accounts_rates"),
    migration!("0002_proof_of_key"),
    migration!("0003_sessions"),
    migration!("0004_body_encoding"),
    migration!("0005_files"),
    migration!("0006_session_person"),
    migration!("0007_tenant_programs"),
    migration!("0008_paste_author"),
    migration!("0009_search"),
    migration!("0010_session_grant"),
    migration!("0011_search_table"),
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
    for (index, (_, sql)) in MIGRATIONS.iter().enumerate().skip(current as usize) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file of `migrations/` is listed, in the order of the numbers
    /// its name starts with, and each number is the version it is recorded as.
    #[test]
    fn migrations_are_the_numbered_files_in_order() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store/postgres/migrations");
        let mut files: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        files.sort();
        let listed: Vec<String> = MIGRATIONS
            .iter()
            .map(|(name, _)| format!("{name}.sql"))
            .collect();
        assert_eq!(files, listed);
        for (index, (name, sql)) in MIGRATIONS.iter().enumerate() {
            let number: i64 = name[..4].parse().unwrap();
            assert_eq!(number, index as i64 + 1, "{name}");
            assert!(!sql.trim().is_empty(), "{name}");
        }
    }
}
