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
//!
//! Rotating a memtable takes fjall's journal lock, which fjall's own
//! workers hold while they sync the journal (at every flush, and for the
//! whole file when sealing it), and can wait for a free worker: tens to
//! hundreds of milliseconds. So the committer only notices the seal, and a
//! thread of its own ("snip-journal") does the rotating.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;
use std::thread::JoinHandle;

use fjall::{AbstractTree, Database, Keyspace};

/// The keyspace whose own flushes keep the journal short.
const BUSY_KEYSPACE: &str = "meta";

/// The check after writes (see the module comment).
pub(super) struct JournalBound {
    db: Database,
    /// Journal files (sealed and active) at the last check.
    seen: AtomicUsize,
    /// To the rotating thread; `None` once dropped, which ends it.
    jobs: Option<mpsc::Sender<Job>>,
    thread: Option<JoinHandle<()>>,
}

enum Job {
    /// A journal file was sealed: rotate the slow keyspaces.
    Sealed,
    /// Answered once every earlier job is done (tests).
    #[cfg(test)]
    Settle(mpsc::Sender<()>),
}

impl JournalBound {
    /// The check for `db`, whose keyspaces must all be open already; starts
    /// the rotating thread.
    pub(super) fn new(db: &Database) -> Result<Self, fjall::Error> {
        let slow = slow_keyspaces(db)?;
        let (jobs, queue) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("snip-journal".into())
            .spawn(move || run(&queue, &slow))?;
        Ok(Self {
            db: db.clone(),
            seen: AtomicUsize::new(db.journal_count()),
            jobs: Some(jobs),
            thread: Some(thread),
        })
    }

    /// After a write: if a journal file was sealed since the last check,
    /// asks the thread to rotate the slow keyspaces. Costs a read lock, and
    /// nothing while nothing is written.
    pub(super) fn check(&self) {
        let journals = self.db.journal_count();
        let seen = self.seen.swap(journals, Ordering::Relaxed);
        if journals > seen
            && journals >= 2
            && let Some(jobs) = &self.jobs
        {
            // Fails only once the thread is gone, which it never is first.
            let _ = jobs.send(Job::Sealed);
        }
    }

    /// Waits until every rotation asked for so far is done.
    #[cfg(test)]
    fn settle(&self) {
        let (done, wait) = mpsc::channel();
        if let Some(jobs) = &self.jobs
            && jobs.send(Job::Settle(done)).is_ok()
        {
            let _ = wait.recv();
        }
    }
}

impl Drop for JournalBound {
    /// Ends the thread and waits for it, so that its handles on fjall are
    /// gone when the store is: a reopen of the data dir must not find it
    /// still open.
    fn drop(&mut self) {
        drop(self.jobs.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The rotating thread: for each sealed journal file, rotates the memtables
/// of the slow keyspaces that hold entries. A failure is only logged: fjall
/// rotates them itself once the sealed files are larger.
fn run(queue: &mpsc::Receiver<Job>, slow: &[Keyspace]) {
    for job in queue {
        match job {
            Job::Sealed => {
                if let Err(e) = rotate_slow(slow) {
                    tracing::warn!(error = %e, "cannot flush a keyspace to shorten the journal");
                }
            }
            #[cfg(test)]
            Job::Settle(done) => {
                let _ = done.send(());
            }
        }
    }
}

/// Every keyspace of `db` but `meta`.
fn slow_keyspaces(db: &Database) -> Result<Vec<Keyspace>, fjall::Error> {
    db.list_keyspace_names()
        .iter()
        .filter(|name| name.as_ref() != BUSY_KEYSPACE)
        .map(|name| db.keyspace(name, fjall::KeyspaceCreateOptions::default))
        .collect()
}

fn rotate_slow(slow: &[Keyspace]) -> Result<(), fjall::Error> {
    for keyspace in slow {
        if keyspace.tree.active_memtable().size() > 0 {
            // Not public API: fjall's own eviction uses it, and it is the
            // only way to flush a keyspace without waiting.
            keyspace.rotate_memtable()?;
        }
    }
    Ok(())
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
        let mut names: Vec<String> = slow_keyspaces(&db)
            .unwrap()
            .iter()
            .map(|k| k.name().to_string())
            .collect();
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
        bound.check();
        bound.settle();
        assert_eq!(db.journal_count(), 1);
        assert!(expiry.tree.active_memtable().size() > 0);
        assert_eq!(expiry.tree.sealed_memtable_count(), 0);
    }

    #[test]
    fn a_sealed_journal_file_has_the_slow_keyspaces_flushed() {
        let dir = tempfile::tempdir().unwrap();
        let db = open(dir.path());
        let meta = db
            .keyspace(BUSY_KEYSPACE, || {
                fjall::KeyspaceCreateOptions::default().max_memtable_size(1 << 20)
            })
            .unwrap();
        let expiry = db
            .keyspace("expiry", fjall::KeyspaceCreateOptions::default)
            .unwrap();
        let bound = JournalBound::new(&db).unwrap();
        expiry.insert("k", "v").unwrap();
        // fjall seals the journal at the first flush of `meta` past 64 MB;
        // values that do not compress, as fjall may compress its journal.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let value: Vec<u8> = (0..1 << 20)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect();
        let mut written = 0u32;
        while db.journal_count() < 2 {
            assert!(written < 1_000, "fjall never sealed its journal");
            meta.insert(written.to_be_bytes(), &value).unwrap();
            written += 1;
            if written > 64 {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
        }
        assert!(expiry.tree.active_memtable().size() > 0);
        bound.check();
        bound.settle();
        assert_eq!(expiry.tree.active_memtable().size(), 0);
        assert_eq!(expiry.get("k").unwrap().as_deref(), Some(&b"v"[..]));
    }

    #[test]
    fn dropping_the_check_ends_its_thread_and_lets_go_of_the_data_dir() {
        let dir = tempfile::tempdir().unwrap();
        let db = open(dir.path());
        db.keyspace("expiry", fjall::KeyspaceCreateOptions::default)
            .unwrap();
        let bound = JournalBound::new(&db).unwrap();
        drop(bound);
        drop(db);
        open(dir.path());
    }
}
