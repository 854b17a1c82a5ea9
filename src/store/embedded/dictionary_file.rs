//! The store's zstd dictionary (`codec::zstd_dictionary`): read from the data
//! dir at open, or learned from the first compressible bodies the store
//! takes and saved before any body is compressed with it.
//!
//! A store learns one dictionary in its life. It is a file of its own
//! (`zstd-dictionary`), written whole (a temporary file, synced, renamed,
//! the directory synced) whatever the durability setting: bodies in the
//! body log depend on it, so it must be on disk before the first of them is.
//! A store that fails to learn one (too few distinct samples, a full disk)
//! keeps compressing without, and tries again after a restart.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use super::body_files::{io_error, private_file, sync_dir};
use crate::store::codec::{Dictionary, Samples};
use crate::store::{StoreError, lock};

/// The dictionary's file in the data dir.
const FILE: &str = "zstd-dictionary";

/// The store's dictionary, or the samples it is being learned from.
pub(super) struct DictionaryFile {
    dictionary: OnceLock<Dictionary>,
    /// Whether samples are still wanted: read by every create, so that
    /// the lock below is taken only while gathering.
    gathering: AtomicBool,
    samples: Mutex<Samples>,
    dir: PathBuf,
}

impl DictionaryFile {
    /// The dictionary saved in `dir`, if there is one; a damaged one is
    /// [`StoreError::Corrupt`], because bodies cannot be read without it.
    pub(super) fn open(dir: &Path) -> Result<Self, StoreError> {
        let path = dir.join(FILE);
        let dictionary = OnceLock::new();
        match std::fs::read(&path) {
            Ok(bytes) => {
                let saved = Dictionary::new(bytes).map_err(|e| {
                    StoreError::Corrupt(format!("dictionary {}: {e}", path.display()))
                })?;
                let _ = dictionary.set(saved);
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_error("cannot read", &path, e)),
        }
        Ok(Self {
            gathering: AtomicBool::new(dictionary.get().is_none()),
            dictionary,
            samples: Mutex::new(Samples::default()),
            dir: dir.to_path_buf(),
        })
    }

    /// The dictionary new small bodies are compressed with, once there is one.
    pub(super) fn get(&self) -> Option<&Dictionary> {
        self.dictionary.get()
    }

    /// How many bodies have been sampled so far.
    #[cfg(test)]
    pub(super) fn sampled(&self) -> usize {
        lock(&self.samples).count()
    }

    /// Offers a body that compressed well without a dictionary; returns
    /// the samples, once, when there are enough to learn from.
    pub(super) fn offer(&self, body: &[u8]) -> Option<Samples> {
        if !self.gathering.load(Ordering::Relaxed) {
            return None;
        }
        let mut samples = lock(&self.samples);
        if !self.gathering.load(Ordering::Relaxed) || !samples.add(body) {
            return None;
        }
        self.gathering.store(false, Ordering::Relaxed);
        Some(std::mem::take(&mut *samples))
    }

    /// Blocking: trains a dictionary on `samples`, saves it and puts it to
    /// use. A failure is logged, not returned: the store works without one.
    pub(super) fn learn(&self, samples: Samples) {
        let started = std::time::Instant::now();
        let trained = Dictionary::train(&samples);
        drop(samples);
        let learned = trained
            .map_err(|e| StoreError::backend(format!("cannot learn a dictionary: {e}")))
            .and_then(|dictionary| self.save(&dictionary).map(|()| dictionary));
        match learned {
            Ok(dictionary) => {
                tracing::info!(
                    id = dictionary.id(),
                    bytes = dictionary.bytes().len(),
                    took_ms = started.elapsed().as_millis() as u64,
                    "learned a compression dictionary"
                );
                let _ = self.dictionary.set(dictionary);
            }
            Err(e) => tracing::warn!(error = %e, "bodies stay compressed without a dictionary"),
        }
    }

    /// Writes `dictionary`'s file whole and durably.
    fn save(&self, dictionary: &Dictionary) -> Result<(), StoreError> {
        let path = self.dir.join(FILE);
        let partial = self.dir.join(format!("{FILE}.partial"));
        let mut file = private_file()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&partial)
            .map_err(|e| io_error("cannot create", &partial, e))?;
        file.write_all(dictionary.bytes())
            .and_then(|()| file.sync_all())
            .map_err(|e| io_error("cannot write", &partial, e))?;
        std::fs::rename(&partial, &path).map_err(|e| io_error("cannot create", &path, e))?;
        sync_dir(&self.dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::codec::zstd_dictionary::{SAMPLES, tests::log_bodies};

    /// Samples are handed out once; the dictionary learned from them is
    /// saved and read back by the next open; a damaged file is refused.
    #[test]
    fn a_learned_dictionary_is_saved_and_opened_again() {
        let dir = tempfile::tempdir().unwrap();
        let store = DictionaryFile::open(dir.path()).unwrap();
        assert!(store.get().is_none());
        let bodies = log_bodies(SAMPLES + 1, 1500);
        let handed: Vec<Samples> = bodies.iter().filter_map(|b| store.offer(b)).collect();
        assert_eq!(handed.len(), 1);
        store.learn(handed.into_iter().next().unwrap());
        let id = store.get().unwrap().id();
        assert!(store.offer(&bodies[0]).is_none());

        let again = DictionaryFile::open(dir.path()).unwrap();
        assert_eq!(again.get().map(Dictionary::id), Some(id));
        assert!(again.offer(&bodies[0]).is_none());
        assert!(!dir.path().join(format!("{FILE}.partial")).exists());

        std::fs::write(dir.path().join(FILE), b"not a dictionary").unwrap();
        assert!(matches!(
            DictionaryFile::open(dir.path()),
            Err(StoreError::Corrupt(_))
        ));
    }

    /// Samples nothing can be learned from leave the store without a
    /// dictionary, and nothing saved.
    #[test]
    fn a_failed_training_leaves_no_dictionary() {
        let dir = tempfile::tempdir().unwrap();
        let store = DictionaryFile::open(dir.path()).unwrap();
        let samples = (0..SAMPLES).find_map(|_| store.offer(b"")).unwrap();
        store.learn(samples);
        assert!(store.get().is_none());
        assert!(!dir.path().join(FILE).exists());
    }
}
