//! Storage: the [`Store`] trait the HTTP layer talks to, and its backends.
//!
//! Every operation that must be atomic (create-if-absent with a storage
//! limit, read-and-delete for burn pastes) is a single trait method, so each
//! backend can make it atomic in its own way: the embedded store with a
//! per-ID lock and one write batch, a SQL store with one statement.
//!
//! Stores check expiry themselves against the `now` they are given, so an
//! expired paste is never returned, even before the sweeper removes it.

use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;
use bytes::Bytes;

use crate::core::envelope::Proof;
use crate::core::random::OsRandom;
pub use crate::core::tenant::Authority;
use crate::core::tenant::{SessionRecord, Tenant, TokenRecord};
use crate::core::{PasteId, PasteMeta, UnixTime};
use crate::metrics::CacheStats;

pub mod codec;
mod combiner;
mod cursor;
pub mod dump;
pub mod embedded;
mod error;
mod group_commit;
mod hot;
mod metered;
mod open;
mod opened;
pub mod postgres;
mod rates;
pub mod transfer;

pub use codec::{Encoding, NewBody};
pub use cursor::ListCursor;
pub use embedded::{Durability, EmbeddedOptions, EmbeddedStore};
pub use error::{BackendError, Cause, StoreError, is_disk_full};
pub use metered::MeteredStore;
pub use open::{Location, OpenOptions, open};
pub use opened::{BodyReader, Opened, OpenedBody, StoredBody};
pub use postgres::{PostgresOptions, PostgresStore};
pub use rates::{GcraOutcome, RateStore};

/// The failure to make a paste ID: the OS gave no randomness.
pub(crate) fn no_randomness(e: getrandom::Error) -> StoreError {
    StoreError::backend_caused("no randomness for a paste ID", e)
}

/// Runs `attempt`, each time with a new ID, until one is not taken, at most
/// four times; a taken ID is rare enough (a random collision, or a paste
/// restored from elsewhere holding a numbered ID) that four in a row mean
/// something is wrong, which `exhausted` says.
pub(crate) async fn create_with_free_id<Attempt, Stored>(
    mut attempt: Attempt,
    exhausted: &'static str,
) -> Result<String, StoreError>
where
    Attempt: FnMut() -> Stored,
    Stored: std::future::Future<Output = Result<String, StoreError>>,
{
    for _ in 0..4 {
        match attempt().await {
            Err(StoreError::IdTaken) => continue,
            stored => return stored,
        }
    }
    Err(StoreError::backend(exhausted))
}

/// Locks a mutex whose data stays consistent even if a holder panicked
/// (every critical section in the stores is a handful of updates).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// A paste's metadata and body, as read from a store.
#[derive(Debug, Clone)]
pub struct Paste {
    /// Everything but the body; shared, so that a cached paste is handed
    /// out without copying its strings.
    pub meta: Arc<PasteMeta>,
    /// The body bytes, shared with the store's cache where possible (no copy).
    pub body: Bytes,
    /// The body as the store keeps it, zstd-compressed, when it keeps it so
    /// (`codec`): served as it is to clients that accept zstd, and carried
    /// so by backups.
    pub compressed: Option<Bytes>,
}

/// The outcome of [`Store::take`].
#[derive(Debug, Clone)]
pub enum Taken {
    /// The paste, now deleted.
    Paste(Paste),
    /// No live paste has that ID.
    Absent,
    /// The paste asks for a proof of key that was missing or wrong; it is intact.
    Refused,
}

/// What an owner keeps.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Usage {
    /// Body bytes of live pastes.
    pub bytes: u64,
    /// Number of pastes.
    pub pastes: u64,
}

/// What a sweep removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SweepReport {
    /// Expired pastes deleted.
    pub removed: usize,
    /// Their body bytes.
    pub bytes: u64,
    /// Nothing is left that a later sweep could do until the store is
    /// written again: no paste expires, no browser session is stored, no
    /// space waits to be given back ([`Store::sweep_work`]).
    pub settled: bool,
}

/// Per-request conditions a `put` checks atomically with the write.
#[derive(Debug, Clone, Copy, Default)]
pub struct PutLimits {
    /// The owner's byte quota, if the paste has an owner with one.
    pub owner_max_bytes: Option<u64>,
    /// What authorised a paste with an owner: it is stored only if this
    /// still holds when it commits ([`Authority::holds`]), else the put
    /// fails with [`StoreError::AuthorityGone`]. `None` for writes the
    /// server makes on its own authority (a restore, a migration), which
    /// need only the owner to exist.
    pub authority: Option<Authority>,
}

/// Most index entries (pastes, expired and filtered-out ones included) one
/// [`Store::list`] call reads. A page whose filter matches little ends there,
/// short or even empty, with a `next_cursor` to go on from: one request's
/// cost stays bounded whatever a tenant keeps. Above the largest page (500),
/// so an unfiltered page of live pastes is always full.
pub const MAX_LIST_SCAN: usize = 1000;

/// A page request for [`Store::list`].
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    /// Continue after this cursor (from a previous page's `next_cursor`).
    pub cursor: Option<String>,
    /// Most pastes per page.
    pub limit: usize,
    /// Only pastes whose name starts with this.
    pub name_prefix: Option<String>,
}

/// One page of a listing, newest first.
#[derive(Debug, Clone, Default)]
pub struct ListPage {
    /// The pastes' metadata: at most the query's `limit`, fewer (even none)
    /// when the page ended at [`MAX_LIST_SCAN`].
    pub pastes: Vec<PasteMeta>,
    /// Pass as `cursor` to get the next page; `None` on the last page.
    pub next_cursor: Option<String>,
}

/// One page of [`Store::scan`].
#[derive(Debug, Clone, Default)]
pub struct ScanPage {
    /// The live pastes' metadata.
    pub pastes: Vec<PasteMeta>,
    /// Pass as `from` to get the next page; `None` on the last page.
    pub next: Option<String>,
}

/// The operations snip needs from a storage backend.
#[async_trait]
pub trait Store: Send + Sync + 'static {
    /// Stores a new paste under the ID `meta` names (a restore's). Fails with
    /// [`StoreError::IdTaken`] if the ID exists and [`StoreError::Full`] if
    /// the storage limit would be passed. Returns once the paste is as
    /// durable as the store is configured to make it. The body is stored as
    /// [`NewBody`] says: in the form given, or compressed by the codec's rules.
    async fn put(
        &self,
        meta: PasteMeta,
        body: NewBody,
        limits: PutLimits,
    ) -> Result<(), StoreError>;

    /// Stores a new paste, as [`Self::put`], under a new ID of `random_len`
    /// symbols (and a check symbol) that the store chooses; `meta.id` is
    /// ignored. Returns the ID. By default the ID is random, and another is
    /// tried if it is taken; a store may number its pastes instead.
    async fn create(
        &self,
        meta: PasteMeta,
        body: NewBody,
        limits: PutLimits,
        random_len: usize,
    ) -> Result<String, StoreError> {
        let mut random = OsRandom::new().map_err(no_randomness)?;
        // A collision needs ~2^29 pastes at the default length.
        create_with_free_id(
            || {
                let id = PasteId::generate_from(random_len, &mut random);
                let (mut meta, body) = (meta.clone(), body.clone());
                async move {
                    meta.id = id.map_err(no_randomness)?.to_string();
                    let id = meta.id.clone();
                    self.put(meta, body, limits).await.map(|()| id)
                }
            },
            "four random paste IDs in a row were taken; is --id-length too small?",
        )
        .await
    }

    /// Reads a live paste (not expired at `now`).
    async fn get(&self, id: &PasteId, now: UnixTime) -> Result<Option<Paste>, StoreError>;

    /// A live paste the store holds decoded in memory, without waiting: what
    /// [`Self::get`] would return, or `None` when that needs a lookup (always,
    /// for a store without such a cache). Callers fall back to `get`. It
    /// exists for the read path, where `get`'s boxed future (two, with
    /// [`MeteredStore`]) costs more than a cache hit itself.
    fn cached(&self, id: &PasteId, now: UnixTime) -> Option<Paste>;

    /// Opens a live paste for sending: what [`Self::get`] reads, except
    /// that a large body may be left as stored, to be read while it is sent
    /// ([`OpenedBody::Stored`]), and that a burn paste's body is not read at
    /// all ([`OpenedBody::Withheld`]: only [`Self::take`] reads it).
    async fn open(&self, id: &PasteId, now: UnixTime) -> Result<Option<Opened>, StoreError>;

    /// Reads only a live paste's metadata.
    async fn meta(&self, id: &PasteId, now: UnixTime) -> Result<Option<PasteMeta>, StoreError>;

    /// Reads a live paste and deletes it in the same atomic step: of any number of
    /// concurrent callers, exactly one gets it. A paste with a key check is
    /// taken only with the right `proof`, checked in that same step; with a
    /// missing or wrong one it stays, and the answer is [`Taken::Refused`].
    async fn take(
        &self,
        id: &PasteId,
        proof: Option<&Proof>,
        now: UnixTime,
    ) -> Result<Taken, StoreError>;

    /// Lists the live pastes of `owner`, newest first, reading at most
    /// [`MAX_LIST_SCAN`] of them, off the async workers.
    async fn list(
        &self,
        owner: &str,
        query: &ListQuery,
        now: UnixTime,
    ) -> Result<ListPage, StoreError>;

    /// Bytes and number of the pastes `owner` keeps.
    async fn owner_usage(&self, owner: &str) -> Result<Usage, StoreError>;

    /// Deletes a paste; `false` if there was none. With `authority` (an
    /// owner's delete, without the paste's delete token) only if it still
    /// holds for the paste's owner as the delete commits
    /// ([`Authority::holds`]), else [`StoreError::AuthorityGone`].
    async fn delete(&self, id: &PasteId, authority: Option<&Authority>)
    -> Result<bool, StoreError>;

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
    /// scrape; `None` for a store without one (the embedded store's hot
    /// cache needs no coherence and reports nothing).
    fn cache_stats(&self) -> Option<CacheStats>;

    /// Checks that the backend can serve requests (`GET /readyz`): really
    /// touches it (a read, a probe write, a round trip), cheaply.
    async fn ping(&self) -> Result<(), StoreError>;

    /// Creates a tenant; [`StoreError::TenantExists`] if the name is taken.
    async fn create_tenant(&self, tenant: Tenant) -> Result<(), StoreError>;

    /// Replaces a tenant's settings; [`StoreError::NoSuchTenant`] if it does not exist.
    async fn update_tenant(&self, tenant: Tenant) -> Result<(), StoreError>;

    /// Reads a tenant.
    async fn tenant(&self, name: &str) -> Result<Option<Tenant>, StoreError>;

    /// All tenants, by name.
    async fn tenants(&self) -> Result<Vec<Tenant>, StoreError>;

    /// Deletes a tenant and its tokens; refuses ([`StoreError::TenantNotEmpty`])
    /// while it owns pastes. `false` if there was none.
    async fn delete_tenant(&self, name: &str) -> Result<bool, StoreError>;

    /// Stores a new token of an existing tenant.
    async fn create_token(&self, record: TokenRecord) -> Result<(), StoreError>;

    /// Finds a token by the hash of its secret (the per-request authentication lookup).
    async fn token(&self, hash: &[u8; 32]) -> Result<Option<TokenRecord>, StoreError>;

    /// Revokes a token by its public ID; `false` if there was none.
    async fn revoke_token(&self, id: &str) -> Result<bool, StoreError>;

    /// The tokens of a tenant.
    async fn tokens(&self, tenant: &str) -> Result<Vec<TokenRecord>, StoreError>;

    /// Stores a new browser session.
    async fn create_session(&self, record: SessionRecord) -> Result<(), StoreError>;

    /// Finds a session by the hash of its cookie value (expired ones included:
    /// the caller checks expiry and its token).
    async fn session(&self, hash: &[u8; 32]) -> Result<Option<SessionRecord>, StoreError>;

    /// Deletes a session (sign-out); `false` if there was none.
    async fn delete_session(&self, hash: &[u8; 32]) -> Result<bool, StoreError>;

    /// Deletes the sessions expired at `now` and those whose token is gone
    /// (they are refused anyway; this gives the space back); how many.
    async fn purge_sessions(&self, now: UnixTime) -> Result<usize, StoreError>;

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

    /// The rate-limit buckets this store shares with other instances, if it
    /// has any; without them, limits are counted in process.
    fn shared_rates(&self) -> Option<&dyn RateStore>;

    /// Makes everything written so far durable and releases the backend.
    async fn close(&self) -> Result<(), StoreError>;
}
