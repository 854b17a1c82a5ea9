//! The client's memory of delete tokens, so `snip delete URL` needs no token.
//!
//! One JSON object (paste URL → token) in `$SNIP_CLIENT_DIR/tokens.json`,
//! defaulting to `$XDG_DATA_HOME/snip` or `~/.local/share/snip`, readable by
//! the user only.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::Context;

fn dir() -> anyhow::Result<PathBuf> {
    if let Some(dir) = std::env::var_os("SNIP_CLIENT_DIR") {
        return Ok(PathBuf::from(dir));
    }
    let dirs = super::settings::project_dirs().context("no home directory; set SNIP_CLIENT_DIR")?;
    Ok(dirs.data_dir().to_path_buf())
}

fn load() -> anyhow::Result<(PathBuf, BTreeMap<String, String>)> {
    let path = dir()?.join("tokens.json");
    let map = match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .with_context(|| format!("{} is corrupt", path.display()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    Ok((path, map))
}

fn save(path: &PathBuf, map: &BTreeMap<String, String>) -> anyhow::Result<()> {
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
    std::io::Write::write_all(&mut file, &serde_json::to_vec_pretty(map)?)?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// Stores the delete token of a paste URL.
pub fn remember(url: &str, token: &str) -> anyhow::Result<()> {
    let (path, mut map) = load()?;
    map.insert(url.to_owned(), token.to_owned());
    save(&path, &map)
}

/// The remembered token of a paste URL.
pub fn recall(url: &str) -> anyhow::Result<Option<String>> {
    Ok(load()?.1.remove(url))
}

/// Every paste URL with a remembered token: the pastes this user created and
/// has not deleted.
pub fn remembered() -> anyhow::Result<Vec<String>> {
    Ok(load()?.1.into_keys().collect())
}

/// Drops a paste URL's token after a delete.
pub fn forget(url: &str) -> anyhow::Result<()> {
    let (path, mut map) = load()?;
    if map.remove(url).is_some() {
        save(&path, &map)?;
    }
    Ok(())
}
