//! The default backend: an embedded fjall (LSM-tree) database in the data dir,
//! plus one file per large body.
//!
//! Three keyspaces:
//! - `meta`:   ID → JSON-encoded [`PasteMeta`] (small; what listing and sweeping read);
//! - `body`:   ID → body bytes of bodies under [`FILE_BODY_BYTES`] (key-value
//!   separated, so they live in blob files not rewritten by every compaction);
//! - `expiry`: `expires_at (u64 BE) ‖ ID` → empty, an index the sweeper scans in order.
//!
//! Bodies of [`FILE_BODY_BYTES`] or more are files, `bodies/<first two ID
//! characters>/<ID>`, and have no `body` entry. fjall writes every value to its
//! journal, and only rotates (and so frees) a journal once it passes 64 MB: with
//! large bodies in fjall, tens of MB of swept pastes stayed on disk in the
//! journal however much was compacted. A file is gone the moment it is unlinked.
//!
//! A paste's three entries are written and removed in one atomic write batch.
//! Every batch is written to the journal and flushed to the OS before the call
//! returns, so an acknowledged paste survives `kill -9` of the process. With
//! [`Durability::Fsync`] writers also wait for an `fdatasync`, shared between
//! concurrent writers by [group commit](super::group_commit).
//!
//! A body file is written completely (and with `Fsync`, synced with its
//! directory) before the batch that makes the paste exist, and unlinked after
//! the batch that removes it; so a crash of snip (with `Fsync`, of the machine
//! too) can leave an orphan file but never a paste without its body. Orphans
//! are deleted when the store is opened.
//!
//! fjall calls are made inline on the async runtime: reads are memory-speed in
//! the common case (memtable or block cache) and a write is one buffered
//! `write(2)`; sending each to a blocking thread would cost more than it saves.
//! Slow work (sweeping, compaction, fsync, body files) runs on blocking threads.

use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Write};
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
/// Bodies of at least this many bytes are stored as files rather than in fjall.
///
/// Part of the on-disk format: a paste of this size or more is looked for in a
/// file first (then in `body`, where older versions put every body).
pub const FILE_BODY_BYTES: u64 = 64 << 10;
/// The directory of body files, inside the data dir.
const BODIES_DIR: &str = "bodies";

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
    /// Where body files live (`<data dir>/bodies`).
    bodies: PathBuf,
    durability: Durability,
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
            bodies: dir.join(BODIES_DIR),
            durability: options.durability,
        };
        inner.used.store(inner.count_bytes()?, Ordering::Relaxed);
        std::fs::create_dir_all(&inner.bodies)
            .map_err(|e| io_error("cannot create directory", &inner.bodies, e))?;
        if inner.durability == Durability::Fsync {
            // So that `bodies` itself survives a power loss; write_body_file syncs below it.
            sync_dir(dir)?;
        }
        let orphans = inner.remove_orphan_files()?;
        if orphans > 0 {
            tracing::info!(
                orphans,
                "deleted body files of pastes that were never stored"
            );
        }
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

    /// Runs `work` on a blocking thread when it touches a body file, inline otherwise.
    async fn run<T: Send + 'static>(
        &self,
        file_io: bool,
        work: impl FnOnce(&Inner) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        if !file_io {
            return work(&self.inner);
        }
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || work(&inner))
            .await
            .map_err(|e| StoreError::Backend(format!("store task failed: {e}")))?
    }
}

fn is_file_backed(size: u64) -> bool {
    size >= FILE_BODY_BYTES
}

fn io_error(what: &str, path: &Path, e: std::io::Error) -> StoreError {
    StoreError::Backend(format!("{what} {}: {e}", path.display()))
}

/// `fsync` of a directory, so the entries created in it survive a power loss.
fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io_error("cannot sync directory", dir, e))
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

    fn read_live_meta(&self, id: &str, now: UnixTime) -> Result<Option<PasteMeta>, StoreError> {
        Ok(self.read_meta(id)?.filter(|m| !m.is_expired(now)))
    }

    /// The body of a paste whose metadata was read. Blocking if the body is a file.
    fn read_body(&self, meta: PasteMeta) -> Result<Option<Paste>, StoreError> {
        if is_file_backed(meta.size) {
            let path = self.body_path(&meta.id)?;
            match std::fs::read(&path) {
                Ok(body) if body.len() as u64 == meta.size => {
                    return Ok(Some(Paste {
                        meta,
                        body: Bytes::from(body),
                    }));
                }
                Ok(body) => {
                    return Err(StoreError::Corrupt(format!(
                        "body file {} has {} bytes, not {}",
                        path.display(),
                        body.len(),
                        meta.size
                    )));
                }
                // Removed by a concurrent take or delete, or stored in fjall by
                // an older version: look there.
                Err(e) if e.kind() == ErrorKind::NotFound => {}
                Err(e) => return Err(io_error("cannot read body file", &path, e)),
            }
        }
        // A concurrent take or delete may remove the body after we read the meta.
        Ok(self.body.get(meta.id.as_str())?.map(|body| Paste {
            meta,
            body: Bytes::from(body),
        }))
    }

    /// `bodies/<first two characters>/<id>`; refuses IDs that are not plain
    /// alphanumerics, so no stored value can ever name another path.
    fn body_path(&self, id: &str) -> Result<PathBuf, StoreError> {
        let shard = id
            .get(..2)
            .filter(|_| id.len() >= 2 && id.bytes().all(|b| b.is_ascii_alphanumeric()));
        let shard = shard.ok_or_else(|| StoreError::Corrupt(format!("invalid paste ID {id:?}")))?;
        Ok(self.bodies.join(shard).join(id))
    }

    /// Blocking: writes a new body file; `IdTaken` if one exists for this ID.
    fn write_body_file(&self, id: &str, body: &[u8]) -> Result<(), StoreError> {
        let path = self.body_path(id)?;
        let shard = self.bodies.join(&id[..2]);
        std::fs::create_dir_all(&shard)
            .map_err(|e| io_error("cannot create directory", &shard, e))?;
        let mut file = match OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == ErrorKind::AlreadyExists => return Err(StoreError::IdTaken),
            Err(e) => return Err(io_error("cannot create body file", &path, e)),
        };
        let fsync = self.durability == Durability::Fsync;
        let written = file
            .write_all(body)
            .and_then(|()| if fsync { file.sync_data() } else { Ok(()) });
        if let Err(e) = written {
            let _ = std::fs::remove_file(&path);
            return Err(io_error("cannot write body file", &path, e));
        }
        if fsync {
            sync_dir(&shard)?;
            sync_dir(&self.bodies)?;
        }
        Ok(())
    }

    /// Unlinks a body file, if the paste has one. Only after its paste is gone.
    fn remove_body_file(&self, meta: &PasteMeta) {
        if !is_file_backed(meta.size) {
            return;
        }
        let removed = self
            .body_path(&meta.id)
            .and_then(|path| match std::fs::remove_file(&path) {
                Err(e) if e.kind() != ErrorKind::NotFound => {
                    Err(io_error("cannot delete body file", &path, e))
                }
                _ => Ok(()),
            });
        if let Err(e) = removed {
            // The paste is deleted either way; the file goes at the next start.
            tracing::warn!(error = %e, "body file left behind");
        }
    }

    /// Blocking: deletes body files whose paste does not exist (left by a crash
    /// between writing the file and storing the paste, or between deleting the
    /// paste and the file). Runs before the store serves anything.
    fn remove_orphan_files(&self) -> Result<usize, StoreError> {
        let shards = match std::fs::read_dir(&self.bodies) {
            Ok(shards) => shards,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(io_error("cannot list", &self.bodies, e)),
        };
        let mut removed = 0;
        for shard in shards {
            let shard = shard.map_err(|e| io_error("cannot list", &self.bodies, e))?;
            let files = std::fs::read_dir(shard.path())
                .map_err(|e| io_error("cannot list", &shard.path(), e))?;
            for file in files {
                let file = file.map_err(|e| io_error("cannot list", &shard.path(), e))?;
                let name = file.file_name();
                let stored = match name.to_str() {
                    Some(id) => self.meta.contains_key(id)?,
                    None => false,
                };
                if !stored {
                    std::fs::remove_file(file.path())
                        .map_err(|e| io_error("cannot delete", &file.path(), e))?;
                    removed += 1;
                }
            }
        }
        Ok(removed)
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
        self.remove_body_file(meta);
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

    /// Stores a paste; `body` is `None` when it is already in its file.
    fn put(&self, meta: &PasteMeta, body: Option<Bytes>) -> Result<(), StoreError> {
        let encoded = serde_json::to_vec(meta).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        let _guard = self.lock(&meta.id);
        if self.meta.contains_key(meta.id.as_str())? {
            return Err(StoreError::IdTaken);
        }
        self.reserve(meta.size)?;
        let mut batch = self.db.batch();
        batch.insert(&self.meta, meta.id.as_str(), encoded);
        if let Some(body) = body {
            batch.insert(&self.body, meta.id.as_str(), body);
        }
        if let Some(at) = meta.expires_at {
            batch.insert(&self.expiry, expiry_key(at, &meta.id), []);
        }
        batch.commit().inspect_err(|_| {
            self.used.fetch_sub(meta.size, Ordering::Relaxed);
        })?;
        Ok(())
    }

    /// Blocking: stores a paste whose body becomes a file, written before the
    /// paste exists.
    fn put_file_backed(&self, meta: &PasteMeta, body: &[u8]) -> Result<(), StoreError> {
        // Not atomic (put reserves for real), but spares writing a file that
        // would be refused.
        if let Some(limit) = self.max_bytes
            && self.used.load(Ordering::Relaxed).saturating_add(meta.size) > limit
        {
            return Err(StoreError::Full { limit });
        }
        self.write_body_file(&meta.id, body)?;
        self.put(meta, None).inspect_err(|_| {
            if let Ok(path) = self.body_path(&meta.id) {
                let _ = std::fs::remove_file(path);
            }
        })
    }

    fn take(&self, id: &str, now: UnixTime) -> Result<Option<Paste>, StoreError> {
        let _guard = self.lock(id);
        let Some(meta) = self.read_live_meta(id, now)? else {
            return Ok(None);
        };
        let Some(paste) = self.read_body(meta)? else {
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
        // Body files are freed when unlinked; only fjall's space needs compacting.
        let mut unreclaimed = 0;
        for (key, id) in due {
            let _guard = self.lock(&id);
            match self.read_meta(&id)? {
                Some(meta) if meta.is_expired(now) => {
                    self.remove(&meta)?;
                    report.removed += 1;
                    report.bytes += meta.size;
                    if !is_file_backed(meta.size) {
                        unreclaimed += meta.size;
                    }
                }
                // Index entry without a matching paste (e.g. left by a crash mid-way
                // in an older version): drop it.
                _ => self.expiry.remove(key)?,
            }
        }
        let pending = self.unreclaimed.fetch_add(unreclaimed, Ordering::Relaxed) + unreclaimed;
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
            // lsm-tree (3.1) deletes a blob file whose values are all dead only
            // when the *next* compaction commits: the compaction that drops the
            // last references records the file as dead, but picks the files to
            // delete from the version before it. Without this second pass the
            // bodies of swept pastes stayed on disk until some later compaction,
            // which on an idle server never comes. It is cheap: the tree was
            // just compacted, and with no tables left it only commits a version.
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
        if is_file_backed(meta.size) {
            self.run(true, move |inner| inner.put_file_backed(&meta, &body))
                .await?;
        } else {
            self.inner.put(&meta, Some(body))?;
        }
        self.durable().await
    }

    async fn get(&self, id: &PasteId, now: UnixTime) -> Result<Option<Paste>, StoreError> {
        let Some(meta) = self.inner.read_live_meta(id.as_str(), now)? else {
            return Ok(None);
        };
        self.run(is_file_backed(meta.size), move |inner| {
            inner.read_body(meta)
        })
        .await
    }

    async fn meta(&self, id: &PasteId, now: UnixTime) -> Result<Option<PasteMeta>, StoreError> {
        Ok(self
            .inner
            .read_meta(id.as_str())?
            .filter(|m| !m.is_expired(now)))
    }

    async fn take(&self, id: &PasteId, now: UnixTime) -> Result<Option<Paste>, StoreError> {
        // Peek at the size to know whether the take reads a file (it re-reads
        // the metadata under the ID's lock).
        let Some(meta) = self.inner.read_live_meta(id.as_str(), now)? else {
            return Ok(None);
        };
        let id = id.as_str().to_owned();
        let paste = self
            .run(is_file_backed(meta.size), move |inner| inner.take(&id, now))
            .await?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::paste::Visibility;

    fn meta(id: &str, size: usize) -> PasteMeta {
        PasteMeta {
            id: id.into(),
            created_at: 1,
            expires_at: Some(100),
            burn: false,
            encrypted: false,
            lang: None,
            name: None,
            content_type: crate::core::paste::OCTET_STREAM.into(),
            size: size as u64,
            delete_token_hash: [0; 32],
            owner: None,
            visibility: Visibility::Unlisted,
        }
    }

    fn open(dir: &Path) -> EmbeddedStore {
        let options = EmbeddedOptions {
            durability: Durability::Os,
            max_bytes: None,
            cache_bytes: 1 << 20,
        };
        EmbeddedStore::open(dir, options).unwrap()
    }

    fn id(text: &str) -> PasteId {
        PasteId::parse(text).unwrap()
    }

    /// A large body is a file, not a fjall value; reading, taking and sweeping it work, and each removes the file.
    #[tokio::test]
    async fn large_bodies_are_files() {
        let tmp = tempfile::tempdir().unwrap();
        let store = open(tmp.path());
        let big = FILE_BODY_BYTES as usize;
        let ids: Vec<String> = (0..3)
            .map(|_| PasteId::generate(12).unwrap().to_string())
            .collect();
        for (n, text) in ids.iter().enumerate() {
            let body = Bytes::from(vec![n as u8; big]);
            store.put(meta(text, big), body).await.unwrap();
            assert!(store.inner.body_path(text).unwrap().is_file());
            assert!(store.inner.body.get(text.as_str()).unwrap().is_none());
        }
        assert_eq!(store.used_bytes(), 3 * big as u64);

        let got = store.get(&id(&ids[0]), 50).await.unwrap().unwrap();
        assert_eq!(got.body, vec![0u8; big]);
        let taken = store.take(&id(&ids[1]), 50).await.unwrap().unwrap();
        assert_eq!(taken.body, vec![1u8; big]);
        assert!(!store.inner.body_path(&ids[1]).unwrap().exists());
        assert!(store.get(&id(&ids[1]), 50).await.unwrap().is_none());

        let report = store.sweep(100, 10).await.unwrap();
        assert_eq!(report.removed, 2);
        for text in &ids {
            assert!(!store.inner.body_path(text).unwrap().exists());
        }
        assert_eq!(store.used_bytes(), 0);
    }

    /// Opening the store deletes body files that belong to no paste and keeps the others.
    #[tokio::test]
    async fn orphan_files_are_deleted_on_open() {
        let tmp = tempfile::tempdir().unwrap();
        let kept = PasteId::generate(12).unwrap().to_string();
        let orphan = PasteId::generate(12).unwrap().to_string();
        {
            let store = open(tmp.path());
            let big = FILE_BODY_BYTES as usize + 1;
            store
                .put(meta(&kept, big), Bytes::from(vec![7; big]))
                .await
                .unwrap();
            store
                .inner
                .write_body_file(&orphan, b"half a paste")
                .unwrap();
            store.close().await.unwrap();
        }
        let store = open(tmp.path());
        assert!(store.inner.body_path(&kept).unwrap().is_file());
        assert!(!store.inner.body_path(&orphan).unwrap().exists());
        assert!(store.get(&id(&kept), 50).await.unwrap().is_some());
    }

    /// A large body stored in fjall (as versions before body files did) is still read.
    #[tokio::test]
    async fn large_bodies_in_fjall_are_still_read() {
        let tmp = tempfile::tempdir().unwrap();
        let store = open(tmp.path());
        let text = PasteId::generate(12).unwrap().to_string();
        let big = FILE_BODY_BYTES as usize * 2;
        let body = Bytes::from(vec![9; big]);
        store
            .inner
            .put(&meta(&text, big), Some(body.clone()))
            .unwrap();
        let got = store.get(&id(&text), 50).await.unwrap().unwrap();
        assert_eq!(got.body, body);
        assert!(store.delete(&id(&text)).await.unwrap());
        assert!(store.get(&id(&text), 50).await.unwrap().is_none());
    }

    /// IDs that are not plain alphanumerics never become paths.
    #[test]
    fn body_paths_refuse_odd_ids() {
        let tmp = tempfile::tempdir().unwrap();
        let store = open(tmp.path());
        for bad in ["", "a", "../etc", "ab/cd", "ab.cd"] {
            assert!(store.inner.body_path(bad).is_err(), "{bad:?}");
        }
    }
}
