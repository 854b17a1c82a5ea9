//! [`Maintenance`] on PostgreSQL: the sweep, the scan backups walk, the
//! readiness check, the instance's counts and its cache's figures, and
//! closing.
//!
//! Instances sweeping at once split the rows (`FOR UPDATE SKIP LOCKED`)
//! instead of waiting on each other, and each sweep re-reads the totals,
//! which brings in the other instances' writes.

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

use async_trait::async_trait;

use super::notify::{self, Invalidation};
use super::rows::{META_COLUMNS, meta_from_row, to_i64, to_u64};
use super::{PostgresStore, db_error, rate};
use crate::core::UnixTime;
use crate::store::{CacheStats, Maintenance, ScanPage, StoreError, SweepReport};

#[async_trait]
impl Maintenance for PostgresStore {
    /// Gives the swept pastes' bytes back to their owners, then re-reads
    /// the totals.
    async fn sweep(&self, now: UnixTime, limit: usize) -> Result<SweepReport, StoreError> {
        self.within(async {
            let mut client = self.client().await?;
            let tx = client.transaction().await.map_err(db_error)?;
            // SKIP LOCKED: rows another instance is sweeping (or a reader is
            // taking) are left to it, so concurrent sweepers never wait or double-delete.
            // Swept pastes are notified too: a cache checks expiry against its
            // own instance's clock, which may lag the sweeper's.
            let rows = tx
                .query(
                    &format!(
                        "DELETE FROM pastes WHERE id IN (
                            SELECT id FROM pastes WHERE expires_at <= $1
                            ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED)
                         RETURNING owner, size, id, pg_notify($3, '{}' || id)",
                        notify::PASTE
                    ),
                    &[&to_i64(now), &to_i64(limit as u64), &self.channel],
                )
                .await
                .map_err(db_error)?;
            let mut report = SweepReport::default();
            let mut per_owner = BTreeMap::<String, (i64, i64)>::new();
            for row in &rows {
                let size: i64 = row.get(1);
                report.removed += 1;
                report.bytes += to_u64(size);
                if let Some(owner) = row.get::<_, Option<String>>(0) {
                    let entry = per_owner.entry(owner).or_default();
                    entry.0 += size;
                    entry.1 += 1;
                }
            }
            // Owners in name order, so two sweepers lock usage rows in the same order.
            for (owner, (bytes, pastes)) in &per_owner {
                tx.execute(
                    "UPDATE owner_usage SET bytes = bytes - $2, pastes = pastes - $3 WHERE owner = $1",
                    &[owner, bytes, pastes],
                )
                .await
                .map_err(db_error)?;
            }
            rate::forget_idle(&tx).await?;
            tx.commit().await.map_err(db_error)?;
            for row in &rows {
                self.cache.invalidate(&Invalidation::Paste(row.get(2)));
            }
            drop(client);
            // The other instances' writes since the last sweep come in here.
            self.recount().await?;
            Ok(report)
        })
        .await
    }

    /// In ID order; the cursor is the last ID of the page before.
    async fn scan(
        &self,
        from: Option<&str>,
        limit: usize,
        now: UnixTime,
    ) -> Result<ScanPage, StoreError> {
        self.within(async {
            let client = self.client().await?;
            let rows = client
                .query(
                    &format!(
                        "SELECT {META_COLUMNS} FROM pastes
                         WHERE ($1::text IS NULL OR id > $1) AND (expires_at IS NULL OR expires_at > $2)
                         ORDER BY id LIMIT $3"
                    ),
                    &[&from, &to_i64(now), &to_i64(limit as u64)],
                )
                .await
                .map_err(db_error)?;
            let pastes = rows
                .iter()
                .map(meta_from_row)
                .collect::<Result<Vec<_>, _>>()?;
            let next = pastes
                .last()
                .filter(|_| pastes.len() == limit)
                .map(|meta| meta.id.clone());
            Ok(ScanPage { pastes, next })
        })
        .await
    }

    async fn ping(&self) -> Result<(), StoreError> {
        self.within(async {
            let client = self.client().await?;
            client.simple_query("SELECT 1").await.map_err(db_error)?;
            Ok(())
        })
        .await
    }

    fn used_bytes(&self) -> u64 {
        self.totals.used.load(Ordering::Relaxed)
    }

    fn stored_pastes(&self) -> u64 {
        self.totals.pastes.load(Ordering::Relaxed)
    }

    fn cache_stats(&self) -> Option<CacheStats> {
        Some(self.cache.stats())
    }

    async fn close(&self) -> Result<(), StoreError> {
        // Every acknowledged write is committed; only the connections remain.
        self.listening.abort();
        self.pool.close();
        Ok(())
    }
}
