//! The pastes' side of a store: [`PasteStore`], and what its operations take
//! and give.
//!
//! Every operation that must be atomic (create-if-absent with a storage
//! limit, read-and-delete for burn pastes) is a single method, so each
//! backend can make it atomic in its own way: the embedded store with a
//! per-ID lock and one write batch, PostgreSQL with one statement.
//!
//! Stores check expiry themselves against the `now` they are given, so an
//! expired paste is never returned, even before the sweeper removes it.

use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;

use super::{NewBody, Opened, SearchQuery, StoreError};
use crate::core::envelope::Proof;
use crate::core::random::OsRandom;
use crate::core::tenant::Authority;
use crate::core::{PasteId, PasteMeta, UnixTime, Visibility};

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

/// The outcome of [`PasteStore::take`].
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
/// [`PasteStore::list`] call reads. A page whose filter matches little ends
/// there, short or even empty, with a `next_cursor` to go on from: one
/// request's cost stays bounded whatever a tenant keeps. Above the largest
/// page (500), so an unfiltered page of live pastes is always full.
pub const MAX_LIST_SCAN: usize = 1000;

/// A page request for [`PasteStore::list`].
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    /// Continue after this cursor (from a previous page's `next_cursor`).
    pub cursor: Option<String>,
    /// Most pastes per page.
    pub limit: usize,
    /// Only pastes whose name starts with this.
    pub name_prefix: Option<String>,
    /// The subject of the person listing, if a person is: only-me pastes
    /// of anyone else are always left out (all of them without a person).
    pub viewer: Option<String>,
    /// Only the viewer's own pastes (none without a viewer).
    pub mine: bool,
}

impl ListQuery {
    /// Whether `meta`, a live paste of the owner, belongs on the page.
    pub fn admits(&self, meta: &PasteMeta) -> bool {
        let named = self
            .name_prefix
            .as_deref()
            .is_none_or(|p| meta.name.as_deref().is_some_and(|n| n.starts_with(p)));
        named && listed_for(meta, self.viewer.as_deref(), self.mine)
    }
}

/// Whether a listing or a search by `viewer` (a person's subject, if a
/// person asks) shows `meta`, a live paste of the owner: never another
/// person's only-me paste, and with `mine` only the viewer's own.
pub fn listed_for(meta: &PasteMeta, viewer: Option<&str>, mine: bool) -> bool {
    // The viewer's own pastes always; others' only when neither only-me
    // nor asked for "mine".
    let by_viewer = viewer.is_some_and(|subject| meta.authored_by(subject));
    by_viewer || (meta.visibility != Visibility::Me && !mine)
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

/// Storing, reading and removing pastes.
#[async_trait]
pub trait PasteStore: Send + Sync + 'static {
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
    /// the metering decorator) costs more than a cache hit itself.
    fn cached(&self, id: &PasteId, now: UnixTime) -> Option<Paste>;

    /// Opens a live paste for sending: what [`Self::get`] reads, except
    /// that a large body may be left as stored, to be read while it is sent
    /// ([`OpenedBody::Stored`](super::OpenedBody::Stored)), and that a burn
    /// paste's body is not read at all
    /// ([`OpenedBody::Withheld`](super::OpenedBody::Withheld): only
    /// [`Self::take`] reads it).
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

    /// Searches the live pastes of `owner` by the words of their names,
    /// languages and text (`core::search`), best match first, a page of
    /// [`SearchQuery::limit`] at most; off the async workers.
    async fn search(
        &self,
        owner: &str,
        query: &SearchQuery,
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
}

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
