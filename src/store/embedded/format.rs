//! The format version of a data dir: the file `FORMAT`, holding one number.
//!
//! It is checked before anything else in the data dir is opened, so a snip
//! that cannot read the data never changes it. Every format but the first
//! has the file, so a data dir without it is new or in format 1: either way
//! it gets the file, naming the current format. Older formats are read as
//! they are, and recorded as the current one when opened.

use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use super::body_files::{io_error, private_file, sync_dir};
use crate::store::StoreError;

/// The name of the version file in the data dir.
pub const FILE_NAME: &str = "FORMAT";

/// The format this snip writes: `postcard` metadata in fjall, bodies in
/// the body log or in body files, each body file with a checksum trailer,
/// bodies stored compressed where that saves space, small ones with the
/// store's zstd dictionary once it has learned one (`dictionary_file`), each
/// record and body file saying how its body is encoded (`codec`), and the
/// counts of what is stored persisted in fjall (`counters`).
pub const CURRENT: u32 = 4;

/// Older formats this snip reads, and records as [`CURRENT`] when it opens
/// them, since a snip of that format would then misread the data dir: 1 has
/// body files without a trailer (which a snip of format 1 would refuse once
/// this one writes them); 2 stores every body as it is and has no persisted
/// counts (counted once at open; a snip of format 2 would refuse compressed
/// records and leave the counts wrong); 3 has no dictionary (a snip of
/// format 3 would find records compressed with one corrupt).
const UPGRADED: [u32; 3] = [1, 2, 3];

/// Refuses a data dir in a format this snip does not read, and records the
/// current format in one that has no version file yet or an older one.
pub fn check_or_record(dir: &Path, fsync: bool) -> Result<(), StoreError> {
    let file = dir.join(FILE_NAME);
    match std::fs::read_to_string(&file) {
        Ok(text) if text.trim().parse().is_ok_and(|v| UPGRADED.contains(&v)) => {
            record(dir, &file, fsync)
        }
        Ok(text) => check(file, text.trim()),
        Err(e) if e.kind() == ErrorKind::NotFound => record(dir, &file, fsync),
        Err(e) => Err(io_error("cannot read", &file, e)),
    }
}

fn check(file: PathBuf, found: &str) -> Result<(), StoreError> {
    if found.parse::<u32>() == Ok(CURRENT) {
        return Ok(());
    }
    Err(StoreError::UnknownFormat {
        file,
        found: found.to_owned(),
        reads: CURRENT,
    })
}

/// Writes the version file whole or not at all: a temporary file renamed.
fn record(dir: &Path, file: &Path, fsync: bool) -> Result<(), StoreError> {
    let partial = dir.join(format!("{FILE_NAME}.partial"));
    let written = private_file()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&partial)
        .and_then(|mut f| {
            writeln!(f, "{CURRENT}")?;
            if fsync { f.sync_all() } else { Ok(()) }
        });
    written.map_err(|e| io_error("cannot write", &partial, e))?;
    std::fs::rename(&partial, file).map_err(|e| io_error("cannot create", file, e))?;
    if fsync {
        sync_dir(dir)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A new or unversioned data dir gets the current version; a second
    /// open finds it and is content.
    #[test]
    fn an_unversioned_data_dir_gets_the_current_version() {
        let dir = tempfile::tempdir().unwrap();
        check_or_record(dir.path(), true).unwrap();
        let text = std::fs::read_to_string(dir.path().join(FILE_NAME)).unwrap();
        assert_eq!(text, format!("{CURRENT}\n"));
        check_or_record(dir.path(), false).unwrap();
        assert!(!dir.path().join("FORMAT.partial").exists());
    }

    /// A data dir of an older format is read, and recorded as the current one.
    #[test]
    fn older_formats_are_upgraded() {
        for old in UPGRADED {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join(FILE_NAME), format!("{old}\n")).unwrap();
            check_or_record(dir.path(), false).unwrap();
            let text = std::fs::read_to_string(dir.path().join(FILE_NAME)).unwrap();
            assert_eq!(text, format!("{CURRENT}\n"));
        }
    }

    /// Another version, or text that is no version, is refused with a
    /// message naming the file, both versions and `snip migrate`.
    #[test]
    fn another_version_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join(FILE_NAME);
        for found in ["999", "0", "one"] {
            std::fs::write(&file, format!("{found}\n")).unwrap();
            let e = check_or_record(dir.path(), false).unwrap_err();
            assert!(matches!(e, StoreError::UnknownFormat { .. }), "{e:?}");
            let message = e.to_string();
            for part in [
                file.display().to_string(),
                format!("format {found}"),
                format!("format {CURRENT}"),
                "snip migrate".to_owned(),
            ] {
                assert!(message.contains(&part), "{part:?} not in {message:?}");
            }
            assert_eq!(
                std::fs::read_to_string(&file).unwrap(),
                format!("{found}\n")
            );
        }
    }
}
