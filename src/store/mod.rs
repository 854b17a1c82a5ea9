//! Storage: the [`Store`] trait the HTTP layer talks to, and its backends.
//!
//! Every operation that must be atomic (create-if-absent with a storage
//! limit, read-and-delete for burn pastes) is a single trait method, so each
//! backend can make it atomic in its own way: the embedded store with a
//! per-ID lock and one write batch, a SQL store with one statement.
//!
//! Stores check expiry themselves against the `now` they are given, so an
//! expired paste is never returned, even before the sweeper removes it.

use async_trait::async_trait;
use bytes::Bytes;

use crate::core::{PasteId, PasteMeta, UnixTime};

pub mod embedded;
mod group_commit;

pub use embedded::{Durability, EmbeddedOptions, EmbeddedStore};

/// A paste's metadata and body, as read from a store.
#[derive(Debug, Clone)]
pub struct Paste {
    /// Everything but the body.
    pub meta: PasteMeta,
    /// The body bytes, shared with the store's cache where possible (no copy).
    pub body: Bytes,
}

/// What a sweep removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SweepReport {
    /// Expired pastes deleted.
    pub removed: usize,
    /// Their body bytes.
    pub bytes: u64,
}

/// Why a store operation failed.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A paste with this ID already exists (a random-ID collision; the caller retries).
    #[error("a paste with this ID already exists")]
    IdTaken,
    /// Storing the paste would pass the configured storage limit.
    #[error("the storage limit of {limit} bytes is reached")]
    Full {
        /// The configured limit in bytes.
        limit: u64,
    },
    /// Stored data could not be decoded.
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    /// The backend failed (I/O, engine error, unreachable database).
    #[error("storage backend error: {0}")]
    Backend(String),
}

impl From<fjall::Error> for StoreError {
    fn from(e: fjall::Error) -> Self {
        Self::Backend(e.to_string())
    }
}

/// The operations snip needs from a storage backend.
#[async_trait]
pub trait Store: Send + Sync + 'static {
    /// Stores a new paste. Fails with [`StoreError::IdTaken`] if the ID exists and
    /// [`StoreError::Full`] if the storage limit would be passed. Returns once the
    /// paste is as durable as the store is configured to make it.
    async fn put(&self, meta: PasteMeta, body: Bytes) -> Result<(), StoreError>;

    /// Reads a live paste (not expired at `now`).
    async fn get(&self, id: &PasteId, now: UnixTime) -> Result<Option<Paste>, StoreError>;

    /// Reads only a live paste's metadata.
    async fn meta(&self, id: &PasteId, now: UnixTime) -> Result<Option<PasteMeta>, StoreError>;

    /// Reads a live paste and deletes it in the same atomic step: of any number of
    /// concurrent callers, exactly one gets it.
    async fn take(&self, id: &PasteId, now: UnixTime) -> Result<Option<Paste>, StoreError>;

    /// Deletes a paste; `false` if there was none.
    async fn delete(&self, id: &PasteId) -> Result<bool, StoreError>;

    /// Deletes up to `limit` pastes expired at `now`, oldest expiry first, and
    /// gives their space back.
    async fn sweep(&self, now: UnixTime, limit: usize) -> Result<SweepReport, StoreError>;

    /// Body bytes of all stored pastes (the quantity the storage limit bounds).
    fn used_bytes(&self) -> u64;

    /// Makes everything written so far durable and releases the backend.
    async fn close(&self) -> Result<(), StoreError>;
}
