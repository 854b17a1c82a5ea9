//! Reading pastes: metadata from fjall, bodies from the body log or their
//! file, and the paste cache filled on the way.
//!
//! fjall reads are made inline on the async runtime: they are memory-speed in
//! the common case (memtable or block cache). A body is read inline only if
//! the OS has it in memory; otherwise on a blocking thread ([`Read::Cold`]),
//! as is a large body to decompress (`codec`).

use bytes::Bytes;

use super::body_files::is_file_backed;
use super::body_log::Location;
use super::keys::MetaKey;
use super::{EmbeddedStore, Inner, meta_codec};
use crate::core::{PasteId, PasteMeta, UnixTime};
use crate::store::codec::{self, Stored};
use crate::store::{Encoding, Paste, StoreError};

/// What [`Inner::read_filling`] found.
pub(super) enum Read {
    /// The paste (or `None`: missing or expired).
    Done(Option<Paste>),
    /// A paste whose body is a file, for the caller to read on a blocking
    /// thread (boxed: rare, and the metadata is the largest variant by far).
    FileBacked(Box<PasteMeta>),
    /// A paste whose body the OS would have to read from disk, or a large
    /// one to decompress: the caller reads it again on a blocking thread
    /// ([`Inner::read_waiting`]).
    Cold,
    /// A burn paste whose body was not read (boxed, as above).
    Withheld(Box<PasteMeta>),
}

/// A paste's entry in `meta`, decoded.
pub(super) struct Entry {
    /// Where it is.
    pub key: MetaKey,
    pub meta: PasteMeta,
    /// Where its body is, if it is in the body log.
    pub at: Option<Location>,
}

impl Inner {
    pub(super) fn read_meta(&self, id: &str) -> Result<Option<PasteMeta>, StoreError> {
        Ok(self.locate(id)?.map(|entry| entry.meta))
    }

    /// A paste's metadata and, if its body is in the body log, where.
    pub(super) fn read_entry(
        &self,
        id: &str,
    ) -> Result<Option<(PasteMeta, Option<Location>)>, StoreError> {
        Ok(self.locate(id)?.map(|entry| (entry.meta, entry.at)))
    }

    /// Finds `id`'s entry: under its number if the store may have numbered
    /// it, else (or if that holds another paste) under the ID itself.
    ///
    /// An ID the store never numbered and the filter of the others has
    /// never seen is not stored (a number is handed out, and the committer
    /// adds any other ID, before a create is acknowledged). Asking them
    /// first keeps a read of an unknown ID out of `meta`'s last level,
    /// which has no bloom filter of its own.
    pub(super) fn locate(&self, id: &str) -> Result<Option<Entry>, StoreError> {
        let number = self.sequence.number(id);
        if let Some(number) = number {
            let key = MetaKey::Numbered(number);
            if let Some(entry) = self.entry_at(key, id)? {
                // IDs longer than the cipher's symbols end in random ones:
                // the number names the paste, the whole ID must match too.
                if entry.meta.id == id {
                    return Ok(Some(entry));
                }
            }
        }
        let id_keyed = number.is_some_and(|n| self.sequence.may_be_id_keyed(n));
        if !id_keyed && !self.known.may_hold(id.as_bytes()) {
            return Ok(None);
        }
        self.entry_at(MetaKey::Id, id)
    }

    /// The entry under `key` (of the paste whose ID is `id`), decoded.
    fn entry_at(&self, key: MetaKey, id: &str) -> Result<Option<Entry>, StoreError> {
        let bytes = key.bytes(id);
        let Some(raw) = self.meta.get(bytes.as_ref())? else {
            return Ok(None);
        };
        let (meta, at) = meta_codec::decode_entry(id.as_bytes(), &raw)?;
        Ok(Some(Entry { key, meta, at }))
    }

    pub(super) fn read_live_entry(
        &self,
        id: &str,
        now: UnixTime,
    ) -> Result<Option<(PasteMeta, Option<Location>)>, StoreError> {
        Ok(self.read_entry(id)?.filter(|(m, _)| !m.is_expired(now)))
    }

    /// The body of a paste whose metadata was read (blocking if it is a file).
    /// `None` if a concurrent take or delete removed it meanwhile (file bodies
    /// are read without the ID's lock).
    pub(super) fn read_body(
        &self,
        meta: PasteMeta,
        at: Option<Location>,
    ) -> Result<Option<Paste>, StoreError> {
        let stored = match at {
            Some(at) => Some((self.log.read(at)?, at.encoding)),
            None if is_file_backed(meta.size) => self.files.read(&meta.id, meta.size)?,
            None => {
                return Err(StoreError::Corrupt(format!(
                    "paste {} has neither a body file nor a body in the log",
                    meta.id
                )));
            }
        };
        stored
            .map(|(stored, encoding)| self.decoded(meta, stored_as(stored, encoding)))
            .transpose()
    }

    /// A small paste read under its ID's lock and kept in the paste cache; the
    /// lock orders the fill against removals, which evict.
    ///
    /// With `wait` false (on the async runtime), a body in the body log that
    /// is not in the OS's page cache is not read: [`Read::Cold`]. The kernel
    /// evicts body pages when memory runs short (and holds none after a
    /// reboot), and such a read would otherwise hold a runtime thread for a
    /// disk read. With `withhold_burn`, a burn paste's body is not read at
    /// all: [`Read::Withheld`].
    pub(super) fn read_filling(
        &self,
        id: &str,
        now: UnixTime,
        wait: bool,
        withhold_burn: bool,
    ) -> Result<Read, StoreError> {
        let _guard = self.lock_id(id);
        let Some((meta, at)) = self.read_live_entry(id, now)? else {
            return Ok(Read::Done(None));
        };
        if withhold_burn && meta.burn {
            return Ok(Read::Withheld(Box::new(meta)));
        }
        if at.is_none() && is_file_backed(meta.size) {
            return Ok(Read::FileBacked(Box::new(meta)));
        }
        let paste = match at {
            // A large body to decompress holds a thread like a disk read.
            Some(at) if !wait && codec::decodes_off_runtime(at.encoding, meta.size) => {
                return Ok(Read::Cold);
            }
            Some(at) if !wait => match self.log.read_cached(at)? {
                Some(stored) => Some(self.decoded(meta, stored_as(stored, at.encoding))?),
                None => return Ok(Read::Cold),
            },
            _ => self.read_body(meta, at)?,
        };
        if let Some(paste) = &paste {
            self.paste_cache.fill(paste);
        }
        Ok(Read::Done(paste))
    }

    /// The paste of `meta` whose body is `stored`, decoded with the store's
    /// dictionary if it needs it.
    fn decoded(&self, meta: PasteMeta, stored: Stored) -> Result<Paste, StoreError> {
        codec::paste_with(meta, stored, self.dictionary.get())
    }

    /// Reads a paste, waiting for the disk if need be (on a blocking thread).
    pub(super) fn read_waiting(
        &self,
        id: &str,
        now: UnixTime,
    ) -> Result<Option<Paste>, StoreError> {
        match self.read_filling(id, now, true, false)? {
            Read::Done(paste) => Ok(paste),
            Read::FileBacked(meta) => self.read_body(*meta, None),
            // Only a read that does not wait finds a body cold, and only one
            // that withholds them withholds a body.
            Read::Cold | Read::Withheld(_) => {
                Err(StoreError::backend("a waiting read found no body"))
            }
        }
    }
}

/// Bytes read from the body log or a body file, of `encoding`.
fn stored_as(bytes: Vec<u8>, encoding: Encoding) -> Stored {
    Stored {
        bytes: Bytes::from(bytes),
        encoding,
    }
}

impl EmbeddedStore {
    /// A paste read on a blocking thread, waiting for the disk.
    pub(super) async fn read_cold(
        &self,
        id: &PasteId,
        now: UnixTime,
    ) -> Result<Option<Paste>, StoreError> {
        let id = id.as_str().to_owned();
        self.blocking(move |inner| inner.read_waiting(&id, now))
            .await
    }
}
