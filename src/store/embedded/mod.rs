//! The default backend: an embedded fjall (LSM-tree) database in the data dir.
//!
//! Three keyspaces:
//! - `meta`:   ID → JSON-encoded [`PasteMeta`] (small; what listing and sweeping read);
//! - `body`:   ID → body bytes (key-value separated, so large bodies live in blob
//!   files and are not rewritten by every compaction);
//! - `expiry`: `expires_at (u64 BE) ‖ ID` → empty, an index the sweeper scans in order.
//!
//! A paste's three entries are written and removed in one atomic write batch.
//! Every batch is written to the journal and flushed to the OS before the call
//! returns, so an acknowledged paste survives `kill -9` of the process. With
//! [`Durability::Fsync`] writers also wait for an `fdatasync`, shared between
//! concurrent writers by [group commit](super::group_commit).
//!
//! fjall calls are made inline on the async runtime: reads are memory-speed in
//! the common case (memtable or block cache) and a write is one buffered
//! `write(2)`; sending each to a blocking thread would cost more than it saves.
//! Slow work (sweeping, compaction, fsync) runs on blocking threads.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;
use bytes::Bytes;
use fjall::{Database, Keyspace, KeyspaceCreateOptions, KvSeparationOptions, PersistMode};

use super::group_commit::GroupCommit;
use super::{Paste, Store, StoreError, SweepReport};
use crate::core::{PasteId, PasteMeta, UnixTime};

/// How far a write must have gone before it is acknowledged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
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
    /// Block cache size in bytes.
    pub cache_bytes: u64,
}

/// Number of lock stripes serialising writers of the same ID.
const LOCK_STRIPES: usize = 64;
/// After sweeping this many bytes, compact so the space returns to the file system.
const RECLAIM_AFTER_BYTES: u64 = 4 << 20;

/// The embedded fjall store. Cheap to share: all state is behind `Arc`s.
pub struct EmbeddedStore {
    inner: Arc<Inner>,
    group_commit: Option<Arc<GroupCommit>>,
}

struct Inner {
    db: Database,
    meta: Keyspace,
    body: Keyspace,
    expiry: Keyspace,
    /// Only one process can open the data dir (fjall locks it), so in-process
    /// locks are enough to make read-modify-write sequences on one ID atomic.
    /// `std::sync::Mutex`, because no `.await` happens while one is held.
    stripes: Vec<Mutex<()>>,
    used: AtomicU64,
    max_bytes: Option<u64>,
    /// Bytes swept since the last compaction.
    unreclaimed: AtomicU64,
    path: PathBuf,
}

impl EmbeddedStore {
    /// Opens (or creates) the store in `dir` and counts the stored bytes.
    ///
    /// Must be called inside a Tokio runtime when `durability` is `Fsync`.
    pub fn open(dir: &Path, options: EmbeddedOptions) -> Result<Self, StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| {
            StoreError::Backend(format!("cannot create data dir {}: {e}", dir.display()))
        })?;
        let db = Database::builder(dir.join("fjall"))
            .cache_size(options.cache_bytes)
            .worker_threads(2)
            .open()?;
        let meta = db.keyspace("meta", KeyspaceCreateOptions::default)?;
        let body = db.keyspace("body", || {
            KeyspaceCreateOptions::default()
                .max_memtable_size(16 << 20)
                .with_kv_separation(Some(KvSeparationOptions::default()))
        })?;
        let expiry = db.keyspace("expiry", KeyspaceCreateOptions::default)?;
        let inner = Inner {
            db,
            meta,
            body,
            expiry,
            stripes: (0..LOCK_STRIPES).map(|_| Mutex::new(())).collect(),
            used: AtomicU64::new(0),
            max_bytes: options.max_bytes,
            unreclaimed: AtomicU64::new(0),
            path: dir.to_path_buf(),
        };
        inner.used.store(inner.count_bytes()?, Ordering::Relaxed);
        let inner = Arc::new(inner);
        let group_commit = (options.durability == Durability::Fsync).then(|| {
            let db = inner.db.clone();
            GroupCommit::start(Arc::new(move || {
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
}

impl Inner {
    fn lock(&self, id: &str) -> MutexGuard<'_, ()> {
        // FNV-1a: cheap, and IDs are already uniformly random.
        let hash = id.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
        });
        let stripe = &self.stripes[(hash % LOCK_STRIPES as u64) as usize];
        // A poisoned stripe only means another request panicked while holding
        // it; the guarded data is `()`, so carrying on is safe.
        stripe.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn read_meta(&self, id: &str) -> Result<Option<PasteMeta>, StoreError> {
        let Some(raw) = self.meta.get(id)? else {
            return Ok(None);
        };
        serde_json::from_slice(&raw)
            .map(Some)
            .map_err(|e| StoreError::Corrupt(format!("metadata of {id}: {e}")))
    }

    fn read_live(&self, id: &str, now: UnixTime) -> Result<Option<Paste>, StoreError> {
        let Some(meta) = self.read_meta(id)?.filter(|m| !m.is_expired(now)) else {
            return Ok(None);
        };
        // A concurrent take or delete may remove the body after we read the meta.
        Ok(self.body.get(id)?.map(|body| Paste {
            meta,
            body: Bytes::from(body),
        }))
    }

    /// Removes all three entries of a paste in one batch. Caller holds the ID's lock.
    fn remove(&self, meta: &PasteMeta) -> Result<(), StoreError> {
        let mut batch = self.db.batch();
        batch.remove(&self.meta, meta.id.as_str());
        batch.remove(&self.body, meta.id.as_str());
        if let Some(at) = meta.expires_at {
            batch.remove(&self.expiry, expiry_key(at, &meta.id));
        }
        batch.commit()?;
        self.used.fetch_sub(meta.size, Ordering::Relaxed);
        Ok(())
    }

    /// Reserves `size` bytes against the limit, atomically.
    fn reserve(&self, size: u64) -> Result<(), StoreError> {
        let limit = self.max_bytes.unwrap_or(u64::MAX);
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(size).filter(|&total| total <= limit)
            })
            .map(drop)
            .map_err(|_| StoreError::Full { limit })
    }

    fn put(&self, meta: &PasteMeta, body: Bytes) -> Result<(), StoreError> {
        let encoded = serde_json::to_vec(meta).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let _guard = self.lock(&meta.id);
        if self.meta.contains_key(meta.id.as_str())? {
            return Err(StoreError::IdTaken);
        }
        self.reserve(meta.size)?;
        let mut batch = self.db.batch();
        batch.insert(&self.meta, meta.id.as_str(), encoded);
        batch.insert(&self.body, meta.id.as_str(), body);
        if let Some(at) = meta.expires_at {
            batch.insert(&self.expiry, expiry_key(at, &meta.id), []);
        }
        batch.commit().inspect_err(|_| {
            self.used.fetch_sub(meta.size, Ordering::Relaxed);
        })?;
        Ok(())
    }

    fn take(&self, id: &str, now: UnixTime) -> Result<Option<Paste>, StoreError> {
        let _guard = self.lock(id);
        let Some(paste) = self.read_live(id, now)? else {
            return Ok(None);
        };
        self.remove(&paste.meta)?;
        Ok(Some(paste))
    }

    fn delete(&self, id: &str) -> Result<bool, StoreError> {
        let _guard = self.lock(id);
        let Some(meta) = self.read_meta(id)? else {
            return Ok(false);
        };
        self.remove(&meta)?;
        Ok(true)
    }

    /// Blocking: deletes expired pastes, then compacts if enough space was freed.
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
            let _guard = self.lock(&id);
            match self.read_meta(&id)? {
                Some(meta) if meta.is_expired(now) => {
                    self.remove(&meta)?;
                    report.removed += 1;
                    report.bytes += meta.size;
                }
                // Index entry without a matching paste (e.g. left by a crash mid-way
                // in an older version): drop it.
                _ => self.expiry.remove(key)?,
            }
        }
        let pending = self.unreclaimed.fetch_add(report.bytes, Ordering::Relaxed) + report.bytes;
        if pending >= RECLAIM_AFTER_BYTES {
            self.unreclaimed.store(0, Ordering::Relaxed);
            self.reclaim()?;
        }
        Ok(report)
    }

    /// Flushes memtables and compacts, so deleted data leaves the disk.
    fn reclaim(&self) -> Result<(), StoreError> {
        for keyspace in [&self.body, &self.meta, &self.expiry] {
            keyspace.rotate_memtable_and_wait()?;
            keyspace.major_compact()?;
        }
        Ok(())
    }

    fn count_bytes(&self) -> Result<u64, StoreError> {
        let mut total = 0u64;
        for entry in self.meta.iter() {
            let (key, value) = entry.into_inner()?;
            let meta: PasteMeta = serde_json::from_slice(&value).map_err(|e| {
                StoreError::Corrupt(format!(
                    "metadata of {}: {e}",
                    String::from_utf8_lossy(&key)
                ))
            })?;
            total += meta.size;
        }
        Ok(total)
    }
}

/// `expires_at` big-endian then the ID, so byte order is expiry order.
fn expiry_key(at: UnixTime, id: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(8 + id.len());
    key.extend_from_slice(&at.to_be_bytes());
    key.extend_from_slice(id.as_bytes());
    key
}

#[async_trait]
impl Store for EmbeddedStore {
    async fn put(&self, meta: PasteMeta, body: Bytes) -> Result<(), StoreError> {
        self.inner.put(&meta, body)?;
        self.durable().await
    }

    async fn get(&self, id: &PasteId, now: UnixTime) -> Result<Option<Paste>, StoreError> {
        self.inner.read_live(id.as_str(), now)
    }

    async fn meta(&self, id: &PasteId, now: UnixTime) -> Result<Option<PasteMeta>, StoreError> {
        Ok(self
            .inner
            .read_meta(id.as_str())?
            .filter(|m| !m.is_expired(now)))
    }

    async fn take(&self, id: &PasteId, now: UnixTime) -> Result<Option<Paste>, StoreError> {
        let paste = self.inner.take(id.as_str(), now)?;
        if paste.is_some() {
            // A revealed burn paste must not come back after a power loss.
            self.durable().await?;
        }
        Ok(paste)
    }

    async fn delete(&self, id: &PasteId) -> Result<bool, StoreError> {
        let deleted = self.inner.delete(id.as_str())?;
        if deleted {
            self.durable().await?;
        }
        Ok(deleted)
    }

    async fn sweep(&self, now: UnixTime, limit: usize) -> Result<SweepReport, StoreError> {
        let inner = self.inner.clone();
        let report = tokio::task::spawn_blocking(move || inner.sweep(now, limit))
            .await
            .map_err(|e| StoreError::Backend(format!("sweep task failed: {e}")))??;
        if report.removed > 0 {
            self.durable().await?;
        }
        Ok(report)
    }

    fn used_bytes(&self) -> u64 {
        self.inner.used.load(Ordering::Relaxed)
    }

    async fn close(&self) -> Result<(), StoreError> {
        let db = self.inner.db.clone();
        tokio::task::spawn_blocking(move || db.persist(PersistMode::SyncAll))
            .await
            .map_err(|e| StoreError::Backend(format!("close task failed: {e}")))??;
        Ok(())
    }
}
