//! The background sweeper: deletes expired pastes so their space is reclaimed.
//!
//! Expired pastes are already invisible (stores check expiry on every read);
//! the sweeper only gives the space back, and that of ended browser sessions.
//! It sleeps between rounds and sweeps in bounded batches, so one round never
//! holds the store for long. When a round leaves the store settled (nothing
//! expires, no session, no space to give back: `SweepReport::settled`), it
//! waits for the store's next write before the next interval starts, so a
//! server nobody writes to does not wake for it at all. While the disk is
//! nearly full the store writes nothing, and a round sweeps nothing.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

use crate::core::paste;
use crate::store::{Store, StoreError};

/// Pastes removed per batch.
const BATCH: usize = 1000;

/// Sweeps every `interval` (or, settled, after the next write and an
/// interval) until `stop` turns true.
pub async fn run(store: Arc<dyn Store>, interval: Duration, mut stop: watch::Receiver<bool>) {
    loop {
        let settled = sweep_all(store.as_ref()).await;
        purge_sessions(store.as_ref()).await;
        if settled {
            tracing::debug!("nothing left to sweep; the sweeper waits for a write");
            tokio::select! {
                () = store.sweep_work() => {}
                _ = stop.changed() => return,
            }
        }
        tokio::select! {
            () = tokio::time::sleep(interval) => {}
            _ = stop.changed() => return,
        }
    }
}

/// Runs batches until nothing expired is left; whether the store settled.
async fn sweep_all(store: &dyn Store) -> bool {
    loop {
        match store.sweep(paste::now(), BATCH).await {
            Ok(report) => {
                if report.removed > 0 {
                    tracing::info!(
                        removed = report.removed,
                        bytes = report.bytes,
                        "swept expired pastes"
                    );
                }
                if report.removed < BATCH {
                    return report.settled;
                }
            }
            Err(StoreError::DiskFull(detail)) => {
                tracing::warn!(error = %detail, "the disk is full: the sweep waits for space");
                return false;
            }
            Err(e) => {
                tracing::error!(error = %e, "sweep failed; retrying next round");
                return false;
            }
        }
    }
}

/// Deletes ended browser sessions (they are refused already).
async fn purge_sessions(store: &dyn Store) {
    match store.purge_sessions(paste::now()).await {
        Ok(0) => {}
        Ok(purged) => tracing::info!(purged, "purged ended browser sessions"),
        Err(e) => tracing::error!(error = %e, "purging sessions failed; retrying next round"),
    }
}
