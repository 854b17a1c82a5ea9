//! The numbers behind the IDs of new pastes (`core::id_cipher`), and whether
//! the store holds any ID it did not number.
//!
//! A number is handed out once, so the ID of a new paste is free by
//! construction: the committer searches only when the store also holds IDs
//! from elsewhere (restored from a backup, or stored before the store
//! numbered its pastes), and then only the filter of those (`known_ids`).
//!
//! Numbers are reserved [`RESERVE`] at a time, synced to disk before the
//! first of them is handed out; a restart continues after the last
//! reservation. No number is handed out twice, whatever the stop, a power
//! loss included, even when acknowledged writes are not synced
//! ([`super::Durability::Os`]); what a stop leaves of a reservation is
//! never used.
//!
//! A numbered paste's entry in `meta` is keyed by its number (`keys`).
//! Stores that numbered pastes before that layout keep those entries under
//! their IDs: [`Sequence::may_be_id_keyed`] says which numbers may be.
//!
//! Keys in the `counters` keyspace (which `counters` ignores): `k`, the
//! cipher's key, made when the store is first opened; `n`, the end of the
//! numbers reserved; `f`, there once the store holds an ID it did not number;
//! `m`, there once numbered entries are keyed by number, with `l`, the end
//! of the numbers handed out before (if any were).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use fjall::{Database, Keyspace, PersistMode};

use super::lock;
use crate::core::PasteId;
use crate::core::id_cipher::{IdCipher, KEY_BYTES};
use crate::core::random::OsRandom;
use crate::store::{StoreError, no_randomness};

const KEY: &[u8] = b"k";
const RESERVED: &[u8] = b"n";
const FOREIGN: &[u8] = b"f";
pub(super) const BY_NUMBER: &[u8] = b"m";
const ID_KEYED_END: &[u8] = b"l";

/// Numbers reserved at once: a sync per million creates, and a million
/// numbers skipped per restart, of 852 billion at the shortest IDs.
const RESERVE: u64 = 1 << 20;

/// The store's numbering; see the module documentation.
pub struct Sequence {
    cipher: IdCipher,
    keyspace: Keyspace,
    db: Database,
    /// The next number to hand out.
    next: AtomicU64,
    /// Numbers below this are reserved on disk.
    reserved: AtomicU64,
    /// Held while a reservation or the foreign mark is written.
    writing: Mutex<()>,
    /// Held by the create that has a reservation made (`reserving`).
    reserving: tokio::sync::Mutex<()>,
    /// Whether the store holds (or is about to store) an ID it did not number.
    foreign: AtomicBool,
    /// Numbers below this may have their entry under their ID.
    id_keyed_end: u64,
}

impl Sequence {
    /// The numbering stored in `keyspace`, or a new one: a store with no
    /// key yet gets one, and if `meta` already holds pastes, their IDs are
    /// foreign.
    pub fn open(
        db: &Database,
        keyspace: Keyspace,
        meta_is_empty: bool,
    ) -> Result<Self, StoreError> {
        let (key, foreign) = match keyspace.get(KEY)? {
            Some(key) => {
                let key = <[u8; KEY_BYTES]>::try_from(&*key).map_err(|_| {
                    StoreError::Corrupt("the key of the paste IDs is not 16 bytes".into())
                })?;
                (key, keyspace.contains_key(FOREIGN)?)
            }
            None => {
                let mut key = [0; KEY_BYTES];
                getrandom::fill(&mut key)
                    .map_err(|e| StoreError::backend_caused("no randomness for a key", e))?;
                // Durable with the first reservation, which syncs the journal.
                let mut batch = db.batch();
                batch.insert(&keyspace, KEY, key);
                batch.insert(&keyspace, BY_NUMBER, []);
                if !meta_is_empty {
                    batch.insert(&keyspace, FOREIGN, []);
                }
                batch.commit()?;
                (key, !meta_is_empty)
            }
        };
        let reserved = read_number(&keyspace, RESERVED)?;
        let id_keyed_end = if keyspace.contains_key(BY_NUMBER)? {
            read_number(&keyspace, ID_KEYED_END)?
        } else {
            // Numbered under their IDs so far: every number handed out is
            // below the reservation's end. Durable with the next reservation.
            let mut batch = db.batch();
            batch.insert(&keyspace, ID_KEYED_END, reserved.to_le_bytes());
            batch.insert(&keyspace, BY_NUMBER, []);
            batch.commit()?;
            reserved
        };
        Ok(Self {
            cipher: IdCipher::new(&key),
            keyspace,
            db: db.clone(),
            next: AtomicU64::new(reserved),
            reserved: AtomicU64::new(reserved),
            writing: Mutex::new(()),
            reserving: tokio::sync::Mutex::new(()),
            foreign: AtomicBool::new(foreign),
            id_keyed_end,
        })
    }

    /// The number [`Self::take`] hands out next (tests).
    #[cfg(test)]
    pub fn peek_next(&self) -> u64 {
        self.next.load(Ordering::SeqCst)
    }

    /// The end of the numbers reserved on disk (tests).
    #[cfg(test)]
    pub fn reserved_end(&self) -> u64 {
        self.reserved.load(Ordering::SeqCst)
    }

    /// Whether every ID the store holds is one it numbered.
    pub fn numbered_only(&self) -> bool {
        !self.foreign.load(Ordering::SeqCst)
    }

    /// Hands out the next number: `Ok` if it is reserved, `Err` if
    /// [`Self::reserve_through`] must reserve it before its ID is used.
    pub fn take(&self) -> Result<u64, u64> {
        let number = self.next.fetch_add(1, Ordering::SeqCst);
        if self.is_reserved(number) {
            Ok(number)
        } else {
            Err(number)
        }
    }

    /// Waits for the turn to reserve numbers: creates whose numbers are not
    /// reserved yet take turns, and most find them reserved when theirs comes.
    pub async fn reserving(&self) -> tokio::sync::MutexGuard<'_, ()> {
        self.reserving.lock().await
    }

    /// Whether `number` is reserved on disk.
    pub fn is_reserved(&self, number: u64) -> bool {
        number < self.reserved.load(Ordering::Acquire)
    }

    /// Blocking: reserves the numbers through `number` on disk (synced).
    pub fn reserve_through(&self, number: u64) -> Result<(), StoreError> {
        let _writing = lock(&self.writing);
        let mut end = self.reserved.load(Ordering::Acquire);
        if number < end {
            return Ok(());
        }
        while end <= number {
            end = end.saturating_add(RESERVE);
        }
        self.keyspace.insert(RESERVED, end.to_le_bytes())?;
        self.db.persist(PersistMode::SyncAll)?;
        self.reserved.store(end, Ordering::Release);
        Ok(())
    }

    /// The ID of `number` (from [`Self::take`]), `random_len` symbols long.
    pub fn id(&self, number: u64, random_len: usize) -> Result<PasteId, StoreError> {
        let mut random = OsRandom::new().map_err(no_randomness)?;
        match self.cipher.id(number, random_len, &mut random) {
            Some(id) => id.map_err(no_randomness),
            None => Err(StoreError::backend(format!(
                "paste number {number} does not fit IDs of {random_len} symbols; \
                 raise --id-length"
            ))),
        }
    }

    /// The number behind `id` (a parsed ID) if the store may have numbered
    /// it: `None` means certainly not, as for any ID it did not make but
    /// about one in `31^12 / pastes`.
    pub fn number(&self, id: &str) -> Option<u64> {
        let number = self.cipher.number(id);
        (number < self.next.load(Ordering::Acquire)).then_some(number)
    }

    /// Whether the paste numbered `number` may have its entry under its ID
    /// (numbered before entries were keyed by number).
    pub fn may_be_id_keyed(&self, number: u64) -> bool {
        number < self.id_keyed_end
    }

    /// Blocking: marks the store as holding IDs it did not number, on disk
    /// (synced), before the first such paste is staged: from then on, the
    /// committer checks every new ID and the next open loads or builds
    /// the filter of stored IDs.
    pub fn mark_foreign(&self) -> Result<(), StoreError> {
        if !self.numbered_only() {
            return Ok(());
        }
        let _writing = lock(&self.writing);
        if self.numbered_only() {
            self.keyspace.insert(FOREIGN, [])?;
            self.db.persist(PersistMode::SyncAll)?;
            self.foreign.store(true, Ordering::SeqCst);
        }
        Ok(())
    }
}

/// A little-endian number stored under `key`, 0 if there is none.
fn read_number(keyspace: &Keyspace, key: &[u8]) -> Result<u64, StoreError> {
    match keyspace.get(key)? {
        Some(bytes) => <[u8; 8]>::try_from(&*bytes)
            .map(u64::from_le_bytes)
            .map_err(|_| {
                StoreError::Corrupt(format!(
                    "the paste number under {:?} is not 8 bytes",
                    String::from_utf8_lossy(key)
                ))
            }),
        None => Ok(0),
    }
}
