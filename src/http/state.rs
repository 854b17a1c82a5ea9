//! What every handler and layer can reach: the store, the request limits,
//! the authentication and rate-limit settings, and the metrics.

use std::borrow::Cow;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use axum::http::HeaderValue;

use super::pipeline::caller::AuthConfig;
use super::pipeline::forwarded::Origin;
use super::pipeline::ratelimit::RateLimits;
use crate::core::Ttl;
use crate::metrics::Metrics;
use crate::store::Store;

/// Limits and defaults applied to requests.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Largest accepted paste body, in bytes.
    pub max_paste_bytes: u64,
    /// TTL of pastes that do not ask for one.
    pub default_ttl: Ttl,
    /// Longest TTL a paste may ask for (`Never` allows pastes that never expire).
    pub max_ttl: Ttl,
    /// Random symbols in new IDs.
    pub id_length: usize,
    /// Time allowed for a whole request body to arrive.
    pub body_timeout: Duration,
    /// Most bytes of paste bodies received at once, across all requests.
    pub max_inflight_bytes: u64,
}

/// What every handler can reach.
pub struct AppState {
    /// The paste store.
    pub store: Arc<dyn Store>,
    /// Request limits.
    pub limits: Limits,
    /// Base of every URL the server prints, without a trailing slash.
    pub public_url: String,
    /// Whether printed URLs follow the scheme and host a trusted proxy reports
    /// (no `--public-url` was given; an explicit one always wins).
    pub url_follows_proxy: bool,
    /// Who may do what.
    pub auth: AuthConfig,
    /// Request rate buckets.
    pub rate_limits: RateLimits,
    /// Where requests, store operations and paste events are counted.
    pub metrics: Arc<Metrics>,
    /// Whether the main listener serves `/metrics` (`--metrics-public`).
    pub metrics_on_main: bool,
    /// What the last readiness check found, for `/readyz`.
    pub readiness: Readiness,
    /// The bytes of paste bodies being received, bounded.
    pub inflight: InflightBytes,
    /// `Strict-Transport-Security` of every answer, when snip serves HTTPS itself.
    pub hsts: Option<HeaderValue>,
}

/// The bytes of request bodies being received across the server, bounded so
/// that many slow uploads cannot hold memory without limit: each upload
/// reserves what it may hold before reading a byte, and a reservation past
/// the bound is refused.
#[derive(Debug)]
pub struct InflightBytes {
    held: AtomicU64,
    max: u64,
}

/// A reservation of [`InflightBytes`], given back when dropped.
#[derive(Debug)]
pub struct InflightGuard<'a> {
    counter: &'a InflightBytes,
    bytes: u64,
}

/// Every byte [`InflightBytes`] may hold is reserved already.
#[derive(Debug, Clone, Copy, thiserror::Error)]
#[error("the server is receiving too many pastes at once; retry in a moment")]
pub struct Busy;

impl InflightBytes {
    /// A counter that admits at most `max` bytes at once.
    pub fn new(max: u64) -> Self {
        Self {
            held: AtomicU64::new(0),
            max,
        }
    }

    /// Reserves `bytes` while there is room. A reservation larger than the
    /// whole bound is admitted when nothing else is held, so that a paste
    /// the size limits allow can always be sent, one at a time.
    pub fn reserve(&self, bytes: u64) -> Result<InflightGuard<'_>, Busy> {
        self.held
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |held| {
                let total = held.checked_add(bytes)?;
                (total <= self.max || held == 0).then_some(total)
            })
            .map_err(|_| Busy)?;
        Ok(InflightGuard {
            counter: self,
            bytes,
        })
    }
}

impl Drop for InflightGuard<'_> {
    fn drop(&mut self) {
        self.counter.held.fetch_sub(self.bytes, Ordering::AcqRel);
    }
}

/// Whether the store answered its last ping. `/readyz` is unauthenticated, so
/// it answers from this flag, which one background task refreshes
/// ([`Readiness::PERIOD`]); a ping per request would let anyone make the
/// store sync a file as often as they like.
#[derive(Debug, Default)]
pub struct Readiness(AtomicBool);

impl Readiness {
    /// How often the background task pings the store: load balancers probe
    /// every few seconds, so the answer is never staler than they can tell.
    pub const PERIOD: Duration = Duration::from_secs(1);

    /// Whether the store answered the last ping (false until the first).
    pub fn ready(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }

    /// Records the outcome of a ping.
    pub fn set(&self, ready: bool) {
        self.0.store(ready, Ordering::Relaxed);
    }
}

/// Shared handle to the state.
pub type SharedState = Arc<AppState>;

impl AppState {
    /// The base of URLs printed in answer to a request from `origin`.
    pub fn base_url(&self, origin: &Origin) -> Cow<'_, str> {
        if self.url_follows_proxy {
            origin.base_url(&self.public_url)
        } else {
            Cow::Borrowed(&self.public_url)
        }
    }
}
