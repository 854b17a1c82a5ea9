//! What an instance counts of the whole store: body bytes (for the storage
//! limit) and pastes (for the metrics gauge), from a total re-read at every
//! sweep plus its own writes since. So instances together may overshoot the
//! storage limit by what they accept within one sweep interval: one counter
//! row updated by every create would serialise all creates of all instances.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::store::StoreError;

/// What the instance counts of the whole store, shared with the `batch` inserter.
pub(crate) struct Totals {
    /// Body bytes of all pastes as last counted, plus this instance's writes since.
    pub(super) used: AtomicU64,
    /// Number of pastes as last counted (at start and at every sweep), plus
    /// this instance's creates and minus its deletes since: the metrics
    /// gauge; exact counting would cost a round trip per scrape.
    pub(super) pastes: AtomicU64,
    /// The storage limit, if any.
    pub(super) max_bytes: Option<u64>,
}

impl Totals {
    /// Checks the storage limit before a write (as precise as the module docs say).
    pub(super) fn reserve(&self, size: u64) -> Result<(), StoreError> {
        let limit = self.max_bytes.unwrap_or(u64::MAX);
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(size).filter(|&total| total <= limit)
            })
            .map(|_| ())
            .map_err(|_| StoreError::Full { limit })
    }

    /// Gives back bytes reserved for a paste that was not stored, or that was removed.
    pub(super) fn release(&self, size: u64) {
        let _ = self
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                Some(used.saturating_sub(size))
            });
    }

    /// Counts a stored paste.
    pub(super) fn created(&self) {
        self.pastes.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a removed paste of `size` bytes.
    pub(super) fn removed(&self, size: u64) {
        self.release(size);
        let _ = self
            .pastes
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
    }
}
