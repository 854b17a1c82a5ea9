//! Large paste bodies as plain files: `bodies/<first two ID characters>/<ID>`.
//!
//! fjall writes every value to its journal and only rotates (and so frees) a
//! journal once it passes 64 MB: with large bodies in fjall, tens of MB of
//! swept pastes stayed on disk however much was compacted. A file is gone the
//! moment it is unlinked.
//!
//! A file is the body as stored followed by a trailer: the stored bytes'
//! xxh3-64 (u64 LE) and a magic that says how they are encoded (`codec`):
//! `SNBC` for the body itself, `SNBZ` for a zstd stream; checked on every
//! read. Files written in format 1 of the data dir have no trailer, and are
//! read by their length alone.
//!
//! Ordering makes crashes safe: a body file is written completely (with
//! `fsync`, synced with its directories) before the batch that makes its paste
//! exist, and unlinked after the batch that removes it. A crash can leave an
//! orphan file, never a paste without its body; orphans are deleted at open.
//!
//! All functions here block; callers run them on blocking threads.

use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{DirBuilderExt, FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::store::opened::{StoredBody, decoder_bytes};
use crate::store::{Encoding, StoreError};

/// Bodies of at least this many bytes are files rather than fjall values.
/// Part of the on-disk format.
pub const FILE_BODY_BYTES: u64 = 64 << 10;

/// The end of the trailer of a file holding the body itself.
const TRAILER_MAGIC: &[u8; 4] = b"SNBC";
/// The end of the trailer of a file holding a zstd stream.
const TRAILER_MAGIC_ZSTD: &[u8; 4] = b"SNBZ";

/// Bytes of the trailer after the body: checksum and magic.
const TRAILER_LEN: usize = 8 + TRAILER_MAGIC.len();

/// The trailer of `stored`, bytes of `encoding`; `None` for a stream made
/// with the store's dictionary, which only small bodies, in the body log, use.
fn trailer(stored: &[u8], encoding: Encoding) -> Option<[u8; TRAILER_LEN]> {
    let magic = match encoding {
        Encoding::Identity => TRAILER_MAGIC,
        Encoding::Zstd => TRAILER_MAGIC_ZSTD,
        Encoding::ZstdDictionary => return None,
    };
    let mut trailer = [0u8; TRAILER_LEN];
    trailer[..8].copy_from_slice(&xxhash_rust::xxh3::xxh3_64(stored).to_le_bytes());
    trailer[8..].copy_from_slice(magic);
    Some(trailer)
}

/// Whether a body of `size` bytes lives in a file.
pub fn is_file_backed(size: u64) -> bool {
    size >= FILE_BODY_BYTES
}

/// The directory of body files and how carefully to write them.
pub struct BodyFiles {
    dir: PathBuf,
    fsync: bool,
}

/// An I/O error, with what was being done and to which path
/// ([`StoreError::DiskFull`] if the file system is full).
pub(super) fn io_error(what: &str, path: &Path, e: std::io::Error) -> StoreError {
    StoreError::io(format!("{what} {}", path.display()), e)
}

/// Creates `dir` and its missing parents readable by snip's user alone
/// (0700): pastes are private to whoever holds their links, not to every
/// user of the machine.
pub(super) fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// Makes the data dir `dir` (created already) private: mode 0700 if it had
/// any bit for group or others (a directory made by hand, or by a package,
/// is often 0755), so other local users cannot reach the files in it; and
/// the process's umask keeps group and others out of every file created
/// from now on, since fjall creates its journals and tables with the
/// default mode. `Err` says why a dir that is not private cannot be made so.
pub(super) fn make_private(dir: &Path) -> Result<(), StoreError> {
    use std::os::unix::fs::PermissionsExt;
    let refused = |what: &str, e: std::io::Error| {
        StoreError::backend_caused(
            format!(
                "the data dir {} must be private to snip's user (mode 0700), \
                 but {what}; chmod 700 it as its owner, or run snip as that user",
                dir.display()
            ),
            e,
        )
    };
    let mode = std::fs::metadata(dir)
        .map_err(|e| refused("it cannot be read", e))?
        .permissions()
        .mode();
    if mode & 0o077 != 0 {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
            .map_err(|e| refused(&format!("its mode {:o} cannot be changed", mode & 0o777), e))?;
        tracing::info!(dir = %dir.display(), "made the data dir private (mode 0700)");
    }
    let mask = rustix::fs::Mode::from_raw_mode(0o077);
    let before = rustix::process::umask(mask);
    rustix::process::umask(before | mask);
    Ok(())
}

/// Options that create a file readable by snip's user alone (0600), for the
/// same reason as [`create_private_dir`].
pub(super) fn private_file() -> OpenOptions {
    let mut options = OpenOptions::new();
    options.mode(0o600);
    options
}

/// `fsync` of a directory, so the entries created in it survive a power loss.
pub(super) fn sync_dir(dir: &Path) -> Result<(), StoreError> {
    File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|e| io_error("cannot sync directory", dir, e))
}

impl BodyFiles {
    /// Creates `<data_dir>/bodies` if needed.
    pub fn open(data_dir: &Path, fsync: bool) -> Result<Self, StoreError> {
        let dir = data_dir.join("bodies");
        create_private_dir(&dir).map_err(|e| io_error("cannot create directory", &dir, e))?;
        if fsync {
            sync_dir(data_dir)?;
        }
        Ok(Self { dir, fsync })
    }

    /// The path of a body; refuses IDs that are not plain alphanumerics, so no
    /// stored value can ever name another path.
    pub fn path(&self, id: &str) -> Result<PathBuf, StoreError> {
        let shard = id
            .get(..2)
            .filter(|_| id.len() >= 2 && id.bytes().all(|b| b.is_ascii_alphanumeric()))
            .ok_or_else(|| StoreError::Corrupt(format!("invalid paste ID {id:?}")))?;
        Ok(self.dir.join(shard).join(id))
    }

    /// Reads a body as stored, with its encoding, and checks it against its
    /// trailer (or, without one, its length: `size` is the body's); `None`
    /// if there is no file.
    pub fn read(&self, id: &str, size: u64) -> Result<Option<(Vec<u8>, Encoding)>, StoreError> {
        let path = self.path(id)?;
        match std::fs::read(&path) {
            Ok(bytes) => checked(&path, bytes, size).map(Some),
            // Removed by a concurrent take or delete.
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_error("cannot read body file", &path, e)),
        }
    }

    /// Opens a body to be read as it is sent, checked against its trailer
    /// first (one pass through a small buffer, so nothing damaged is ever
    /// sent); `None` if there is no file. The open file keeps the body
    /// readable even if a take or delete unlinks it meanwhile.
    pub fn open_body(&self, id: &str, size: u64) -> Result<Option<StoredBody>, StoreError> {
        let path = self.path(id)?;
        let mut file = match File::open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_error("cannot open body file", &path, e)),
        };
        let failed = |e| io_error("cannot read body file", &path, e);
        let len = file.metadata().map_err(failed)?.len();
        let mut tail = [0u8; TRAILER_LEN];
        let tail_at = len.saturating_sub(TRAILER_LEN as u64);
        let tail = match tail.get_mut(..usize::try_from(len - tail_at).unwrap_or(0)) {
            Some(tail) => {
                file.read_exact_at(tail, tail_at).map_err(failed)?;
                &*tail
            }
            None => &[],
        };
        let (encoding, stored_len) = layout(len, size, tail)
            .ok_or_else(|| corrupt(&path, format!("{len} bytes for a body of {size}")))?;
        if stored_len < len {
            let mut hasher = xxhash_rust::xxh3::Xxh3::new();
            let mut buf = vec![0u8; 64 << 10];
            let mut left = stored_len;
            while left > 0 {
                let want = usize::try_from(left).unwrap_or(usize::MAX).min(buf.len());
                let read = file.read(&mut buf[..want]).map_err(failed)?;
                if read == 0 {
                    return Err(corrupt(&path, "cut short".to_owned()));
                }
                hasher.update(&buf[..read]);
                left -= read as u64;
            }
            if tail.get(..8) != Some(&hasher.digest().to_le_bytes()[..]) {
                return Err(corrupt(&path, "does not match its checksum".to_owned()));
            }
            file.seek(SeekFrom::Start(0)).map_err(failed)?;
        }
        let decoder = match encoding {
            Encoding::Identity => 0,
            _ => {
                let mut head = [0u8; 6];
                let read = file.read_at(&mut head, 0).map_err(failed)?;
                decoder_bytes(&head[..read], size)
            }
        };
        Ok(Some(StoredBody::file(file, stored_len, encoding, decoder)))
    }

    /// Writes a new body file, `stored` bytes of `encoding`;
    /// [`StoreError::IdTaken`] if one exists for this ID.
    pub fn write(&self, id: &str, stored: &[u8], encoding: Encoding) -> Result<(), StoreError> {
        let trailer = trailer(stored, encoding)
            .ok_or_else(|| StoreError::backend("a body file cannot hold a dictionary's stream"))?;
        let path = self.path(id)?;
        let shard = path.parent().unwrap_or(&self.dir).to_path_buf();
        create_private_dir(&shard).map_err(|e| io_error("cannot create directory", &shard, e))?;
        let mut file = match private_file().write(true).create_new(true).open(&path) {
            Ok(file) => file,
            Err(e) if e.kind() == ErrorKind::AlreadyExists => return Err(StoreError::IdTaken),
            Err(e) => return Err(io_error("cannot create body file", &path, e)),
        };
        let written = file
            .write_all(stored)
            .and_then(|()| file.write_all(&trailer))
            .and_then(|()| if self.fsync { file.sync_data() } else { Ok(()) });
        if let Err(e) = written {
            let _ = std::fs::remove_file(&path);
            return Err(io_error("cannot write body file", &path, e));
        }
        if self.fsync {
            sync_dir(&shard)?;
            sync_dir(&self.dir)?;
        }
        Ok(())
    }

    /// Unlinks a body file. A failure is only logged: the paste is gone either
    /// way, and the file is removed as an orphan at the next open.
    pub fn remove(&self, id: &str) {
        let removed = self
            .path(id)
            .and_then(|path| match std::fs::remove_file(&path) {
                Err(e) if e.kind() != ErrorKind::NotFound => {
                    Err(io_error("cannot delete body file", &path, e))
                }
                _ => Ok(()),
            });
        if let Err(e) = removed {
            tracing::warn!(error = %e, "body file left behind");
        }
    }

    /// Deletes files whose paste does not exist (`is_stored` says which do).
    pub fn remove_orphans(
        &self,
        mut is_stored: impl FnMut(&str) -> Result<bool, StoreError>,
    ) -> Result<usize, StoreError> {
        let list = |dir: &Path| std::fs::read_dir(dir).map_err(|e| io_error("cannot list", dir, e));
        let mut removed = 0;
        for shard in list(&self.dir)? {
            let shard = shard
                .map_err(|e| io_error("cannot list", &self.dir, e))?
                .path();
            for file in list(&shard)? {
                let file = file.map_err(|e| io_error("cannot list", &shard, e))?;
                let stored = match file.file_name().to_str() {
                    Some(id) => is_stored(id)?,
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
}

/// The stored bytes in `bytes` (a file's contents) and their encoding, if
/// they match the trailer's checksum (and, for the body itself, are `size`
/// bytes), or are `size` bytes without a trailer (format 1). A compressed
/// body is never that long: it is kept only if it saves an eighth.
fn checked(path: &Path, mut bytes: Vec<u8>, size: u64) -> Result<(Vec<u8>, Encoding), StoreError> {
    let len = bytes.len() as u64;
    let tail = &bytes[bytes.len().saturating_sub(TRAILER_LEN)..];
    let (encoding, stored_len) = layout(len, size, tail)
        .ok_or_else(|| corrupt(path, format!("{len} bytes for a body of {size}")))?;
    if stored_len == len {
        return Ok((bytes, encoding));
    }
    let stored_len = bytes.len() - TRAILER_LEN;
    if trailer(&bytes[..stored_len], encoding).is_none_or(|t| t[..] != bytes[stored_len..]) {
        return Err(corrupt(path, "does not match its checksum".to_owned()));
    }
    bytes.truncate(stored_len);
    Ok((bytes, encoding))
}

/// How a body file of `len` bytes holding a body of `size` bytes is laid
/// out, from its last bytes `tail` (up to a trailer's): the encoding of the
/// stored bytes and their length (`len` for a file without a trailer).
fn layout(len: u64, size: u64, tail: &[u8]) -> Option<(Encoding, u64)> {
    let trailed = len.checked_sub(TRAILER_LEN as u64);
    if len == size {
        Some((Encoding::Identity, len))
    } else if tail.ends_with(TRAILER_MAGIC_ZSTD) {
        trailed.map(|stored| (Encoding::Zstd, stored))
    } else if len == size.saturating_add(TRAILER_LEN as u64) && tail.ends_with(TRAILER_MAGIC) {
        trailed.map(|stored| (Encoding::Identity, stored))
    } else {
        None
    }
}

/// A damaged body file.
fn corrupt(path: &Path, what: String) -> StoreError {
    StoreError::Corrupt(format!("body file {}: {what}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// IDs that are not plain alphanumerics never become paths.
    #[test]
    fn paths_refuse_odd_ids() {
        let tmp = tempfile::tempdir().unwrap();
        let files = BodyFiles::open(tmp.path(), false).unwrap();
        for bad in ["", "a", "../etc", "ab/cd", "ab.cd"] {
            assert!(files.path(bad).is_err(), "{bad:?}");
        }
    }

    /// Write, read, refuse a second write of the same ID, remove, and collect orphans.
    #[test]
    fn file_lifecycle() {
        let tmp = tempfile::tempdir().unwrap();
        let files = BodyFiles::open(tmp.path(), true).unwrap();
        files.write("abc123", b"hello", Encoding::Identity).unwrap();
        assert!(matches!(
            files.write("abc123", b"again", Encoding::Identity),
            Err(StoreError::IdTaken)
        ));
        assert_eq!(
            files.read("abc123", 5).unwrap(),
            Some((b"hello".to_vec(), Encoding::Identity))
        );
        assert!(matches!(
            files.read("abc123", 6),
            Err(StoreError::Corrupt(_))
        ));
        files
            .write("abc999", b"orphan", Encoding::Identity)
            .unwrap();
        let removed = files.remove_orphans(|id| Ok(id == "abc123")).unwrap();
        assert_eq!(removed, 1);
        files.remove("abc123");
        assert_eq!(files.read("abc123", 5).unwrap(), None);
    }

    /// A flipped bit anywhere in a body file, or a file cut short, is
    /// refused, whatever its encoding; a file without a trailer (format 1)
    /// reads by its length.
    #[test]
    fn damaged_files_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let files = BodyFiles::open(tmp.path(), false).unwrap();
        // A compressed body is shorter than the body (size 100 here).
        for (stored, encoding, size) in [
            (&b"precious body"[..], Encoding::Identity, 13),
            (&b"a compressed stream"[..], Encoding::Zstd, 100),
        ] {
            files.write("abc123", stored, encoding).unwrap();
            let path = files.path("abc123").unwrap();
            let whole = std::fs::read(&path).unwrap();
            assert_eq!(whole.len(), stored.len() + TRAILER_LEN);
            assert_eq!(
                files.read("abc123", size).unwrap(),
                Some((stored.to_vec(), encoding))
            );
            let opened = files.open_body("abc123", size).unwrap().unwrap();
            assert_eq!(opened.encoding(), encoding);
            let as_stored = opened
                .stored_reader()
                .unwrap()
                .read_to_bytes(1 << 20)
                .unwrap();
            assert_eq!(&as_stored[..], stored);
            for at in 0..whole.len() {
                let mut bad = whole.clone();
                bad[at] ^= 0x01;
                std::fs::write(&path, &bad).unwrap();
                let read = files.read("abc123", size);
                assert!(
                    matches!(read, Err(StoreError::Corrupt(_))),
                    "flip at {at}: {read:?}"
                );
                let opened = files.open_body("abc123", size);
                assert!(
                    matches!(opened, Err(StoreError::Corrupt(_))),
                    "flip at {at}: {opened:?}"
                );
            }
            std::fs::write(&path, &whole[..whole.len() - 1]).unwrap();
            assert!(matches!(
                files.read("abc123", size),
                Err(StoreError::Corrupt(_))
            ));
            files.remove("abc123");
        }
        files
            .write("abc123", b"precious body", Encoding::Identity)
            .unwrap();
        let path = files.path("abc123").unwrap();
        std::fs::write(&path, b"precious body").unwrap();
        assert_eq!(
            files.read("abc123", 13).unwrap(),
            Some((b"precious body".to_vec(), Encoding::Identity))
        );
    }
}
