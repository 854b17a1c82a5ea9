//! [`Maintenance`] on the embedded store: the sweep (`sweep`), the scan of
//! backups (`listing`), the readiness check and the clean close (`open`),
//! the counts kept for metrics (`usage`), and the poisoned store's alarm.

use std::sync::atomic::Ordering;

use async_trait::async_trait;
use fjall::PersistMode;

use super::EmbeddedStore;
use crate::core::UnixTime;
use crate::store::{BackendError, CacheStats, Maintenance, ScanPage, StoreError, SweepReport};

#[async_trait]
impl Maintenance for EmbeddedStore {
    /// On a blocking thread; with `--sync`, the removals are durable before it returns.
    async fn sweep(&self, now: UnixTime, limit: usize) -> Result<SweepReport, StoreError> {
        let sweep = async {
            let inner = self.inner.clone();
            let report = tokio::task::spawn_blocking(move || inner.sweep(now, limit))
                .await
                .map_err(|e| StoreError::backend_caused("sweep task failed", e))??;
            if report.removed > 0 {
                self.durable().await?;
            }
            Ok(report)
        };
        self.noted(sweep.await)
    }

    async fn sweep_work(&self) {
        self.inner.writes.next().await;
    }

    async fn scan(
        &self,
        from: Option<&str>,
        limit: usize,
        now: UnixTime,
    ) -> Result<ScanPage, StoreError> {
        self.inner.scan(from, limit, now)
    }

    /// On a blocking thread (see `Inner::ping`).
    async fn ping(&self) -> Result<(), StoreError> {
        let inner = self.inner.clone();
        let ping = tokio::task::spawn_blocking(move || inner.ping())
            .await
            .map_err(|e| StoreError::backend_caused("ping task failed", e));
        self.noted(ping.and_then(|pinged| pinged))
    }

    async fn broken(&self) -> StoreError {
        let mut poisoned = self.inner.poisoned.subscribe();
        let reason = poisoned
            .wait_for(Option::is_some)
            .await
            .map(|reason| reason.clone().unwrap_or_default());
        match reason {
            Ok(reason) => StoreError::Poisoned(BackendError::new(reason)),
            // The sender lives as long as the store.
            Err(_) => std::future::pending().await,
        }
    }

    fn used_bytes(&self) -> u64 {
        self.inner.used.load(Ordering::Relaxed)
    }

    fn stored_pastes(&self) -> u64 {
        self.inner.pastes.load(Ordering::Relaxed)
    }

    /// None: the paste cache needs no coherence (one process per data dir).
    fn cache_stats(&self) -> Option<CacheStats> {
        None
    }

    /// Makes every write durable: the search index's last commit, the body
    /// log, then fjall's journal; and saves the filter of stored IDs for
    /// the next open.
    async fn close(&self) -> Result<(), StoreError> {
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || {
            inner.search.close();
            inner.log.sync()?;
            // A store that numbered every ID it holds has no filter to save.
            let saved = match inner.sequence.numbered_only() {
                true => Ok(()),
                false => inner.save_known_ids(),
            };
            if let Err(e) = saved {
                // Not fatal: the next open builds the filter from a scan.
                tracing::warn!(error = %e, "cannot save the filter of stored IDs");
            }
            Ok::<_, StoreError>(inner.db.persist(PersistMode::SyncAll)?)
        })
        .await
        .map_err(|e| StoreError::backend_caused("close task failed", e))??;
        Ok(())
    }
}
