//! Reading bodies back, each checked against its checksum: from disk, or
//! only if the page cache holds it; and a segment's records, for the
//! compactor.

use std::os::unix::fs::FileExt;
use std::sync::Arc;

use super::record::{Location, checked, parse_record};
use super::{BodyLog, Segment};
use crate::store::StoreError;
use crate::store::embedded::body_files::io_error;

impl BodyLog {
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
