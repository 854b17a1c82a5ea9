//! Opening the data dir: fjall and its keyspaces with their tuning, the body
//! log and body files, the persisted counts (`counters`) and the saved
//! filter of stored IDs (`known_ids`), so that opening does not grow with
//! the number of pastes; and the checks of a store that is open (`ping`) and
//! its clean close, which saves that filter.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use fjall::config::{BloomConstructionPolicy, FilterPolicy, FilterPolicyEntry, PartitioningPolicy};
use fjall::{Database, KeyspaceCreateOptions, PersistMode};

use super::accounts::Accounts;
use super::body_files::{self, BodyFiles};
use super::body_log::{BodyLog, Kernel, PageCache};
use super::combiner::Combiner;
use super::counters::{Counters, Counts};
use super::dictionary_file::DictionaryFile;
use super::journal::JournalBound;
use super::known_ids::{self, KnownIds};
use super::paste_cache::PasteCache;
use super::search::SearchIndex;
use super::sequence::Sequence;
use super::space::Space;
use super::{Durability, EmbeddedOptions, EmbeddedStore, Inner, LOCK_STRIPES};
use super::{format, usage};
use crate::idle::Activity;
use crate::store::StoreError;
use crate::store::group_commit::GroupCommit;

/// Largest memtable of `expiry`, `owners` and `counters`. Their entries are
/// small (an index key, or a count rewritten by every batch), so 1 MiB
/// still makes tables of thousands of entries, and a flush of one does not
/// hold a second memtable's worth of memory while it is written.
const MEMTABLE_BYTES: u64 = 1 << 20;

/// Largest memtable of the `meta` keyspace, which every create writes. Each
/// flush becomes a level-0 table; a larger memtable means fewer of them,
/// but it is held twice while it is flushed (the full one and its
/// successor), and at 16 MiB that is a fifth of a fill's RSS. fjall keeps
/// this, like the other `meta` options, from the keyspace's creation.
const META_MEMTABLE_BYTES: u64 = 8 << 20;

/// Tables in level 0 of the `meta` keyspace that start their compaction
/// into level 1 (fjall's default is 4). Numbered pastes arrive in key order
/// (`keys`), so their tables are moved down without a rewrite; but pastes
/// from elsewhere are keyed by ID, which looks random, so a store of them
/// flushes tables that overlap all of level 1, and each such compaction
/// rewrites the whole of it: with 12 that happens a third as often. The
/// cost: a lookup checks the bloom filters of the level-0 tables whose key
/// range holds its key, up to 12.
const META_L0_TABLES: u8 = 12;

/// All journals together, fjall's minimum: past it, fjall asks every
/// keyspace with entries in the oldest sealed journal file to flush them.
/// `journal` asks the slow keyspaces as soon as a file is sealed, so sealed
/// files rarely live long; what a start after `kill -9` replays is mostly the
/// active file, which fjall seals once it passes 64 MB.
const MAX_JOURNAL_BYTES: u64 = 64 << 20;

/// The smallest filter of stored IDs (`known_ids`): 256 Ki IDs, 320 KiB.
const KNOWN_IDS_MIN: usize = 256 << 10;

impl EmbeddedStore {
    /// Opens (or creates) the store in `dir` and counts the stored bytes.
    ///
    /// Must be called inside a Tokio runtime when `durability` is `Fsync`.
    pub fn open(dir: &Path, options: EmbeddedOptions) -> Result<Self, StoreError> {
        Self::open_with(dir, options, Arc::new(Kernel), IdScan::Background)
    }

    /// [`Self::open`], with the page cache the body log is to use, and how
    /// the filter of stored IDs is built if no saved one is valid.
    pub(super) fn open_with(
        dir: &Path,
        options: EmbeddedOptions,
        page_cache: Arc<dyn PageCache>,
        id_scan: IdScan,
    ) -> Result<Self, StoreError> {
        body_files::create_private_dir(dir).map_err(|e| {
            StoreError::backend_caused(format!("cannot create data dir {}", dir.display()), e)
        })?;
        body_files::make_private(dir)?;
        let fsync = options.durability == Durability::Fsync;
        format::check_or_record(dir, fsync)?;
        // Memtables are memory: fjall's defaults (64 MiB per keyspace, no
        // global cap) would let a burst of writes grow RSS by hundreds of
        // MiB; 8 MiB for `meta` and 1 MiB for the other three bound the
        // active memtables to 11 MiB.
        //
        // Four background workers, not two: fjall 3.1's worker 0 hands every
        // compaction request back to the queue, so while the only other
        // worker compacts, worker 0 spins on that request. One worker is
        // worse: memtable rotations wait behind compactions and memtables
        // outgrow their size.
        let db = Database::builder(dir.join("fjall"))
            .cache_size(options.cache_bytes - options.cache_bytes / 4)
            .worker_threads(4)
            .max_journaling_size(MAX_JOURNAL_BYTES)
            .open()
            .map_err(|e| opening_failed(dir, e))?;
        let small = || KeyspaceCreateOptions::default().max_memtable_size(MEMTABLE_BYTES);
        // `meta`'s lookups are random pastes over the whole store, so what a
        // read needs besides its data block must be in memory or one small
        // block away. Filters and indexes are partitioned at every level:
        // fjall pins a top-level index of a few KiB per table and loads 4 KiB
        // partitions through the block cache, where whole-table blocks
        // (hundreds of KiB per table) would be pinned, or evicted by data
        // blocks and read again on every miss. Level 0 too, because
        // numbered pastes arrive in key order and fjall moves their tables
        // down as they were flushed, never rewriting them in a lower
        // level's format. Filters have 10 bits a key (1 % false positives),
        // for lookups of IDs from elsewhere, whose tables overlap in level
        // 0; a compaction into the last level builds none
        // (`expect_point_read_hits`): reads there are for IDs that exist,
        // because the numbering (`sequence`) and the filter of IDs from
        // elsewhere (`known_ids`) answer for those that do not, except
        // about one in a hundred of the latter. fjall keeps the settings a
        // keyspace was created with.
        let partitioned = || PartitioningPolicy::all(true);
        let filter = FilterPolicy::all(FilterPolicyEntry::Bloom(
            BloomConstructionPolicy::BitsPerKey(10.0),
        ));
        let meta = db.keyspace("meta", || {
            small()
                .max_memtable_size(META_MEMTABLE_BYTES)
                .expect_point_read_hits(true)
                .filter_policy(filter)
                .filter_block_partitioning_policy(partitioned())
                .index_block_partitioning_policy(partitioned())
                .compaction_strategy(Arc::new(
                    fjall::compaction::Leveled::default().with_l0_threshold(META_L0_TABLES),
                ))
        })?;
        let expiry = db.keyspace("expiry", small)?;
        let owners = db.keyspace("owners", small)?;
        let counted = db.keyspace("counters", small)?;
        let space = Space::new(dir);
        let accounts = Accounts::open(&db, space.clone())?;
        let journal = JournalBound::new(&db)?;
        let files = BodyFiles::open(dir, fsync)?;
        let log = Arc::new(BodyLog::open_with(dir, fsync, page_cache)?);
        let dictionary = DictionaryFile::open(dir)?;
        let search = SearchIndex::open(dir)?;
        let sequence = Sequence::open(&db, counted.clone(), meta.is_empty()?)?;
        let numbered_only = sequence.numbered_only();
        let (counters, known, todo) =
            open_counts(dir, &db, &meta, counted, id_scan, numbered_only)?;
        let counts = counters.counts();
        let inner = Inner {
            db,
            meta,
            expiry,
            owners,
            accounts,
            stripes: (0..LOCK_STRIPES).map(|_| Mutex::new(())).collect(),
            #[cfg(test)]
            lock_waits: std::sync::atomic::AtomicUsize::new(0),
            used: AtomicU64::new(counts.bytes),
            pastes: AtomicU64::new(counts.pastes),
            max_bytes: options.max_bytes,
            usage: Mutex::new(counts.owners.clone()),
            counters,
            log,
            files,
            space,
            paste_cache: PasteCache::new(options.cache_bytes / 4),
            sequence,
            known: Arc::new(known),
            combiner: Combiner::default(),
            dictionary,
            journal,
            search,
            writes: Activity::default(),
            poisoned: tokio::sync::watch::Sender::new(None),
            path: dir.to_path_buf(),
        };
        let dead = inner.log.count_live(&counts.segments);
        if dead > 0 {
            tracing::info!(
                segments = dead,
                "deleted body log segments no paste refers to"
            );
        }
        match todo {
            FilterTodo::Nothing => {}
            FilterTodo::Load(path, marker) => inner.load_known_ids(path, marker),
            FilterTodo::Rebuild => inner.rebuild_known_ids(),
        }
        let orphans = inner
            .files
            .remove_orphans(|id| Ok(inner.locate(id)?.is_some()))?;
        if orphans > 0 {
            tracing::info!(
                orphans,
                "deleted body files of pastes that were never stored"
            );
        }
        let inner = Arc::new(inner);
        inner.search.start(Arc::downgrade(&inner));
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
}

/// How the filter of stored IDs is made at open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum IdScan {
    /// By a thread of its own, started at open: the saved filter loaded, or
    /// else a scan.
    Background,
    /// A saved filter loaded before the store opens; no scan: a test runs it
    /// when it chooses.
    #[cfg(test)]
    Deferred,
}

/// What [`open_counts`] leaves for a thread to do to the filter of stored IDs.
enum FilterTodo {
    Nothing,
    /// Load the file saved with this marker, or else scan.
    Load(PathBuf, u64),
    /// Scan: there is no filter, or the one filled by counting outgrew its size.
    Rebuild,
}

/// The persisted counts and the filter of stored IDs. A store whose counts
/// were never persisted (format 2) is counted once, from every paste, and
/// its counts written; otherwise the counts are read. The filter holds
/// every ID the store did not number (`sequence`): with `numbered_only`
/// there are none, and it starts empty; otherwise it is none yet, for a
/// thread to load or build, or with [`IdScan::Deferred`] the one saved at
/// the last clean close if it is still valid.
fn open_counts(
    dir: &Path,
    db: &Database,
    meta: &fjall::Keyspace,
    keyspace: fjall::Keyspace,
    id_scan: IdScan,
    numbered_only: bool,
) -> Result<(Counters, KnownIds, FilterTodo), StoreError> {
    let loaded = Counters::load(&keyspace)?;
    let Some(counts) = loaded.counts else {
        let known = KnownIds::new(meta.approximate_len(), KNOWN_IDS_MIN);
        let (counts, outgrown): (Counts, bool) = usage::count(meta, &known)?;
        let counters = Counters::new(keyspace, counts, false);
        let mut batch = db.batch();
        counters.record_all(&mut batch);
        batch.commit()?;
        // Bookkeeping of a new (or older) data dir: not worth the start-up
        // log's first line, which says where snip listens.
        tracing::debug!("counted the stored pastes once, to persist the counts");
        let todo = if outgrown {
            FilterTodo::Rebuild
        } else {
            FilterTodo::Nothing
        };
        return Ok((counters, known, todo));
    };
    let counters = Counters::new(keyspace, counts, loaded.saved_ids.is_some());
    if numbered_only {
        return Ok((
            counters,
            KnownIds::new(0, KNOWN_IDS_MIN),
            FilterTodo::Nothing,
        ));
    }
    let unknown = KnownIds::unknown(KNOWN_IDS_MIN);
    let path = dir.join(known_ids::FILE_NAME);
    let (known, todo) = match (id_scan, loaded.saved_ids) {
        (IdScan::Background, Some(marker)) => (unknown, FilterTodo::Load(path, marker)),
        (IdScan::Background, None) => (unknown, FilterTodo::Rebuild),
        #[cfg(test)]
        (IdScan::Deferred, saved) => {
            let known = saved.and_then(|marker| KnownIds::load(&path, marker, KNOWN_IDS_MIN));
            (known.unwrap_or(unknown), FilterTodo::Nothing)
        }
    };
    Ok((counters, known, todo))
}

/// Why fjall would not open: another process holds the data dir, or the
/// journal is damaged. fjall recovers a journal whose last batch
/// was cut off (it drops that batch), but refuses one with a batch that
/// fails its checksum: which writes followed it cannot be known.
fn opening_failed(dir: &Path, e: fjall::Error) -> StoreError {
    match e {
        fjall::Error::Locked => StoreError::InUse {
            dir: dir.to_path_buf(),
        },
        fjall::Error::JournalRecovery(cause) => StoreError::Corrupt(format!(
            "the metadata journal in {} is damaged ({cause:?}), not just cut off at its end \
             (which is recovered); restore the data dir from a backup (`snip restore`)",
            dir.join("fjall").display()
        )),
        other => other.into(),
    }
}

impl Inner {
    /// Blocking: a read through fjall, a check that fjall still takes
    /// writes, then a probe file written, synced and removed in the data
    /// dir, so a poisoned store, or a vanished, read-only or full data dir
    /// (the failures that make creates fail), reports not ready.
    pub(super) fn ping(&self) -> Result<(), StoreError> {
        self.meta.get("ping")?;
        // Writes nothing (each batch is flushed already), but fails if fjall
        // is poisoned: a store that refuses writes is not ready.
        self.db.persist(PersistMode::Buffer)?;
        // One file per call: concurrent pings must not remove each other's.
        static PROBES: AtomicU64 = AtomicU64::new(0);
        let n = PROBES.fetch_add(1, Ordering::Relaxed);
        let probe = self.path.join(format!(".ready-probe-{n}"));
        let write = || -> std::io::Result<()> {
            use std::io::Write;
            // 0600 like every file of the data dir, however briefly it exists.
            let mut file = body_files::private_file()
                .write(true)
                .create(true)
                .truncate(true)
                .open(&probe)?;
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
}

impl Inner {
    /// Saves the filter of stored IDs with a new random marker, stored in
    /// `counters` while no batch commits: the file is valid until the next
    /// batch that stores a new ID removes the marker.
    pub(super) fn save_known_ids(&self) -> Result<(), StoreError> {
        self.space.check_change()?;
        let path = self.path.join(known_ids::FILE_NAME);
        self.counters.while_still(|| {
            let marker = getrandom::u64()
                .map_err(|e| StoreError::backend_caused("no randomness for the ID filter", e))?;
            Ok(self.known.save(&path, marker)?.then_some(marker))
        })
    }
}
