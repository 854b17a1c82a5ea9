//! Removing pastes: one write batch takes out every entry of a paste, then
//! its body's space is given back (body log or file) and the paste cache
//! forgets it. `take` (a burn reveal) checks the proof of key, reads and
//! removes under one lock.

use super::Inner;
use super::body_files::is_file_backed;
use super::counters::Change;
use super::keys::{expiry_key, owner_key};
use super::read::Entry;
use crate::core::UnixTime;
use crate::core::envelope::Proof;
use crate::core::paste::ProofStanding;
use crate::core::tenant::Authority;
use crate::store::{StoreError, Taken};

impl Inner {
    /// Removes all entries of a paste in one batch, unless the disk is
    /// nearly full (`space`). Caller holds the ID's lock.
    pub(super) fn remove(&self, entry: &Entry) -> Result<(), StoreError> {
        self.space.check_change()?;
        let Entry { key, meta, at } = entry;
        let body_at = *at;
        let mut batch = self.db.batch();
        batch.remove(&self.meta, key.bytes(&meta.id).as_ref());
        if let Some(at) = meta.expires_at {
            batch.remove(&self.expiry, expiry_key(at, &meta.id));
        }
        if let Some(owner) = &meta.owner {
            batch.remove(&self.owners, owner_key(owner, meta.created_at, &meta.id));
        }
        let mut change = Change::default();
        change.removed(meta, body_at.as_ref());
        self.counters.commit(batch, &change, || {})?;
        self.bound_journal();
        self.paste_cache.evict(&meta.id);
        if meta.owner.is_some() {
            self.search.removed(&meta.id);
        }
        self.release(meta);
        if let Some(at) = body_at {
            self.log.release(at);
        } else if is_file_backed(meta.size) {
            self.files.remove(&meta.id);
        }
        Ok(())
    }

    /// Reads and removes a live paste, under its lock, if `proof` admits it:
    /// the check and the removal cannot be separated by another take.
    pub(super) fn take(
        &self,
        id: &str,
        proof: Option<&Proof>,
        now: UnixTime,
    ) -> Result<Taken, StoreError> {
        let _guard = self.lock_id(id);
        let Some(entry) = self.locate(id)?.filter(|e| !e.meta.is_expired(now)) else {
            return Ok(Taken::Absent);
        };
        if entry.meta.proof_standing(proof) != ProofStanding::Admitted {
            return Ok(Taken::Refused);
        }
        let Some(paste) = self.read_body(entry.meta.clone(), entry.at)? else {
            return Ok(Taken::Absent);
        };
        self.remove(&entry)?;
        // Its space is the sweeper's to give back (the sweep's own removals
        // do not count: the sweep that made them sees that space).
        self.wrote();
        Ok(Taken::Paste(paste))
    }

    /// Removes a paste; with `authority`, only while it holds for the
    /// paste's owner (checked and removed with the accounts held).
    pub(super) fn delete(
        &self,
        id: &str,
        authority: Option<&Authority>,
    ) -> Result<bool, StoreError> {
        let _guard = self.lock_id(id);
        let Some(entry) = self.locate(id)? else {
            return Ok(false);
        };
        let _held = match authority {
            Some(authority) => {
                let held = self.accounts.hold();
                let owner = entry
                    .meta
                    .owner
                    .as_deref()
                    .ok_or(StoreError::AuthorityGone)?;
                held.check(owner, Some(authority))?;
                Some(held)
            }
            None => None,
        };
        self.remove(&entry)?;
        self.wrote();
        Ok(true)
    }
}
