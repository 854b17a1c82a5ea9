//! The service the server runs ([`App`], one [`Connection`] of it per TCP
//! connection): the hot routes, those the route table (`crate::http::routes`)
//! marks [`Fast`] (reading a paste or one of its files raw, creating one), are
//! recognised by matching method and path against their [`FastRoute`]s and
//! served by one function, `serve`; everything else goes through axum's
//! router. Without fast routes (`snip serve --no-fast-path`), the router
//! serves everything.
//!
//! Why: axum's router is a large share of a raw read's work (matching, then
//! a cloned, boxed route service and a boxed future per layer, then
//! extractors that clone and percent-decode), and the tower layers around
//! it pass what they decide (the origin, the caller) through the request's
//! extensions, a hash map of boxes. A hot request is served by `serve`,
//! which calls the very functions those layers and handlers call
//! ([`Exchange`] for the response layer, [`auth::decide_now`] and
//! [`auth::decide`] for authentication, `read::answer_*` and
//! `create::answer_create` for the handlers) and hands their results on
//! directly, so it answers byte for byte what the router would
//! (`tests/it/fast_path.rs` compares the two on every route). Anything the match is unsure of (`HEAD`, an ID that does not
//! parse, percent-encoded paths, every other route) is left to the router.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::Method;
use axum::response::{IntoResponse, Response};
use futures_util::future::{BoxFuture, Either};
use hyper::body::Incoming;
use tower::Service;

use super::auth;
use super::finish::Exchange;
use crate::core::PasteId;
use crate::http::context::{Caller, Origin};
use crate::http::credentials;
use crate::http::forwarded::Peer;
use crate::http::handlers::read::PasteRead;
use crate::http::handlers::{create, read};
use crate::http::state::SharedState;
use crate::metrics::RouteId;

/// How the fast path serves one of its routes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fast {
    /// A paste read raw (a template ending in `{id}`).
    Raw,
    /// One file of a paste read raw (a template ending in `{id}/{name}`).
    RawFile,
    /// A paste created (a template without parameters).
    Create,
}

/// A route the fast path serves, as the route table
/// (`crate::http::routes`) lists it.
#[derive(Debug, Clone)]
pub struct FastRoute {
    pub method: Method,
    /// Its path template: fixed, or ending in `{id}`.
    pub template: &'static str,
    pub fast: Fast,
}

/// A request served without the router: its route and, for a read, the
/// paste's ID (parsed once, here).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Hot {
    Raw(PasteId),
    /// A file name that needs no percent-decoding.
    RawFile(PasteId, String),
    Create,
}

impl FastRoute {
    /// The hot request of `method` and `path`, if it is this route's. A
    /// template's `{id}` is taken only for a well-formed paste ID, so
    /// `/{id}` never shadows a fixed route such as `/healthz` (a test checks
    /// every route of the table), and a well-formed ID needs no
    /// percent-decoding. A template that does not fit its [`Fast`] matches
    /// nothing: the router serves its requests.
    pub fn hot(&self, method: &Method, path: &str) -> Option<Hot> {
        if *method != self.method {
            return None;
        }
        match (self.fast, self.template.strip_suffix("{id}")) {
            (Fast::Raw, Some(prefix)) => {
                Some(Hot::Raw(PasteId::parse(path.strip_prefix(prefix)?).ok()?))
            }
            (Fast::Create, None) if path == self.template => Some(Hot::Create),
            (Fast::RawFile, None) => {
                let prefix = self.template.strip_suffix("{id}/{name}")?;
                let (id, name) = path.strip_prefix(prefix)?.split_once('/')?;
                // Anything to decode, or not a plain name, is the router's.
                if name.is_empty() || name.contains(['%', '/']) {
                    return None;
                }
                Some(Hot::RawFile(PasteId::parse(id).ok()?, name.to_owned()))
            }
            _ => None,
        }
    }
}

/// The whole HTTP API: hot routes first, then the router.
///
/// One `Arc` inside: it is cloned for every connection, and every clone of
/// a shared `Arc` is an atomic write to a cache line both cores use.
#[derive(Clone)]
pub struct App(Arc<Services>);

struct Services {
    state: SharedState,
    router: Router,
    /// The routes served without the router, each with its metrics' ID.
    fast: Vec<(FastRoute, RouteId)>,
}

impl App {
    /// `router` serves everything that is not one of the `fast` routes;
    /// those use `state`. With no `fast` routes, the router serves all.
    pub fn new(state: SharedState, router: Router, fast: Vec<FastRoute>) -> Self {
        let fast = fast
            .into_iter()
            .map(|route| {
                let id = state.metrics.route(Some(route.template));
                (route, id)
            })
            .collect();
        Self(Arc::new(Services {
            state,
            router,
            fast,
        }))
    }

    /// The service of one connection from `peer`.
    pub fn connection(self, peer: Peer) -> Connection {
        Connection { app: self, peer }
    }
}

/// [`App`] serving one connection: hyper calls it for each of the
/// connection's requests.
#[derive(Clone)]
pub struct Connection {
    app: App,
    peer: Peer,
}

/// The future of a request on a hot route.
type HotFuture = BoxFuture<'static, Result<Response, Infallible>>;

impl hyper::service::Service<hyper::Request<Incoming>> for Connection {
    type Response = Response;
    type Error = Infallible;
    type Future = Either<HotFuture, <Router as Service<Request>>::Future>;

    fn call(&self, request: hyper::Request<Incoming>) -> Self::Future {
        let services = &self.app.0;
        let (method, path) = (request.method(), request.uri().path());
        let found = services
            .fast
            .iter()
            .find_map(|(fast, route)| Some((fast.hot(method, path)?, *route)));
        let Some((hot, route)) = found else {
            return Either::Right(route(&services.router, self.peer, request));
        };
        let state = services.state.clone();
        Either::Left(Box::pin(serve(state, hot, route, self.peer, request)))
    }
}

/// Sends a request from `peer` to `router`, with the peer in its
/// extensions, where the router's layers find it (`forwarded::peer_in`).
pub fn route(
    router: &Router,
    peer: Peer,
    request: hyper::Request<Incoming>,
) -> <Router as Service<Request>>::Future {
    let mut request = request.map(Body::new);
    request.extensions_mut().insert(peer);
    // A router is always ready, and each clone is called once.
    router.clone().call(request)
}

/// Serves a hot request from `peer` as the router's layers and handler
/// would: begin the exchange, decide the caller, answer, end the exchange.
///
/// An `async` block rather than an `async fn`: an `async fn`'s future holds
/// its arguments twice (rust-lang/rust#62958), and this future is moved
/// into its allocation on every request.
#[allow(
    clippy::manual_async_fn,
    reason = "an async fn would store the arguments twice"
)]
fn serve(
    state: SharedState,
    hot: Hot,
    route: RouteId,
    peer: Peer,
    request: hyper::Request<Incoming>,
) -> impl Future<Output = Result<Response, Infallible>> + Send {
    async move {
        let (exchange, origin) = Exchange::begin(&state, &request, Some(route), peer);
        let decision = match auth::decide_now(&state, origin.client, request.headers()) {
            Some(decision) => decision,
            // Boxed, like a create: most requests are decided at once, and
            // every request's future would otherwise carry this one's size.
            None => {
                let asked = credentials::Asked {
                    client: origin.client,
                    base_url: Some(state.base_url(&origin).into_owned()),
                    method: request.method(),
                    headers: request.headers(),
                };
                Box::pin(auth::decide(&state, &asked)).await
            }
        };
        let response = match decision {
            Ok((caller, verdict)) => {
                let response = match hot {
                    Hot::Raw(id) => {
                        let read = PasteRead { caller, origin, id };
                        read::answer_raw(&state, &read, request.headers())
                            .await
                            .into_response()
                    }
                    Hot::RawFile(id, name) => {
                        let read = PasteRead { caller, origin, id };
                        read::readable_file(&state, &read, &name, request.headers())
                            .await
                            .into_response()
                    }
                    Hot::Create => create(&state, caller, origin, request).await,
                };
                auth::with_rate_headers(response, verdict)
            }
            Err(refusal) => refusal,
        };
        Ok(exchange.end(&state, response))
    }
}

/// A create, boxed: its future is far larger than a read's, and every hot
/// request's future would otherwise carry that size. The box
/// holds an `async` block that calls the handler, so the handler's future
/// is made in place there, never moved.
fn create(
    state: &SharedState,
    caller: Caller,
    origin: Origin,
    request: hyper::Request<Incoming>,
) -> BoxFuture<'static, Response> {
    let state = state.clone();
    Box::pin(async move {
        // Only a create reads the body: the reads never box it.
        let (parts, body) = request.into_parts();
        let query = parts.uri.query();
        let body = Body::new(body);
        create::answer_create(&state, &caller, &origin, query, &parts.headers, body).await
    })
}
