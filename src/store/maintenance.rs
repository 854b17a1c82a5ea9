//! Keeping a store in shape and reporting on it: [`Maintenance`] — sweeping
//! expired pastes, walking every paste for a backup, health, the figures
//! read at every metrics scrape, and closing.

use async_trait::async_trait;

use super::StoreError;
use crate::core::{PasteMeta, UnixTime};

/// What a sweep removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SweepReport {
    /// Expired pastes deleted.
    pub removed: usize,
    /// Their body bytes.
    pub bytes: u64,
    /// Nothing is left that a later sweep could do until the store is
    /// written again: no paste expires, no browser session is stored, no
    /// space waits to be given back ([`Maintenance::sweep_work`]).
    pub settled: bool,
}

/// One page of [`Maintenance::scan`].
#[derive(Debug, Clone, Default)]
pub struct ScanPage {
    /// The live pastes' metadata.
    pub pastes: Vec<PasteMeta>,
    /// Pass as `from` to get the next page; `None` on the last page.
    pub next: Option<String>,
}

/// What a store's own coherent cache holds and has done (PostgreSQL's, kept
/// coherent by notifications), read at every metrics scrape.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Pastes cached.
    pub pastes: u64,
    /// Tokens cached.
    pub tokens: u64,
    /// Tenants cached.
    pub tenants: u64,
    /// Invalidations received from other instances (and this one).
    pub invalidations: u64,
    /// Times the listener started listening and emptied the cache.
    pub listens: u64,
    /// Whether the cache may be served now, or will be at the next read
    /// (its listener waits for one, its last ping answered in time).
    pub trusted: bool,
}

/// Sweeping, scanning, health, figures and closing.
#[async_trait]
pub trait Maintenance: Send + Sync + 'static {
    /// Deletes up to `limit` pastes expired at `now`, oldest expiry first, and
    /// gives their space back.
    async fn sweep(&self, now: UnixTime, limit: usize) -> Result<SweepReport, StoreError>;

    /// Resolves at the first write that may give a settled store
    /// ([`SweepReport::settled`]) something to sweep. Never, by default: a
    /// store that cannot tell (other instances write to it) never reports
    /// settled either.
    async fn sweep_work(&self) {
        std::future::pending().await
    }

    /// Up to `limit` live pastes' metadata, in the store's own order, from
    /// the cursor of the page before (`None`: the first page): how backups
    /// and migrations walk a store while it serves. A paste stored for the
    /// whole walk is in exactly one page.
    async fn scan(
        &self,
        from: Option<&str>,
        limit: usize,
        now: UnixTime,
    ) -> Result<ScanPage, StoreError>;

    /// Checks that the backend can serve requests (`GET /readyz`): really
    /// touches it (a read, a probe write, a round trip), cheaply.
    async fn ping(&self) -> Result<(), StoreError>;

    /// Resolves once the store takes no more writes until it is opened
    /// again (the embedded store after a failed journal write: fjall is
    /// poisoned), with why; never, by default. The server then exits, for
    /// its supervisor to start it again.
    async fn broken(&self) -> StoreError {
        std::future::pending().await
    }

    /// Body bytes of all stored pastes (the quantity the storage limit bounds).
    fn used_bytes(&self) -> u64;

    /// Number of stored pastes, expired ones included until they are swept.
    /// Read at every metrics scrape, so it must be cheap (a counter, not a scan).
    fn stored_pastes(&self) -> u64;

    /// The figures of the store's own coherent cache, read at every metrics
    /// scrape; `None` for a store without one (the embedded store's paste
    /// cache needs no coherence and reports nothing).
    fn cache_stats(&self) -> Option<CacheStats>;

    /// Makes everything written so far durable and releases the backend.
    async fn close(&self) -> Result<(), StoreError>;
}
