//! Giving space back: the sweep deletes expired pastes through the `expiry`
//! index, then retires and compacts body-log segments that died. While the
//! disk is nearly full (`space`) it writes nothing: no removal, no copy.

use fjall::PersistMode;

use super::body_log::Location;
use super::counters::Change;
use super::keys::expiry_key;
use super::read::Entry;
use super::{Inner, meta_codec, space};
use crate::core::UnixTime;
use crate::store::{StoreError, SweepReport};

impl Inner {
    /// Blocking: deletes expired pastes, then gives back the body log's dead space.
    pub(super) fn sweep(&self, now: UnixTime, limit: usize) -> Result<SweepReport, StoreError> {
        // Before looking: a write from here on is noted anew, so a sweep
        // that settles on what it saw wakes for that write.
        self.writes.take();
        // A disk nearly full: no removal is written (it could break the
        // store, see `space`); the sweeper tries again next round.
        self.space.check_change()?;
        let end = expiry_key(now.saturating_add(1), "");
        let mut due = Vec::new();
        for entry in self.expiry.range(..end).take(limit) {
            let key = entry.key()?;
            let id = key
                .get(8..)
                .and_then(|id| std::str::from_utf8(id).ok())
                .map(str::to_owned);
            due.push((key, id.unwrap_or_default()));
        }
        let mut report = SweepReport::default();
        for (key, id) in due {
            let _guard = self.lock_id(&id);
            match self.locate(&id)? {
                Some(entry) if entry.meta.is_expired(now) => {
                    self.remove(&entry)?;
                    report.removed += 1;
                    report.bytes += entry.meta.size;
                }
                // An index entry whose paste is gone: drop it.
                _ => {
                    self.space.check_change()?;
                    self.expiry.remove(key)?;
                }
            }
        }
        self.log.retire_dead_active()?;
        // Not fatal: a body that cannot be read (damaged) keeps its segment,
        // and the next sweep tries again.
        if let Err(e) = self.compact_bodies() {
            tracing::warn!(error = %e, "cannot compact the body log");
        }
        if self.log.has_dead() {
            // `--sync`: the removals that killed these segments must not
            // come back after a power loss, or their bodies would be gone.
            self.db.persist(PersistMode::SyncData)?;
            self.log.delete_dead();
        }
        report.settled = report.removed < limit
            && self.expiry.is_empty()?
            && !self.accounts.has_sessions()?
            && self.log.compaction_candidate().is_none()
            && !self.log.has_dead();
        Ok(report)
    }

    /// Notes a write that may give the sweeper work (a paste that expires,
    /// space to give back, a session), waking it if it waits for one.
    pub(super) fn wrote(&self) {
        self.writes.note();
    }

    /// Compacts one mostly dead segment of the body log, if there is one: its
    /// bodies that pastes still refer to are copied to the active segment,
    /// their metadata pointed at the copies, and the segment, dead, deleted.
    pub(super) fn compact_bodies(&self) -> Result<(), StoreError> {
        let Some(segment) = self.log.compaction_candidate() else {
            return Ok(());
        };
        let records = self.log.records(segment)?;
        // The copies at most, and their entries (`space`).
        let copied: u64 = records
            .iter()
            .map(|(_, at)| u64::from(at.len) + space::ENTRY_BYTES)
            .sum();
        self.space.check(copied)?;
        let still_at = |id: &str, at: Location| -> Result<Option<Entry>, StoreError> {
            Ok(self.locate(id)?.filter(|entry| entry.at == Some(at)))
        };
        let mut copies = Vec::new();
        for (id, at) in records {
            let body = {
                let _guard = self.lock_id(&id);
                if still_at(&id, at)?.is_none() {
                    continue;
                }
                self.log.read(at)?
            };
            let copy = self
                .log
                .append(&[(id.as_str(), at.encoding, body.as_slice())])?[0];
            copies.push((id, at, copy));
        }
        if copies.is_empty() {
            return Ok(());
        }
        // The copies are on disk before any metadata points at them.
        self.log.sync_if_durable()?;
        for (id, at, copy) in copies {
            let _guard = self.lock_id(&id);
            let Some(entry) = still_at(&id, at)? else {
                // Taken or deleted meanwhile.
                self.log.release(copy);
                continue;
            };
            let moved = meta_codec::with_location(&meta_codec::encode(&entry.meta)?, &copy);
            let mut batch = self.db.batch();
            batch.insert(&self.meta, entry.key.bytes(&id).as_ref(), moved);
            let mut change = Change::default();
            change.moved(&at, &copy);
            if let Err(e) = self.counters.commit(batch, &change, || {}) {
                self.log.release(copy);
                return Err(e.into());
            }
            self.log.release(at);
        }
        Ok(())
    }
}
