//! Storing new pastes: a paste is staged (encoded, its bytes reserved), then
//! committed with the others that arrived together (`combiner`): their
//! bodies in one body-log write, their entries in one fjall write batch.

use std::path::PathBuf;
use std::sync::atomic::Ordering;

use super::body_files::is_file_backed;
use super::body_log::Location;
use super::combiner::{Commit, Outcome};
use super::counters::Change;
use super::keys::{MetaKey, expiry_key, owner_key};
use super::{EmbeddedStore, Inner, known_ids, meta_codec, space};
use crate::core::PasteMeta;
use crate::core::tenant::Authority;
use crate::store::codec::{NewBody, Stored};
use crate::store::{BackendError, Encoding, PutLimits, StoreError};

/// A paste on its way into the store: encoded, its bytes reserved.
pub(super) struct Staged {
    meta: PasteMeta,
    /// The ID's number if it is the store's own (`sequence`), handed out once.
    number: Option<u64>,
    encoded: Vec<u8>,
    /// The body as it is to be stored; `None` when it is in its file.
    body: Option<Stored>,
    /// What authorised it, checked again as it commits.
    authority: Option<Authority>,
}

impl Inner {
    /// Encodes a paste for the combiner and reserves its bytes; `body` is
    /// `None` when it is already in its file (which is removed if this fails).
    pub(super) fn stage(
        &self,
        meta: PasteMeta,
        number: Option<u64>,
        body: Option<Stored>,
        limits: PutLimits,
    ) -> Result<Staged, StoreError> {
        let reserved = meta_codec::encode(&meta).and_then(|encoded| {
            match &meta.owner {
                Some(owner) => {
                    self.accounts
                        .while_authorised(owner, limits.authority.as_ref(), || {
                            self.reserve(&meta, limits)
                        })?
                }
                None => self.reserve(&meta, limits)?,
            }
            Ok(encoded)
        });
        match reserved {
            Ok(encoded) => Ok(Staged {
                meta,
                number,
                encoded,
                body,
                authority: limits.authority,
            }),
            Err(e) => {
                if body.is_none() {
                    self.files.remove(&meta.id);
                }
                Err(e)
            }
        }
    }

    /// Blocking: writes a large body's file (compressed if that is worth
    /// it), after checking it would fit.
    pub(super) fn write_body_file(
        &self,
        meta: &PasteMeta,
        body: NewBody,
    ) -> Result<(), StoreError> {
        // Not atomic (`stage` reserves for real), but spares writing a file that would be refused.
        if let Some(limit) = self.max_bytes
            && self.used.load(Ordering::Relaxed).saturating_add(meta.size) > limit
        {
            return Err(StoreError::Full { limit });
        }
        let body = body.into_stored(meta);
        self.space
            .check(body.bytes.len() as u64 + space::ENTRY_BYTES)?;
        // IdTaken here means a file exists for this ID: it is someone else's, kept.
        self.files.write(&meta.id, &body.bytes, body.encoding)
    }

    /// Gives back what [`Self::stage`] took for a paste that was not stored.
    pub(super) fn unstage(&self, staged: &Staged) {
        self.release(&staged.meta);
        if staged.body.is_none() {
            self.files.remove(&staged.meta.id);
        }
    }
}

/// New pastes are committed in groups (`combiner`): one write batch, one
/// journal write. Only the combiner writes new IDs, one group at a time, so
/// checking that an ID is free and inserting it cannot interleave with
/// another put.
impl Commit<Staged> for Inner {
    fn commit(&self, group: Vec<Staged>) -> Vec<Outcome> {
        self.wait_for_flush();
        // Held until the batch is in: no revocation, sign-out or tenant
        // delete passes between a paste's check and its commit.
        let held = group
            .iter()
            .any(|staged| staged.authority.is_some())
            .then(|| self.accounts.hold());
        let mut outcomes = Vec::with_capacity(group.len());
        for (i, staged) in group.iter().enumerate() {
            if let (Some(held), Some(owner), Some(authority)) =
                (&held, &staged.meta.owner, &staged.authority)
                && let Err(gone) = held.check(owner, Some(authority))
            {
                outcomes.push(Err(gone));
                continue;
            }
            let id = staged.meta.id.as_str();
            let taken = group[..i]
                .iter()
                .any(|earlier| earlier.meta.id == staged.meta.id);
            let stored = if self.may_hold_new(staged) {
                self.locate(id).map(|entry| entry.is_some())
            } else {
                Ok(false)
            };
            outcomes.push(match stored {
                Ok(exists) if exists || taken => Err(StoreError::IdTaken),
                Ok(_) => Ok(()),
                Err(e) => Err(e),
            });
        }
        // The bodies of the accepted pastes, in one write, before the batch
        // that makes them exist.
        let accepted: Vec<&Staged> = group
            .iter()
            .zip(&outcomes)
            .filter(|(_, outcome)| outcome.is_ok())
            .map(|(staged, _)| staged)
            .collect();
        let bodies: Vec<(&str, Encoding, &[u8])> = accepted
            .iter()
            .filter_map(|staged| {
                let body = staged.body.as_ref()?;
                Some((staged.meta.id.as_str(), body.encoding, &body.bytes[..]))
            })
            .collect();
        // Where each accepted paste's body went (`None`: it is a file).
        let mut locations: Vec<Option<Location>> = Vec::new();
        let mut rebuild = false;
        let result = self
            .check_space(&accepted, &bodies)
            .and_then(|()| self.log.append(&bodies))
            .and_then(|written| {
                let mut written = written.into_iter();
                let mut batch = self.db.batch();
                let mut change = Change::default();
                for staged in &accepted {
                    let at = staged.body.as_ref().and_then(|_| written.next());
                    self.add_to(&mut batch, staged, at.as_ref());
                    change.added(&staged.meta, staged.number.is_some(), at.as_ref());
                    locations.push(at);
                }
                // The IDs join the filter in order with the counted batches,
                // so a filter saved at close holds every ID committed before
                // it that the store did not number.
                let known = || {
                    for staged in accepted.iter().filter(|staged| staged.number.is_none()) {
                        rebuild |= self.known.add(staged.meta.id.as_bytes());
                    }
                };
                self.counters
                    .commit(batch, &change, known)
                    .map_err(StoreError::from)
            });
        drop(held);
        match result {
            Ok(()) => {
                if rebuild {
                    self.rebuild_known_ids();
                }
                for staged in accepted.iter().filter(|s| s.meta.owner.is_some()) {
                    self.search.added(&staged.meta.id);
                }
                self.bound_journal();
                self.wrote();
            }
            Err(e) => {
                for outcome in outcomes.iter_mut().filter(|o| o.is_ok()) {
                    *outcome = Err(shared_failure(&e));
                }
                for at in locations.into_iter().flatten() {
                    self.log.release(at);
                }
            }
        }
        for (staged, outcome) in group.iter().zip(&outcomes) {
            if outcome.is_err() {
                self.unstage(staged);
            }
        }
        outcomes
    }

    fn abandon(&self, staged: Staged) {
        self.unstage(&staged);
    }
}

/// A failure of a whole group, for each of its pastes: a full disk and a
/// poisoned store stay what they are (so each create answers it, and the
/// server sees the store broken), anything else becomes its message.
fn shared_failure(e: &StoreError) -> StoreError {
    match e {
        StoreError::DiskFull(detail) => StoreError::DiskFull(detail.clone()),
        StoreError::Poisoned(inner) => StoreError::Poisoned(BackendError::new(inner.to_string())),
        other => StoreError::backend(other.to_string()),
    }
}

/// Sealed memtables of `meta` (full, waiting to be flushed) a commit may
/// leave behind it. fjall halts writers only at four, and a memtable holds
/// about twice its 8 MiB in heap (a skip-list node and separate key and
/// value buffers per entry), so under a create flood that backlog, not the
/// store, would be most of the memory. One being flushed while the next
/// fills keeps the disk busy; more only defers the same work.
const MAX_SEALED_MEMTABLES: usize = 1;

/// How often a waiting commit looks again: a flush of 8 MiB takes tens of ms.
const FLUSH_POLL: std::time::Duration = std::time::Duration::from_millis(1);

impl Inner {
    /// Blocking: waits until `meta` has at most [`MAX_SEALED_MEMTABLES`]
    /// waiting to be flushed, so creates go no faster than fjall flushes.
    fn wait_for_flush(&self) {
        while self.meta.sealed_memtable_count() > MAX_SEALED_MEMTABLES {
            std::thread::sleep(FLUSH_POLL);
        }
    }

    /// Whether the ID of `staged` may be stored already, so that fjall must
    /// be asked. A number is handed out once, so a numbered ID can only be
    /// taken by one the store did not number, which `known` holds; an ID
    /// from elsewhere may also be one the store numbered.
    fn may_hold_new(&self, staged: &Staged) -> bool {
        let id = staged.meta.id.as_str();
        (staged.number.is_none() && self.sequence.number(id).is_some())
            || self.known.may_hold(id.as_bytes())
    }

    /// Refuses a group whose bodies and entries would fill the disk
    /// (see `space`); body files are written and checked already.
    fn check_space(
        &self,
        accepted: &[&Staged],
        bodies: &[(&str, Encoding, &[u8])],
    ) -> Result<(), StoreError> {
        if accepted.is_empty() {
            return Ok(());
        }
        let body_bytes: u64 = bodies.iter().map(|(.., body)| body.len() as u64).sum();
        let entries = accepted.len() as u64 * space::ENTRY_BYTES;
        self.space.check(body_bytes + entries)
    }

    /// After a committed batch: has what would keep old journal files
    /// flushed, off this thread (see `journal`).
    pub(super) fn bound_journal(&self) {
        self.journal.check();
    }

    /// Builds a bigger filter of stored IDs, in the background.
    pub(super) fn rebuild_known_ids(&self) {
        known_ids::rebuild_in_background(self.known.clone(), self.meta.clone(), self.stored());
    }

    /// Takes the filter of stored IDs saved at `path` with `marker`, or
    /// builds one, in the background.
    pub(super) fn load_known_ids(&self, path: PathBuf, marker: u64) {
        let (known, meta) = (self.known.clone(), self.meta.clone());
        known_ids::load_in_background(known, meta, self.stored(), path, marker);
    }

    /// The number of stored pastes, what a filter is sized for.
    fn stored(&self) -> usize {
        usize::try_from(self.pastes.load(Ordering::Relaxed)).unwrap_or(usize::MAX)
    }

    /// A new paste's entries: metadata (with where its body was written,
    /// unless the body is a file) and index entries.
    pub(super) fn add_to(
        &self,
        batch: &mut fjall::OwnedWriteBatch,
        staged: &Staged,
        at: Option<&Location>,
    ) {
        let meta = &staged.meta;
        let key = staged.number.map_or(MetaKey::Id, MetaKey::Numbered);
        let key = key.bytes(&meta.id);
        match at {
            Some(at) => batch.insert(
                &self.meta,
                key.as_ref(),
                meta_codec::with_location(&staged.encoded, at),
            ),
            None => batch.insert(&self.meta, key.as_ref(), staged.encoded.as_slice()),
        }
        if let Some(at) = meta.expires_at {
            batch.insert(&self.expiry, expiry_key(at, &meta.id), []);
        }
        if let Some(owner) = &meta.owner {
            batch.insert(
                &self.owners,
                owner_key(owner, meta.created_at, &meta.id),
                [],
            );
        }
    }
}

impl EmbeddedStore {
    /// The next number and its ID, reserving more numbers first if needed.
    pub(super) async fn next_id(
        &self,
        random_len: usize,
    ) -> Result<(u64, crate::core::PasteId), StoreError> {
        let number = match self.inner.sequence.take() {
            Ok(number) => number,
            Err(number) => {
                // One reservation at a time: the creates that find their
                // number unreserved together wait here, not each on a
                // blocking thread of its own (which the runtime would keep).
                let _turn = self.inner.sequence.reserving().await;
                if !self.inner.sequence.is_reserved(number) {
                    self.blocking(move |inner| {
                        inner.space.check(space::ENTRY_BYTES)?;
                        inner.sequence.reserve_through(number)
                    })
                    .await?;
                }
                number
            }
        };
        Ok((number, self.inner.sequence.id(number, random_len)?))
    }

    /// Stores a new paste: its body compressed if that is worth it (`codec`;
    /// kept in the form given if the caller made it), a large body's file
    /// written (on a blocking thread, which compresses it too), then the
    /// paste joins the next group commit.
    pub(super) async fn write_new(
        &self,
        meta: PasteMeta,
        number: Option<u64>,
        body: NewBody,
        limits: PutLimits,
    ) -> Result<(), StoreError> {
        let mut samples = None;
        let (meta, body) = if is_file_backed(meta.size) {
            let meta = self
                .blocking(move |inner| {
                    inner.write_body_file(&meta, body)?;
                    Ok(meta)
                })
                .await?;
            (meta, None)
        } else {
            let plain = body.plain().cloned();
            let body = body
                .into_stored_off_runtime(&meta, self.inner.dictionary.get())
                .await;
            // A body that compressed well without a dictionary is one to
            // learn from, unless it is to leave nothing behind once read: the
            // dictionary stays for the store's life.
            samples = plain
                .filter(|_| body.encoding == Encoding::Zstd && !meta.burn)
                .and_then(|plain| self.inner.dictionary.offer(&plain));
            (meta, Some(body))
        };
        // Learning runs on its own blocking task, so that it happens even
        // if this create's client goes away; the create that completes the
        // samples waits for it (a fraction of a second, once in a store's
        // life), whether or not it was stored itself, so that a test or a
        // benchmark knows when the dictionary is in use.
        let learning = samples.map(|samples| {
            let inner = self.inner.clone();
            tokio::task::spawn_blocking(move || inner.dictionary.learn(samples))
        });
        let stored = self.commit_paste(meta, number, body, limits).await;
        if let Some(learning) = learning {
            learning
                .await
                .map_err(|e| StoreError::backend_caused("dictionary task failed", e))?;
        }
        stored
    }

    /// Stages a paste whose body is stored (or is in its file), commits it
    /// with its group and waits until it is as durable as configured.
    async fn commit_paste(
        &self,
        meta: PasteMeta,
        number: Option<u64>,
        body: Option<Stored>,
        limits: PutLimits,
    ) -> Result<(), StoreError> {
        let staged = self.inner.stage(meta, number, body, limits)?;
        self.inner.combiner.submit(staged, &self.inner).await?;
        self.durable().await
    }
}
