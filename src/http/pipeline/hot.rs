//! The service the server runs ([`App`], one [`Connection`] of it per TCP
//! connection): the three hot routes (reading a paste raw, viewing it,
//! creating one) are recognised by a plain match on method and path and
//! served by one function, `serve`; everything else goes through axum's
//! router.
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
//! directly, so it answers byte for byte what the router would (a test
//! compares the two). Anything the match is unsure of (`HEAD`, an ID that does not
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

/// A request served without the router: its route and, for a read, the
/// paste's ID (parsed once, here).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Hot {
    /// `GET /raw/{id}`.
    Raw(PasteId),
    /// `GET /{id}`.
    View(PasteId),
    /// `POST /`.
    Create,
}

/// The route templates of [`Hot`] requests (the metrics and log labels), in
/// the order of [`Hot::index`].
const TEMPLATES: [&str; 3] = ["/raw/{id}", "/{id}", "/"];

impl Hot {
    /// The hot request of `method` and `path`, if it is one. `/{id}` is
    /// taken only for a well-formed paste ID, so it never shadows a fixed
    /// route such as `/healthz` (a test checks every route of the API
    /// document), and a well-formed ID needs no percent-decoding.
    fn of(method: &Method, path: &str) -> Option<Self> {
        let (prefix, read): (_, fn(PasteId) -> Self) = match *method {
            Method::GET if path.starts_with("/raw/") => ("/raw/", Self::Raw),
            Method::GET => ("/", Self::View),
            Method::POST if path == "/" => return Some(Self::Create),
            _ => return None,
        };
        let id = PasteId::parse(path.strip_prefix(prefix)?).ok()?;
        Some(read(id))
    }

    /// The position of the route's template in [`TEMPLATES`].
    fn index(&self) -> usize {
        match self {
            Self::Raw(_) => 0,
            Self::View(_) => 1,
            Self::Create => 2,
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
    /// The metrics' IDs of [`TEMPLATES`].
    routes: [RouteId; 3],
}

impl App {
    /// `router` serves everything that is not hot; the hot routes use `state`.
    pub fn new(state: SharedState, router: Router) -> Self {
        let routes = TEMPLATES.map(|template| state.metrics.route(Some(template)));
        Self(Arc::new(Services {
            state,
            router,
            routes,
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
        let Some(hot) = Hot::of(request.method(), request.uri().path()) else {
            return Either::Right(route(&services.router, self.peer, request));
        };
        let state = services.state.clone();
        let route = services.routes[hot.index()];
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
                    Hot::View(id) => {
                        let read = PasteRead { caller, origin, id };
                        read::answer_view(&state, &read, request.headers())
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::handlers::openapi;

    /// No fixed route of the API is ever taken for a hot one: the hot `/{id}`
    /// would otherwise shadow it.
    #[test]
    fn hot_routes_never_shadow_fixed_routes() {
        for template in openapi::route_templates() {
            if template.contains('{') {
                continue;
            }
            for method in [Method::GET, Method::POST] {
                let hot = Hot::of(&method, template);
                let expected = (template == "/" && method == Method::POST).then_some(Hot::Create);
                assert_eq!(hot, expected, "{method} {template}");
            }
        }
    }

    #[test]
    fn recognises_only_well_formed_ids() {
        let id = PasteId::generate(12).unwrap();
        let id = id.as_str();
        let (raw, view) = (format!("/raw/{id}"), format!("/{id}"));
        let parsed = PasteId::parse(id).unwrap();
        assert_eq!(Hot::of(&Method::GET, &raw), Some(Hot::Raw(parsed.clone())));
        assert_eq!(
            Hot::of(&Method::GET, &view),
            Some(Hot::View(parsed.clone()))
        );
        // IDs are case-insensitive on input.
        let upper = format!("/raw/{}", id.to_ascii_uppercase());
        assert_eq!(Hot::of(&Method::GET, &upper), Some(Hot::Raw(parsed)));
        // Everything unsure goes to the router.
        for path in [
            format!("/raw/{id}/"),
            format!("/{id}/reveal"),
            format!("//{id}"),
            format!("/%32{}", &id[1..]),
            "/raw/".to_owned(),
            "/".to_owned(),
        ] {
            assert_eq!(Hot::of(&Method::GET, &path), None, "{path}");
        }
        assert_eq!(Hot::of(&Method::HEAD, &format!("/{id}")), None);
        assert_eq!(Hot::of(&Method::DELETE, &format!("/{id}")), None);
        assert_eq!(Hot::of(&Method::PUT, "/"), None);
    }
}
