//! Keeping fjall's journal short, so that a start after `kill -9` replays
//! little of it.
//!
//! fjall seals its journal file once it passes 64 MB (checked at each
//! flush) and deletes a sealed file only when every keyspace with entries in
//! it has flushed them to tables. `meta` flushes several times per journal
//! file under a create flood, but the other keyspaces (`expiry`, `owners`,
//! `counters`, the accounts) fill their memtables slowly and would keep old
//! journals for minutes; fjall itself only asks them to flush once the
//! sealed files pass `max_journaling_size`. So when a journal file has been
//! sealed, the memtables of those keyspaces are rotated (flushed to small
//! tables) at once, and the sealed file goes as soon as `meta` has flushed
//! its part: what a start replays stays about one journal file, whatever
//! the number of pastes.

use std::sync::atomic::{AtomicUsize, Ordering};

use fjall::{AbstractTree, Database, Keyspace};

/// The keyspace whose own flushes keep the journal short.
const BUSY_KEYSPACE: &str = "meta";

/// The check after writes (see the module comment).
pub(super) struct JournalBound {
    db: Database,
    /// Every keyspace but `meta`.
    slow: Vec<Keyspace>,
    /// Journal files (sealed and active) at the last check.
    seen: AtomicUsize,
}

impl JournalBound {
    /// The check for `db`, whose keyspaces must all be open already.
    pub(super) fn new(db: &Database) -> Result<Self, fjall::Error> {
        let slow = db
            .list_keyspace_names()
            .iter()
            .filter(|name| name.as_ref() != BUSY_KEYSPACE)
            .map(|name| db.keyspace(name, fjall::KeyspaceCreateOptions::default))
            .collect::<Result<_, _>>()?;
        Ok(Self {
            db: db.clone(),
            slow,
            seen: AtomicUsize::new(db.journal_count()),
        })
    }

    /// After a write: if a journal file was sealed since the last check,
    /// rotates the memtables of the slow keyspaces that hold entries. Costs a
    /// read lock otherwise, and nothing while nothing is written.
    pub(super) fn check(&self) -> Result<(), fjall::Error> {
        let journals = self.db.journal_count();
        let seen = self.seen.swap(journals, Ordering::Relaxed);
        if journals <= seen || journals < 2 {
            return Ok(());
        }
        for keyspace in &self.slow {
            if keyspace.tree.active_memtable().size() > 0 {
                // Not public API: fjall's own eviction uses it, and it is
                // the only way to flush a keyspace without waiting.
                keyspace.rotate_memtable()?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(dir: &std::path::Path) -> Database {
        Database::builder(dir).open().unwrap()
    }

    #[test]
    fn every_keyspace_but_meta_is_slow() {
        let dir = tempfile::tempdir().unwrap();
        let db = open(dir.path());
        for name in ["meta", "expiry", "counters"] {
            db.keyspace(name, fjall::KeyspaceCreateOptions::default)
                .unwrap();
        }
        let bound = JournalBound::new(&db).unwrap();
        let mut names: Vec<String> = bound.slow.iter().map(|k| k.name().to_string()).collect();
        names.sort();
        assert_eq!(names, ["counters", "expiry"]);
    }

    #[test]
    fn nothing_is_flushed_while_one_journal_file_is_open() {
        let dir = tempfile::tempdir().unwrap();
        let db = open(dir.path());
        let expiry = db
            .keyspace("expiry", fjall::KeyspaceCreateOptions::default)
            .unwrap();
        let bound = JournalBound::new(&db).unwrap();
        expiry.insert("k", "v").unwrap();
        bound.check().unwrap();
        assert_eq!(db.journal_count(), 1);
        assert!(expiry.tree.active_memtable().size() > 0);
        assert_eq!(expiry.tree.sealed_memtable_count(), 0);
    }
}
