//! What is stored, counted: body bytes and pastes in total (the storage
//! limit, the metrics gauges) and per owner (quotas). Counted once at open
//! from the `meta` keyspace, then kept up to date by every write.

use std::collections::HashMap;
use std::sync::atomic::Ordering;

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

    /// Counts stored bytes, globally and per owner, at startup.
    pub(super) fn count_usage(&self) -> Result<(), StoreError> {
        let mut total = 0u64;
        let mut count = 0u64;
        let mut per_owner: HashMap<String, Usage> = HashMap::new();
        let mut live_segments: HashMap<u32, u64> = HashMap::new();
        let mut rebuild = false;
        for entry in self.meta.iter() {
            let (key, value) = entry.into_inner()?;
            rebuild |= self.known.add(&key);
            let (meta, at) = meta_codec::decode_entry(&key, &value)?;
            if let Some(at) = at {
                *live_segments.entry(at.segment).or_default() += u64::from(at.len);
            }
            total += meta.size;
            count += 1;
            if let Some(owner) = meta.owner {
                let usage = per_owner.entry(owner).or_default();
                usage.bytes += meta.size;
                usage.pastes += 1;
            }
        }
        self.used.store(total, Ordering::Relaxed);
        self.pastes.store(count, Ordering::Relaxed);
        if rebuild {
            self.rebuild_known_ids();
        }
        *lock(&self.usage) = per_owner;
        let dead = self.log.count_live(&live_segments);
        if dead > 0 {
            tracing::info!(
                segments = dead,
                "deleted body log segments no paste refers to"
            );
        }
        Ok(())
    }
}
