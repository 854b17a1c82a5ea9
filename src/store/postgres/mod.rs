//! The shared backend: PostgreSQL (and engines that speak its protocol), for
//! several stateless snip instances on one database.
//!
//! Every operation that must be atomic across instances is one statement or
//! one short transaction: create-if-absent is `INSERT … ON CONFLICT DO
//! NOTHING`; a burn reveal is one `DELETE … RETURNING` in a transaction that
//! commits once the body has decoded (a damaged body rolls it back, and the
//! paste stays), so of any number of concurrent callers on any number of
//! instances exactly one gets the paste; an owner's quota is a conditional
//! `UPDATE` of its `owner_usage` row in the transaction that inserts the paste.
//! Every read's `WHERE` clause checks expiry. The sweeper deletes with `FOR
//! UPDATE SKIP LOCKED`, so instances sweeping at once split the work instead
//! of queueing on each other's locks.
//!
//! The global storage limit is the exception: one counter row updated by every
//! write would serialise all creates of all instances. Instead each instance
//! counts from a total it re-reads at every sweep, so instances together may
//! overshoot the limit by what they accept within one sweep interval.
//!
//! Bodies are `bytea` in the paste row, stored out of line by TOAST and
//! compressed by snip where that saves space (`codec`; `body_encoding` says
//! how); metadata reads never select the body column.
//!
//! Connections come from a `deadpool` pool with bounded waits, so an outage
//! turns into [`StoreError::Unavailable`] within seconds instead of a hang,
//! and the pool replaces dead connections by itself once the database is back.
//!
//! Each instance caches the pastes it reads and the tokens and tenants its
//! requests look up (`cache`), kept coherent by notifications that the
//! statements changing them send (`notify`) and one listening connection
//! receives (`listener`).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use deadpool_postgres::{GenericClient, Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio_postgres::NoTls;
use tokio_postgres::Row;

use super::combiner::Combiner;
use super::{
    GcraOutcome, ListCursor, ListPage, ListQuery, Paste, PutLimits, RateStore, Store, StoreError,
    SweepReport, Taken, Usage,
};
use crate::core::envelope::Proof;
use crate::core::tenant::{SessionRecord, Tenant, TokenRecord};
use crate::core::{PasteId, PasteMeta, UnixTime, paste};
use crate::metrics::CacheStats;
use crate::store::codec::{self, NewBody, Stored};

mod accounts;
mod batch;
mod cache;
mod errors;
mod listener;
mod notify;
mod rate;
mod rows;
pub mod schema;

use batch::{Inserter, Pending};
use cache::{PgCache, Ticket};
pub(crate) use errors::db_error;
use errors::pool_error;
use listener::Listener;
use notify::Invalidation;
use rows::{
    BODY_COLUMNS, META_COLUMNS, key_check_columns, meta_from_row, stored_from_row, to_i64, to_u64,
    visibility_text,
};

/// Connection settings of the PostgreSQL store.
#[derive(Debug, Clone)]
pub struct PostgresOptions {
    /// A `postgres://` URL (libpq style).
    pub url: String,
    /// Keep snip's tables in this schema (created if absent) instead of the default search path.
    pub schema: Option<String>,
    /// Most connections this instance opens.
    pub pool_size: usize,
    /// Longest wait for a connection (and for connecting) before a request fails with `503`.
    pub timeout: Duration,
    /// Refuse new pastes once the stored bodies take this many bytes.
    pub max_bytes: Option<u64>,
    /// Memory for the pastes this instance caches.
    pub cache_bytes: u64,
}

/// What the instance counts of the whole store, shared with the `batch` inserter.
pub(crate) struct Totals {
    /// Body bytes of all pastes as last counted, plus this instance's writes since.
    used: AtomicU64,
    /// Number of pastes as last counted (at start and at every sweep), plus
    /// this instance's creates and minus its deletes since: the metrics
    /// gauge; exact counting would cost a round trip per scrape.
    pastes: AtomicU64,
    max_bytes: Option<u64>,
}

impl Totals {
    /// Checks the storage limit before a write (see the module docs for its precision).
    fn reserve(&self, size: u64) -> Result<(), StoreError> {
        let limit = self.max_bytes.unwrap_or(u64::MAX);
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                used.checked_add(size).filter(|&total| total <= limit)
            })
            .map(|_| ())
            .map_err(|_| StoreError::Full { limit })
    }

    /// Gives back bytes reserved for a paste that was not stored, or that was removed.
    fn release(&self, size: u64) {
        let _ = self
            .used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |used| {
                Some(used.saturating_sub(size))
            });
    }

    /// Counts a stored paste.
    fn created(&self) {
        self.pastes.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a removed paste of `size` bytes.
    fn removed(&self, size: u64) {
        self.release(size);
        let _ = self
            .pastes
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1));
    }
}

/// The PostgreSQL store. Cheap to share: the pool and counters are behind `Arc`s.
pub struct PostgresStore {
    pool: Pool,
    totals: Arc<Totals>,
    /// Creates without an owner, inserted in groups (`batch`).
    combiner: Combiner<Pending>,
    inserter: Arc<Inserter>,
    /// Pastes, tokens and tenants read, kept coherent by `listener`.
    cache: Arc<PgCache>,
    /// The channel changes are notified on (`notify::channel`).
    channel: String,
    /// The listener's task, stopped by `close`.
    listening: tokio::task::JoinHandle<()>,
}

impl PostgresStore {
    /// Connects, creates or migrates the schema, and counts the stored bytes.
    pub async fn open(options: PostgresOptions) -> Result<Self, StoreError> {
        let mut config: tokio_postgres::Config = options
            .url
            .parse()
            .map_err(|e| StoreError::backend_caused("invalid PostgreSQL URL", e))?;
        config.connect_timeout(options.timeout);
        if config.get_application_name().is_none() {
            config.application_name("snip");
        }
        if let Some(schema) = &options.schema {
            schema::validate_schema(schema).map_err(StoreError::backend)?;
            let mut opts = config.get_options().unwrap_or_default().to_owned();
            opts.push_str(&format!(" -c search_path={schema}"));
            config.options(opts.trim());
        }
        let manager = Manager::from_config(
            config.clone(),
            NoTls,
            ManagerConfig {
                // Dead connections are noticed by the driver; no extra round trip per checkout.
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(options.pool_size.max(1))
            .wait_timeout(Some(options.timeout))
            .create_timeout(Some(options.timeout))
            .recycle_timeout(Some(options.timeout))
            .runtime(Runtime::Tokio1)
            .build()
            .map_err(|e| StoreError::backend_caused("cannot build the connection pool", e))?;
        let cache = Arc::new(PgCache::new(options.cache_bytes));
        let channel = notify::channel(options.schema.as_deref());
        let listener = Listener {
            config: Listener::config_from(&config),
            channel: channel.clone(),
            cache: cache.clone(),
        };
        let totals = Arc::new(Totals {
            used: AtomicU64::new(0),
            pastes: AtomicU64::new(0),
            max_bytes: options.max_bytes,
        });
        let store = Self {
            inserter: Arc::new(Inserter {
                pool: pool.clone(),
                totals: totals.clone(),
            }),
            combiner: Combiner::default(),
            pool,
            totals,
            cache,
            channel,
            // The cache is not trusted until the listener listens, so
            // starting it before the schema exists serves nothing early.
            listening: tokio::spawn(listener.run()),
        };
        {
            let mut client = store.client().await?;
            schema::migrate(&mut client, options.schema.as_deref()).await?;
        }
        store.recount().await?;
        Ok(store)
    }

    /// A cached `hit`, or `read` from the database and `fill`ed into the
    /// cache with a ticket taken before the read starts (a future does
    /// nothing until awaited); a hit takes no ticket.
    async fn read_through<T>(
        &self,
        hit: Option<T>,
        ticket: impl FnOnce() -> Ticket,
        read: impl Future<Output = Result<Option<T>, StoreError>>,
        fill: impl FnOnce(Ticket, &T),
    ) -> Result<Option<T>, StoreError> {
        if hit.is_some() {
            return Ok(hit);
        }
        let ticket = ticket();
        let found = read.await?;
        if let Some(found) = &found {
            fill(ticket, found);
        }
        Ok(found)
    }

    async fn client(&self) -> Result<deadpool_postgres::Object, StoreError> {
        self.pool.get().await.map_err(pool_error)
    }

    /// Re-reads the total body bytes (the base of the storage limit) and the
    /// number of pastes.
    async fn recount(&self) -> Result<(), StoreError> {
        let client = self.client().await?;
        let row = client
            .query_one(
                "SELECT coalesce(sum(size), 0)::bigint, count(*)::bigint FROM pastes",
                &[],
            )
            .await
            .map_err(db_error)?;
        self.totals
            .used
            .store(to_u64(row.get(0)), Ordering::Relaxed);
        self.totals
            .pastes
            .store(to_u64(row.get(1)), Ordering::Relaxed);
        Ok(())
    }

    /// Inserts a paste with an owner, with its body as stored, and reserves
    /// its quota in the same transaction.
    async fn insert(
        &self,
        meta: &PasteMeta,
        body: &Stored,
        limits: PutLimits,
    ) -> Result<(), StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        if let Some(owner) = &meta.owner {
            // The owner's row stays locked until the commit, so a concurrent
            // delete of the tenant waits and then sees this paste; one that
            // committed first leaves no row, and the paste is refused.
            let stmt = tx
                .prepare_cached("SELECT 1 FROM tenants WHERE name = $1 FOR SHARE")
                .await
                .map_err(db_error)?;
            if tx
                .query_opt(&stmt, &[owner])
                .await
                .map_err(db_error)?
                .is_none()
            {
                return Err(StoreError::OwnerGone);
            }
            let quota = limits.owner_max_bytes.unwrap_or(u64::MAX);
            if meta.size > quota {
                return Err(StoreError::QuotaExceeded { limit: quota });
            }
            let stmt = tx
                .prepare_cached(
                    "INSERT INTO owner_usage AS u (owner, bytes, pastes) VALUES ($1, $2, 1)
                     ON CONFLICT (owner) DO UPDATE SET bytes = u.bytes + excluded.bytes, pastes = u.pastes + 1
                     WHERE u.bytes + excluded.bytes <= $3",
                )
                .await
                .map_err(db_error)?;
            let updated = tx
                .execute(&stmt, &[owner, &to_i64(meta.size), &to_i64(quota)])
                .await
                .map_err(db_error)?;
            if updated == 0 {
                return Err(StoreError::QuotaExceeded { limit: quota });
            }
        }
        let stmt = tx
            .prepare_cached(
                "INSERT INTO pastes (id, created_at, expires_at, burn, encrypted, lang, name,
                    content_type, size, delete_token_hash, owner, visibility, redirect, body,
                    proof_verifier, proof_iterations, proof_salt, body_encoding)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
                    $18)
                 ON CONFLICT (id) DO NOTHING",
            )
            .await
            .map_err(db_error)?;
        let (proof_verifier, proof_iterations, proof_salt) =
            key_check_columns(meta.key_check.as_ref());
        let inserted = tx
            .execute(
                &stmt,
                &[
                    &meta.id,
                    &to_i64(meta.created_at),
                    &meta.expires_at.map(to_i64),
                    &meta.burn,
                    &meta.encrypted,
                    &meta.lang,
                    &meta.name,
                    &meta.content_type,
                    &to_i64(meta.size),
                    &meta.delete_token_hash.as_slice(),
                    &meta.owner,
                    &visibility_text(meta.visibility),
                    &meta.redirect,
                    &&body.bytes[..],
                    &proof_verifier,
                    &proof_iterations,
                    &proof_salt,
                    &body.encoding.name(),
                ],
            )
            .await
            .map_err(db_error)?;
        if inserted == 0 {
            return Err(StoreError::IdTaken);
        }
        tx.commit().await.map_err(db_error)
    }

    /// Reads one live paste (not expired at `now`): selects the metadata
    /// columns and `extra_columns` ([`BODY_COLUMNS`] or nothing), and decodes the row.
    async fn read_live<T>(
        &self,
        id: &PasteId,
        now: UnixTime,
        extra_columns: &str,
        decode: fn(&Row) -> Result<T, StoreError>,
    ) -> Result<Option<T>, StoreError> {
        let client = self.client().await?;
        let stmt = client
            .prepare_cached(&format!(
                "SELECT {META_COLUMNS}{extra_columns} FROM pastes
                 WHERE id = $1 AND (expires_at IS NULL OR expires_at > $2)"
            ))
            .await
            .map_err(db_error)?;
        let row = client
            .query_opt(&stmt, &[&id.as_str(), &to_i64(now)])
            .await
            .map_err(db_error)?;
        row.as_ref().map(decode).transpose()
    }

    /// Reads one live paste with its body, decompressed where it is stored compressed.
    async fn read_paste(&self, id: &PasteId, now: UnixTime) -> Result<Option<Paste>, StoreError> {
        match self
            .read_live(id, now, BODY_COLUMNS, stored_from_row)
            .await?
        {
            Some((meta, stored)) => codec::paste_off_runtime(meta, stored).await.map(Some),
            None => Ok(None),
        }
    }

    /// Deletes paste `id` if `filter` holds (`$1` is the ID; the filter's
    /// own parameters follow) and returns its row; gives its bytes back to
    /// its owner and notifies every instance in the same statement. Runs on
    /// `client`, a connection or a transaction; once the delete has
    /// committed, the caller calls [`Self::removed`].
    async fn delete_returning(
        &self,
        client: &impl GenericClient,
        id: &PasteId,
        filter: &str,
        returning: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<Option<Row>, StoreError> {
        let channel_param = params.len() + 2;
        let sql = format!(
            "WITH gone AS (DELETE FROM pastes WHERE id = $1 AND {filter}
                           RETURNING {returning}, pg_notify(${channel_param}, '{}' || id)),
                  freed AS (UPDATE owner_usage u SET bytes = u.bytes - gone.size, pastes = u.pastes - 1
                            FROM gone WHERE u.owner = gone.owner)
             SELECT * FROM gone",
            notify::PASTE
        );
        let id_text = id.as_str();
        let mut all: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = vec![&id_text];
        all.extend_from_slice(params);
        all.push(&self.channel);
        let stmt = client.prepare_cached(&sql).await.map_err(db_error)?;
        client.query_opt(&stmt, &all).await.map_err(db_error)
    }

    /// After the delete of paste `id` (its `row`, which has its `size`)
    /// committed: evicts it here, before the caller answers, and counts it.
    fn removed(&self, id: &PasteId, row: &Row) {
        self.cache
            .invalidate(&Invalidation::Paste(id.as_str().to_owned()));
        self.totals.removed(to_u64(row.get("size")));
    }

    /// Takes a burn paste: deletes it and decodes its body in one
    /// transaction, which commits only if the body decodes, so a paste whose
    /// stored stream is damaged answers [`StoreError::Corrupt`] and stays.
    /// The delete locks the row until the commit or rollback, so of
    /// concurrent takers exactly one gets it. `None` if nothing was taken.
    async fn reveal(
        &self,
        id: &PasteId,
        proof: Option<&Proof>,
        now: UnixTime,
    ) -> Result<Option<Paste>, StoreError> {
        // The proof is checked in the statement that deletes, so a wrong one
        // never takes and a right one takes exactly once. Comparing by
        // equality in SQL is not constant time, but what is compared is
        // SHA-256 of the proof: timing could only tell how many leading bytes
        // of a hash match, which does not help find a preimage.
        let verifier = proof.map(Proof::verifier);
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        let row = self
            .delete_returning(
                &tx,
                id,
                "(expires_at IS NULL OR expires_at > $2)
                 AND (proof_verifier IS NULL OR proof_verifier = $3)",
                &format!("{META_COLUMNS}{BODY_COLUMNS}"),
                &[&to_i64(now), &verifier.as_ref().map(<[u8; 32]>::as_slice)],
            )
            .await?;
        let Some(row) = row else {
            tx.rollback().await.map_err(db_error)?;
            return Ok(None);
        };
        let decoded = match stored_from_row(&row) {
            Ok((meta, stored)) => codec::paste_off_runtime(meta, stored).await,
            Err(e) => Err(e),
        };
        match decoded {
            Ok(paste) => {
                tx.commit().await.map_err(db_error)?;
                self.removed(id, &row);
                Ok(Some(paste))
            }
            Err(e) => {
                // Awaited, so the paste is there again before the error is answered.
                tx.rollback().await.map_err(db_error)?;
                Err(e)
            }
        }
    }
}

/// A store dropped without `close` (a command that opened it) stops its listener too.
impl Drop for PostgresStore {
    fn drop(&mut self) {
        self.listening.abort();
    }
}

#[async_trait]
impl Store for PostgresStore {
    async fn put(
        &self,
        meta: PasteMeta,
        body: NewBody,
        limits: PutLimits,
    ) -> Result<(), StoreError> {
        self.totals.reserve(meta.size)?;
        let body = body.into_stored_off_runtime(&meta).await;
        if meta.owner.is_none() {
            // The inserter counts the paste, or gives its bytes back.
            return self
                .combiner
                .submit(Pending { meta, body }, &self.inserter)
                .await;
        }
        self.insert(&meta, &body, limits)
            .await
            .inspect(|()| self.totals.created())
            .inspect_err(|_| self.totals.release(meta.size))
    }

    async fn get(&self, id: &PasteId, now: UnixTime) -> Result<Option<Paste>, StoreError> {
        self.read_through(
            self.cache.paste(id, now),
            || self.cache.paste_ticket(id.as_str()),
            self.read_paste(id, now),
            |ticket, paste| self.cache.fill_paste(ticket, paste, now),
        )
        .await
    }

    async fn meta(&self, id: &PasteId, now: UnixTime) -> Result<Option<PasteMeta>, StoreError> {
        if let Some(paste) = self.cache.paste(id, now) {
            return Ok(Some(PasteMeta::clone(&paste.meta)));
        }
        self.read_live(id, now, "", meta_from_row).await
    }

    async fn take(
        &self,
        id: &PasteId,
        proof: Option<&Proof>,
        now: UnixTime,
    ) -> Result<Taken, StoreError> {
        if let Some(paste) = self.reveal(id, proof, now).await? {
            return Ok(Taken::Paste(paste));
        }
        // Not taken: refused if a live paste with a key check is still there.
        let still_there = self
            .read_live(id, now, "", meta_from_row)
            .await?
            .is_some_and(|meta| meta.key_check.is_some());
        Ok(if still_there {
            Taken::Refused
        } else {
            Taken::Absent
        })
    }

    async fn list(
        &self,
        owner: &str,
        query: &ListQuery,
        now: UnixTime,
    ) -> Result<ListPage, StoreError> {
        let (after_time, after_id) = match &query.cursor {
            Some(cursor) => {
                let after = ListCursor::decode(cursor)?;
                (Some(to_i64(after.created_at)), Some(after.id))
            }
            None => (None, None),
        };
        let client = self.client().await?;
        // Newest first, ties by ID ascending: the order of the embedded store.
        let stmt = client
            .prepare_cached(&format!(
                "SELECT {META_COLUMNS} FROM pastes
                 WHERE owner = $1 AND (expires_at IS NULL OR expires_at > $2)
                   AND ($3::text IS NULL OR starts_with(name, $3))
                   AND ($4::bigint IS NULL OR created_at < $4 OR (created_at = $4 AND id > $5))
                 ORDER BY created_at DESC, id
                 LIMIT $6"
            ))
            .await
            .map_err(db_error)?;
        let limit = to_i64(query.limit as u64).saturating_add(1);
        let rows = client
            .query(
                &stmt,
                &[
                    &owner,
                    &to_i64(now),
                    &query.name_prefix,
                    &after_time,
                    &after_id,
                    &limit,
                ],
            )
            .await
            .map_err(db_error)?;
        let mut page = ListPage::default();
        for row in &rows {
            if page.pastes.len() == query.limit {
                page.next_cursor = page.pastes.last().map(|m| ListCursor::after(m).encode());
                break;
            }
            page.pastes.push(meta_from_row(row)?);
        }
        Ok(page)
    }

    async fn owner_usage(&self, owner: &str) -> Result<Usage, StoreError> {
        let client = self.client().await?;
        let stmt = client
            .prepare_cached("SELECT bytes, pastes FROM owner_usage WHERE owner = $1")
            .await
            .map_err(db_error)?;
        let row = client.query_opt(&stmt, &[&owner]).await.map_err(db_error)?;
        Ok(row.map_or_else(Usage::default, |r| Usage {
            bytes: to_u64(r.get(0)),
            pastes: to_u64(r.get(1)),
        }))
    }

    async fn delete(&self, id: &PasteId) -> Result<bool, StoreError> {
        let client = self.client().await?;
        let row = self
            .delete_returning(&client, id, "true", "owner, size", &[])
            .await?;
        if let Some(row) = &row {
            self.removed(id, row);
        }
        Ok(row.is_some())
    }

    async fn sweep(&self, now: UnixTime, limit: usize) -> Result<SweepReport, StoreError> {
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
        let mut per_owner = std::collections::BTreeMap::<String, (i64, i64)>::new();
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
    }

    fn used_bytes(&self) -> u64 {
        self.totals.used.load(Ordering::Relaxed)
    }

    fn stored_pastes(&self) -> u64 {
        self.totals.pastes.load(Ordering::Relaxed)
    }

    async fn scan(
        &self,
        after: Option<&str>,
        limit: usize,
        now: UnixTime,
    ) -> Result<Vec<PasteMeta>, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                &format!(
                    "SELECT {META_COLUMNS} FROM pastes
                     WHERE ($1::text IS NULL OR id > $1) AND (expires_at IS NULL OR expires_at > $2)
                     ORDER BY id LIMIT $3"
                ),
                &[&after, &to_i64(now), &to_i64(limit as u64)],
            )
            .await
            .map_err(db_error)?;
        rows.iter().map(meta_from_row).collect()
    }

    async fn create_tenant(&self, tenant: Tenant) -> Result<(), StoreError> {
        accounts::create_tenant(&*self.client().await?, &tenant).await
    }

    async fn update_tenant(&self, tenant: Tenant) -> Result<(), StoreError> {
        accounts::update_tenant(&*self.client().await?, &tenant, &self.channel).await?;
        self.cache.invalidate(&Invalidation::Tenant(tenant.name));
        Ok(())
    }

    async fn tenant(&self, name: &str) -> Result<Option<Tenant>, StoreError> {
        let now = paste::now();
        self.read_through(
            self.cache.tenant(name, now),
            || self.cache.tenant_ticket(name),
            async { accounts::tenant(&*self.client().await?, name).await },
            |ticket, tenant| self.cache.fill_tenant(ticket, tenant, now),
        )
        .await
    }

    async fn tenants(&self) -> Result<Vec<Tenant>, StoreError> {
        accounts::tenants(&*self.client().await?).await
    }

    async fn delete_tenant(&self, name: &str) -> Result<bool, StoreError> {
        let deleted =
            accounts::delete_tenant(&mut *self.client().await?, name, &self.channel).await?;
        if deleted {
            self.cache
                .invalidate(&Invalidation::TenantGone(name.to_owned()));
        }
        Ok(deleted)
    }

    async fn create_token(&self, record: TokenRecord) -> Result<(), StoreError> {
        accounts::create_token(&*self.client().await?, &record).await
    }

    async fn token(&self, hash: &[u8; 32]) -> Result<Option<TokenRecord>, StoreError> {
        let now = paste::now();
        self.read_through(
            self.cache.token(hash, now),
            || self.cache.token_ticket(hash),
            async { accounts::token(&*self.client().await?, hash).await },
            |ticket, record| self.cache.fill_token(ticket, record, now),
        )
        .await
    }

    async fn revoke_token(&self, id: &str) -> Result<bool, StoreError> {
        let revoked = accounts::revoke_token(&*self.client().await?, id, &self.channel).await?;
        if let Some(hash) = revoked {
            self.cache.invalidate(&Invalidation::Token(hash));
        }
        Ok(revoked.is_some())
    }

    async fn tokens(&self, tenant: &str) -> Result<Vec<TokenRecord>, StoreError> {
        accounts::tokens(&*self.client().await?, tenant).await
    }

    async fn create_session(&self, record: SessionRecord) -> Result<(), StoreError> {
        accounts::create_session(&*self.client().await?, &record).await
    }

    async fn session(&self, hash: &[u8; 32]) -> Result<Option<SessionRecord>, StoreError> {
        accounts::session(&*self.client().await?, hash).await
    }

    async fn purge_sessions(&self, now: UnixTime) -> Result<usize, StoreError> {
        accounts::purge_sessions(&*self.client().await?, now).await
    }

    async fn delete_session(&self, hash: &[u8; 32]) -> Result<bool, StoreError> {
        accounts::delete_session(&*self.client().await?, hash).await
    }

    fn cached(&self, id: &PasteId, now: UnixTime) -> Option<Paste> {
        self.cache.paste(id, now)
    }

    fn cache_stats(&self) -> Option<CacheStats> {
        Some(self.cache.stats(paste::now()))
    }

    fn shared_rates(&self) -> Option<&dyn RateStore> {
        Some(self)
    }

    async fn ping(&self) -> Result<(), StoreError> {
        let client = self.client().await?;
        client.simple_query("SELECT 1").await.map_err(db_error)?;
        Ok(())
    }

    async fn close(&self) -> Result<(), StoreError> {
        // Every acknowledged write is committed; only the connections remain.
        self.listening.abort();
        self.pool.close();
        Ok(())
    }
}

/// Buckets are rows every instance updates (see `rate`).
#[async_trait]
impl RateStore for PostgresStore {
    async fn acquire(
        &self,
        key: &str,
        interval: Duration,
        burst: u32,
    ) -> Result<GcraOutcome, StoreError> {
        rate::acquire(&*self.client().await?, key, interval, burst).await
    }
}
