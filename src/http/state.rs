//! What every handler and layer can reach: the store, the request limits,
//! the authentication and rate-limit settings, and the metrics.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::http::HeaderValue;

use super::body::Pace;
use super::context::{AnonymousPolicy, Origin};
use super::forwarded::ProxyConfig;
use super::inflight::InflightBytes;
use super::oidc::{Oidc, OidcSettings};
use super::ratelimit::RateLimits;
use super::search_gate::SearchGate;
use crate::core::Ttl;
use crate::metrics::Metrics;
use crate::programs::Programs;
use crate::store::{Store, StoreError};

/// Limits and defaults applied to requests.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Largest accepted paste body, in bytes.
    pub max_paste_bytes: u64,
    /// Most files one paste may hold.
    pub max_files: usize,
    /// TTL of pastes that do not ask for one.
    pub default_ttl: Ttl,
    /// Longest TTL a paste may ask for (`Never` allows pastes that never expire).
    pub max_ttl: Ttl,
    /// The lifetimes the new-paste form offers, each at most [`Self::max_ttl`]
    /// (the form adds [`Self::default_ttl`] if it is not among them).
    pub ttl_choices: Vec<Ttl>,
    /// Random symbols in new IDs.
    pub id_length: usize,
    /// How fast a request body must arrive.
    pub body_pace: Pace,
    /// Most bytes of request bodies held at once, across all clients.
    pub max_inflight_bytes: u64,
    /// Most bytes of request bodies one client may hold at once.
    pub max_inflight_bytes_per_ip: u64,
    /// Most bytes held in memory for large pastes being sent, across all clients.
    pub max_response_bytes: u64,
    /// Most of [`Self::max_response_bytes`] one client may hold.
    pub max_response_bytes_per_ip: u64,
}

/// Authentication settings.
#[derive(Debug, Clone)]
pub struct AuthConfig {
    /// What anonymous clients may do.
    pub anonymous: AnonymousPolicy,
    /// Whose forwarding headers are believed, and which.
    pub proxy: ProxyConfig,
    /// SHA-256 of the admin token; `None` disables the admin API.
    pub admin_token_hash: Option<[u8; 32]>,
    /// Sign-in through an OpenID Connect provider (`--oidc-issuer`), if configured.
    pub oidc: Option<OidcSettings>,
    /// Whether browsers may sign in with an API token (`--token-signin`).
    pub token_signin: bool,
}

impl Default for AuthConfig {
    fn default() -> Self {
        Self {
            anonymous: AnonymousPolicy::default(),
            proxy: ProxyConfig::default(),
            admin_token_hash: None,
            oidc: None,
            token_signin: true,
        }
    }
}

/// How the instance presents itself to people and to other sites.
#[derive(Debug, Clone)]
pub struct Site {
    /// The instance's name (`--title`): page titles, the header, link
    /// previews' `og:site_name` and oEmbed's `provider_name`.
    pub name: String,
    /// Whether pages of unlisted, readable pastes carry link preview tags
    /// (`--link-previews`).
    pub link_previews: bool,
}

impl Default for Site {
    fn default() -> Self {
        Self {
            name: "snip".to_owned(),
            link_previews: true,
        }
    }
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
    /// The bytes of request bodies being received, bounded.
    pub inflight: Arc<InflightBytes>,
    /// The bytes held for large pastes being sent, bounded.
    pub outbound: Arc<InflightBytes>,
    /// `Strict-Transport-Security` of every answer, when snip serves HTTPS itself.
    pub hsts: Option<HeaderValue>,
    /// The OpenID Connect relying party, with `--oidc-issuer`.
    pub oidc: Option<Oidc>,
    /// Tenant programs: their runtime and compiled modules.
    pub programs: Arc<Programs>,
    /// The instance's name and link previews.
    pub site: Site,
    /// How many searches run at once (`--search-concurrency`).
    pub searches: SearchGate,
}

/// Whether the store answers, for `/readyz`: asked when a probe comes, at
/// most once per [`Readiness::FRESH`]. Probes need no token, so a flood of
/// them shares one ping (and one synced probe file) a second; and a server
/// nobody probes pings nothing, so an idle server does no work.
#[derive(Debug, Default)]
pub struct Readiness {
    /// The last ping's outcome; held across a ping, so concurrent probes
    /// wait for it rather than start their own.
    last: tokio::sync::Mutex<Option<Checked>>,
}

/// A ping's outcome, and when it was asked.
#[derive(Debug, Clone, Copy)]
struct Checked {
    at: Instant,
    ready: Result<(), NotReady>,
}

/// Why the store is not ready, as `/readyz` tells anyone who asks (the
/// details, which may name paths, go to the log).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotReady {
    /// The store does not answer, or fails.
    Unavailable,
    /// The store refuses writes until it is opened again (fjall poisoned):
    /// the server is exiting, for its supervisor to restart it.
    Poisoned,
}

impl NotReady {
    /// The line `/readyz` answers.
    pub fn message(self) -> &'static str {
        match self {
            Self::Unavailable => "not ready: the store is unavailable (the server log says why)",
            Self::Poisoned => {
                "not ready: the store refuses writes after a failed write (e.g. on a full disk) \
                 until it is opened again; snip is exiting so that its supervisor restarts it"
            }
        }
    }
}

impl Readiness {
    /// How long an outcome answers probes: load balancers probe every few
    /// seconds, so it is never staler than they can tell.
    pub const FRESH: Duration = Duration::from_secs(1);
    /// A ping that has not answered by then counts as failed: a hung store
    /// is not ready, and a probe must not hang with it.
    pub const TIMEOUT: Duration = Duration::from_secs(5);

    /// Whether `store` answers: the outcome of a ping made at most
    /// [`Self::FRESH`] ago, else of a new one. A failure is logged when it
    /// starts, not at every probe while it lasts.
    pub async fn check(&self, store: &dyn Store) -> Result<(), NotReady> {
        let mut last = self.last.lock().await;
        if let Some(checked) = *last
            && checked.at.elapsed() < Self::FRESH
        {
            return checked.ready;
        }
        let at = Instant::now();
        let failure = match tokio::time::timeout(Self::TIMEOUT, store.ping()).await {
            Ok(Ok(())) => None,
            Ok(Err(e @ StoreError::Poisoned(_))) => Some((NotReady::Poisoned, e.to_string())),
            Ok(Err(e)) => Some((NotReady::Unavailable, e.to_string())),
            Err(_) => Some((
                NotReady::Unavailable,
                format!("no answer within {:?}", Self::TIMEOUT),
            )),
        };
        let was_ready = last.is_none_or(|checked| checked.ready.is_ok());
        if let Some((_, error)) = &failure
            && was_ready
        {
            tracing::warn!(error = %error, "readiness check failed");
        }
        let ready = failure.map_or(Ok(()), |(why, _)| Err(why));
        *last = Some(Checked { at, ready });
        ready
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
