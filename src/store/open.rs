//! Choosing and opening a backend from `--store`: the one place that knows
//! which strings mean which store.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::{
    Durability, EmbeddedOptions, EmbeddedStore, PostgresOptions, PostgresStore, Store, StoreError,
};

/// Where the pastes live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// The embedded store in this directory.
    Embedded(PathBuf),
    /// A PostgreSQL database (`postgres://` or `postgresql://` URL).
    Postgres(String),
}

impl Location {
    /// `postgres://…` and `postgresql://…` are databases; anything else is a directory.
    pub fn parse(text: &str) -> Self {
        let lower = text.trim().to_ascii_lowercase();
        if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
            Self::Postgres(text.trim().to_owned())
        } else {
            Self::Embedded(PathBuf::from(text))
        }
    }

    /// A description for logs and errors that never shows a password.
    pub fn describe(&self) -> String {
        match self {
            Self::Embedded(dir) => dir.display().to_string(),
            Self::Postgres(url) => redact(url),
        }
    }

    /// When a write is acknowledged, in words, for the startup line.
    pub fn describe_durability(&self, durability: Durability) -> &'static str {
        match (self, durability) {
            (Self::Postgres(_), _) => "once PostgreSQL has committed it",
            (Self::Embedded(_), Durability::Os) => {
                "once the OS has it: survives a crash of snip, not a power loss (--sync for that)"
            }
            (Self::Embedded(_), Durability::Fsync) => "once it is fsynced: survives a power loss",
        }
    }
}

impl std::str::FromStr for Location {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Self::parse(s))
    }
}

/// The URL without its secrets, for logs and errors:
/// `postgres://user:secret@host/db?password=secret` →
/// `postgres://user:***@host/db?password=***`. A URL that does not parse
/// is not shown at all: where its password is cannot be told.
fn redact(text: &str) -> String {
    const HIDDEN: &str = "***";
    let Ok(mut url) = url::Url::parse(text) else {
        return "(a PostgreSQL URL that does not parse)".to_owned();
    };
    if url.password().is_some() {
        // Fails only for a URL without a host, which has no password either.
        let _ = url.set_password(Some(HIDDEN));
    }
    if url.query_pairs().any(|(key, _)| key == "password") {
        let pairs: Vec<(String, String)> = url
            .query_pairs()
            .map(|(key, value)| {
                let value = if key == "password" {
                    HIDDEN.into()
                } else {
                    value.into_owned()
                };
                (key.into_owned(), value)
            })
            .collect();
        url.query_pairs_mut().clear().extend_pairs(pairs);
    }
    url.to_string()
}

/// Settings for whichever backend [`open`] picks.
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// Refuse new pastes once bodies take this many bytes.
    pub max_bytes: Option<u64>,
    /// Embedded: acknowledgement level of writes.
    pub durability: Durability,
    /// Memory for caches: the embedded store's block cache and decoded
    /// pastes, PostgreSQL's cached pastes.
    pub cache_bytes: u64,
    /// PostgreSQL: keep the tables in this schema.
    pub schema: Option<String>,
    /// PostgreSQL: most connections.
    pub pool_size: usize,
    /// PostgreSQL: longest wait for a connection before failing with "unavailable".
    pub timeout: Duration,
}

impl Default for OpenOptions {
    fn default() -> Self {
        Self {
            max_bytes: None,
            durability: Durability::Os,
            cache_bytes: 16 << 20,
            schema: None,
            pool_size: 16,
            timeout: Duration::from_secs(5),
        }
    }
}

/// Opens the store at `location`.
pub async fn open(
    location: &Location,
    options: &OpenOptions,
) -> Result<Arc<dyn Store>, StoreError> {
    Ok(match location {
        Location::Embedded(dir) => Arc::new(EmbeddedStore::open(
            dir,
            EmbeddedOptions {
                durability: options.durability,
                max_bytes: options.max_bytes,
                cache_bytes: options.cache_bytes,
            },
        )?),
        Location::Postgres(url) => Arc::new(
            PostgresStore::open(PostgresOptions {
                url: url.clone(),
                schema: options.schema.clone(),
                pool_size: options.pool_size,
                timeout: options.timeout,
                max_bytes: options.max_bytes,
                cache_bytes: options.cache_bytes,
            })
            .await?,
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// URLs select PostgreSQL, anything else a directory; descriptions hide passwords.
    #[test]
    fn locations() {
        assert_eq!(
            Location::parse("./snip-data"),
            Location::Embedded("./snip-data".into())
        );
        assert!(matches!(
            Location::parse("PostgreSQL://db/snip"),
            Location::Postgres(_)
        ));
        assert_eq!(
            Location::parse("postgres://snip:hunter2@db:5432/snip?sslmode=disable").describe(),
            "postgres://snip:***@db:5432/snip?sslmode=disable"
        );
        assert_eq!(
            Location::parse("postgres://snip@db/snip").describe(),
            "postgres://snip@db/snip"
        );
        assert_eq!(
            Location::parse("postgresql://db/snip?user=snip&password=hunter2").describe(),
            "postgresql://db/snip?user=snip&password=***"
        );
        assert_eq!(
            Location::parse("postgres://snip:p%40ss@db").describe(),
            "postgres://snip:***@db"
        );
        assert!(
            !Location::parse("postgres://snip:hunter2@[db")
                .describe()
                .contains("hunter2")
        );
    }
}
