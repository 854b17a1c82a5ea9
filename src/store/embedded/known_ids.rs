//! Every ID the `meta` keyspace holds that the store did not number
//! (`sequence`), as one in-memory Bloom filter, so that a create can prove
//! its new ID free without searching fjall. A store that numbered every ID
//! it holds has none: its filter stays empty and is never saved.
//!
//! A create must not overwrite an existing paste, so the committer checks
//! each new ID that could be taken. In fjall that check searches the
//! memtable's skip list (a cache miss and a key comparison per level) and
//! then the filter of every level-0 table and of one table per deeper level;
//! it grows with the store, and it runs on the one thread that commits, so it
//! bounds the create rate. Here it is one probe of a blocked Bloom filter
//! (`fastbloom`: all of a key's bits in one cache line). "Maybe" (an ID from
//! elsewhere, or a false positive, about 1 in 100 at capacity) still asks
//! fjall, so the filter only has to hold every such ID; removed IDs and
//! numbered ones (which a scan adds) may stay in it.
//!
//! A store that holds such IDs opens at once with no filter: every new ID
//! is a "maybe" and asks fjall, correct but slower, until a thread
//! (`snip-ids`) has one. A clean close saves the filter to a file
//! (`known-ids` in the data dir), which that thread loads if the marker the
//! file names is still stored (`counters`: the first batch after the close
//! that stores an ID from elsewhere removes it) and no such ID has been
//! stored since the open; reading a file of tens of MB is then no part of a
//! restart. Otherwise (after `kill -9`, or such a put that came first) the
//! thread builds the filter from a scan of `meta`. The committer adds each
//! such ID it stores. When more were added than the filter was sized for,
//! the same thread builds a bigger one while the old one still answers; IDs
//! stored meanwhile go into both.

use std::io::Write;
use std::ops::Bound;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use fastbloom::AtomicBloomFilter;

use super::body_files::{io_error, private_file, sync_dir};
use super::keys::ID_KEYS_START;
use crate::store::StoreError;

/// The file a clean close saves the filter to, in the data dir.
pub const FILE_NAME: &str = "known-ids";

/// The first bytes of the file: its format.
const MAGIC: &[u8; 8] = b"SNIPIDS1";

/// The filter's hash seed, fixed so that a saved filter answers for the
/// same IDs when loaded (IDs are random and chosen by the server, so a
/// known seed gives a client nothing to aim at).
const SEED: u128 = 0x736e_6970_2d6b_6e6f_776e_2d69_6473_0001;

/// Bits per ID: a false positive rate of about 1 % at capacity (a false
/// positive costs one fjall lookup, what every create would cost without the filter).
const BITS_PER_ID: usize = 10;

/// The filter; see the module documentation.
pub struct KnownIds {
    filters: RwLock<Filters>,
    /// Whether a bigger filter is being built.
    rebuilding: AtomicBool,
    /// Whether an ID was stored while there was no filter, which a saved
    /// filter loaded afterwards would lack ([`Self::adopt_saved`]).
    stored_without: AtomicBool,
    /// The smallest capacity, so that a young store does not rebuild often.
    min_capacity: usize,
}

struct Filters {
    /// Holds every stored ID; `None` until a scan has built it.
    complete: Option<Arc<Filter>>,
    /// A bigger filter being filled by a scan; new IDs go into it too.
    next: Option<Arc<Filter>>,
}

struct Filter {
    bits: AtomicBloomFilter,
    capacity: usize,
    added: AtomicUsize,
}

impl Filter {
    fn with_capacity(capacity: usize) -> Self {
        Self {
            bits: AtomicBloomFilter::with_num_bits(capacity * BITS_PER_ID)
                .seed(&SEED)
                .expected_items(capacity),
            capacity,
            added: AtomicUsize::new(0),
        }
    }

    fn add(&self, id: &[u8]) -> usize {
        self.bits.insert(id);
        self.added.fetch_add(1, Ordering::Relaxed) + 1
    }
}

impl KnownIds {
    /// An empty filter for about `expected` IDs (at least `min_capacity`);
    /// the caller adds every stored ID before the store is used.
    pub fn new(expected: usize, min_capacity: usize) -> Self {
        let filter = Filter::with_capacity(room_for(expected, min_capacity));
        Self::with(Some(Arc::new(filter)), min_capacity)
    }

    /// No filter yet: every ID may be stored until [`Self::rebuild`] has run.
    pub fn unknown(min_capacity: usize) -> Self {
        Self::with(None, min_capacity)
    }

    fn with(complete: Option<Arc<Filter>>, min_capacity: usize) -> Self {
        Self {
            filters: RwLock::new(Filters {
                complete,
                next: None,
            }),
            rebuilding: AtomicBool::new(false),
            stored_without: AtomicBool::new(false),
            min_capacity,
        }
    }

    /// `false` only if `id` is certainly not stored.
    pub fn may_hold(&self, id: &[u8]) -> bool {
        self.read()
            .complete
            .as_ref()
            .is_none_or(|filter| filter.bits.contains(id))
    }

    /// Whether the filter answers (no scan is still needed to build it).
    #[cfg(test)]
    pub fn is_complete(&self) -> bool {
        self.read().complete.is_some()
    }

    /// Records a stored ID. Returns `true` when the filter has become too
    /// full and no rebuild is running: the caller should start
    /// [`Self::rebuild`] (this call has marked it as running).
    #[must_use]
    pub fn add(&self, id: &[u8]) -> bool {
        let filters = self.read();
        if let Some(next) = &filters.next {
            next.add(id);
        }
        let Some(complete) = &filters.complete else {
            // Under the read lock, so `adopt_saved` (under the write lock)
            // either sees this or installs a filter this call would have used.
            self.stored_without.store(true, Ordering::Relaxed);
            return false;
        };
        complete.add(id) > complete.capacity && !self.rebuilding.swap(true, Ordering::AcqRel)
    }

    /// Replaces the filter with one sized for `stored` IDs, filled by `scan`,
    /// which must call its argument with every ID stored when it starts (and
    /// may include more). On error the old filter stays.
    pub fn rebuild<E>(
        &self,
        stored: usize,
        scan: impl FnOnce(&mut dyn FnMut(&[u8])) -> Result<(), E>,
    ) -> Result<(), E> {
        let next = Arc::new(Filter::with_capacity(room_for(stored, self.min_capacity)));
        // Registered before the scan starts: an ID stored after the scan's
        // snapshot was added to `next` by `add`, one stored before is in the scan.
        self.write().next = Some(next.clone());
        let scanned = scan(&mut |id| {
            next.add(id);
        });
        {
            let mut filters = self.write();
            filters.next = None;
            if scanned.is_ok() {
                filters.complete = Some(next);
            }
        }
        self.rebuilding.store(false, Ordering::Release);
        scanned
    }

    /// How many IDs the filter in use holds (some may be removed) and was sized for.
    #[cfg(test)]
    fn fill(&self) -> (usize, usize) {
        let filters = self.read();
        let complete = filters.complete.as_ref().expect("a complete filter");
        (complete.added.load(Ordering::Relaxed), complete.capacity)
    }

    /// Writes the filter to `path` (whole or not at all: a temporary file
    /// renamed, synced) with `marker`; `false` if there is no complete
    /// filter to save.
    pub fn save(&self, path: &Path, marker: u64) -> Result<bool, StoreError> {
        let Some(filter) = self.read().complete.clone() else {
            return Ok(false);
        };
        let mut bytes = Vec::with_capacity(HEADER_BYTES + filter.bits.num_bits() / 8 + 8);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&marker.to_le_bytes());
        bytes.extend_from_slice(&(filter.capacity as u64).to_le_bytes());
        let added = filter.added.load(Ordering::Relaxed) as u64;
        bytes.extend_from_slice(&added.to_le_bytes());
        bytes.extend_from_slice(&filter.bits.num_hashes().to_le_bytes());
        for word in filter.bits.iter() {
            bytes.extend_from_slice(&word.to_le_bytes());
        }
        let checksum = xxhash_rust::xxh3::xxh3_64(&bytes);
        bytes.extend_from_slice(&checksum.to_le_bytes());
        let partial = path.with_extension("partial");
        private_file()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&partial)
            .and_then(|mut file| {
                file.write_all(&bytes)?;
                file.sync_all()
            })
            .map_err(|e| io_error("cannot write", &partial, e))?;
        std::fs::rename(&partial, path).map_err(|e| io_error("cannot create", path, e))?;
        if let Some(dir) = path.parent() {
            sync_dir(dir)?;
        }
        Ok(true)
    }

    /// The filter saved at `path` with `marker`, if it is there, whole, and
    /// that marker's (tests, and stores opened for them).
    #[cfg(test)]
    pub fn load(path: &Path, marker: u64, min_capacity: usize) -> Option<Self> {
        let filter = read_saved(path, marker)?;
        Some(Self::with(Some(Arc::new(filter)), min_capacity))
    }

    /// Makes the filter saved at `path` with `marker` this one's, if it loads
    /// (is there, whole, and that marker's) and there is still no filter and
    /// no ID has been stored without one: the saved filter holds every ID
    /// stored before the close that saved it, and the marker, still stored,
    /// says none was stored between that close and this open. `false`
    /// otherwise, and the caller builds the filter from a scan.
    pub fn adopt_saved(&self, path: &Path, marker: u64) -> bool {
        let Some(filter) = read_saved(path, marker) else {
            return false;
        };
        let mut filters = self.write();
        if filters.complete.is_some()
            || filters.next.is_some()
            || self.stored_without.load(Ordering::Relaxed)
        {
            return false;
        }
        filters.complete = Some(Arc::new(filter));
        true
    }

    fn read(&self) -> RwLockReadGuard<'_, Filters> {
        self.filters.read().unwrap_or_else(|e| e.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Filters> {
        self.filters.write().unwrap_or_else(|e| e.into_inner())
    }
}

/// The filter saved at `path` with `marker`, if the file is there, whole
/// (its checksum) and that marker's.
fn read_saved(path: &Path, marker: u64) -> Option<Filter> {
    let bytes = std::fs::read(path).ok()?;
    let (body, checksum) = bytes.split_at_checked(bytes.len().checked_sub(8)?)?;
    if xxhash_rust::xxh3::xxh3_64(body).to_le_bytes() != checksum {
        return None;
    }
    let (header, words) = body.split_at_checked(HEADER_BYTES)?;
    let u64_at = |i: usize| {
        header
            .get(i..i + 8)?
            .try_into()
            .ok()
            .map(u64::from_le_bytes)
    };
    if !header.starts_with(MAGIC) || u64_at(8)? != marker {
        return None;
    }
    let capacity = usize::try_from(u64_at(16)?).ok()?;
    let added = usize::try_from(u64_at(24)?).ok()?;
    let hashes = u32::from_le_bytes(header.get(32..36)?.try_into().ok()?);
    let words: Vec<u64> = words
        .chunks_exact(8)
        .filter_map(|w| w.try_into().ok().map(u64::from_le_bytes))
        .collect();
    if words.is_empty() || hashes == 0 {
        return None;
    }
    Some(Filter {
        bits: AtomicBloomFilter::from_vec(words)
            .seed(&SEED)
            .hashes(hashes),
        capacity,
        added: AtomicUsize::new(added),
    })
}

/// Bytes of the saved file before the filter's words: magic, marker,
/// capacity, IDs added, number of hashes.
const HEADER_BYTES: usize = 8 + 8 + 8 + 8 + 4;

/// Capacity over stored IDs of a filter built at startup or rebuilt because
/// the store outgrew it.
const HEADROOM: usize = 2;

/// A filter's capacity: [`HEADROOM`] times the IDs it starts with (at least
/// `min_capacity`): 2.5 bytes per stored ID just after, 1.25 when the store
/// has doubled. A growing store is then scanned once per doubling
/// (amortised, one key read per stored ID, on the rebuilding thread, not the
/// committer); four times would scan a third as much but hold up to 5 bytes
/// per ID in every store, growing or not.
fn room_for(ids: usize, min_capacity: usize) -> usize {
    ids.saturating_mul(HEADROOM).max(min_capacity)
}

/// Starts [`KnownIds::rebuild`] on its own thread, scanning `meta`'s keys.
pub fn rebuild_in_background(known: Arc<KnownIds>, meta: fjall::Keyspace, stored: usize) {
    in_background(known, meta, stored, None);
}

/// Starts a thread that adopts the filter saved at `path` with `marker`
/// ([`KnownIds::adopt_saved`]), or rebuilds it as [`rebuild_in_background`]
/// if it cannot.
pub fn load_in_background(
    known: Arc<KnownIds>,
    meta: fjall::Keyspace,
    stored: usize,
    path: PathBuf,
    marker: u64,
) {
    in_background(known, meta, stored, Some((path, marker)));
}

fn in_background(
    known: Arc<KnownIds>,
    meta: fjall::Keyspace,
    stored: usize,
    saved: Option<(PathBuf, u64)>,
) {
    let rebuilding = known.clone();
    let spawned = std::thread::Builder::new()
        .name("snip-ids".into())
        .spawn(move || make_filter(&known, &meta, stored, saved));
    if let Err(e) = spawned {
        // The next ID stored asks again.
        rebuilding.rebuilding.store(false, Ordering::Release);
        tracing::warn!("could not start rebuilding the filter of stored IDs: {e}");
    }
}

/// The work of the `snip-ids` thread: adopt the saved filter, if there is
/// one and it may be adopted, or else rebuild from a scan.
fn make_filter(
    known: &KnownIds,
    meta: &fjall::Keyspace,
    stored: usize,
    saved: Option<(PathBuf, u64)>,
) {
    let started = std::time::Instant::now();
    if let Some((path, marker)) = saved {
        if known.adopt_saved(&path, marker) {
            // Every start does this: debug, so the first line at info is
            // where snip listens.
            tracing::debug!(
                elapsed_ms = started.elapsed().as_millis() as u64,
                "loaded the saved filter of stored IDs"
            );
            return;
        }
        tracing::info!("the saved filter of stored IDs is stale: scanning instead");
    }
    match known.rebuild(stored, |add| scan(meta, add)) {
        Ok(()) => tracing::info!(
            stored,
            elapsed_ms = started.elapsed().as_millis() as u64,
            "rebuilt the filter of stored IDs"
        ),
        Err(e) => tracing::warn!("could not rebuild the filter of stored IDs: {e}"),
    }
}

/// Keys read through one iterator of a [`scan`]. An iterator holds on to
/// the memtables and tables that existed when it was made, so one iterator
/// over millions of keys, under a create flood, would keep every memtable
/// flushed and every table compacted meanwhile in memory until it ends.
const SCAN_CHUNK: usize = 64 << 10;

/// Calls `add` with every ID that is a key of `meta`: the keys after the
/// numbered ones, whose IDs are never from elsewhere.
pub fn scan(meta: &fjall::Keyspace, add: &mut dyn FnMut(&[u8])) -> Result<(), fjall::Error> {
    scan_in_chunks(meta, SCAN_CHUNK, ID_KEYS_START, add)
}

/// [`scan`] from `start`, in chunks of `chunk` keys, each from a fresh iterator that
/// starts after the last key of the one before: every key stored when the
/// scan starts, and not removed before its chunk is read, is in some chunk.
fn scan_in_chunks(
    meta: &fjall::Keyspace,
    chunk: usize,
    start: &[u8],
    add: &mut dyn FnMut(&[u8]),
) -> Result<(), fjall::Error> {
    let mut after: Bound<fjall::Slice> = Bound::Included(start.into());
    loop {
        let mut read = 0;
        for entry in meta.range((after.clone(), Bound::Unbounded)) {
            let key = entry.key()?;
            add(&key);
            read += 1;
            if read == chunk {
                after = Bound::Excluded(key);
                break;
            }
        }
        if read < chunk {
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: usize) -> Vec<u8> {
        format!("id{n:011}").into_bytes()
    }

    /// A filter of IDs 0 to 99, saved at `path` with `marker`.
    fn saved_with_ids(path: &Path, marker: u64) -> KnownIds {
        let known = KnownIds::new(0, 100);
        for n in 0..100 {
            let _ = known.add(&id(n));
        }
        assert!(known.save(path, marker).unwrap());
        known
    }

    #[test]
    fn holds_what_was_added_and_rejects_most_else() {
        let known = KnownIds::new(0, 1000);
        for n in 0..1000 {
            let _ = known.add(&id(n));
        }
        assert!((0..1000).all(|n| known.may_hold(&id(n))));
        let false_positives = (1000..101_000).filter(|&n| known.may_hold(&id(n))).count();
        assert!(false_positives < 2_000, "{false_positives} of 100,000");
    }

    #[test]
    fn asks_for_one_rebuild_when_full() {
        let known = KnownIds::new(0, 10);
        let due: Vec<bool> = (0..20).map(|n| known.add(&id(n))).collect();
        assert_eq!(due.iter().filter(|&&d| d).count(), 1);
        assert!(due[10], "the eleventh ID passes capacity: {due:?}");
    }

    #[test]
    fn a_rebuild_keeps_ids_added_during_its_scan() {
        let known = KnownIds::new(0, 10);
        for n in 0..11 {
            let _ = known.add(&id(n));
        }
        known
            .rebuild(11, |add| {
                for n in 0..11 {
                    add(&id(n));
                }
                // Stored while the scan runs: not in the scan, added by the committer.
                let _ = known.add(&id(99));
                Ok::<(), ()>(())
            })
            .unwrap();
        assert!(known.may_hold(&id(99)));
        assert!((0..11).all(|n| known.may_hold(&id(n))));
        assert_eq!(known.fill(), (12, 22));
    }

    /// A saved filter loads with the marker it was saved with, and answers
    /// as before; another marker, or a damaged file, loads nothing.
    #[test]
    fn a_saved_filter_loads_only_whole_and_with_its_marker() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let known = saved_with_ids(&path, 42);
        let loaded = KnownIds::load(&path, 42, 100).unwrap();
        assert!((0..100).all(|n| loaded.may_hold(&id(n))));
        let agree = (100..10_100).all(|n| loaded.may_hold(&id(n)) == known.may_hold(&id(n)));
        assert!(agree, "the loaded filter answers differently");
        assert_eq!(loaded.fill(), known.fill());
        assert!(KnownIds::load(&path, 43, 100).is_none());
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[HEADER_BYTES + 3] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(KnownIds::load(&path, 42, 100).is_none());
        std::fs::write(&path, &bytes[..HEADER_BYTES]).unwrap();
        assert!(KnownIds::load(&path, 42, 100).is_none());
    }

    /// A store opens with no filter and adopts the saved one later, but only
    /// if no ID was stored in between (the saved one would lack it) and the
    /// file is that marker's; otherwise it stays without one, for a scan.
    #[test]
    fn a_saved_filter_is_adopted_only_if_no_id_came_first() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        let saved = saved_with_ids(&path, 7);

        let known = KnownIds::unknown(100);
        assert!(known.adopt_saved(&path, 7));
        assert!(known.is_complete());
        assert!((0..100).all(|n| known.may_hold(&id(n))));
        assert_eq!(known.fill(), saved.fill());
        // Stored after the adoption: in the adopted filter.
        let _ = known.add(&id(500));
        assert!(known.may_hold(&id(500)));

        let known = KnownIds::unknown(100);
        let _ = known.add(&id(500));
        assert!(!known.adopt_saved(&path, 7), "adopted without ID 500");
        assert!(!known.is_complete());
        assert!(known.may_hold(&id(500)));

        let known = KnownIds::unknown(100);
        assert!(
            !known.adopt_saved(&path, 8),
            "adopted another marker's file"
        );
        assert!(!known.adopt_saved(&dir.path().join("none"), 7));
        assert!(!known.is_complete());
    }

    /// Without a filter every ID may be stored; nothing to save.
    #[test]
    fn an_unknown_filter_answers_maybe() {
        let known = KnownIds::unknown(10);
        assert!(known.may_hold(&id(1)));
        assert!(!known.add(&id(1)));
        let dir = tempfile::tempdir().unwrap();
        assert!(!known.save(&dir.path().join(FILE_NAME), 1).unwrap());
    }

    /// Chunk boundaries lose and repeat nothing, also when the keys are a
    /// whole number of chunks.
    #[test]
    fn a_scan_in_chunks_reads_every_key_once() {
        let dir = tempfile::tempdir().unwrap();
        let db = fjall::Database::builder(dir.path()).open().unwrap();
        let meta = db
            .keyspace("meta", fjall::KeyspaceCreateOptions::default)
            .unwrap();
        let stored: Vec<Vec<u8>> = (0..12).map(id).collect();
        for key in &stored {
            meta.insert(key, b"entry").unwrap();
        }
        for chunk in [1, 3, 5, 12, 13, SCAN_CHUNK] {
            let mut seen = Vec::new();
            scan_in_chunks(&meta, chunk, b"", &mut |key| seen.push(key.to_vec())).unwrap();
            assert_eq!(seen, stored, "chunks of {chunk}");
        }
    }

    #[test]
    fn a_failed_rebuild_keeps_the_old_filter() {
        let known = KnownIds::new(0, 10);
        let _ = known.add(&id(1));
        assert!(known.rebuild(1, |_| Err("disk on fire")).is_err());
        assert!(known.may_hold(&id(1)));
        assert_eq!(known.fill(), (1, 10));
        // And a later rebuild may run.
        let due = (2..13).filter(|&n| known.add(&id(n))).count();
        assert_eq!(due, 1);
    }
}
