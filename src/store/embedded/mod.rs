//! The default backend: an embedded fjall (LSM-tree) database in the data dir.
//!
//! Keyspaces:
//! - `meta`:   ID → [`PasteMeta`] and where its body is (`meta_codec`);
//! - `expiry`: `expires_at (u64 BE) ‖ ID` → empty, an index the sweeper scans in order;
//! - `owners`: `owner ‖ 0x00 ‖ !created_at (u64 BE) ‖ ID` → empty, a tenant's pastes newest first;
//! - `tenants`, `tokens`: see `accounts`.
//!
//! Bodies are appended to segment files (`body_log`); bodies of 64 KiB or
//! more are files of their own (`body_files`).
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

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;
use bytes::Bytes;
use fjall::config::{BloomConstructionPolicy, FilterPolicy, FilterPolicyEntry, PinningPolicy};
use fjall::{Database, Keyspace, KeyspaceCreateOptions, PersistMode};

use super::group_commit::GroupCommit;
use super::{
    BackendError, ListCursor, ListPage, ListQuery, Paste, PutLimits, RateStore, Store, StoreError,
    SweepReport, Usage,
};
use crate::core::tenant::{Tenant, TokenRecord};
use crate::core::{PasteId, PasteMeta, UnixTime};

mod accounts;
mod body_files;
mod body_log;
mod combiner;
mod hot;
mod known_ids;
mod meta_codec;

use accounts::Accounts;
use body_files::{BodyFiles, is_file_backed};
use body_log::{BodyLog, Location};
use combiner::{Combiner, Commit, Outcome};
use hot::HotCache;
use known_ids::KnownIds;

/// fjall's errors are backend failures; the engine's error is kept as the cause.
impl From<fjall::Error> for StoreError {
    fn from(e: fjall::Error) -> Self {
        Self::Backend(BackendError::from_cause(e))
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
    /// a quarter for decoded pastes that were read (`hot`).
    pub cache_bytes: u64,
}

/// Largest memtable of one keyspace.
const MEMTABLE_BYTES: u64 = 8 << 20;
/// Largest memtable of the `meta` keyspace, which every create writes. Each
/// flush becomes a level-0 table, and with random IDs twelve of those
/// rewrite all of level 1 (see [`META_L0_TABLES`]): twice the memtable,
/// half as many rewrites. Two A/B runs of six 10 s create floods on one data
/// dir (release build, per-thread CPU from /proc): fjall's workers 23 % and
/// 35 % less CPU per create than with 8 MiB, creates/s 2 % and 4.5 % more;
/// RSS after the floods 13-17 MiB more. Kept from a keyspace's creation, like
/// the other `meta` options: data dirs created since.
const META_MEMTABLE_BYTES: u64 = 16 << 20;
/// Tables in level 0 of the `meta` keyspace that start their compaction
/// into level 1 (fjall's default is 4). IDs are random, so every level-0
/// table overlaps all of level 1 and each such compaction rewrites the whole
/// of it: with 12 that happens a third as often. Under a create flood on a
/// store of 1.5-2 million pastes, fjall's workers spent 5.3 µs per create with
/// 4 and 2.3 µs with 12. The cost: a lookup checks the bloom filters of up to
/// 12 level-0 tables. fjall keeps a keyspace's settings from its creation, so
/// this applies to data dirs created since.
const META_L0_TABLES: u8 = 12;
/// The false-positive rate of the `meta` keyspace's bloom filters, on every
/// level; the filters are also kept in memory (pinned), not in the block
/// cache. Every create checks that its new ID is free,
/// and for a new (absent) ID the filters answer that alone. fjall's defaults
/// (1 % below level 0, filter blocks of those levels in the block cache)
/// made about one check in a hundred read a data block, and those blocks,
/// being random, were mostly not cached: on the development VM, whose kernel
/// pages out file pages unused for a minute, the committer spent 2.3 s of an
/// 8 s create flood waiting for the disk. The cost is memory: about 2.4 bytes
/// per stored paste. Like the level-0 threshold, for data dirs created since.
const META_FILTER_FALSE_POSITIVES: f32 = 0.0001;
/// All journals together (fjall's minimum is 64 MiB).
const MAX_JOURNAL_BYTES: u64 = 128 << 20;
/// The smallest filter of stored IDs (`known_ids`): 256 Ki IDs, 320 KiB.
const KNOWN_IDS_MIN: usize = 256 << 10;
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
    used: AtomicU64,
    /// Stored pastes, for the metrics gauge.
    pastes: AtomicU64,
    max_bytes: Option<u64>,
    /// Live bytes and pastes per owner, for quotas. Locked only briefly, never across I/O
    /// other than the write batch that the reservation belongs to.
    usage: Mutex<HashMap<String, Usage>>,
    log: Arc<BodyLog>,
    files: BodyFiles,
    /// Decoded pastes recently read.
    hot: HotCache,
    /// Every stored ID, so that most creates need not search fjall for theirs.
    known: Arc<KnownIds>,
    /// New pastes waiting to be committed together.
    combiner: Combiner<Staged>,
    path: PathBuf,
}

impl EmbeddedStore {
    /// Opens (or creates) the store in `dir` and counts the stored bytes.
    ///
    /// Must be called inside a Tokio runtime when `durability` is `Fsync`.
    pub fn open(dir: &Path, options: EmbeddedOptions) -> Result<Self, StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| {
            StoreError::backend_caused(format!("cannot create data dir {}", dir.display()), e)
        })?;
        // Memtables are memory: fjall's defaults (64 MiB per keyspace, no
        // global cap) let RSS reach ~250 MiB after a burst of writes; 16 MiB
        // for `meta` and 8 MiB for the other three bound the active
        // memtables to 40 MiB.
        //
        // Four background workers, not two: fjall 3.1's worker 0 hands every
        // compaction request back to the queue, so while the only other
        // worker compacts, worker 0 spins on that request (perf under a
        // create flood: 6 % of all CPU in `worker_tick` and `flume` with two
        // workers, 0.5 % with four). One worker is worse: memtable rotations
        // wait behind compactions and memtables outgrow their 8 MiB.
        let db = Database::builder(dir.join("fjall"))
            .cache_size(options.cache_bytes - options.cache_bytes / 4)
            .worker_threads(4)
            .max_journaling_size(MAX_JOURNAL_BYTES)
            .open()?;
        let small = || KeyspaceCreateOptions::default().max_memtable_size(MEMTABLE_BYTES);
        let meta = db.keyspace("meta", || {
            small()
                .max_memtable_size(META_MEMTABLE_BYTES)
                .compaction_strategy(Arc::new(
                    fjall::compaction::Leveled::default().with_l0_threshold(META_L0_TABLES),
                ))
                .filter_policy(FilterPolicy::all(FilterPolicyEntry::Bloom(
                    BloomConstructionPolicy::FalsePositiveRate(META_FILTER_FALSE_POSITIVES),
                )))
                .filter_block_pinning_policy(PinningPolicy::all(true))
        })?;
        let expiry = db.keyspace("expiry", small)?;
        let owners = db.keyspace("owners", small)?;
        let accounts = Accounts::open(&db)?;
        let fsync = options.durability == Durability::Fsync;
        let files = BodyFiles::open(dir, fsync)?;
        let log = Arc::new(BodyLog::open(dir, fsync)?);
        let meta_len = meta.approximate_len();
        let inner = Inner {
            db,
            meta,
            expiry,
            owners,
            accounts,
            stripes: (0..LOCK_STRIPES).map(|_| Mutex::new(())).collect(),
            used: AtomicU64::new(0),
            pastes: AtomicU64::new(0),
            max_bytes: options.max_bytes,
            usage: Mutex::new(HashMap::new()),
            log,
            files,
            hot: HotCache::new(options.cache_bytes / 4),
            known: Arc::new(KnownIds::new(meta_len, KNOWN_IDS_MIN)),
            combiner: Combiner::default(),
            path: dir.to_path_buf(),
        };
        inner.count_usage()?;
        let orphans = inner
            .files
            .remove_orphans(|id| Ok(inner.meta.contains_key(id)?))?;
        if orphans > 0 {
            tracing::info!(
                orphans,
                "deleted body files of pastes that were never stored"
            );
        }
        let inner = Arc::new(inner);
        let group_commit = fsync.then(|| {
            let db = inner.db.clone();
            let log = inner.log.clone();
            // Bodies first: once the journal is synced, its entries point at them.
            GroupCommit::start(Arc::new(move || {
                log.sync().map_err(|e| e.to_string())?;
                db.persist(PersistMode::SyncData).map_err(|e| e.to_string())
            }))
        });
        Ok(Self {
            inner,
            group_commit,
        })
    }

    /// The data directory.
    pub fn path(&self) -> &Path {
        &self.inner.path
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

/// What [`Inner::read_filling`] found.
enum Read {
    /// The paste (or `None`: missing or expired).
    Done(Option<Paste>),
    /// A paste whose body is a file, for the caller to read on a blocking thread.
    FileBacked(PasteMeta),
    /// A paste whose body the OS would have to read from disk: the caller
    /// reads it again on a blocking thread ([`Inner::read_waiting`]).
    Cold,
}

/// Locks a mutex whose data stays consistent even if a holder panicked
/// (every critical section here is a handful of arithmetic updates).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

impl Inner {
    fn lock_id(&self, id: &str) -> MutexGuard<'_, ()> {
        // FNV-1a: cheap, and IDs are already uniformly random.
        let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        lock(&self.stripes[(hash % LOCK_STRIPES as u64) as usize])
    }

    fn read_meta(&self, id: &str) -> Result<Option<PasteMeta>, StoreError> {
        Ok(self.read_entry(id)?.map(|(meta, _)| meta))
    }

    /// A paste's metadata and, if its body is in the body log, where.
    fn read_entry(&self, id: &str) -> Result<Option<(PasteMeta, Option<Location>)>, StoreError> {
        let Some(raw) = self.meta.get(id)? else {
            return Ok(None);
        };
        meta_codec::decode_entry(id.as_bytes(), &raw).map(Some)
    }

    fn read_live_entry(
        &self,
        id: &str,
        now: UnixTime,
    ) -> Result<Option<(PasteMeta, Option<Location>)>, StoreError> {
        Ok(self.read_entry(id)?.filter(|(m, _)| !m.is_expired(now)))
    }

    /// The body of a paste whose metadata was read (blocking if it is a file).
    /// `None` if a concurrent take or delete removed it meanwhile (file bodies
    /// are read without the ID's lock).
    fn read_body(
        &self,
        meta: PasteMeta,
        at: Option<Location>,
    ) -> Result<Option<Paste>, StoreError> {
        let body = match at {
            Some(at) => Some(Bytes::from(self.log.read(at)?)),
            None if is_file_backed(meta.size) => {
                self.files.read(&meta.id, meta.size)?.map(Bytes::from)
            }
            None => {
                return Err(StoreError::Corrupt(format!(
                    "paste {} has neither a body file nor a body in the log",
                    meta.id
                )));
            }
        };
        Ok(body.map(|body| Paste {
            meta: Arc::new(meta),
            body,
        }))
    }

    /// A small paste read under its ID's lock and kept in the hot cache; the
    /// lock orders the fill against removals, which evict.
    ///
    /// With `wait` false (on the async runtime), a body in the body log that
    /// is not in the OS's page cache is not read: [`Read::Cold`]. Sealed
    /// segments leave the page cache (see `body_log`), so an older paste's
    /// first read would otherwise hold a runtime thread for a disk read.
    fn read_filling(&self, id: &str, now: UnixTime, wait: bool) -> Result<Read, StoreError> {
        let _guard = self.lock_id(id);
        let Some((meta, at)) = self.read_live_entry(id, now)? else {
            return Ok(Read::Done(None));
        };
        if at.is_none() && is_file_backed(meta.size) {
            return Ok(Read::FileBacked(meta));
        }
        let paste = match at {
            Some(at) if !wait => match self.log.read_cached(at)? {
                Some(body) => Some(Paste {
                    meta: Arc::new(meta),
                    body: Bytes::from(body),
                }),
                None => return Ok(Read::Cold),
            },
            _ => self.read_body(meta, at)?,
        };
        if let Some(paste) = &paste {
            self.hot.fill(paste);
        }
        Ok(Read::Done(paste))
    }

    /// Reads a paste, waiting for the disk if need be (on a blocking thread).
    fn read_waiting(&self, id: &str, now: UnixTime) -> Result<Option<Paste>, StoreError> {
        match self.read_filling(id, now, true)? {
            Read::Done(paste) => Ok(paste),
            Read::FileBacked(meta) => self.read_body(meta, None),
            // Only a read that does not wait finds a body cold.
            Read::Cold => Err(StoreError::backend("a waiting read found no body")),
        }
    }

    /// Removes all entries of a paste in one batch. Caller holds the ID's lock.
    fn remove(&self, meta: &PasteMeta, body_at: Option<Location>) -> Result<(), StoreError> {
        let mut batch = self.db.batch();
        batch.remove(&self.meta, meta.id.as_str());
        if let Some(at) = meta.expires_at {
            batch.remove(&self.expiry, expiry_key(at, &meta.id));
        }
        if let Some(owner) = &meta.owner {
            batch.remove(&self.owners, owner_key(owner, meta.created_at, &meta.id));
        }
        batch.commit()?;
        self.hot.evict(&meta.id);
        self.release(meta);
        if let Some(at) = body_at {
            self.log.release(at);
        } else if is_file_backed(meta.size) {
            self.files.remove(&meta.id);
        }
        Ok(())
    }

    /// Reserves a paste's bytes against the global limit and its owner's quota, atomically.
    fn reserve(&self, meta: &PasteMeta, limits: PutLimits) -> Result<(), StoreError> {
        let limit = self.max_bytes.unwrap_or(u64::MAX);
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(meta.size).filter(|&total| total <= limit)
            })
            .map_err(|_| StoreError::Full { limit })?;
        self.pastes.fetch_add(1, Ordering::Relaxed);
        let Some(owner) = &meta.owner else {
            return Ok(());
        };
        let mut usage = lock(&self.usage);
        let entry = usage.entry(owner.clone()).or_default();
        let quota = limits.owner_max_bytes.unwrap_or(u64::MAX);
        if entry.bytes.saturating_add(meta.size) > quota {
            drop(usage);
            self.used.fetch_sub(meta.size, Ordering::AcqRel);
            self.pastes.fetch_sub(1, Ordering::Relaxed);
            return Err(StoreError::QuotaExceeded { limit: quota });
        }
        entry.bytes += meta.size;
        entry.pastes += 1;
        Ok(())
    }

    /// Gives back what [`Self::reserve`] took.
    fn release(&self, meta: &PasteMeta) {
        self.used.fetch_sub(meta.size, Ordering::AcqRel);
        self.pastes.fetch_sub(1, Ordering::Relaxed);
        if let Some(owner) = &meta.owner {
            let mut usage = lock(&self.usage);
            if let Some(entry) = usage.get_mut(owner) {
                entry.bytes = entry.bytes.saturating_sub(meta.size);
                entry.pastes = entry.pastes.saturating_sub(1);
            }
        }
    }

    /// Encodes a paste for the combiner and reserves its bytes; `body` is
    /// `None` when it is already in its file (which is removed if this fails).
    fn stage(
        &self,
        meta: PasteMeta,
        body: Option<Bytes>,
        limits: PutLimits,
    ) -> Result<Staged, StoreError> {
        let reserved = meta_codec::encode(&meta).and_then(|encoded| {
            self.reserve(&meta, limits)?;
            Ok(encoded)
        });
        match reserved {
            Ok(encoded) => Ok(Staged {
                meta,
                encoded,
                body,
            }),
            Err(e) => {
                if body.is_none() {
                    self.files.remove(&meta.id);
                }
                Err(e)
            }
        }
    }

    /// Blocking: writes a large body's file, after checking it would fit.
    fn write_body_file(&self, meta: &PasteMeta, body: &[u8]) -> Result<(), StoreError> {
        // Not atomic (`stage` reserves for real), but spares writing a file that would be refused.
        if let Some(limit) = self.max_bytes
            && self.used.load(Ordering::Relaxed).saturating_add(meta.size) > limit
        {
            return Err(StoreError::Full { limit });
        }
        // IdTaken here means a file exists for this ID: it is someone else's, kept.
        self.files.write(&meta.id, body)
    }

    /// Gives back what [`Self::stage`] took for a paste that was not stored.
    fn unstage(&self, staged: &Staged) {
        self.release(&staged.meta);
        if staged.body.is_none() {
            self.files.remove(&staged.meta.id);
        }
    }

    fn take(&self, id: &str, now: UnixTime) -> Result<Option<Paste>, StoreError> {
        let _guard = self.lock_id(id);
        let Some((meta, at)) = self.read_live_entry(id, now)? else {
            return Ok(None);
        };
        let Some(paste) = self.read_body(meta, at)? else {
            return Ok(None);
        };
        self.remove(&paste.meta, at)?;
        Ok(Some(paste))
    }

    fn delete(&self, id: &str) -> Result<bool, StoreError> {
        let _guard = self.lock_id(id);
        let Some((meta, at)) = self.read_entry(id)? else {
            return Ok(false);
        };
        self.remove(&meta, at)?;
        Ok(true)
    }

    fn list(&self, owner: &str, query: &ListQuery, now: UnixTime) -> Result<ListPage, StoreError> {
        let prefix = owner_prefix(owner);
        let start = match &query.cursor {
            // Resume strictly after the cursor's key.
            Some(cursor) => {
                let after = ListCursor::decode(cursor)?;
                let mut key = owner_key(owner, after.created_at, &after.id);
                key.push(0);
                key
            }
            None => prefix.clone(),
        };
        let mut page = ListPage::default();
        for entry in self.owners.range(start..) {
            let key = entry.key()?;
            let Some(suffix) = key.strip_prefix(prefix.as_slice()) else {
                break;
            };
            let id = std::str::from_utf8(suffix.get(8..).unwrap_or_default()).unwrap_or_default();
            let Some(meta) = self.read_meta(id)?.filter(|m| !m.is_expired(now)) else {
                continue;
            };
            let wanted = match &query.name_prefix {
                Some(p) => meta
                    .name
                    .as_deref()
                    .is_some_and(|n| n.starts_with(p.as_str())),
                None => true,
            };
            if !wanted {
                continue;
            }
            if page.pastes.len() == query.limit {
                page.next_cursor = page.pastes.last().map(|m| ListCursor::after(m).encode());
                break;
            }
            page.pastes.push(meta);
        }
        Ok(page)
    }

    /// Live pastes' metadata in ID order after `after`.
    fn scan(
        &self,
        after: Option<&str>,
        limit: usize,
        now: UnixTime,
    ) -> Result<Vec<PasteMeta>, StoreError> {
        let start = after.map_or_else(Vec::new, |id| {
            let mut key = id.as_bytes().to_vec();
            key.push(0);
            key
        });
        let mut out = Vec::new();
        for entry in self.meta.range(start..) {
            if out.len() == limit {
                break;
            }
            let (key, value) = entry.into_inner()?;
            let meta = meta_codec::decode(&key, &value)?;
            if !meta.is_expired(now) {
                out.push(meta);
            }
        }
        Ok(out)
    }

    fn owner_usage(&self, owner: &str) -> Usage {
        lock(&self.usage).get(owner).copied().unwrap_or_default()
    }

    /// Blocking: deletes expired pastes, then gives back the body log's dead space.
    fn sweep(&self, now: UnixTime, limit: usize) -> Result<SweepReport, StoreError> {
        let end = expiry_key(now.saturating_add(1), "");
        let mut due = Vec::new();
        for entry in self.expiry.range(..end).take(limit) {
            let key = entry.key()?;
            let id = key
                .get(8..)
                .and_then(|id| std::str::from_utf8(id).ok())
                .map(str::to_owned);
            due.push((key, id.unwrap_or_default()));
        }
        let mut report = SweepReport::default();
        for (key, id) in due {
            let _guard = self.lock_id(&id);
            match self.read_entry(&id)? {
                Some((meta, at)) if meta.is_expired(now) => {
                    self.remove(&meta, at)?;
                    report.removed += 1;
                    report.bytes += meta.size;
                }
                // An index entry whose paste is gone: drop it.
                _ => self.expiry.remove(key)?,
            }
        }
        self.log.retire_dead_active()?;
        // Not fatal: a body that cannot be read (damaged) keeps its segment,
        // and the next sweep tries again.
        if let Err(e) = self.compact_bodies() {
            tracing::warn!(error = %e, "cannot compact the body log");
        }
        if self.log.has_dead() {
            // `--sync`: the removals that killed these segments must not
            // come back after a power loss, or their bodies would be gone.
            self.db.persist(PersistMode::SyncData)?;
            self.log.delete_dead();
        }
        Ok(report)
    }

    /// Compacts one mostly dead segment of the body log, if there is one: its
    /// bodies that pastes still refer to are copied to the active segment,
    /// their metadata pointed at the copies, and the segment, dead, deleted.
    fn compact_bodies(&self) -> Result<(), StoreError> {
        let Some(segment) = self.log.compaction_candidate() else {
            return Ok(());
        };
        let still_at = |id: &str, at: Location| -> Result<Option<PasteMeta>, StoreError> {
            Ok(self
                .read_entry(id)?
                .and_then(|(meta, now_at)| (now_at == Some(at)).then_some(meta)))
        };
        let mut copies = Vec::new();
        for (id, at) in self.log.records(segment)? {
            let body = {
                let _guard = self.lock_id(&id);
                if still_at(&id, at)?.is_none() {
                    continue;
                }
                self.log.read(at)?
            };
            let copy = self.log.append(&[(id.as_str(), body.as_slice())])?[0];
            copies.push((id, at, copy));
        }
        if copies.is_empty() {
            return Ok(());
        }
        // The copies are on disk before any metadata points at them.
        self.log.sync_if_durable()?;
        for (id, at, copy) in copies {
            let _guard = self.lock_id(&id);
            let Some(meta) = still_at(&id, at)? else {
                // Taken or deleted meanwhile.
                self.log.release(copy);
                continue;
            };
            let entry = meta_codec::with_location(&meta_codec::encode(&meta)?, &copy);
            if let Err(e) = self.meta.insert(id.as_str(), entry) {
                self.log.release(copy);
                return Err(e.into());
            }
            self.log.release(at);
        }
        Ok(())
    }

    /// Blocking: a read through fjall, then a probe file written, synced and
    /// removed in the data dir, so a vanished, read-only or full data dir
    /// (the failures that make creates fail) reports not ready.
    fn ping(&self) -> Result<(), StoreError> {
        self.meta.get("ping")?;
        // One file per call: concurrent pings must not remove each other's.
        static PROBES: AtomicU64 = AtomicU64::new(0);
        let n = PROBES.fetch_add(1, Ordering::Relaxed);
        let probe = self.path.join(format!(".ready-probe-{n}"));
        let write = || -> std::io::Result<()> {
            use std::io::Write;
            let mut file = std::fs::File::create(&probe)?;
            file.write_all(b"ok")?;
            file.sync_data()?;
            std::fs::remove_file(&probe)
        };
        write().map_err(|e| {
            StoreError::backend_caused(
                format!("data dir {} is not writable", self.path.display()),
                e,
            )
        })
    }

    /// Counts stored bytes, globally and per owner, at startup.
    fn count_usage(&self) -> Result<(), StoreError> {
        let mut total = 0u64;
        let mut count = 0u64;
        let mut per_owner: HashMap<String, Usage> = HashMap::new();
        let mut live_segments: HashMap<u32, u64> = HashMap::new();
        let mut rebuild = false;
        for entry in self.meta.iter() {
            let (key, value) = entry.into_inner()?;
            rebuild |= self.known.add(&key);
            let (meta, at) = meta_codec::decode_entry(&key, &value)?;
            if let Some(at) = at {
                *live_segments.entry(at.segment).or_default() += u64::from(at.len);
            }
            total += meta.size;
            count += 1;
            if let Some(owner) = meta.owner {
                let usage = per_owner.entry(owner).or_default();
                usage.bytes += meta.size;
                usage.pastes += 1;
            }
        }
        self.used.store(total, Ordering::Relaxed);
        self.pastes.store(count, Ordering::Relaxed);
        if rebuild {
            self.rebuild_known_ids();
        }
        *lock(&self.usage) = per_owner;
        let dead = self.log.count_live(&live_segments);
        if dead > 0 {
            tracing::info!(
                segments = dead,
                "deleted body log segments no paste refers to"
            );
        }
        Ok(())
    }
}

/// A paste on its way into the store: encoded, its bytes reserved.
struct Staged {
    meta: PasteMeta,
    encoded: Vec<u8>,
    /// `None` when the body is in its file.
    body: Option<Bytes>,
}

/// New pastes are committed in groups (`combiner`): one write batch, one
/// journal write. Only the combiner writes new IDs, one group at a time, so
/// checking that an ID is free and inserting it cannot interleave with
/// another put.
impl Commit<Staged> for Inner {
    fn commit(&self, group: Vec<Staged>) -> Vec<Outcome> {
        let mut outcomes = Vec::with_capacity(group.len());
        for (i, staged) in group.iter().enumerate() {
            let id = staged.meta.id.as_str();
            let taken = group[..i]
                .iter()
                .any(|earlier| earlier.meta.id == staged.meta.id);
            let stored = if self.known.may_hold(id.as_bytes()) {
                self.meta.contains_key(id)
            } else {
                Ok(false)
            };
            outcomes.push(match stored {
                Ok(exists) if exists || taken => Err(StoreError::IdTaken),
                Ok(_) => Ok(()),
                Err(e) => Err(e.into()),
            });
        }
        // The bodies of the accepted pastes, in one write, before the batch
        // that makes them exist.
        let accepted: Vec<&Staged> = group
            .iter()
            .zip(&outcomes)
            .filter(|(_, outcome)| outcome.is_ok())
            .map(|(staged, _)| staged)
            .collect();
        let bodies: Vec<(&str, &[u8])> = accepted
            .iter()
            .filter_map(|staged| Some((staged.meta.id.as_str(), staged.body.as_deref()?)))
            .collect();
        // Where each accepted paste's body went (`None`: it is a file).
        let mut locations: Vec<Option<Location>> = Vec::new();
        let result = self.log.append(&bodies).and_then(|written| {
            let mut written = written.into_iter();
            let mut batch = self.db.batch();
            for staged in &accepted {
                let at = staged.body.as_ref().and_then(|_| written.next());
                self.add_to(&mut batch, staged, at.as_ref());
                locations.push(at);
            }
            batch.commit().map_err(StoreError::from)
        });
        match result {
            Ok(()) => {
                let mut rebuild = false;
                for staged in &accepted {
                    rebuild |= self.known.add(staged.meta.id.as_bytes());
                }
                if rebuild {
                    self.rebuild_known_ids();
                }
            }
            Err(e) => {
                let message = e.to_string();
                for outcome in outcomes.iter_mut().filter(|o| o.is_ok()) {
                    *outcome = Err(StoreError::backend(message.clone()));
                }
                for at in locations.into_iter().flatten() {
                    self.log.release(at);
                }
            }
        }
        for (staged, outcome) in group.iter().zip(&outcomes) {
            if outcome.is_err() {
                self.unstage(staged);
            }
        }
        outcomes
    }

    fn abandon(&self, staged: Staged) {
        self.unstage(&staged);
    }
}

impl Inner {
    /// Builds a bigger filter of stored IDs, in the background.
    fn rebuild_known_ids(&self) {
        let stored = usize::try_from(self.pastes.load(Ordering::Relaxed)).unwrap_or(usize::MAX);
        known_ids::rebuild_in_background(self.known.clone(), self.meta.clone(), stored);
    }

    /// A new paste's entries: metadata (with where its body was written,
    /// unless the body is a file) and index entries.
    fn add_to(&self, batch: &mut fjall::OwnedWriteBatch, staged: &Staged, at: Option<&Location>) {
        let meta = &staged.meta;
        match at {
            Some(at) => batch.insert(
                &self.meta,
                meta.id.as_str(),
                meta_codec::with_location(&staged.encoded, at),
            ),
            None => batch.insert(&self.meta, meta.id.as_str(), staged.encoded.as_slice()),
        }
        if let Some(at) = meta.expires_at {
            batch.insert(&self.expiry, expiry_key(at, &meta.id), []);
        }
        if let Some(owner) = &meta.owner {
            batch.insert(
                &self.owners,
                owner_key(owner, meta.created_at, &meta.id),
                [],
            );
        }
    }
}

/// `expires_at` big-endian then the ID, so byte order is expiry order.
fn expiry_key(at: UnixTime, id: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(8 + id.len());
    key.extend_from_slice(&at.to_be_bytes());
    key.extend_from_slice(id.as_bytes());
    key
}

/// Tenant names never contain 0x00, so it ends the owner part unambiguously.
fn owner_prefix(owner: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(owner.len() + 1);
    key.extend_from_slice(owner.as_bytes());
    key.push(0);
    key
}

/// Inverted creation time makes ascending key order newest-first.
fn owner_key(owner: &str, created_at: UnixTime, id: &str) -> Vec<u8> {
    let mut key = owner_prefix(owner);
    key.extend_from_slice(&(!created_at).to_be_bytes());
    key.extend_from_slice(id.as_bytes());
    key
}

#[async_trait]
impl Store for EmbeddedStore {
    async fn put(&self, meta: PasteMeta, body: Bytes, limits: PutLimits) -> Result<(), StoreError> {
        let (meta, body) = if is_file_backed(meta.size) {
            let meta = self
                .blocking(move |inner| {
                    inner.write_body_file(&meta, &body)?;
                    Ok(meta)
                })
                .await?;
            (meta, None)
        } else {
            (meta, Some(body))
        };
        let staged = self.inner.stage(meta, body, limits)?;
        self.inner.combiner.submit(staged, &self.inner).await?;
        self.durable().await
    }

    async fn get(&self, id: &PasteId, now: UnixTime) -> Result<Option<Paste>, StoreError> {
        if let Some(paste) = self.inner.hot.get(id.as_str()) {
            return Ok(Some(paste).filter(|p| !p.meta.is_expired(now)));
        }
        match self.inner.read_filling(id.as_str(), now, false)? {
            Read::Done(paste) => Ok(paste),
            Read::FileBacked(meta) => {
                self.blocking(move |inner| inner.read_body(meta, None))
                    .await
            }
            Read::Cold => {
                let id = id.as_str().to_owned();
                self.blocking(move |inner| inner.read_waiting(&id, now))
                    .await
            }
        }
    }

    fn cached(&self, id: &PasteId, now: UnixTime) -> Option<Paste> {
        self.inner
            .hot
            .get(id.as_str())
            .filter(|p| !p.meta.is_expired(now))
    }

    async fn meta(&self, id: &PasteId, now: UnixTime) -> Result<Option<PasteMeta>, StoreError> {
        let meta = match self.inner.hot.meta(id.as_str()) {
            Some(meta) => Some(meta),
            None => self.inner.read_meta(id.as_str())?,
        };
        Ok(meta.filter(|m| !m.is_expired(now)))
    }

    async fn take(&self, id: &PasteId, now: UnixTime) -> Result<Option<Paste>, StoreError> {
        // A cheap miss stays on the runtime thread; a take that will remove
        // something goes to a blocking thread (it re-reads the metadata under
        // the ID's lock there), because its write batch can meet fjall's
        // writer stall, like a create's.
        if self.inner.read_live_entry(id.as_str(), now)?.is_none() {
            return Ok(None);
        }
        let id = id.as_str().to_owned();
        let paste = self.blocking(move |inner| inner.take(&id, now)).await?;
        if paste.is_some() {
            // A revealed burn paste must not come back after a power loss.
            self.durable().await?;
        }
        Ok(paste)
    }

    async fn list(
        &self,
        owner: &str,
        query: &ListQuery,
        now: UnixTime,
    ) -> Result<ListPage, StoreError> {
        self.inner.list(owner, query, now)
    }

    async fn owner_usage(&self, owner: &str) -> Result<Usage, StoreError> {
        Ok(self.inner.owner_usage(owner))
    }

    async fn delete(&self, id: &PasteId) -> Result<bool, StoreError> {
        // On a blocking thread, as `take`.
        let id = id.as_str().to_owned();
        let deleted = self.blocking(move |inner| inner.delete(&id)).await?;
        if deleted {
            self.durable().await?;
        }
        Ok(deleted)
    }

    async fn sweep(&self, now: UnixTime, limit: usize) -> Result<SweepReport, StoreError> {
        let inner = self.inner.clone();
        let report = tokio::task::spawn_blocking(move || inner.sweep(now, limit))
            .await
            .map_err(|e| StoreError::backend_caused("sweep task failed", e))??;
        if report.removed > 0 {
            self.durable().await?;
        }
        Ok(report)
    }

    fn used_bytes(&self) -> u64 {
        self.inner.used.load(Ordering::Relaxed)
    }

    async fn scan(
        &self,
        after: Option<&str>,
        limit: usize,
        now: UnixTime,
    ) -> Result<Vec<PasteMeta>, StoreError> {
        self.inner.scan(after, limit, now)
    }

    fn stored_pastes(&self) -> u64 {
        self.inner.pastes.load(Ordering::Relaxed)
    }

    async fn ping(&self) -> Result<(), StoreError> {
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || inner.ping())
            .await
            .map_err(|e| StoreError::backend_caused("ping task failed", e))?
    }

    async fn create_tenant(&self, tenant: Tenant) -> Result<(), StoreError> {
        self.inner.accounts.create_tenant(tenant)?;
        self.durable().await
    }

    async fn update_tenant(&self, tenant: Tenant) -> Result<(), StoreError> {
        self.inner.accounts.update_tenant(tenant)?;
        self.durable().await
    }

    async fn tenant(&self, name: &str) -> Result<Option<Tenant>, StoreError> {
        Ok(self.inner.accounts.tenant(name))
    }

    async fn tenants(&self) -> Result<Vec<Tenant>, StoreError> {
        Ok(self.inner.accounts.tenants())
    }

    async fn delete_tenant(&self, name: &str) -> Result<bool, StoreError> {
        let pastes = self.inner.owner_usage(name).pastes;
        if pastes > 0 {
            return Err(StoreError::TenantNotEmpty(pastes));
        }
        let deleted = self.inner.accounts.delete_tenant(name)?;
        self.durable().await?;
        Ok(deleted)
    }

    async fn create_token(&self, record: TokenRecord) -> Result<(), StoreError> {
        self.inner.accounts.create_token(record)?;
        self.durable().await
    }

    async fn token(&self, hash: &[u8; 32]) -> Result<Option<TokenRecord>, StoreError> {
        Ok(self.inner.accounts.token(hash))
    }

    async fn revoke_token(&self, id: &str) -> Result<bool, StoreError> {
        let revoked = self.inner.accounts.revoke_token(id)?;
        self.durable().await?;
        Ok(revoked)
    }

    async fn tokens(&self, tenant: &str) -> Result<Vec<TokenRecord>, StoreError> {
        Ok(self.inner.accounts.tokens(tenant))
    }

    fn shared_rates(&self) -> Option<&dyn RateStore> {
        // One process per data directory: rate limits stay in process.
        None
    }

    async fn close(&self) -> Result<(), StoreError> {
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || {
            inner.log.sync()?;
            Ok::<_, StoreError>(inner.db.persist(PersistMode::SyncAll)?)
        })
        .await
        .map_err(|e| StoreError::backend_caused("close task failed", e))??;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
