//! The default backend: an embedded fjall (LSM-tree) database in the data dir.
//!
//! Keyspaces:
//! - `meta`:   paste number or ID (`keys`) → [`PasteMeta`] and where its
//!   body is (`meta_codec`);
//! - `expiry`: `expires_at (u64 BE) ‖ ID` → empty, an index the sweeper scans in order;
//! - `owners`: `owner ‖ 0x00 ‖ !created_at (u64 BE) ‖ ID` → empty, a tenant's pastes newest first;
//! - `counters`: the counts of what is stored (`counters`);
//! - `tenants`, `tokens`, `sessions`: see `accounts`.
//!
//! Bodies are appended to segment files (`body_log`); bodies of 64 KiB or
//! more are files of their own (`body_files`). Small text bodies are
//! compressed with a zstd dictionary learned from the store's first ones
//! (`dictionary_file`).
//!
//! A paste's entries are written and removed in one atomic write batch; new
//! pastes that arrive together share one (`combiner`).
//! Every batch is written to the journal and flushed to the OS before the call
//! returns, so an acknowledged paste survives `kill -9` of the process. With
//! [`Durability::Fsync`] writers also wait for an `fdatasync`, shared between
//! concurrent writers by group commit (`store::group_commit`).
//!
//! fjall reads are made inline on the async runtime: they are memory-speed in
//! the common case (memtable or block cache), and sending each to a blocking
//! thread would cost more than it saves. A body is read inline only if the OS
//! has it in memory; otherwise on a blocking thread (`Read::Cold`). New pastes are committed on a
//! blocking thread, a group at a time (`combiner`), because fjall may stall a
//! writer (it sleeps 100 ms at a time while flushes lag); removals (take,
//! delete) are single small batches, committed on a blocking thread for the
//! same reason. Slow work (sweeping, compaction, fsync, body files) runs on
//! blocking threads too.
//!
//! This module holds the store's state. Each trait of [`Store`] is
//! implemented in the file of its concern: `pastes` ([`PasteStore`]) over
//! the steps of `read`, `commit`, `remove`, `usage` and `listing`;
//! `accounts` ([`AccountStore`]); `maintenance` ([`Maintenance`]) over
//! `sweep`, `listing`'s scan and `open`'s readiness check. `open` (and the
//! data dir's `format`) opens the store; `keys` lays out the index keys;
//! `counters` persists the counts.
//! Storage formats live in `meta_codec`, `body_log` and `body_files`;
//! `sequence` numbers new IDs; `known_ids`, and the store-wide `combiner`
//! and `paste_cache`, are the machinery of the write and read paths;
//! `journal` keeps fjall's journal short; `search` is the full-text index
//! of tenants' pastes, in `search/`.
//!
//! [`PasteMeta`]: crate::core::PasteMeta
//! [`PasteStore`]: crate::store::PasteStore
//! [`AccountStore`]: crate::store::AccountStore
//! [`Maintenance`]: crate::store::Maintenance

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex, MutexGuard};

use fjall::{Database, Keyspace};

use super::group_commit::GroupCommit;
use super::{BackendError, RateStore, Store, StoreError, Usage};
use super::{combiner, lock, paste_cache};
use crate::idle::Activity;

mod accounts;
mod body_files;
mod body_log;
mod commit;
mod counters;
mod dictionary_file;
mod format;
mod journal;
mod keys;
mod known_ids;
mod listing;
mod maintenance;
mod meta_codec;
mod open;
mod pastes;
mod read;
mod remove;
mod search;
mod sequence;
mod space;
mod sweep;
mod usage;

use accounts::Accounts;
use body_files::BodyFiles;
use body_log::BodyLog;
use combiner::Combiner;
use commit::Staged;
use counters::Counters;
use dictionary_file::DictionaryFile;
use known_ids::KnownIds;
use paste_cache::PasteCache;

/// fjall's errors are backend failures, the engine's error kept as the
/// cause, except a full disk, and a store poisoned: fjall refuses every
/// write after a failed journal write (or a failed flush), until it is
/// opened again. The space check before each write (`space`) is what keeps
/// a full disk from doing that.
impl From<fjall::Error> for StoreError {
    fn from(e: fjall::Error) -> Self {
        let io = match &e {
            fjall::Error::Io(io) | fjall::Error::Storage(fjall::LsmError::Io(io)) => Some(io),
            _ => None,
        };
        match io {
            Some(io) if crate::store::is_disk_full(io) => {
                Self::DiskFull(format!("the metadata store cannot write: {io}"))
            }
            _ if matches!(e, fjall::Error::Poisoned) => Self::Poisoned(BackendError::from_cause(e)),
            _ => Self::Backend(BackendError::from_cause(e)),
        }
    }
}

/// How far a write must have gone before it is acknowledged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// Written to the OS: survives a crash or `kill -9` of snip, not a power loss.
    #[default]
    Os,
    /// Written to disk with `fdatasync` (group commit): survives power loss.
    Fsync,
}

/// Tuning for the embedded store.
#[derive(Debug, Clone)]
pub struct EmbeddedOptions {
    /// Acknowledgement level of writes.
    pub durability: Durability,
    /// Refuse new pastes once this many body bytes are stored.
    pub max_bytes: Option<u64>,
    /// Memory for caches, in bytes: three quarters for fjall's block cache,
    /// a quarter for decoded pastes that were read (`paste_cache`).
    pub cache_bytes: u64,
}

/// Number of lock stripes serialising writers of the same ID.
const LOCK_STRIPES: usize = 64;

/// The embedded fjall store. Cheap to share: all state is behind `Arc`s.
pub struct EmbeddedStore {
    inner: Arc<Inner>,
    group_commit: Option<Arc<GroupCommit>>,
}

struct Inner {
    db: Database,
    meta: Keyspace,
    expiry: Keyspace,
    owners: Keyspace,
    accounts: Accounts,
    /// Only one process can open the data dir (fjall locks it), so in-process
    /// locks are enough to make read-modify-write sequences on one ID atomic.
    /// `std::sync::Mutex`, because no `.await` happens while one is held.
    stripes: Vec<Mutex<()>>,
    /// How many times an ID's lock was asked for, so that a test can wait
    /// until an operation has reached it instead of guessing how long that takes.
    #[cfg(test)]
    lock_waits: std::sync::atomic::AtomicUsize,
    /// Body bytes stored or reserved (admission: `usage`).
    used: AtomicU64,
    /// Stored pastes, for the metrics gauge (admission, like `used`).
    pastes: AtomicU64,
    max_bytes: Option<u64>,
    /// Live bytes and pastes per owner, for quotas. Locked only briefly, never across I/O
    /// other than the write batch that the reservation belongs to.
    usage: Mutex<HashMap<String, Usage>>,
    /// The committed counts, persisted with every batch that changes them.
    counters: Counters,
    log: Arc<BodyLog>,
    files: BodyFiles,
    /// The free-space check before writes that make pastes exist.
    space: space::Space,
    /// Decoded pastes recently read.
    paste_cache: PasteCache,
    /// The numbers behind new IDs, which need no search when they are all
    /// the store holds.
    sequence: sequence::Sequence,
    /// Every stored ID the store did not number (and maybe more), so that
    /// a new ID is rarely searched for in fjall even when there are such.
    known: Arc<KnownIds>,
    /// New pastes waiting to be committed together.
    combiner: Combiner<Staged>,
    /// The zstd dictionary of small bodies, or the samples it is learned from.
    dictionary: DictionaryFile,
    /// Flushes the keyspaces that would keep old journal files.
    journal: journal::JournalBound,
    /// The tantivy index of tenants' pastes, for searches.
    search: search::SearchIndex,
    /// Noted by every write that may give the sweeper work, taken by each
    /// sweep; a settled sweeper waits for the next.
    writes: Activity,
    /// Why fjall refuses writes until the store is opened again, once an
    /// operation has met [`StoreError::Poisoned`]; [`Maintenance::broken`] waits
    /// for it.
    poisoned: tokio::sync::watch::Sender<Option<String>>,
    path: PathBuf,
}

impl EmbeddedStore {
    /// The data directory.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// Passes `result` on, noting first if it says that fjall is poisoned.
    fn noted<T>(&self, result: Result<T, StoreError>) -> Result<T, StoreError> {
        if let Err(e @ StoreError::Poisoned(_)) = &result {
            let reason = e.to_string();
            self.inner.poisoned.send_if_modified(|poisoned| {
                let first = poisoned.is_none();
                if first {
                    tracing::error!(error = %reason, "the store is poisoned: it refuses writes until it is opened again");
                    *poisoned = Some(reason);
                }
                first
            });
        }
        result
    }

    async fn durable(&self) -> Result<(), StoreError> {
        match &self.group_commit {
            Some(gc) => gc.wait_durable().await,
            None => Ok(()),
        }
    }

    /// Runs `work` on a blocking thread: it reads or writes a body file, or
    /// commits a write batch that fjall may stall.
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Inner) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || work(&inner))
            .await
            .map_err(|e| StoreError::backend_caused("store task failed", e))?
    }
}

impl Inner {
    /// The lock of `id`'s stripe, held by every read-modify-write of that paste.
    fn lock_id(&self, id: &str) -> MutexGuard<'_, ()> {
        // FNV-1a: cheap, and IDs are already uniformly random.
        let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        #[cfg(test)]
        self.lock_waits
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        lock(&self.stripes[(hash % LOCK_STRIPES as u64) as usize])
    }
}

/// One process per data directory: rate limits stay in process.
impl Store for EmbeddedStore {
    fn shared_rates(&self) -> Option<&dyn RateStore> {
        None
    }
}

#[cfg(test)]
mod tests;
