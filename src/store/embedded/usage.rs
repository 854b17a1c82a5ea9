//! Admission: body bytes and pastes in total (the storage limit, the
//! metrics gauges) and per owner (quotas), reserved when a paste is staged
//! and given back if it is not stored, so concurrent creates cannot together
//! pass a limit. They start from the committed counts (`counters`); a store
//! whose counts were never persisted is counted here once.

use std::sync::atomic::Ordering;

use fjall::Keyspace;

use super::counters::Counts;
use super::known_ids::KnownIds;
use super::{Inner, lock, meta_codec};
use crate::core::PasteMeta;
use crate::store::{PutLimits, StoreError, Usage};

impl Inner {
    /// Reserves a paste's bytes against the global limit and its owner's quota, atomically.
    pub(super) fn reserve(&self, meta: &PasteMeta, limits: PutLimits) -> Result<(), StoreError> {
        let limit = self.max_bytes.unwrap_or(u64::MAX);
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(meta.size).filter(|&total| total <= limit)
            })
            .map_err(|_| StoreError::Full { limit })?;
        self.pastes.fetch_add(1, Ordering::Relaxed);
        let Some(owner) = &meta.owner else {
            return Ok(());
        };
        let mut usage = lock(&self.usage);
        let entry = usage.entry(owner.clone()).or_default();
        let quota = limits.owner_max_bytes.unwrap_or(u64::MAX);
        if entry.bytes.saturating_add(meta.size) > quota {
            drop(usage);
            self.used.fetch_sub(meta.size, Ordering::AcqRel);
            self.pastes.fetch_sub(1, Ordering::Relaxed);
            return Err(StoreError::QuotaExceeded { limit: quota });
        }
        entry.bytes += meta.size;
        entry.pastes += 1;
        Ok(())
    }

    /// Gives back what [`Self::reserve`] took.
    pub(super) fn release(&self, meta: &PasteMeta) {
        self.used.fetch_sub(meta.size, Ordering::AcqRel);
        self.pastes.fetch_sub(1, Ordering::Relaxed);
        if let Some(owner) = &meta.owner {
            let mut usage = lock(&self.usage);
            if let Some(entry) = usage.get_mut(owner) {
                entry.bytes = entry.bytes.saturating_sub(meta.size);
                entry.pastes = entry.pastes.saturating_sub(1);
            }
        }
    }

    pub(super) fn owner_usage(&self, owner: &str) -> Usage {
        lock(&self.usage).get(owner).copied().unwrap_or_default()
    }
}

/// Counts every stored paste (for a store whose counts were never
/// persisted) and adds each ID to `known`. The flag: `known` outgrew its
/// size and must be rebuilt.
pub(super) fn count(meta: &Keyspace, known: &KnownIds) -> Result<(Counts, bool), StoreError> {
    let mut counts = Counts::default();
    let mut outgrown = false;
    for entry in meta.iter() {
        let (key, value) = entry.into_inner()?;
        outgrown |= known.add(&key);
        let (meta, at) = meta_codec::decode_entry(&key, &value)?;
        counts.add(&meta, at.as_ref());
    }
    Ok((counts, outgrown))
}
