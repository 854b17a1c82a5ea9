//! The HTTP API. A request passes three stages, each a folder:
//!
//! 1. [`pipeline`]: [`pipeline::hot`] serves the three hot routes itself and
//!    hands the rest to axum's router; around every route, the origin is
//!    decided behind trusted proxies, and around the paste routes the caller
//!    is authenticated and rate limited.
//! 2. [`handlers`]: one module per feature, talking to storage only through
//!    the [`crate::store::Store`] trait.
//! 3. [`render`]: pages, assets and content negotiation; on its way out
//!    every answer has its error rendered for the client, gets the security
//!    headers, and is counted and logged.
//!
//! [`make_app`] puts them together from the route table, [`routes`]; [`state`]
//! is what all of them can reach.
//! What the pipeline establishes about a request (its origin, its caller) is
//! the request's [`context`], a leaf all three stages read; the origin is
//! worked out behind trusted proxies by [`forwarded`]; the credentials
//! behind a caller are checked by [`credentials`], and request rates counted
//! by [`ratelimit`], for the pipeline and handlers alike. Every failure is an
//! [`api_error::ApiError`]. Every route that reads a request body reads it
//! through [`body`], within the in-flight bounds of [`inflight`]; every
//! per-client bound groups clients by [`client_net`].

pub mod api_error;
pub mod body;
pub mod client_net;
pub mod context;
pub mod credentials;
pub mod forwarded;
pub mod handlers;
pub mod inflight;
pub mod oidc;
pub mod outbound;
pub mod pipeline;
pub mod ratelimit;
pub mod recheck;
pub mod render;
pub mod routes;
pub mod search_gate;
pub mod state;

pub use body::Pace;
pub use context::AnonymousPolicy;
pub use forwarded::{Peer, ProxyConfig, ProxyHeaders};
pub use inflight::InflightBytes;
pub use pipeline::finish::{Finish, FinishLayer};
pub use pipeline::hot::{App, Connection};
pub use ratelimit::{DEFAULT_IPV6_PREFIX, Limit, RateLimits};
pub use state::{AppState, AuthConfig, Limits, Readiness, SharedState, Site};

/// Builds the service: every route of the table ([`routes`]) with its
/// per-route middleware, the fast ones also reachable without the router
/// unless `fast_path` is off.
pub fn make_app(state: SharedState, fast_path: bool) -> App {
    let fast = if fast_path {
        routes::fast_routes()
    } else {
        Vec::new()
    };
    App::new(state.clone(), routes::make_router(state), fast)
}
