//! Several files in one paste, on the client's side: the form `snip put a b
//! c` sends (one `file` part per file, named by its safe base name), or with
//! `--encrypt` the one envelope's plaintext (the files listed in its sealed
//! metadata, their bytes one after the other), and the files `snip get URL
//! -o DIR` writes from the paste's zip or from the opened envelope, each
//! only under a safe base name inside DIR, whatever the server sends.

use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};

use crate::core::envelope::{Meta, SealedFile};
use crate::core::files::{self, PasteFile};
use crate::core::paste::content_type_for;
use crate::core::random::OsRandom;

/// The `multipart/form-data` body of `files` (name, bytes), and its
/// content type. Names are safe base names ([`files::safe_base_name`]);
/// a `"` in one is sent as `%22`, as browsers do.
pub fn form(files: &[(String, Vec<u8>)]) -> anyhow::Result<(String, Vec<u8>)> {
    let mut random = OsRandom::new().context("no randomness for a form boundary")?;
    let mut raw = [0u8; 16];
    random
        .fill(&mut raw)
        .context("no randomness for a form boundary")?;
    let boundary = format!("snip-{}", crate::core::hex::encode(&raw));
    let mut body = Vec::with_capacity(files.iter().map(|(_, b)| b.len() + 160).sum());
    for (name, bytes) in files {
        let name = name.replace('"', "%22");
        body.extend_from_slice(
            format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\n\
                 Content-Type: application/octet-stream\r\n\r\n"
            )
            .as_bytes(),
        );
        body.extend_from_slice(bytes);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    Ok((format!("multipart/form-data; boundary={boundary}"), body))
}

/// The sealed metadata and content of `files` (name, bytes) in one
/// envelope: each file listed with its size, language and media type (as
/// a plain several-file paste's table has them), the bytes in that order.
pub fn sealed(files: Vec<(String, Vec<u8>)>) -> (Meta, Vec<u8>) {
    let mut content = Vec::with_capacity(files.iter().map(|(_, b)| b.len()).sum());
    let list = files
        .into_iter()
        .map(|(name, bytes)| {
            content.extend_from_slice(&bytes);
            SealedFile {
                size: bytes.len() as u64,
                lang: files::language_of(&name),
                media_type: Some(content_type_for(Some(&name), None, &bytes)),
                name,
            }
        })
        .collect();
    let meta = Meta {
        files: list,
        ..Meta::default()
    };
    (meta, content)
}

/// The name each of `paths` is sent under: its safe base name. Two paths
/// with one base name are refused before anything is sent.
pub fn names(paths: &[PathBuf]) -> anyhow::Result<Vec<String>> {
    let mut seen = HashSet::new();
    paths
        .iter()
        .map(|path| {
            let name = files::safe_base_name(&path.to_string_lossy())
                .with_context(|| format!("{} cannot be a file of a paste", path.display()))?;
            if !seen.insert(name.clone()) {
                bail!(
                    "two files are named {name:?}; a paste holds each name once \
                     (rename one, or use --each for one paste per file)"
                );
            }
            Ok(name)
        })
        .collect()
}

/// Writes every file of `archive` (a paste's zip) into `dir`, which is
/// made if missing; the paths written. Each entry must be one of `table`'s
/// files, by a safe base name, once: anything else (a path, `..`, a name
/// the paste does not list, a second copy) is refused before a file is
/// written, so nothing lands outside `dir`.
pub fn write_all(dir: &Path, archive: &[u8], table: &[PasteFile]) -> anyhow::Result<Vec<PathBuf>> {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(archive))
        .context("the server's zip of the paste is damaged")?;
    let listed: HashSet<&str> = table.iter().map(|f| f.name.as_str()).collect();
    let mut files = Vec::with_capacity(zip.len());
    let mut seen = HashSet::new();
    for index in 0..zip.len() {
        let mut entry = zip
            .by_index(index)
            .context("the server's zip of the paste is damaged")?;
        let name = String::from_utf8_lossy(entry.name_raw()).into_owned();
        if !files::is_safe_base_name(&name) || !listed.contains(name.as_str()) {
            bail!(
                "the server sent a file named {name:?}, which this paste does not list; nothing was written"
            );
        }
        if !seen.insert(name.clone()) {
            bail!("the server sent {name:?} twice; nothing was written");
        }
        let mut bytes = Vec::new();
        entry
            .read_to_end(&mut bytes)
            .context("the server's zip of the paste is damaged")?;
        files.push((name, bytes));
    }
    if seen.len() != listed.len() || zip.len() != table.len() {
        bail!(
            "the server's zip of the paste has {} files, the paste lists {}; nothing was written",
            zip.len(),
            table.len()
        );
    }
    write_files(
        dir,
        files
            .iter()
            .map(|(name, bytes)| (name.as_str(), bytes.as_slice())),
    )
}

/// Writes each of `files` (name, bytes) into `dir`, made if missing; the
/// paths written. Every name must be a safe base name, else nothing is
/// written.
pub fn write_files<'a>(
    dir: &Path,
    files: impl Iterator<Item = (&'a str, &'a [u8])> + Clone,
) -> anyhow::Result<Vec<PathBuf>> {
    if let Some((name, _)) = files
        .clone()
        .find(|(name, _)| !files::is_safe_base_name(name))
    {
        bail!(
            "the paste names a file {name:?}, which is not a plain file name; nothing was written"
        );
    }
    std::fs::create_dir_all(dir).with_context(|| format!("cannot make {}", dir.display()))?;
    let mut written = Vec::new();
    for (name, bytes) in files {
        let path = dir.join(name);
        super::write_atomically(&path, bytes)
            .with_context(|| format!("cannot write {}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::io::Write;

    use super::*;

    fn file(name: &str) -> PasteFile {
        PasteFile {
            name: name.into(),
            size: 1,
            lang: None,
            content_type: "text/plain; charset=utf-8".into(),
        }
    }

    /// A zip of entries (name, bytes), named as given, however hostile.
    fn archive(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        let mut zip = zip::ZipWriter::new(&mut out);
        for (name, bytes) in entries {
            zip.start_file(*name, zip::write::SimpleFileOptions::default())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            zip.write_all(bytes).unwrap();
        }
        zip.finish().unwrap();
        out.into_inner()
    }

    /// A hostile server's zip (entries with paths, `..`, names the paste
    /// does not list, a name twice) writes nothing, inside the directory or out.
    #[test]
    fn hostile_archives_write_nothing() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("out");
        let table = [file("a.rs"), file("b.md")];
        for entries in [
            vec![("a.rs", &b"x"[..]), ("../b.md", b"y")],
            vec![("a.rs", b"x"), ("/etc/b.md", b"y")],
            vec![("a.rs", b"x"), ("..", b"y")],
            vec![("a.rs", b"x"), ("sub\\b.md", b"y")],
            vec![("a.rs", b"x"), ("c.md", b"y")],
            // Made `a.rs` twice below (the writer refuses a name twice).
            vec![("a.rs", b"x"), ("a.rx", b"y")],
        ] {
            let mut zip = archive(&entries);
            for at in 0..zip.len().saturating_sub(4) {
                if &zip[at..at + 4] == b"a.rx" {
                    zip[at + 3] = b's';
                }
            }
            let refused = write_all(&dir, &zip, &table);
            assert!(refused.is_err(), "{entries:?}");
            assert!(!dir.exists(), "{entries:?}");
            let names: Vec<_> = std::fs::read_dir(root.path()).unwrap().collect();
            assert_eq!(names.len(), 0, "{entries:?}");
        }
        let written = write_all(&dir, &archive(&[("a.rs", b"x"), ("b.md", b"y")]), &table).unwrap();
        assert_eq!(written, [dir.join("a.rs"), dir.join("b.md")]);
        assert_eq!(std::fs::read(dir.join("b.md")).unwrap(), b"y");
    }

    /// Paths are sent by their base names; two of one name are refused.
    #[test]
    fn names_are_base_names() {
        let names = names(&[PathBuf::from("src/main.rs"), PathBuf::from("Cargo.toml")]).unwrap();
        assert_eq!(names, ["main.rs", "Cargo.toml"]);
        assert!(super::names(&[PathBuf::from("a/x.rs"), PathBuf::from("b/x.rs")]).is_err());
    }
}
