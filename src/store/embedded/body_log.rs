//! Paste bodies of under 64 KiB in append-only segment files:
//! `body-log/<number>.seg`.
//!
//! Why not fjall: fjall writes every value to its journal, and on every
//! memtable flush a fjall worker `fsync`s the journal while it holds the
//! journal lock that every writer needs. Bodies in fjall would make memtables
//! flush often under a create flood, each `fsync` (of megabytes of bodies)
//! would stop every create, and fjall's workers would write each body a second
//! time into blob files. Here a body is written once; fjall keeps the
//! metadata, which records where the body is ([`Location`]).
//!
//! A segment is a sequence of records:
//! `magic | ID length (u8) | ID | body length (u32 LE) | xxh3 of the body (u64 LE) | body`,
//! where the magic says how the body is encoded (`codec`): `SNB1` for the
//! body itself, `SNBZ` for a zstd stream. Lengths and checksums are of the
//! bytes stored. The metadata's location points at the body and says its
//! encoding too; the header lets the compactor find the paste each body
//! belongs to, and copy it as it is.
//!
//! Crash safety: a group's bodies are written (`pwrite`) before the fjall batch
//! that makes their pastes exist, and with `--sync` the segment is synced
//! before the journal. A crash can leave bytes that no paste refers to, never a
//! paste whose body was not written. Reads check the checksum.
//!
//! Space: each segment counts the bytes of the bodies that pastes still refer
//! to. A sealed segment with none left is deleted at once (with `--sync`, at
//! the next sweep, once the journal that removed its pastes is synced); one mostly dead is
//! compacted (its live bodies are copied to the active segment, see
//! `Inner::compact_bodies` in the store). Each open starts a new active segment and
//! deletes the segments no paste refers to.
//!
//! Page cache: once a segment is sealed, a thread of its own writes it back
//! ([`Writeback`]), so at most the active segment and the one being written
//! back are dirty. Otherwise the dirty pages of a create flood would pile up
//! until the kernel throttled the writer. The written pages stay cached: they
//! are clean, so the kernel drops them cheaply when memory runs short, and
//! until then a random read of an older body is a memory copy, not a disk
//! read (they are the OS's page cache, not snip's resident memory). The hot
//! cache keeps decoded pastes that are read often; [`BodyLog::read_cached`]
//! lets async callers avoid waiting for a disk read when the kernel has
//! evicted a body.
//!
//! All functions here block; callers run them on blocking threads, except
//! [`BodyLog::read_cached`], which never waits for the disk.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard, mpsc};

use super::body_files::{create_private_dir, io_error, private_file, sync_dir};
use super::lock;
use crate::store::{Encoding, StoreError};

/// A segment is sealed, and a new one started, once it holds this much.
pub const SEGMENT_BYTES: u64 = 16 << 20;

/// A sealed segment is compacted once less than this share of it is live.
const COMPACT_BELOW_LIVE: f64 = 0.5;

/// The record magic of a body stored as it is.
const MAGIC: &[u8; 4] = b"SNB1";
/// The record magic of a body stored zstd-compressed.
const MAGIC_ZSTD: &[u8; 4] = b"SNBZ";

/// The record magic of a body of `encoding`.
fn magic(encoding: Encoding) -> &'static [u8; 4] {
    match encoding {
        Encoding::Identity => MAGIC,
        Encoding::Zstd => MAGIC_ZSTD,
    }
}

/// Where a body is and how it is encoded: part of the metadata entry (and
/// so of the on-disk format).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    pub segment: u32,
    /// Offset of the body (after its record header) in the segment.
    pub offset: u32,
    /// Bytes stored.
    pub len: u32,
    /// xxh3-64 of the bytes stored.
    pub checksum: u64,
    pub encoding: Encoding,
}

impl Location {
    /// Bytes of an encoded location: place and checksum, then the encoding.
    pub const ENCODED_LEN: usize = Self::PLACE_LEN + 1;

    /// Bytes of a location without its encoding (entries that have none
    /// hold identity bodies).
    pub const PLACE_LEN: usize = 20;

    pub fn encode_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.segment.to_le_bytes());
        out.extend_from_slice(&self.offset.to_le_bytes());
        out.extend_from_slice(&self.len.to_le_bytes());
        out.extend_from_slice(&self.checksum.to_le_bytes());
        out.push(self.encoding.to_byte());
    }

    /// Decodes a location from the start of `raw`; the rest follows it.
    pub fn decode(raw: &[u8]) -> Option<(Self, &[u8])> {
        let (location, rest) = Self::decode_place(raw)?;
        let (&encoding, rest) = rest.split_first()?;
        let encoding = Encoding::from_byte(encoding)?;
        Some((
            Self {
                encoding,
                ..location
            },
            rest,
        ))
    }

    /// Decodes a location written without an encoding (an identity body).
    pub fn decode_place(raw: &[u8]) -> Option<(Self, &[u8])> {
        let (head, rest) = raw.split_at_checked(Self::PLACE_LEN)?;
        let u32_at = |i: usize| u32::from_le_bytes(head[i..i + 4].try_into().unwrap_or_default());
        let location = Self {
            segment: u32_at(0),
            offset: u32_at(4),
            len: u32_at(8),
            checksum: u64::from_le_bytes(head[12..20].try_into().unwrap_or_default()),
            encoding: Encoding::Identity,
        };
        Some((location, rest))
    }
}

/// One segment file.
struct Segment {
    file: File,
    path: PathBuf,
    /// Bytes of bodies that pastes refer to (or are about to: counted when written).
    live: AtomicU64,
}

/// The segment being appended to.
struct Active {
    number: u32,
    segment: Arc<Segment>,
    len: u64,
}

/// The segments of the data dir; see the module documentation.
pub struct BodyLog {
    dir: PathBuf,
    fsync: bool,
    active: Mutex<Active>,
    /// Every segment, the active one included.
    segments: RwLock<BTreeMap<u32, Arc<Segment>>>,
    /// With `fsync`: sealed segments no paste refers to, deleted only once
    /// the journal entries that removed their pastes are synced
    /// ([`Self::delete_dead`]); otherwise a power loss could bring back a
    /// removal's metadata without its body.
    dead: Mutex<Vec<u32>>,
    writeback: Writeback,
    page_cache: Arc<dyn PageCache>,
}

/// The OS's page cache as the body log uses it: reads that must not wait
/// for the disk, and writing sealed segments back. [`Kernel`] is the real
/// one; tests put in a stand-in whose answers they choose, because what the
/// kernel keeps cached is not theirs to decide.
pub trait PageCache: Send + Sync + 'static {
    /// Fills `buf` from `file` at `offset` if that needs no disk read;
    /// `false` if it would (or if the file system cannot say).
    fn read_if_cached(&self, file: &File, buf: &mut [u8], offset: u64) -> bool;

    /// Writes a sealed segment back, waiting until it is on disk; its pages
    /// stay cached.
    fn write_back(&self, file: &File, path: &Path);
}

/// Linux's page cache: `preadv2` with `RWF_NOWAIT`, and `fdatasync`.
pub struct Kernel;

impl PageCache for Kernel {
    fn read_if_cached(&self, file: &File, buf: &mut [u8], offset: u64) -> bool {
        use rustix::io::{ReadWriteFlags, preadv2};
        let len = buf.len();
        // A zero-length read succeeds at once; RWF_NOWAIT only concerns waiting.
        let read = preadv2(
            file,
            &mut [std::io::IoSliceMut::new(buf)],
            offset,
            ReadWriteFlags::NOWAIT,
        );
        // Partly cached (a short read), not cached (EAGAIN), or not supported here.
        read.is_ok_and(|n| n == len)
    }

    fn write_back(&self, file: &File, path: &Path) {
        // Not durability (without `--sync` nothing waits for it): a bound on
        // dirty pages. A failure here is seen again by the next sync, if any.
        if let Err(e) = file.sync_data() {
            tracing::debug!(path = %path.display(), error = %e, "cannot write back body segment");
        }
    }
}

fn segment_number(path: &Path) -> Option<u32> {
    path.file_name()?
        .to_str()?
        .strip_suffix(".seg")?
        .parse()
        .ok()
}

/// Writes each sealed segment back, on a thread of its own
/// ("snip-writeback"): not on the committer, which every create waits for,
/// because writing back a whole segment takes milliseconds or more (the file
/// system allocates its blocks then). With `--sync` the committer has synced
/// it when sealing, so nothing is sent here.
struct Writeback {
    jobs: mpsc::Sender<Job>,
}

enum Job {
    Sealed(Arc<Segment>),
    /// Answered once every earlier job is done (tests).
    #[cfg(test)]
    Settle(mpsc::Sender<()>),
}

impl Writeback {
    /// Starts the thread; it ends when the body log is dropped.
    fn start(page_cache: Arc<dyn PageCache>) -> Result<Self, StoreError> {
        let (jobs, queue) = mpsc::channel();
        std::thread::Builder::new()
            .name("snip-writeback".into())
            .spawn(move || Self::run(&queue, page_cache.as_ref()))
            .map_err(|e| StoreError::backend_caused("cannot start the writeback thread", e))?;
        Ok(Self { jobs })
    }

    fn run(queue: &mpsc::Receiver<Job>, page_cache: &dyn PageCache) {
        for job in queue {
            match job {
                Job::Sealed(sealed) => page_cache.write_back(&sealed.file, &sealed.path),
                #[cfg(test)]
                Job::Settle(done) => {
                    let _ = done.send(());
                }
            }
        }
    }

    fn sealed(&self, segment: Arc<Segment>) {
        // Fails only once the thread is gone (it never stops first).
        let _ = self.jobs.send(Job::Sealed(segment));
    }

    /// Waits until every segment sealed so far has been handled.
    #[cfg(test)]
    fn settle(&self) {
        let (done, wait) = mpsc::channel();
        if self.jobs.send(Job::Settle(done)).is_ok() {
            let _ = wait.recv();
        }
    }
}

/// Opens a segment; `create` starts a new, empty one. New segments are
/// numbered above every known one, so a file already there is the leftover
/// of a start that failed half-way, which no paste refers to.
fn open_segment(path: PathBuf, create: bool) -> Result<Arc<Segment>, StoreError> {
    let file = private_file()
        .read(true)
        .write(true)
        .create(create)
        .truncate(create)
        .open(&path)
        .map_err(|e| io_error("cannot open body segment", &path, e))?;
    Ok(Arc::new(Segment {
        file,
        path,
        live: AtomicU64::new(0),
    }))
}

fn read_exact_at(segment: &Segment, len: usize, offset: u64) -> Result<Vec<u8>, StoreError> {
    let mut buf = vec![0; len];
    segment
        .file
        .read_exact_at(&mut buf, offset)
        .map_err(|e| match e.kind() {
            // A segment shorter than the bodies it was written with.
            std::io::ErrorKind::UnexpectedEof => StoreError::Corrupt(format!(
                "body segment {} ends before the body at {offset} ({len} bytes)",
                segment.path.display()
            )),
            _ => io_error("cannot read body segment", &segment.path, e),
        })?;
    Ok(buf)
}

impl BodyLog {
    /// Opens `<data_dir>/body-log` and starts a new active segment. Until
    /// [`Self::count_live`] is called, existing segments count nothing live.
    #[cfg(test)]
    pub fn open(data_dir: &Path, fsync: bool) -> Result<Self, StoreError> {
        Self::open_with(data_dir, fsync, Arc::new(Kernel))
    }

    /// [`Self::open`], with the page cache it is to use.
    pub fn open_with(
        data_dir: &Path,
        fsync: bool,
        page_cache: Arc<dyn PageCache>,
    ) -> Result<Self, StoreError> {
        let dir = data_dir.join("body-log");
        create_private_dir(&dir).map_err(|e| io_error("cannot create directory", &dir, e))?;
        let mut segments = BTreeMap::new();
        let entries =
            std::fs::read_dir(&dir).map_err(|e| io_error("cannot list directory", &dir, e))?;
        for entry in entries {
            let path = entry
                .map_err(|e| io_error("cannot list directory", &dir, e))?
                .path();
            if let Some(number) = segment_number(&path) {
                segments.insert(number, open_segment(path, false)?);
            }
        }
        let number = segments.keys().next_back().map_or(1, |n| n + 1);
        let segment = open_segment(dir.join(format!("{number}.seg")), true)?;
        if fsync {
            sync_dir(&dir)?;
        }
        segments.insert(number, segment.clone());
        Ok(Self {
            dir,
            fsync,
            active: Mutex::new(Active {
                number,
                segment,
                len: 0,
            }),
            segments: RwLock::new(segments),
            dead: Mutex::new(Vec::new()),
            writeback: Writeback::start(page_cache.clone())?,
            page_cache,
        })
    }

    /// Sets each segment's live bytes from the locations of all stored
    /// pastes, and deletes the sealed segments that no paste refers to.
    /// Returns how many were deleted.
    pub fn count_live(&self, live: &HashMap<u32, u64>) -> usize {
        let active = lock(&self.active).number;
        let mut dead = Vec::new();
        for (number, segment) in self.segments().iter() {
            let bytes = live.get(number).copied().unwrap_or(0);
            segment.live.store(bytes, Ordering::Relaxed);
            if bytes == 0 && *number != active {
                dead.push(*number);
            }
        }
        for number in &dead {
            self.delete(*number);
        }
        dead.len()
    }

    /// Appends the bodies of a group (each as stored, with its encoding)
    /// and returns where each went, in order.
    pub fn append(&self, bodies: &[(&str, Encoding, &[u8])]) -> Result<Vec<Location>, StoreError> {
        if bodies.is_empty() {
            return Ok(Vec::new());
        }
        let mut active = lock(&self.active);
        if active.len >= SEGMENT_BYTES {
            self.seal(&mut active)?;
        }
        let start = active.len;
        let header = MAGIC.len() + 1 + 4 + 8;
        let mut buf = Vec::with_capacity(
            bodies
                .iter()
                .map(|(id, _, body)| header + id.len() + body.len())
                .sum(),
        );
        let mut locations = Vec::with_capacity(bodies.len());
        for &(id, encoding, body) in bodies {
            let id_len = u8::try_from(id.len())
                .map_err(|_| StoreError::backend(format!("ID too long to store: {id}")))?;
            let len = u32::try_from(body.len())
                .map_err(|_| StoreError::backend("body too large for the body log"))?;
            let checksum = xxhash_rust::xxh3::xxh3_64(body);
            buf.extend_from_slice(magic(encoding));
            buf.push(id_len);
            buf.extend_from_slice(id.as_bytes());
            buf.extend_from_slice(&len.to_le_bytes());
            buf.extend_from_slice(&checksum.to_le_bytes());
            let offset = u32::try_from(start + buf.len() as u64)
                .map_err(|_| StoreError::backend("body segment overflow"))?;
            buf.extend_from_slice(body);
            locations.push(Location {
                segment: active.number,
                offset,
                len,
                checksum,
                encoding,
            });
        }
        active
            .segment
            .file
            .write_all_at(&buf, start)
            .map_err(|e| io_error("cannot write body segment", &active.segment.path, e))?;
        active.len += buf.len() as u64;
        let written: u64 = locations.iter().map(|l| u64::from(l.len)).sum();
        active.segment.live.fetch_add(written, Ordering::Relaxed);
        Ok(locations)
    }

    /// Starts a new active segment; with `fsync`, syncs the old one first.
    fn seal(&self, active: &mut Active) -> Result<(), StoreError> {
        if self.fsync {
            active
                .segment
                .file
                .sync_data()
                .map_err(|e| io_error("cannot sync body segment", &active.segment.path, e))?;
        }
        let number = active.number + 1;
        let segment = open_segment(self.dir.join(format!("{number}.seg")), true)?;
        if self.fsync {
            sync_dir(&self.dir)?;
        }
        self.segments_mut().insert(number, segment.clone());
        let old = std::mem::replace(
            active,
            Active {
                number,
                segment,
                len: 0,
            },
        );
        if !self.fsync {
            self.writeback.sealed(old.segment.clone());
        }
        // Everything in it may have died while it was active.
        if old.segment.live.load(Ordering::Relaxed) == 0 {
            self.retire(old.number);
        }
        Ok(())
    }

    /// Syncs the active segment (sealed ones were synced when sealed).
    pub fn sync(&self) -> Result<(), StoreError> {
        let segment = lock(&self.active).segment.clone();
        segment
            .file
            .sync_data()
            .map_err(|e| io_error("cannot sync body segment", &segment.path, e))
    }

    /// Syncs the active segment if writes must survive power loss.
    pub fn sync_if_durable(&self) -> Result<(), StoreError> {
        if self.fsync { self.sync() } else { Ok(()) }
    }

    fn segments(&self) -> RwLockReadGuard<'_, BTreeMap<u32, Arc<Segment>>> {
        self.segments.read().unwrap_or_else(|p| p.into_inner())
    }

    fn segments_mut(&self) -> RwLockWriteGuard<'_, BTreeMap<u32, Arc<Segment>>> {
        self.segments.write().unwrap_or_else(|p| p.into_inner())
    }

    fn segment(&self, number: u32) -> Option<Arc<Segment>> {
        self.segments().get(&number).cloned()
    }

    /// The segment a body is in, which a paste referring to it keeps alive.
    fn segment_of(&self, at: Location) -> Result<Arc<Segment>, StoreError> {
        self.segment(at.segment)
            .ok_or_else(|| StoreError::Corrupt(format!("body segment {} is missing", at.segment)))
    }

    /// Reads a body and checks it against its checksum.
    pub fn read(&self, at: Location) -> Result<Vec<u8>, StoreError> {
        let segment = self.segment_of(at)?;
        let body = read_exact_at(&segment, at.len as usize, u64::from(at.offset))?;
        checked(at, body)
    }

    /// Reads a body if that needs no disk read ([`PageCache::read_if_cached`]):
    /// `Ok(None)` if it would, so async callers can read it on a blocking thread.
    pub fn read_cached(&self, at: Location) -> Result<Option<Vec<u8>>, StoreError> {
        let segment = self.segment_of(at)?;
        let mut body = vec![0; at.len as usize];
        if !self
            .page_cache
            .read_if_cached(&segment.file, &mut body, u64::from(at.offset))
        {
            return Ok(None);
        }
        checked(at, body).map(Some)
    }

    /// Gives up a body no paste refers to any more; deletes its segment if
    /// that was the last live body of a sealed segment.
    pub fn release(&self, at: Location) {
        let Some(segment) = self.segment(at.segment) else {
            return;
        };
        let before = segment.live.fetch_sub(u64::from(at.len), Ordering::Relaxed);
        if before == u64::from(at.len) && at.segment != lock(&self.active).number {
            self.retire(at.segment);
        }
    }

    /// A sealed segment died: deleted now, or with `fsync` queued for
    /// [`Self::delete_dead`].
    fn retire(&self, number: u32) {
        if self.fsync {
            lock(&self.dead).push(number);
        } else {
            self.delete(number);
        }
    }

    /// Whether dead segments wait for [`Self::delete_dead`].
    pub fn has_dead(&self) -> bool {
        !lock(&self.dead).is_empty()
    }

    /// Deletes the dead segments queued so far. The caller has synced the
    /// journal since their last pastes were removed.
    pub fn delete_dead(&self) {
        let dead = std::mem::take(&mut *lock(&self.dead));
        for number in dead {
            self.delete(number);
        }
    }

    /// Removes a segment from the map and unlinks it (readers that hold it
    /// keep a valid file until they let go).
    fn delete(&self, number: u32) {
        let removed = self.segments_mut().remove(&number);
        if let Some(segment) = removed
            && let Err(e) = std::fs::remove_file(&segment.path)
        {
            tracing::warn!(path = %segment.path.display(), error = %e, "cannot delete body segment");
        }
    }

    /// Seals the active segment if every body in it has died, so its space can
    /// be given back (an idle server would otherwise keep it forever).
    pub fn retire_dead_active(&self) -> Result<(), StoreError> {
        let mut active = lock(&self.active);
        if active.len > 0 && active.segment.live.load(Ordering::Relaxed) == 0 {
            self.seal(&mut active)?;
        }
        Ok(())
    }

    /// A sealed segment worth compacting (mostly dead), if any.
    pub fn compaction_candidate(&self) -> Option<u32> {
        let active = lock(&self.active).number;
        self.segments().iter().find_map(|(&number, segment)| {
            let live = segment.live.load(Ordering::Relaxed);
            // A segment with nothing live is deleted (or waits for the sync
            // before it is, with `fsync`): nothing to copy.
            if number == active || live == 0 {
                return None;
            }
            let len = segment.file.metadata().map(|m| m.len()).unwrap_or(0);
            ((live as f64) < COMPACT_BELOW_LIVE * len as f64).then_some(number)
        })
    }

    /// The bodies recorded in a segment: each record's ID and location.
    pub fn records(&self, number: u32) -> Result<Vec<(String, Location)>, StoreError> {
        let Some(segment) = self.segment(number) else {
            return Ok(Vec::new());
        };
        let bytes = std::fs::read(&segment.path)
            .map_err(|e| io_error("cannot read body segment", &segment.path, e))?;
        let mut records = Vec::new();
        let mut at = 0usize;
        while let Some((id, location, next)) = parse_record(&bytes, at, number) {
            records.push((id, location));
            at = next;
        }
        Ok(records)
    }
}

/// `body` if it matches the checksum of `at`.
fn checked(at: Location, body: Vec<u8>) -> Result<Vec<u8>, StoreError> {
    if xxhash_rust::xxh3::xxh3_64(&body) != at.checksum {
        return Err(StoreError::Corrupt(format!(
            "body at {}:{} does not match its checksum",
            at.segment, at.offset
        )));
    }
    Ok(body)
}

/// The record at `at` in `bytes`: its ID, its body's location and where the
/// next record starts. `None` at the end or at bytes that are not a record
/// (the unwritten tail of a segment cut off by a crash).
fn parse_record(bytes: &[u8], at: usize, segment: u32) -> Option<(String, Location, usize)> {
    let rest = bytes.get(at..)?;
    let (encoding, rest) = match rest.split_at_checked(MAGIC.len())? {
        (head, rest) if head == MAGIC => (Encoding::Identity, rest),
        (head, rest) if head == MAGIC_ZSTD => (Encoding::Zstd, rest),
        _ => return None,
    };
    let (&id_len, rest) = rest.split_first()?;
    let (id, rest) = rest.split_at_checked(usize::from(id_len))?;
    let (len, rest) = rest.split_at_checked(4)?;
    let (checksum, rest) = rest.split_at_checked(8)?;
    let len = u32::from_le_bytes(len.try_into().ok()?);
    let body_at = bytes.len() - rest.len();
    let next = body_at.checked_add(len as usize)?;
    bytes.get(body_at..next)?;
    let location = Location {
        segment,
        offset: u32::try_from(body_at).ok()?,
        len,
        checksum: u64::from_le_bytes(checksum.try_into().ok()?),
        encoding,
    };
    Some((std::str::from_utf8(id).ok()?.to_owned(), location, next))
}

#[cfg(test)]
pub(super) mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use std::sync::atomic::AtomicBool;

    fn segment_files(dir: &Path) -> Vec<u32> {
        let mut numbers: Vec<u32> = std::fs::read_dir(dir.join("body-log"))
            .unwrap()
            .filter_map(|e| segment_number(&e.unwrap().path()))
            .collect();
        numbers.sort_unstable();
        numbers
    }

    /// A page cache whose answers the test chooses: every body cached, or
    /// none; and a record of the segments written back.
    #[derive(Default)]
    pub(in crate::store::embedded) struct Scripted {
        /// Whether every read would have to wait for the disk.
        pub cold: AtomicBool,
        /// The file names of the segments written back, in order.
        pub written_back: Mutex<Vec<String>>,
    }

    impl PageCache for Scripted {
        fn read_if_cached(&self, file: &File, buf: &mut [u8], offset: u64) -> bool {
            !self.cold.load(Ordering::SeqCst) && file.read_exact_at(buf, offset).is_ok()
        }

        fn write_back(&self, _file: &File, path: &Path) {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            lock(&self.written_back).push(name);
        }
    }

    fn scripted(dir: &Path) -> (BodyLog, Arc<Scripted>) {
        let cache = Arc::new(Scripted::default());
        let log = BodyLog::open_with(dir, false, cache.clone()).unwrap();
        (log, cache)
    }

    /// Each sealed segment is written back once, the active one is not;
    /// bodies read, from the page cache or not.
    #[test]
    fn sealed_segments_are_written_back() {
        let dir = tempfile::tempdir().unwrap();
        let (log, cache) = scripted(dir.path());
        let filler = vec![7u8; SEGMENT_BYTES as usize];
        let first = log
            .append(&[("aaaa", Encoding::Identity, b"an early body")])
            .unwrap()[0];
        log.append(&[("ffff", Encoding::Identity, &filler)])
            .unwrap();
        log.append(&[("bbbb", Encoding::Identity, b"x")]).unwrap();
        log.writeback.settle();
        assert_eq!(*lock(&cache.written_back), ["1.seg"]);
        log.append(&[("gggg", Encoding::Identity, &filler)])
            .unwrap();
        log.append(&[("cccc", Encoding::Identity, b"y")]).unwrap();
        log.writeback.settle();
        assert_eq!(*lock(&cache.written_back), ["1.seg", "2.seg"]);
        assert_eq!(log.read(first).unwrap(), b"an early body");
        assert_eq!(log.read_cached(first).unwrap().unwrap(), b"an early body");
        cache.cold.store(true, Ordering::SeqCst);
        assert_eq!(log.read_cached(first).unwrap(), None);
        assert_eq!(log.read(first).unwrap(), b"an early body");
    }

    /// The kernel's answer, whatever it is, is never wrong bytes: a cached
    /// read gives exactly the body or nothing.
    #[test]
    fn the_kernels_cached_reads_are_exact_or_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let log = BodyLog::open(dir.path(), false).unwrap();
        let at = log
            .append(&[("aaaa", Encoding::Identity, b"a body")])
            .unwrap()[0];
        if let Some(body) = log.read_cached(at).unwrap() {
            assert_eq!(body, b"a body");
        }
    }

    /// A cached read checks the checksum like any other.
    #[test]
    fn cached_reads_check_the_checksum() {
        let dir = tempfile::tempdir().unwrap();
        let (log, _cache) = scripted(dir.path());
        let at = log
            .append(&[("aaaa", Encoding::Identity, b"body")])
            .unwrap()[0];
        let wrong = Location {
            checksum: at.checksum ^ 1,
            ..at
        };
        assert!(matches!(
            log.read_cached(wrong),
            Err(StoreError::Corrupt(_))
        ));
    }

    #[test]
    fn bodies_read_back_and_records_name_their_pastes() {
        let dir = tempfile::tempdir().unwrap();
        let log = BodyLog::open(dir.path(), false).unwrap();
        let at = log
            .append(&[
                ("aaaa", Encoding::Identity, b"first body"),
                ("bbbb", Encoding::Identity, b""),
                ("cccc", Encoding::Identity, &[0, 255, 7]),
            ])
            .unwrap();
        assert_eq!(log.read(at[0]).unwrap(), b"first body");
        assert_eq!(log.read(at[1]).unwrap(), b"");
        assert_eq!(log.read(at[2]).unwrap(), [0, 255, 7]);
        let records = log.records(at[0].segment).unwrap();
        let ids: Vec<&str> = records.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(ids, ["aaaa", "bbbb", "cccc"]);
        assert_eq!(records.iter().map(|(_, l)| *l).collect::<Vec<_>>(), at);
    }

    #[test]
    fn a_location_round_trips_through_its_encoding() {
        let at = Location {
            segment: 7,
            offset: 123_456,
            len: 65_535,
            checksum: u64::MAX - 3,
            encoding: Encoding::Zstd,
        };
        let mut raw = Vec::new();
        at.encode_into(&mut raw);
        raw.extend_from_slice(b"rest");
        assert_eq!(Location::decode(&raw), Some((at, &b"rest"[..])));
        assert_eq!(Location::decode(&raw[..20]), None);
        raw[20] = 9;
        assert_eq!(Location::decode(&raw), None, "an unknown encoding");
        let place = Location::decode_place(&raw[..20]).unwrap().0;
        assert_eq!(place.encoding, Encoding::Identity);
        assert_eq!((place.segment, place.len), (7, 65_535));
    }

    /// A record says how its body is encoded, and the compactor's view of a
    /// segment keeps it.
    #[test]
    fn records_keep_their_encoding() {
        let dir = tempfile::tempdir().unwrap();
        let log = BodyLog::open(dir.path(), false).unwrap();
        let at = log
            .append(&[
                ("aaaa", Encoding::Zstd, b"a stream"),
                ("bbbb", Encoding::Identity, b"plain"),
            ])
            .unwrap();
        assert_eq!(at[0].encoding, Encoding::Zstd);
        assert_eq!(at[1].encoding, Encoding::Identity);
        assert_eq!(log.read(at[0]).unwrap(), b"a stream");
        let records = log.records(1).unwrap();
        assert_eq!(records.iter().map(|(_, l)| *l).collect::<Vec<_>>(), at);
    }

    #[test]
    fn a_damaged_body_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let log = BodyLog::open(dir.path(), false).unwrap();
        let at = log
            .append(&[("aaaa", Encoding::Identity, b"precious")])
            .unwrap()[0];
        let path = dir.path().join(format!("body-log/{}.seg", at.segment));
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[at.offset as usize] ^= 1;
        std::fs::write(&path, bytes).unwrap();
        assert!(matches!(log.read(at), Err(StoreError::Corrupt(_))));
    }

    #[test]
    fn a_sealed_segment_is_deleted_when_its_last_body_dies() {
        let dir = tempfile::tempdir().unwrap();
        let log = BodyLog::open(dir.path(), false).unwrap();
        let big = vec![1u8; 60 << 10];
        let mut first = Vec::new();
        while lock(&log.active).number == 1 {
            first.extend(log.append(&[("aaaa", Encoding::Identity, &big)]).unwrap());
        }
        // The append that started segment 2 went there.
        let moved = first.pop().unwrap();
        assert_eq!(moved.segment, 2);
        assert_eq!(segment_files(dir.path()), [1, 2]);
        for at in &first {
            log.release(*at);
        }
        assert_eq!(segment_files(dir.path()), [2]);
        assert_eq!(log.read(moved).unwrap(), big);
    }

    #[test]
    fn with_fsync_a_dead_segment_waits_to_be_deleted() {
        let dir = tempfile::tempdir().unwrap();
        let log = BodyLog::open(dir.path(), true).unwrap();
        let at = log
            .append(&[("aaaa", Encoding::Identity, b"gone soon")])
            .unwrap()[0];
        log.release(at);
        log.retire_dead_active().unwrap();
        assert_eq!(segment_files(dir.path()), [1, 2]);
        assert!(log.has_dead());
        log.delete_dead();
        assert_eq!(segment_files(dir.path()), [2]);
        assert!(!log.has_dead());
    }

    #[test]
    fn an_active_segment_whose_bodies_all_died_is_retired() {
        let dir = tempfile::tempdir().unwrap();
        let log = BodyLog::open(dir.path(), false).unwrap();
        let at = log
            .append(&[("aaaa", Encoding::Identity, b"gone soon")])
            .unwrap()[0];
        log.retire_dead_active().unwrap();
        assert_eq!(segment_files(dir.path()), [1], "a live body keeps it");
        log.release(at);
        log.retire_dead_active().unwrap();
        assert_eq!(segment_files(dir.path()), [2]);
        log.retire_dead_active().unwrap();
        assert_eq!(segment_files(dir.path()), [2], "an empty one stays");
    }

    #[test]
    fn reopening_keeps_live_segments_and_deletes_dead_ones() {
        let dir = tempfile::tempdir().unwrap();
        let (kept, dropped) = {
            let log = BodyLog::open(dir.path(), true).unwrap();
            let kept = log
                .append(&[("aaaa", Encoding::Identity, b"kept")])
                .unwrap()[0];
            log.sync().unwrap();
            let log = BodyLog::open(dir.path(), true).unwrap();
            let dropped = log
                .append(&[("bbbb", Encoding::Identity, b"dropped")])
                .unwrap()[0];
            (kept, dropped)
        };
        assert_eq!((kept.segment, dropped.segment), (1, 2));
        let log = BodyLog::open(dir.path(), false).unwrap();
        assert_eq!(segment_files(dir.path()), [1, 2, 3]);
        let deleted = log.count_live(&HashMap::from([(1, 4)]));
        assert_eq!(deleted, 1);
        assert_eq!(segment_files(dir.path()), [1, 3]);
        assert_eq!(log.read(kept).unwrap(), b"kept");
        assert_eq!(
            log.append(&[("cccc", Encoding::Identity, b"new")]).unwrap()[0].segment,
            3
        );
    }

    /// A segment cut short is damage like a wrong checksum, for the bodies
    /// it lost; the bodies before the cut still read.
    #[test]
    fn a_truncated_segment_is_corrupt_past_the_cut() {
        let dir = tempfile::tempdir().unwrap();
        let log = BodyLog::open(dir.path(), false).unwrap();
        let at = log
            .append(&[
                ("aaaa", Encoding::Identity, b"whole"),
                ("bbbb", Encoding::Identity, b"cut off"),
            ])
            .unwrap();
        let path = dir.path().join("body-log/1.seg");
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 2]).unwrap();
        assert_eq!(log.read(at[0]).unwrap(), b"whole");
        let e = log.read(at[1]).unwrap_err();
        assert!(matches!(e, StoreError::Corrupt(_)), "{e:?}");
    }

    #[test]
    fn a_torn_tail_ends_the_records() {
        let dir = tempfile::tempdir().unwrap();
        let log = BodyLog::open(dir.path(), false).unwrap();
        let at = log
            .append(&[
                ("aaaa", Encoding::Identity, b"whole"),
                ("bbbb", Encoding::Identity, b"cut off"),
            ])
            .unwrap();
        let path = dir.path().join("body-log/1.seg");
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 2]).unwrap();
        let records = log.records(1).unwrap();
        assert_eq!(records, vec![("aaaa".to_owned(), at[0])]);
    }
}
