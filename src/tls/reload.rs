//! Reloads `--tls-cert` and `--tls-key` without a restart: when either file
//! changes (polled), and on SIGHUP.
//!
//! Polling the two files' metadata every couple of seconds costs nothing and,
//! unlike inotify (the `notify` crate), needs no special handling for the ways
//! certificates really get replaced: an editor's rename, certbot's symlink
//! swap in `live/`, a Kubernetes secret's `..data` switch. `metadata` follows
//! symlinks, so a new target shows up as a new inode or mtime.
//!
//! A certificate that does not load (unparsable, key not matching) is
//! refused with a warning and the old one stays in use. A renewal that writes
//! the certificate and then the key may be seen half-done; that attempt is
//! refused and the next poll, seeing the key change, loads the pair.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use super::{CertResolver, load_files, unix_to_rfc3339};

/// What identifies a version of a file: mtime, size, inode.
type Stamp = Option<(SystemTime, u64, u64)>;

/// Watches the files until the process ends; `interval: None` reloads on SIGHUP only.
pub async fn watch(
    resolver: Arc<CertResolver>,
    cert: PathBuf,
    key: PathBuf,
    interval: Option<Duration>,
) {
    let mut hangup = hangup_signal();
    let mut last = (stamp(&cert).await, stamp(&key).await);
    let mut tick = interval.map(tokio::time::interval);
    loop {
        let forced = tokio::select! {
            () = next_tick(&mut tick) => false,
            () = next_hangup(&mut hangup) => true,
        };
        let now = (stamp(&cert).await, stamp(&key).await);
        if !forced && now == last {
            continue;
        }
        last = now;
        reload(&resolver, &cert, &key, forced);
    }
}

/// Loads the pair and installs it, or logs why not.
fn reload(resolver: &CertResolver, cert: &Path, key: &Path, forced: bool) {
    let why = if forced { "SIGHUP" } else { "files changed" };
    match load_files(cert, key) {
        Ok(loaded) => {
            tracing::info!(
                names = ?loaded.names,
                expires = %unix_to_rfc3339(loaded.not_after),
                "TLS certificate reloaded ({why})"
            );
            resolver.install(loaded);
        }
        Err(e) => tracing::warn!(
            error = %e,
            "new TLS certificate refused ({why}); still serving the previous one"
        ),
    }
}

async fn stamp(path: &Path) -> Stamp {
    use std::os::unix::fs::MetadataExt;
    let meta = tokio::fs::metadata(path).await.ok()?;
    Some((meta.modified().ok()?, meta.len(), meta.ino()))
}

async fn next_tick(tick: &mut Option<tokio::time::Interval>) {
    match tick {
        Some(tick) => {
            tick.tick().await;
        }
        None => std::future::pending().await,
    }
}

type Hangup = Option<tokio::signal::unix::Signal>;

fn hangup_signal() -> Hangup {
    use tokio::signal::unix::{SignalKind, signal};
    match signal(SignalKind::hangup()) {
        Ok(s) => Some(s),
        Err(e) => {
            tracing::warn!(error = %e, "cannot listen for SIGHUP; reloading on file changes only");
            None
        }
    }
}

async fn next_hangup(hangup: &mut Hangup) {
    let received = match hangup {
        Some(s) => s.recv().await.is_some(),
        None => false,
    };
    if !received {
        std::future::pending::<()>().await;
    }
}
