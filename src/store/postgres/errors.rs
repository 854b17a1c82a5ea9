//! How driver and pool errors become [`StoreError`]s: a lost or refused
//! connection is [`StoreError::Unavailable`] (a `503` the client may retry),
//! anything else a backend error.

use tokio_postgres::error::SqlState;

use super::StoreError;

/// Maps a driver error: lost or refused connections mean the database is unavailable.
pub fn db_error(e: tokio_postgres::Error) -> StoreError {
    match e.code() {
        Some(code) if is_unavailable(code) => StoreError::Unavailable(e.to_string()),
        Some(_) => StoreError::Backend(e.to_string()),
        // No SQLSTATE: a lost link (closed connection, I/O, connect timeout), or
        // a value that does not convert, which is a bug rather than an outage.
        None if e.is_closed() || is_io(&e) => StoreError::Unavailable(e.to_string()),
        None => StoreError::Backend(e.to_string()),
    }
}

/// Whether the error comes from the socket (including connect timeouts).
fn is_io(e: &tokio_postgres::Error) -> bool {
    let mut source = std::error::Error::source(e);
    while let Some(inner) = source {
        if inner.is::<std::io::Error>() {
            return true;
        }
        source = inner.source();
    }
    let text = e.to_string();
    text.contains("timeout") || text.contains("connect")
}

/// Connection exceptions (class 08), shutdowns and "cannot connect now" (class 57P).
fn is_unavailable(code: &SqlState) -> bool {
    let code = code.code();
    code.starts_with("08")
        || code.starts_with("57P")
        || code == SqlState::TOO_MANY_CONNECTIONS.code()
}

pub fn pool_error(e: deadpool_postgres::PoolError) -> StoreError {
    match e {
        deadpool_postgres::PoolError::Backend(e) => db_error(e),
        other => StoreError::Unavailable(other.to_string()),
    }
}
