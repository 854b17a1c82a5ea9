//! What is stored, counted and persisted: body bytes and pastes in total,
//! per owner, and live body bytes per body-log segment, in the `counters`
//! keyspace.
//!
//! Each count is written in the same fjall write batch as the change it
//! counts, so after any stop, `kill -9` included, the counts are exactly what
//! the metadata says, and opening the store reads them instead of scanning
//! every paste. Batches that change counts are built on several threads (the
//! committer, removals, the sweeper, body compaction); one mutex is held from
//! reading the committed counts through committing the batch, so two batches
//! never write counts computed from the same old value.
//!
//! These are committed counts. Admission (the storage limit, quotas) also
//! counts pastes staged but not yet committed, in memory (`usage`).
//!
//! Keys: `t` (total bytes and pastes), `o` ‖ owner (that owner's bytes and
//! pastes), `s` ‖ segment number (u32 BE: its live bytes), and `i`, the
//! marker of a saved filter of stored IDs (`known_ids`): a random number the
//! filter's file repeats, written at a clean close and removed by the first
//! batch after it that stores an ID the store did not number, so that the
//! file is trusted only if no such ID was stored after it was written. Zero
//! counts are removed, not kept. `sequence` keeps its own keys here too
//! (`k`, `n`, `f`), which the counts ignore.

use std::collections::HashMap;
use std::sync::Mutex;

use fjall::{Keyspace, OwnedWriteBatch};

use super::body_log::Location;
use super::lock;
use crate::core::PasteMeta;
use crate::store::Usage;

const TOTAL: &[u8] = b"t";
const OWNER: u8 = b'o';
const SEGMENT: u8 = b's';
const SAVED_IDS: &[u8] = b"i";

/// The committed counts.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Counts {
    pub bytes: u64,
    pub pastes: u64,
    pub owners: HashMap<String, Usage>,
    /// Live body bytes per body-log segment.
    pub segments: HashMap<u32, u64>,
}

impl Counts {
    /// Counts a stored paste whose body is at `at` (`None`: a body file).
    pub fn add(&mut self, meta: &PasteMeta, at: Option<&Location>) {
        self.bytes += meta.size;
        self.pastes += 1;
        if let Some(owner) = &meta.owner {
            let usage = self.owners.entry(owner.clone()).or_default();
            usage.bytes += meta.size;
            usage.pastes += 1;
        }
        if let Some(at) = at {
            *self.segments.entry(at.segment).or_default() += u64::from(at.len);
        }
    }
}

/// How one batch changes the counts.
#[derive(Debug, Default)]
pub struct Change {
    bytes: i128,
    pastes: i128,
    owners: HashMap<String, (i128, i128)>,
    segments: HashMap<u32, i128>,
    /// Whether the batch stores IDs the store did not number (which makes
    /// a saved ID filter stale).
    new_ids: bool,
}

impl Change {
    /// A paste stored, its body at `at` (`None`: a body file); `numbered`:
    /// its ID is one the store numbered (`sequence`).
    pub fn added(&mut self, meta: &PasteMeta, numbered: bool, at: Option<&Location>) {
        self.paste(meta, at, 1);
        self.new_ids |= !numbered;
    }

    /// A paste removed, its body was at `at`.
    pub fn removed(&mut self, meta: &PasteMeta, at: Option<&Location>) {
        self.paste(meta, at, -1);
    }

    /// A body copied from `from` to `to` (the paste now refers to `to`).
    pub fn moved(&mut self, from: &Location, to: &Location) {
        *self.segments.entry(from.segment).or_default() -= i128::from(from.len);
        *self.segments.entry(to.segment).or_default() += i128::from(to.len);
    }

    fn paste(&mut self, meta: &PasteMeta, at: Option<&Location>, sign: i128) {
        let size = i128::from(meta.size) * sign;
        self.bytes += size;
        self.pastes += sign;
        if let Some(owner) = &meta.owner {
            let usage = self.owners.entry(owner.clone()).or_default();
            usage.0 += size;
            usage.1 += sign;
        }
        if let Some(at) = at {
            *self.segments.entry(at.segment).or_default() += i128::from(at.len) * sign;
        }
    }
}

/// The `counters` keyspace and the committed counts; see the module documentation.
pub struct Counters {
    keyspace: Keyspace,
    state: Mutex<State>,
}

struct State {
    counts: Counts,
    /// Whether the marker of a saved ID filter is stored.
    saved_ids: bool,
}

/// What the `counters` keyspace held at open.
pub struct Loaded {
    /// `None` if the keyspace has no counts yet (a new store, or one written
    /// before counts were persisted): the caller counts them.
    pub counts: Option<Counts>,
    /// The marker of the saved ID filter, if one is stored.
    pub saved_ids: Option<u64>,
}

impl Counters {
    /// Reads the counts; only the totals, owners and segments are read, so
    /// this does not grow with the number of pastes.
    pub fn load(keyspace: &Keyspace) -> Result<Loaded, fjall::Error> {
        let mut counts = Counts::default();
        let mut counted = false;
        let mut saved_ids = None;
        for entry in keyspace.iter() {
            let (key, value) = entry.into_inner()?;
            match key.split_first() {
                Some((&OWNER, owner)) => {
                    let (bytes, pastes) = pair(&value);
                    let usage = Usage { bytes, pastes };
                    counts
                        .owners
                        .insert(String::from_utf8_lossy(owner).into_owned(), usage);
                }
                Some((&SEGMENT, number)) => {
                    if let Ok(number) = <[u8; 4]>::try_from(number) {
                        counts
                            .segments
                            .insert(u32::from_be_bytes(number), pair(&value).0);
                    }
                }
                _ if &*key == TOTAL => {
                    (counts.bytes, counts.pastes) = pair(&value);
                    counted = true;
                }
                _ if &*key == SAVED_IDS => saved_ids = Some(pair(&value).0),
                _ => {}
            }
        }
        Ok(Loaded {
            counts: counted.then_some(counts),
            saved_ids,
        })
    }

    /// The counters of `keyspace`, which holds `counts` (or is about to:
    /// see [`Self::record_all`]); `saved_ids`: whether its ID filter marker is stored.
    pub fn new(keyspace: Keyspace, counts: Counts, saved_ids: bool) -> Self {
        Self {
            keyspace,
            state: Mutex::new(State { counts, saved_ids }),
        }
    }

    /// Writes every count into `batch`, for a store whose counts were just
    /// counted from its pastes.
    pub fn record_all(&self, batch: &mut OwnedWriteBatch) {
        let state = lock(&self.state);
        let counts = &state.counts;
        batch.insert(&self.keyspace, TOTAL, encode(counts.bytes, counts.pastes));
        for (owner, usage) in &counts.owners {
            batch.insert(
                &self.keyspace,
                owner_key(owner),
                encode(usage.bytes, usage.pastes),
            );
        }
        for (&number, &live) in &counts.segments {
            batch.insert(&self.keyspace, segment_key(number), encode(live, 0));
        }
    }

    /// Commits `batch` with the counts `change` makes, atomically; then,
    /// still in order with every other counted batch, runs `committed`.
    pub fn commit(
        &self,
        mut batch: OwnedWriteBatch,
        change: &Change,
        committed: impl FnOnce(),
    ) -> Result<(), fjall::Error> {
        let mut state = lock(&self.state);
        let mut counts = state.counts.clone_touched(change);
        counts.apply(change);
        self.write(&mut batch, &counts, change);
        let forget_saved_ids = change.new_ids && state.saved_ids;
        if forget_saved_ids {
            batch.remove(&self.keyspace, SAVED_IDS);
        }
        batch.commit()?;
        state.counts.merge(counts);
        state.saved_ids &= !forget_saved_ids;
        committed();
        Ok(())
    }

    /// Runs `save` while no counted batch can commit, and if it returns a
    /// marker, stores it: a saved ID filter is trusted while the marker stays.
    pub fn while_still<E: From<fjall::Error>>(
        &self,
        save: impl FnOnce() -> Result<Option<u64>, E>,
    ) -> Result<(), E> {
        let mut state = lock(&self.state);
        if let Some(marker) = save()? {
            self.keyspace.insert(SAVED_IDS, encode(marker, 0))?;
            state.saved_ids = true;
        }
        Ok(())
    }

    /// The committed counts.
    pub fn counts(&self) -> Counts {
        lock(&self.state).counts.clone()
    }

    /// The keyspace (tests).
    #[cfg(test)]
    pub fn keyspace(&self) -> Keyspace {
        self.keyspace.clone()
    }

    /// Removes every persisted count, as in a data dir of format 2 (tests).
    #[cfg(test)]
    pub fn forget_all(&self) -> Result<(), fjall::Error> {
        for entry in self.keyspace.iter() {
            self.keyspace.remove(entry.key()?)?;
        }
        Ok(())
    }

    fn write(&self, batch: &mut OwnedWriteBatch, counts: &Counts, change: &Change) {
        if change.pastes != 0 || change.bytes != 0 {
            batch.insert(&self.keyspace, TOTAL, encode(counts.bytes, counts.pastes));
        }
        for owner in change.owners.keys() {
            let key = owner_key(owner);
            match counts.owners.get(owner) {
                Some(usage) if usage.pastes > 0 => {
                    batch.insert(&self.keyspace, key, encode(usage.bytes, usage.pastes));
                }
                _ => batch.remove(&self.keyspace, key),
            }
        }
        for number in change.segments.keys() {
            let key = segment_key(*number);
            match counts.segments.get(number) {
                Some(&live) if live > 0 => batch.insert(&self.keyspace, key, encode(live, 0)),
                _ => batch.remove(&self.keyspace, key),
            }
        }
    }
}

impl Counts {
    /// The totals, and the owners and segments `change` touches.
    fn clone_touched(&self, change: &Change) -> Self {
        Self {
            bytes: self.bytes,
            pastes: self.pastes,
            owners: (change.owners.keys())
                .map(|o| (o.clone(), self.owners.get(o).copied().unwrap_or_default()))
                .collect(),
            segments: (change.segments.keys())
                .map(|&n| (n, self.segments.get(&n).copied().unwrap_or_default()))
                .collect(),
        }
    }

    fn apply(&mut self, change: &Change) {
        self.bytes = plus(self.bytes, change.bytes);
        self.pastes = plus(self.pastes, change.pastes);
        for (owner, &(bytes, pastes)) in &change.owners {
            let usage = self.owners.entry(owner.clone()).or_default();
            usage.bytes = plus(usage.bytes, bytes);
            usage.pastes = plus(usage.pastes, pastes);
        }
        for (&number, &live) in &change.segments {
            let entry = self.segments.entry(number).or_default();
            *entry = plus(*entry, live);
        }
    }

    /// Takes the totals and the touched entries of `newer`; zero entries go.
    fn merge(&mut self, newer: Self) {
        self.bytes = newer.bytes;
        self.pastes = newer.pastes;
        for (owner, usage) in newer.owners {
            if usage.pastes == 0 {
                self.owners.remove(&owner);
            } else {
                self.owners.insert(owner, usage);
            }
        }
        for (number, live) in newer.segments {
            if live == 0 {
                self.segments.remove(&number);
            } else {
                self.segments.insert(number, live);
            }
        }
    }
}

/// `value + delta`, clamped to `u64` (a count cannot go below zero).
fn plus(value: u64, delta: i128) -> u64 {
    u64::try_from((i128::from(value) + delta).max(0)).unwrap_or(u64::MAX)
}

fn owner_key(owner: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(1 + owner.len());
    key.push(OWNER);
    key.extend_from_slice(owner.as_bytes());
    key
}

fn segment_key(number: u32) -> [u8; 5] {
    let [a, b, c, d] = number.to_be_bytes();
    [SEGMENT, a, b, c, d]
}

fn encode(first: u64, second: u64) -> [u8; 16] {
    let mut value = [0; 16];
    value[..8].copy_from_slice(&first.to_le_bytes());
    value[8..].copy_from_slice(&second.to_le_bytes());
    value
}

/// The two numbers of a value; missing bytes read as zero.
fn pair(value: &[u8]) -> (u64, u64) {
    let word = |range: std::ops::Range<usize>| {
        value
            .get(range)
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .map_or(0, u64::from_le_bytes)
    };
    (word(0..8), word(8..16))
}
