//! Free space on the data dir's file system, checked before every write to
//! the store, so a full disk refuses writes instead of breaking the store.
//!
//! A write that meets `ENOSPC` half-way is harmless for bodies (the body log
//! and body files are written before the metadata that refers to them), but
//! not for fjall: after a failed journal write it refuses every later write
//! until it is opened again. So writes stop while a reserve is still free,
//! enough for a group's journal entries and for fjall's flushes, and start
//! again by themselves once space is freed. Writes that make pastes exist
//! stop first, with the whole reserve free; small changes (accounts,
//! sessions, deletes, reveals, sweeps) go on until only half of it is, so
//! that deleting pastes still frees space once creates are refused.

use std::path::{Path, PathBuf};

use crate::store::StoreError;

/// The most a reserve keeps free: room for fjall to flush its memtables
/// (at most 32 MiB, see `open`) into tables, which are smaller.
const RESERVE_MAX: u64 = 32 << 20;

/// The share of a small file system kept free instead of [`RESERVE_MAX`].
const RESERVE_SHARE: u64 = 8;

/// Bytes a paste's metadata costs in fjall's journal, beyond its body.
pub const ENTRY_BYTES: u64 = 512;

/// The free-space check of one data dir.
#[derive(Debug, Clone)]
pub struct Space {
    dir: PathBuf,
    /// Bytes that writes leave free.
    reserve: u64,
}

impl Space {
    /// The check for the file system holding `dir`.
    pub fn new(dir: &Path) -> Self {
        let reserve = stat(dir).map_or(RESERVE_MAX, |(total, _)| {
            RESERVE_MAX.min(total / RESERVE_SHARE)
        });
        Self {
            dir: dir.to_path_buf(),
            reserve,
        }
    }

    /// Refuses a write of `bytes` that makes pastes exist (or copies their
    /// bodies) and would leave less than the reserve free. A file system
    /// that cannot say is not refused.
    pub fn check(&self, bytes: u64) -> Result<(), StoreError> {
        self.check_keeping(bytes, self.reserve)
    }

    /// Refuses a small change to the metadata (an account, a session, a
    /// paste's removal) that would leave less than half the reserve free.
    pub fn check_change(&self) -> Result<(), StoreError> {
        self.check_keeping(ENTRY_BYTES, self.reserve / 2)
    }

    fn check_keeping(&self, bytes: u64, keep: u64) -> Result<(), StoreError> {
        let Some((_, free)) = stat(&self.dir) else {
            return Ok(());
        };
        if free >= bytes.saturating_add(keep) {
            return Ok(());
        }
        Err(StoreError::DiskFull(format!(
            "{} has {free} bytes free; {bytes} more would leave less than the {keep} kept free",
            self.dir.display(),
        )))
    }
}

/// The size of the file system holding `dir` and the bytes free to snip's user.
fn stat(dir: &Path) -> Option<(u64, u64)> {
    let stat = rustix::fs::statvfs(dir).ok()?;
    let total = stat.f_blocks.saturating_mul(stat.f_frsize);
    let free = stat.f_bavail.saturating_mul(stat.f_frsize);
    Some((total, free))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A write that fits beside the reserve passes; one that would eat into
    /// it is refused as a full disk, naming the data dir.
    #[test]
    fn writes_stop_at_the_reserve() {
        let dir = tempfile::tempdir().unwrap();
        let space = Space::new(dir.path());
        assert!(space.reserve > 0 && space.reserve <= RESERVE_MAX);
        space.check(1).unwrap();
        let Some((_, free)) = stat(dir.path()) else {
            return;
        };
        let e = space.check(free).unwrap_err();
        assert!(matches!(e, StoreError::DiskFull(_)), "{e:?}");
        assert!(e.to_string().contains(&dir.path().display().to_string()));
    }

    /// Small changes keep half the reserve: they pass where a write of
    /// the free space less half the reserve would be refused as a create.
    #[test]
    fn changes_stop_at_half_the_reserve() {
        let dir = tempfile::tempdir().unwrap();
        let Some((_, free)) = stat(dir.path()) else {
            return;
        };
        let mut space = Space::new(dir.path());
        space.check_change().unwrap();
        if free < 16 << 20 {
            return;
        }
        // A reserve of more than the free space: creates stop, changes go on.
        space.reserve = free + (1 << 20);
        assert!(space.check(ENTRY_BYTES).is_err());
        space.check_change().unwrap();
        space.reserve = free.saturating_mul(4);
        let e = space.check_change().unwrap_err();
        assert!(matches!(e, StoreError::DiskFull(_)), "{e:?}");
    }
}
