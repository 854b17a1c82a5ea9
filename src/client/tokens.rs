//! The client's memory of the pastes it created, so `snip delete URL` needs
//! no token and `snip list --mine` can show them, newest first.
//!
//! One JSON object in `$SNIP_CLIENT_DIR/tokens.json`, defaulting to
//! `$XDG_DATA_HOME/snip` or `~/.local/share/snip`, readable by the user
//! only: paste URL → its delete token, when it was created, its name, when
//! it expires, and its link (with the `#key` of an encrypted paste). An
//! entry that is just the token (as older clients wrote) still reads.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Context;
use serde::{Deserialize, Serialize};

use crate::core::UnixTime;
use crate::core::api::Created;

/// What is remembered of one paste.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Remembered {
    /// The delete token.
    pub token: String,
    /// When it was created, in Unix milliseconds (so that pastes put within
    /// one second still list newest first; 0 when not remembered).
    #[serde(default)]
    pub created_ms: u64,
    /// Its file name, if it has one (kept here for an encrypted paste too,
    /// whose name the server never sees).
    #[serde(default)]
    pub name: Option<String>,
    /// When it expires (Unix seconds), or `None` for never.
    #[serde(default)]
    pub expires_at: Option<UnixTime>,
    /// The link to read it by: the URL, with the `#key` of an encrypted paste.
    #[serde(default)]
    pub link: Option<String>,
}

impl Remembered {
    /// The record of a paste just `created` (whose `url` is the link to
    /// read it by), named `name`.
    pub fn of(created: &Created<'_>, name: Option<String>) -> Self {
        Remembered {
            token: created.delete_token.to_string(),
            created_ms: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |since| {
                    u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
                }),
            name,
            expires_at: created
                .expires_at
                .as_deref()
                .and_then(|at| humantime::parse_rfc3339(at).ok())
                .and_then(|at| at.duration_since(std::time::UNIX_EPOCH).ok())
                .map(|since| since.as_secs()),
            link: Some(created.url.to_string()),
        }
    }
}

/// An entry of the file: the full record, or just a token.
#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum Entry {
    Full(Remembered),
    Token(String),
}

impl From<Entry> for Remembered {
    fn from(entry: Entry) -> Self {
        match entry {
            Entry::Full(remembered) => remembered,
            Entry::Token(token) => Self {
                token,
                created_ms: 0,
                name: None,
                expires_at: None,
                link: None,
            },
        }
    }
}

/// The client's data directory: `$SNIP_CLIENT_DIR`, else the XDG data directory.
pub(super) fn dir() -> anyhow::Result<PathBuf> {
    if let Some(dir) = std::env::var_os("SNIP_CLIENT_DIR") {
        return Ok(PathBuf::from(dir));
    }
    let dirs = super::settings::project_dirs().context("no home directory; set SNIP_CLIENT_DIR")?;
    Ok(dirs.data_dir().to_path_buf())
}

fn load() -> anyhow::Result<(PathBuf, BTreeMap<String, Remembered>)> {
    let path = dir()?.join("tokens.json");
    let map: BTreeMap<String, Entry> = match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .with_context(|| format!("{} is corrupt", path.display()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    let map = map
        .into_iter()
        .map(|(url, entry)| (url, entry.into()))
        .collect();
    Ok((path, map))
}

/// Writes `value` as JSON to `path`, readable by the user only, atomically.
pub(super) fn save<T: Serialize>(path: &PathBuf, value: &T) -> anyhow::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let tmp = path.with_extension("json.tmp");
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options
        .open(&tmp)
        .with_context(|| format!("cannot write {}", tmp.display()))?;
    std::io::Write::write_all(&mut file, &serde_json::to_vec_pretty(value)?)?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// Remembers a paste created under `url`.
pub fn remember(url: &str, paste: Remembered) -> anyhow::Result<()> {
    let (path, mut map) = load()?;
    map.insert(url.to_owned(), paste);
    save(&path, &map)
}

/// The remembered token of a paste URL.
pub fn recall(url: &str) -> anyhow::Result<Option<String>> {
    Ok(load()?.1.remove(url).map(|paste| paste.token))
}

/// Every remembered paste (URL and record): the pastes this user created
/// and has not deleted.
pub fn remembered() -> anyhow::Result<Vec<(String, Remembered)>> {
    Ok(load()?.1.into_iter().collect())
}

/// Drops a paste URL's record after a delete.
pub fn forget(url: &str) -> anyhow::Result<()> {
    let (path, mut map) = load()?;
    if map.remove(url).is_some() {
        save(&path, &map)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of bare tokens, as older clients wrote it, reads as records
    /// without times, and a record reads back as written.
    #[test]
    fn old_and_new_entries_read() {
        let text = r#"{"http://h/a": "t1", "http://h/b": {"token": "t2", "created_ms": 5, "name": "x.rs", "expires_at": null, "link": "http://h/b#k"}}"#;
        let map: BTreeMap<String, Entry> = serde_json::from_str(text).unwrap();
        let map: BTreeMap<String, Remembered> =
            map.into_iter().map(|(k, v)| (k, v.into())).collect();
        assert_eq!(map["http://h/a"].token, "t1");
        assert_eq!(map["http://h/a"].created_ms, 0);
        assert_eq!(map["http://h/b"].name.as_deref(), Some("x.rs"));
        assert_eq!(map["http://h/b"].link.as_deref(), Some("http://h/b#k"));
    }
}
