//! The shared backend: PostgreSQL (and engines that speak its protocol), for
//! several stateless snip instances on one database.
//!
//! Every operation that must be atomic across instances is one statement or
//! one short transaction: create-if-absent is `INSERT … ON CONFLICT DO
//! NOTHING`; a burn reveal is one `DELETE … RETURNING` in a transaction that
//! commits once the body has decoded (a damaged body rolls it back, and the
//! paste stays), so of any number of concurrent callers on any number of
//! instances exactly one gets the paste; an owner's quota is a conditional
//! upsert of its `owner_usage` row in the statement that inserts the paste.
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
//! requests look up (`coherent_cache`), kept coherent by notifications that the
//! statements changing them send (`notify`) and one listening connection
//! receives (`listener`).
//!
//! Each trait of [`Store`] is implemented in the file of its concern:
//! `pastes` (over the steps of `insert`, `batch`, `read`, `remove`,
//! `listing` and `search`), `accounts`, `maintenance`; this module holds the connection
//! pool and opening.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio_postgres::NoTls;

use super::combiner::Combiner;
use super::{GcraOutcome, RateStore, Store, StoreError};

mod accounts;
mod authority;
mod batch;
mod coherent_cache;
mod deadline;
mod errors;
mod insert;
mod listener;
mod listing;
mod maintenance;
mod notify;
mod pastes;
mod rate;
mod read;
mod remove;
mod rows;
pub mod schema;
mod search;
mod totals;

use batch::{Inserter, Pending};
use coherent_cache::CoherentCache;
use deadline::{Lease, within};
pub(crate) use errors::db_error;
use errors::pool_error;
use listener::Listener;
use rows::to_u64;
use totals::Totals;

/// Connection settings of the PostgreSQL store.
#[derive(Debug, Clone)]
pub struct PostgresOptions {
    /// A `postgres://` URL (libpq style).
    pub url: String,
    /// Keep snip's tables in this schema (created if absent) instead of the default search path.
    pub schema: Option<String>,
    /// Most connections this instance opens.
    pub pool_size: usize,
    /// Longest wait for a connection (and for connecting), and longest an
    /// operation's statements and transaction may take, before a request
    /// fails with `503` (`deadline`).
    pub timeout: Duration,
    /// Refuse new pastes once the stored bodies take this many bytes.
    pub max_bytes: Option<u64>,
    /// Memory for the pastes this instance caches.
    pub cache_bytes: u64,
}

/// The PostgreSQL store. Cheap to share: the pool and counters are behind `Arc`s.
pub struct PostgresStore {
    pool: Pool,
    totals: Arc<Totals>,
    /// Creates without an owner, inserted in groups (`batch`).
    combiner: Combiner<Pending>,
    inserter: Arc<Inserter>,
    /// Pastes, tokens and tenants read, kept coherent by `listener`.
    cache: Arc<CoherentCache>,
    /// The channel changes are notified on (`notify::channel`).
    channel: String,
    /// The listener's task, stopped by `close`.
    listening: tokio::task::JoinHandle<()>,
    /// The deadline of each operation (`deadline`).
    timeout: Duration,
}

/// How long a connection may be idle before TCP probes its link.
const KEEPALIVE_IDLE: Duration = Duration::from_secs(10);
/// Time between unanswered TCP probes.
const KEEPALIVE_INTERVAL: Duration = Duration::from_secs(2);
/// Unanswered TCP probes after which the link counts as dead.
const KEEPALIVE_RETRIES: u32 = 3;
/// Longest that data sent may stay unacknowledged before the kernel drops
/// the connection: a link that died while a statement was sent.
const TCP_USER_TIMEOUT: Duration = Duration::from_secs(15);

impl PostgresStore {
    /// Connects, creates or migrates the schema, and counts the stored bytes.
    pub async fn open(options: PostgresOptions) -> Result<Self, StoreError> {
        let mut config: tokio_postgres::Config = options
            .url
            .parse()
            .map_err(|e| StoreError::backend_caused("invalid PostgreSQL URL", e))?;
        config.connect_timeout(options.timeout);
        // A link that dies without a reset (a cable, a frozen NAT or
        // firewall) is noticed: while idle by keepalive probes, while
        // sending by the user timeout, instead of by a statement that
        // waits forever (`deadline` bounds those).
        config
            .keepalives(true)
            .keepalives_idle(KEEPALIVE_IDLE)
            .keepalives_interval(KEEPALIVE_INTERVAL)
            .keepalives_retries(KEEPALIVE_RETRIES)
            .tcp_user_timeout(TCP_USER_TIMEOUT);
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
        let cache = Arc::new(CoherentCache::new(options.cache_bytes));
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
                timeout: options.timeout,
            }),
            combiner: Combiner::default(),
            pool,
            totals,
            cache,
            channel,
            // The cache is not trusted until the listener listens, so
            // starting it before the schema exists serves nothing early.
            listening: tokio::spawn(listener.run()),
            timeout: options.timeout,
        };
        {
            let mut client = store.client().await?;
            schema::migrate(&mut client, options.schema.as_deref()).await?;
        }
        let filled = store.fill_search().await?;
        if filled > 0 {
            tracing::info!(
                pastes = filled,
                "made the pastes stored before search searchable"
            );
        }
        store.recount().await?;
        Ok(store)
    }

    /// A pooled connection for the operation running now (see `deadline`).
    async fn client(&self) -> Result<Lease, StoreError> {
        self.pool.get().await.map(Lease::new).map_err(pool_error)
    }

    /// Runs `operation` under the store's deadline (`deadline`).
    async fn within<T>(
        &self,
        operation: impl std::future::Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        within(self.timeout, operation).await
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
}

/// A store dropped without `close` (a command that opened it) stops its listener too.
impl Drop for PostgresStore {
    fn drop(&mut self) {
        self.listening.abort();
    }
}

/// Rate buckets are shared by every instance on the database (`rate`).
impl Store for PostgresStore {
    fn shared_rates(&self) -> Option<&dyn RateStore> {
        Some(self)
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
        self.within(async { rate::acquire(&*self.client().await?, key, interval, burst).await })
            .await
    }
}
