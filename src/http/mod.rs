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
//! [`make_app`] puts them together; [`state`] is what all of them can reach.
//! What the pipeline establishes about a request (its origin, its caller) is
//! the request's [`context`], a leaf all three stages read; the origin is
//! worked out behind trusted proxies by [`forwarded`]; the credentials
//! behind a caller are checked by [`credentials`], and request rates counted
//! by [`ratelimit`], for the pipeline and handlers alike. Every failure is an
//! [`api_error::ApiError`]. Every route that reads a request body reads it
//! through [`body`], within the in-flight bounds of [`inflight`]; every
//! per-client bound groups clients by [`client_net`].

use axum::Router;
use axum::routing::{get, post};

pub mod api_error;
pub mod body;
pub mod client_net;
pub mod context;
pub mod credentials;
pub mod forwarded;
pub mod handlers;
pub mod inflight;
pub mod outbound;
pub mod pipeline;
pub mod ratelimit;
pub mod render;
pub mod state;

pub use body::Pace;
pub use context::AnonymousPolicy;
pub use forwarded::{Peer, ProxyConfig, ProxyHeaders};
use handlers::{admin, create, delete, list, meta, my, ops, read, session};
pub use inflight::InflightBytes;
pub use pipeline::finish::{Finish, FinishLayer};
pub use pipeline::hot::{App, Connection};
pub use ratelimit::{DEFAULT_IPV6_PREFIX, Limit, RateLimits};
pub use state::{AppState, AuthConfig, Limits, Readiness, SharedState};

/// Builds the service: every route with its per-route middleware
/// (authentication), the hot ones also reachable without the router.
pub fn make_app(state: SharedState) -> App {
    App::new(state.clone(), make_router(state))
}

/// The router of every route.
fn make_router(state: SharedState) -> Router {
    // Every route that touches pastes knows its caller and is rate limited.
    let pastes = Router::new()
        .route("/", post(create::create))
        .route("/api/pastes", get(list::list))
        .route("/api/pastes/{id}", get(meta::metadata))
        .route("/raw/{id}", get(read::raw))
        .route("/download/{id}", get(read::download))
        .route("/{id}/reveal", post(read::reveal))
        .route("/{id}", get(read::view).delete(delete::delete))
        .route_layer(pipeline::auth::AuthLayer::new(state.clone()));
    // Pages that work for anonymous browsers under any policy (they offer
    // sign-in) and resolve a session themselves; limited by client IP.
    // Signing in and out count against that bucket in their handlers.
    let pages = Router::new()
        .route("/", get(create::form))
        .route("/new", get(create::form))
        .route("/signin", get(session::form))
        .route("/my", get(my::my))
        .route_layer(axum::middleware::from_fn_with_state(
            state.clone(),
            pipeline::auth::limit_pages,
        ));
    Router::new()
        .merge(pastes)
        .merge(pages)
        .route("/signin", post(session::signin))
        .route("/signout", post(session::signout))
        .merge(admin::routes())
        .merge(ops::routes(state.metrics_on_main))
        .route("/assets/{file}", get(render::assets::serve))
        .fallback(ops::no_route)
        .with_state(state.clone())
        .layer(FinishLayer::new(state))
}
