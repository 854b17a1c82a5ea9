//! What every handler and layer can reach: the store, the request limits,
//! the authentication and rate-limit settings, and the metrics.

use std::borrow::Cow;
use std::sync::Arc;
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
    /// `Strict-Transport-Security` of every answer, when snip serves HTTPS itself.
    pub hsts: Option<HeaderValue>,
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
