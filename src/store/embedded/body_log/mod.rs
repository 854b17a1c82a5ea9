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
//! `Inner::compact_bodies` in the store). Each open starts a new active segment
//! (or takes up the newest one again if it is empty) and deletes the
//! segments no paste refers to.
//!
//! Page cache: once a segment is sealed, a thread of its own writes it back
//! ([`Writeback`]), so at most the active segment and the one being written
//! back are dirty. Otherwise the dirty pages of a create flood would pile up
//! until the kernel throttled the writer. The written pages stay cached: they
//! are clean, so the kernel drops them cheaply when memory runs short, and
//! until then a random read of an older body is a memory copy, not a disk
//! read (they are the OS's page cache, not snip's resident memory). The paste
//! cache keeps decoded pastes that are read often; [`BodyLog::read_cached`]
//! lets async callers avoid waiting for a disk read when the kernel has
//! evicted a body.
//!
//! All functions here block; callers run them on blocking threads, except
//! [`BodyLog::read_cached`], which never waits for the disk.
//!
//! This file opens the log and holds its segments; the record format and
//! [`Location`] are in `record`, appending and sealing in `write`, reading in
//! `read`, giving space back in `reclaim`, and the page cache with the
//! writeback thread in `page_cache`.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};

use super::body_files::{create_private_dir, io_error, private_file, sync_dir};
use super::lock;
use crate::store::StoreError;

mod page_cache;
mod read;
mod reclaim;
mod record;
#[cfg(test)]
pub(super) mod tests;
mod write;

use page_cache::Writeback;
pub use page_cache::{Kernel, PageCache};
pub use record::Location;

/// A segment is sealed, and a new one started, once it holds this much.
pub const SEGMENT_BYTES: u64 = 16 << 20;

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
        let (number, segment) = match newest_if_empty(&segments)? {
            Some(newest) => newest,
            None => {
                let number = segments.keys().next_back().map_or(1, |n| n + 1);
                let segment = open_segment(dir.join(format!("{number}.seg")), true)?;
                segments.insert(number, segment.clone());
                (number, segment)
            }
        };
        // A segment taken up again may come from a start without `--sync`,
        // whose new file's name was never synced.
        if fsync {
            sync_dir(&dir)?;
        }
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

    fn segments(&self) -> RwLockReadGuard<'_, BTreeMap<u32, Arc<Segment>>> {
        self.segments.read().unwrap_or_else(|p| p.into_inner())
    }

    fn segments_mut(&self) -> RwLockWriteGuard<'_, BTreeMap<u32, Arc<Segment>>> {
        self.segments.write().unwrap_or_else(|p| p.into_inner())
    }

    fn segment(&self, number: u32) -> Option<Arc<Segment>> {
        self.segments().get(&number).cloned()
    }
}

fn segment_number(path: &Path) -> Option<u32> {
    path.file_name()?
        .to_str()?
        .strip_suffix(".seg")?
        .parse()
        .ok()
}

/// The newest segment, if it holds no byte: the active segment of a start
/// that wrote nothing, which becomes the active one again instead of being
/// left for the next start to delete. Nothing can be lost by appending to
/// it; a paste that pointed into it would point past its end, and reads
/// check every body against the checksum its paste recorded.
fn newest_if_empty(
    segments: &BTreeMap<u32, Arc<Segment>>,
) -> Result<Option<(u32, Arc<Segment>)>, StoreError> {
    let Some((&number, segment)) = segments.last_key_value() else {
        return Ok(None);
    };
    let len = segment
        .file
        .metadata()
        .map_err(|e| io_error("cannot read body segment size", &segment.path, e))?
        .len();
    Ok((len == 0).then(|| (number, segment.clone())))
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
