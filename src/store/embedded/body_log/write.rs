//! Appending a group's bodies to the active segment in one write, sealing
//! a full segment, and syncing.

use std::os::unix::fs::FileExt;
use std::sync::atomic::Ordering;

use super::record::{Location, MAGIC, magic};
use super::{Active, BodyLog, SEGMENT_BYTES, open_segment};
use crate::store::embedded::body_files::{io_error, sync_dir};
use crate::store::embedded::lock;
use crate::store::{Encoding, StoreError};

impl BodyLog {
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
    pub(super) fn seal(&self, active: &mut Active) -> Result<(), StoreError> {
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
}
