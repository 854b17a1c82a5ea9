//! How driver and pool errors become [`StoreError`]s: a lost or refused
//! connection is [`StoreError::Unavailable`] (a `503` the client may retry),
//! anything else a backend error. Either keeps the driver's error as its cause.

use tokio_postgres::error::SqlState;

use super::StoreError;
use crate::store::BackendError;

/// Maps a driver error: lost or refused connections mean the database is unavailable.
pub fn db_error(e: tokio_postgres::Error) -> StoreError {
    let unavailable = match e.code() {
        Some(code) => is_unavailable(code),
        // No SQLSTATE: a lost link (closed connection, I/O, connect timeout), or
        // a value that does not convert, which is a bug rather than an outage.
        None => e.is_closed() || is_io(&e),
    };
    let kept = BackendError::from_cause(e);
    if unavailable {
        StoreError::Unavailable(kept)
    } else {
        StoreError::Backend(kept)
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

/// Maps a pool error: failing to get a connection in time means the database is unavailable.
pub fn pool_error(e: deadpool_postgres::PoolError) -> StoreError {
    match e {
        deadpool_postgres::PoolError::Backend(e) => db_error(e),
        other => StoreError::Unavailable(BackendError::from_cause(other)),
    }
}
