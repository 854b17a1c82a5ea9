//! Giving space back: each segment counts its live bytes; a sealed segment
//! with none left is deleted (with `fsync`, only after the journal that
//! removed its pastes is synced), and one mostly dead is named for the
//! compactor.

use std::sync::atomic::Ordering;

use super::BodyLog;
use super::record::Location;
use crate::store::StoreError;
use crate::store::embedded::lock;

/// A sealed segment is compacted once less than this share of it is live.
const COMPACT_BELOW_LIVE: f64 = 0.5;

impl BodyLog {
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
    pub(super) fn retire(&self, number: u32) {
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
    pub(super) fn delete(&self, number: u32) {
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
}
