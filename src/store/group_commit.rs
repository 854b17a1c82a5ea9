//! Group commit: concurrent writers that each need an fsync share one.
//!
//! A writer first puts its data into the OS (the journal write), then takes a
//! ticket and waits until the synced ticket reaches it. One background task
//! repeatedly reads the newest ticket, fsyncs once, and publishes that ticket:
//! every write that took a ticket before the read is covered by that fsync,
//! so under load one fsync acknowledges a whole batch of writers.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::{Notify, watch};

use super::StoreError;

/// The blocking durability barrier that group commit calls (e.g. `fdatasync`).
pub type SyncFn = Arc<dyn Fn() -> Result<(), String> + Send + Sync>;

/// Shared state between writers and the syncing task.
pub struct GroupCommit {
    issued: AtomicU64,
    wake: Notify,
    synced: watch::Sender<Result<u64, String>>,
}

impl GroupCommit {
    /// Starts the syncing task on the current Tokio runtime.
    pub fn start(sync: SyncFn) -> Arc<Self> {
        let (synced, _) = watch::channel(Ok(0));
        let this = Arc::new(Self {
            issued: AtomicU64::new(0),
            wake: Notify::new(),
            synced,
        });
        let weak = Arc::downgrade(&this);
        tokio::spawn(async move {
            loop {
                let Some(gc) = weak.upgrade() else { return };
                gc.wake.notified().await;
                let target = gc.issued.load(Ordering::Acquire);
                let sync = sync.clone();
                let outcome = tokio::task::spawn_blocking(move || sync())
                    .await
                    .unwrap_or_else(|e| Err(e.to_string()));
                let _previous = gc.synced.send_replace(outcome.map(|()| target));
            }
        });
        this
    }

    /// Waits until everything the caller wrote before this call is synced.
    pub async fn wait_durable(&self) -> Result<(), StoreError> {
        let ticket = self.issued.fetch_add(1, Ordering::AcqRel) + 1;
        let mut rx = self.synced.subscribe();
        self.wake.notify_one();
        loop {
            match &*rx.borrow_and_update() {
                Ok(done) if *done >= ticket => return Ok(()),
                Ok(_) => {}
                Err(e) => return Err(StoreError::backend(format!("fsync failed: {e}"))),
            }
            if rx.changed().await.is_err() {
                return Err(StoreError::backend("the sync task stopped"));
            }
            // A sync finished, but maybe one that started before our write: ask for another.
            self.wake.notify_one();
        }
    }
}
