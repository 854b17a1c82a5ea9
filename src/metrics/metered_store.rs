//! [`MeteredStore`]: a decorator around a [`Store`] that times every
//! operation and counts paste lifecycle events, so neither the handlers nor
//! the backends need to know about metrics, and every backend is measured
//! the same way.
//!
//! It implements each of the store's traits by calling the same method of
//! the store it wraps, every method explicitly (a default body would hide a
//! capability of the wrapped store).

use std::future::Future;
use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;
use bytes::Bytes;

use super::{Metrics, StoreOp};
use crate::core::envelope::Proof;
use crate::core::tenant::{
    Authority, ProgramInfo, ProviderGrant, SessionRecord, Tenant, TokenRecord,
};
use crate::core::{PasteId, PasteMeta, UnixTime};
use crate::store::{
    AccountStore, CacheStats, ListPage, ListQuery, Maintenance, NewBody, Opened, Paste, PasteStore,
    PutLimits, RateStore, ScanPage, SearchQuery, Store, StoreError, SweepReport, Taken, Usage,
};

/// Delegates to a store, recording into [`Metrics`].
pub struct MeteredStore {
    inner: Arc<dyn Store>,
    metrics: Arc<Metrics>,
}

impl MeteredStore {
    /// Wraps `inner`.
    pub fn new(inner: Arc<dyn Store>, metrics: Arc<Metrics>) -> Self {
        Self { inner, metrics }
    }

    /// Counts a paste read by `get`. A plain get of a burn paste never
    /// serves it (409 or the reveal page), so it is not counted.
    fn count_read(&self, paste: &Paste) {
        if !paste.meta.burn {
            self.metrics.pastes.read.inc();
        }
    }

    async fn timed<T>(&self, op: StoreOp, work: impl Future<Output = T>) -> T {
        let start = Instant::now();
        let result = work.await;
        self.observe(op, start);
        result
    }

    /// Records an operation that began at `start`.
    fn observe(&self, op: StoreOp, start: Instant) {
        self.metrics.store_op(op).observe(start.elapsed());
    }
}

#[async_trait]
impl PasteStore for MeteredStore {
    async fn put(
        &self,
        meta: PasteMeta,
        body: NewBody,
        limits: PutLimits,
    ) -> Result<(), StoreError> {
        let put = self.inner.put(meta, body, limits);
        let result = self.timed(StoreOp::Put, put).await;
        if result.is_ok() {
            self.metrics.pastes.created.inc();
        }
        result
    }

    async fn create(
        &self,
        meta: PasteMeta,
        body: NewBody,
        limits: PutLimits,
        random_len: usize,
    ) -> Result<String, StoreError> {
        let create = self.inner.create(meta, body, limits, random_len);
        let result = self.timed(StoreOp::Put, create).await;
        if result.is_ok() {
            self.metrics.pastes.created.inc();
        }
        result
    }

    async fn get(&self, id: &PasteId, now: UnixTime) -> Result<Option<Paste>, StoreError> {
        let result = self.timed(StoreOp::Get, self.inner.get(id, now)).await;
        if let Ok(Some(paste)) = &result {
            self.count_read(paste);
        }
        result
    }

    /// A hit counts as a `get` in every metric; a miss is not recorded (the
    /// caller's `get` that follows is).
    fn cached(&self, id: &PasteId, now: UnixTime) -> Option<Paste> {
        let start = Instant::now();
        let paste = self.inner.cached(id, now)?;
        self.observe(StoreOp::Get, start);
        self.count_read(&paste);
        Some(paste)
    }

    /// Timed and counted as a `get`.
    async fn open(&self, id: &PasteId, now: UnixTime) -> Result<Option<Opened>, StoreError> {
        let result = self.timed(StoreOp::Get, self.inner.open(id, now)).await;
        if let Ok(Some(opened)) = &result
            && !opened.meta.burn
        {
            self.metrics.pastes.read.inc();
        }
        result
    }

    async fn meta(&self, id: &PasteId, now: UnixTime) -> Result<Option<PasteMeta>, StoreError> {
        self.timed(StoreOp::Meta, self.inner.meta(id, now)).await
    }

    async fn take(
        &self,
        id: &PasteId,
        proof: Option<&Proof>,
        now: UnixTime,
    ) -> Result<Taken, StoreError> {
        let result = self
            .timed(StoreOp::Take, self.inner.take(id, proof, now))
            .await;
        if let Ok(Taken::Paste(_)) = &result {
            self.metrics.pastes.burned.inc();
        }
        result
    }

    async fn list(
        &self,
        owner: &str,
        query: &ListQuery,
        now: UnixTime,
    ) -> Result<ListPage, StoreError> {
        self.timed(StoreOp::List, self.inner.list(owner, query, now))
            .await
    }

    async fn search(
        &self,
        owner: &str,
        query: &SearchQuery,
        now: UnixTime,
    ) -> Result<ListPage, StoreError> {
        self.timed(StoreOp::Search, self.inner.search(owner, query, now))
            .await
    }

    async fn owner_usage(&self, owner: &str) -> Result<Usage, StoreError> {
        self.timed(StoreOp::Tenant, self.inner.owner_usage(owner))
            .await
    }

    async fn delete(
        &self,
        id: &PasteId,
        authority: Option<&Authority>,
    ) -> Result<bool, StoreError> {
        let result = self
            .timed(StoreOp::Delete, self.inner.delete(id, authority))
            .await;
        if let Ok(true) = result {
            self.metrics.pastes.deleted.inc();
        }
        result
    }
}

#[async_trait]
impl Maintenance for MeteredStore {
    async fn sweep(&self, now: UnixTime, limit: usize) -> Result<SweepReport, StoreError> {
        let result = self
            .timed(StoreOp::Sweep, self.inner.sweep(now, limit))
            .await;
        if let Ok(report) = &result {
            self.metrics.pastes.expired.inc_by(report.removed as u64);
        }
        result
    }

    async fn sweep_work(&self) {
        self.inner.sweep_work().await;
    }

    async fn broken(&self) -> StoreError {
        self.inner.broken().await
    }

    fn used_bytes(&self) -> u64 {
        self.inner.used_bytes()
    }

    fn stored_pastes(&self) -> u64 {
        self.inner.stored_pastes()
    }

    fn cache_stats(&self) -> Option<CacheStats> {
        self.inner.cache_stats()
    }

    async fn ping(&self) -> Result<(), StoreError> {
        self.timed(StoreOp::Ping, self.inner.ping()).await
    }

    async fn scan(
        &self,
        from: Option<&str>,
        limit: usize,
        now: UnixTime,
    ) -> Result<ScanPage, StoreError> {
        self.timed(StoreOp::Admin, self.inner.scan(from, limit, now))
            .await
    }

    async fn close(&self) -> Result<(), StoreError> {
        self.inner.close().await
    }
}

#[async_trait]
impl AccountStore for MeteredStore {
    async fn create_tenant(&self, tenant: Tenant) -> Result<(), StoreError> {
        self.timed(StoreOp::Admin, self.inner.create_tenant(tenant))
            .await
    }

    async fn update_tenant(&self, tenant: Tenant) -> Result<(), StoreError> {
        self.timed(StoreOp::Admin, self.inner.update_tenant(tenant))
            .await
    }

    async fn tenant(&self, name: &str) -> Result<Option<Tenant>, StoreError> {
        self.timed(StoreOp::Tenant, self.inner.tenant(name)).await
    }

    async fn tenants(&self) -> Result<Vec<Tenant>, StoreError> {
        self.timed(StoreOp::Admin, self.inner.tenants()).await
    }

    async fn delete_tenant(&self, name: &str) -> Result<bool, StoreError> {
        self.timed(StoreOp::Admin, self.inner.delete_tenant(name))
            .await
    }

    async fn set_program(
        &self,
        tenant: &str,
        info: ProgramInfo,
        module: Bytes,
    ) -> Result<(), StoreError> {
        self.timed(StoreOp::Admin, self.inner.set_program(tenant, info, module))
            .await
    }

    async fn clear_program(&self, tenant: &str) -> Result<bool, StoreError> {
        self.timed(StoreOp::Admin, self.inner.clear_program(tenant))
            .await
    }

    async fn program(&self, tenant: &str) -> Result<Option<Bytes>, StoreError> {
        self.timed(StoreOp::Tenant, self.inner.program(tenant))
            .await
    }

    async fn create_token(&self, record: TokenRecord) -> Result<(), StoreError> {
        self.timed(StoreOp::Admin, self.inner.create_token(record))
            .await
    }

    async fn token(&self, hash: &[u8; 32]) -> Result<Option<TokenRecord>, StoreError> {
        self.timed(StoreOp::Token, self.inner.token(hash)).await
    }

    async fn revoke_token(&self, id: &str) -> Result<bool, StoreError> {
        self.timed(StoreOp::Admin, self.inner.revoke_token(id))
            .await
    }

    async fn tokens(&self, tenant: &str) -> Result<Vec<TokenRecord>, StoreError> {
        self.timed(StoreOp::Admin, self.inner.tokens(tenant)).await
    }

    async fn create_session(&self, record: SessionRecord) -> Result<(), StoreError> {
        self.timed(StoreOp::Admin, self.inner.create_session(record))
            .await
    }

    async fn session(&self, hash: &[u8; 32]) -> Result<Option<SessionRecord>, StoreError> {
        self.timed(StoreOp::Token, self.inner.session(hash)).await
    }

    async fn save_grant(
        &self,
        hash: &[u8; 32],
        grant: &ProviderGrant,
        asked_at: UnixTime,
    ) -> Result<bool, StoreError> {
        self.timed(StoreOp::Token, self.inner.save_grant(hash, grant, asked_at))
            .await
    }

    async fn purge_sessions(&self, now: UnixTime) -> Result<usize, StoreError> {
        self.timed(StoreOp::Sweep, self.inner.purge_sessions(now))
            .await
    }

    async fn delete_session(&self, hash: &[u8; 32]) -> Result<bool, StoreError> {
        self.timed(StoreOp::Admin, self.inner.delete_session(hash))
            .await
    }
}

impl Store for MeteredStore {
    /// Not timed: a rate check is part of admitting a request, not a store operation.
    fn shared_rates(&self) -> Option<&dyn RateStore> {
        self.inner.shared_rates()
    }
}
