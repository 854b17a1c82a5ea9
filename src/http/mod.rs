//! The HTTP API: [`make_app`] builds the router and its middleware stack,
//! behind the hot routes' shortcut ([`hot`]).
//!
//! Handlers are split by feature (`create`, `read`, `delete`, `meta`) and talk
//! to storage only through the [`Store`] trait; errors are mapped to statuses
//! in [`errors`] alone. Every response passes one middleware that renders
//! errors, adds security headers, and records metrics and the request's log
//! line ([`observe`]); [`ops`] holds the operator routes.

use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::routing::{get, post};

use crate::core::Ttl;
use crate::metrics::Metrics;
use crate::store::Store;

mod admin;
pub mod assets;
pub mod auth;
mod backup;
mod create;
mod delete;
pub mod errors;
mod finish;
pub mod forwarded;
pub mod hot;
mod list;
mod meta;
pub mod negotiate;
pub mod observe;
pub mod openapi;
pub mod ops;
pub mod pages;
pub mod ratelimit;
mod read;

pub use auth::{AnonymousPolicy, AuthConfig};
pub use finish::{Finish, FinishLayer};
pub use forwarded::{ProxyConfig, ProxyHeaders};
pub use hot::{App, Connection};
pub use ratelimit::{Limit, RateLimits};

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
    /// Whether the main listener serves `/metrics` (not with `--metrics-listen`).
    pub metrics_on_main: bool,
}

/// Shared handle to the state.
pub type SharedState = Arc<AppState>;

impl AppState {
    /// The base of URLs printed in answer to a request from `origin`.
    pub fn base_url(&self, origin: &forwarded::Origin) -> std::borrow::Cow<'_, str> {
        if self.url_follows_proxy {
            origin.base_url(&self.public_url)
        } else {
            std::borrow::Cow::Borrowed(&self.public_url)
        }
    }
}

/// The CSP of HTML pages: nothing but snip's own scripts, styles, images and
/// API, no inline script or style, no eval, no framing; `blob:` only for
/// media decrypted or revealed in the browser. Trusted Types make any
/// `innerHTML` from a plain string throw: the one policy (`snip`) is used
/// only for highlight.js output and markup built from escaped text.
pub const PAGE_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' blob:; media-src 'self' blob:; connect-src 'self'; \
     form-action 'self'; frame-ancestors 'none'; base-uri 'none'; \
     require-trusted-types-for 'script'; trusted-types snip";
/// The header that carries a paste's delete token (answer to a create, and `DELETE`).
pub const X_DELETE_TOKEN: axum::http::HeaderName =
    axum::http::HeaderName::from_static("x-delete-token");
/// The CSP of raw paste bytes: nothing may load or run, and the document is sandboxed.
pub const RAW_CSP: &str = "default-src 'none'; sandbox";

/// Builds the service: every route with its per-route middleware
/// (authentication), the hot ones also reachable without the router.
pub fn make_app(state: SharedState) -> App {
    App::new(state.clone(), make_router(state))
}

/// The router of every route.
fn make_router(state: SharedState) -> Router {
    // Every route that touches pastes knows its caller and is rate limited.
    let pastes = Router::new()
        .route("/", get(create::form).post(create::create))
        .route("/new", get(create::form))
        .route("/api/pastes", get(list::list))
        .route("/api/pastes/{id}", get(meta::metadata))
        .route("/raw/{id}", get(read::raw))
        .route("/download/{id}", get(read::download))
        .route("/{id}/reveal", post(read::reveal))
        .route("/{id}", get(read::view).delete(delete::delete))
        .route_layer(auth::AuthLayer::new(state.clone()));
    Router::new()
        .merge(pastes)
        .merge(admin::routes())
        .merge(ops::routes(state.metrics_on_main))
        .route("/healthz", get(healthz))
        .route("/assets/{file}", get(assets::serve))
        .fallback(not_found)
        .with_state(state.clone())
        .layer(FinishLayer::new(state))
}

async fn healthz() -> &'static str {
    "ok\n"
}

async fn not_found() -> errors::ApiError {
    errors::ApiError {
        status: axum::http::StatusCode::NOT_FOUND,
        code: "no_route",
        message: "no such page; POST a paste to / or GET /{id}".into(),
    }
}
