//! The service the server runs ([`App`], one [`Connection`] of it per TCP
//! connection): the three hot routes (reading a paste raw, viewing it,
//! creating one) are recognised by a plain match on method and path and
//! served by one async function each; everything else goes through axum's
//! router.
//!
//! Why: axum's router costs about a quarter of a raw read's CPU (matching,
//! then a cloned, boxed route service and a boxed future per layer, then
//! extractors that clone and percent-decode), and the tower layers around
//! it pass what they decide (the origin, the caller) through the request's
//! extensions, a hash map of boxes. A hot request is served by [`serve`],
//! which calls the very functions those layers and handlers call
//! ([`Exchange`] for the response layer, [`auth::decide_now`] and
//! [`auth::decide`] for authentication, `read::answer_*` and
//! `create::create` for the handlers) and hands their results on directly,
//! so it answers byte for byte what the router would (a test compares the
//! two). Anything the match is unsure of (`HEAD`, an ID that does not
//! parse, percent-encoded paths, every other route) is left to the router.

use std::convert::Infallible;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::Extension;
use axum::Router;
use axum::body::Body;
use axum::extract::{ConnectInfo, RawQuery, Request, State};
use axum::http::Method;
use axum::response::{IntoResponse, Response};
use futures_util::future::{BoxFuture, Either};
use hyper::body::Incoming;
use tower::Service;

use super::auth::{self, Caller};
use super::finish::Exchange;
use super::forwarded::Origin;
use super::{SharedState, create, read};
use crate::core::PasteId;
use crate::metrics::RouteId;

/// A route served without the router, with its template (the metrics and log label).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HotRoute {
    /// `GET /raw/{id}`.
    Raw,
    /// `GET /{id}`.
    View,
    /// `POST /`.
    Create,
}

impl HotRoute {
    /// The hot route of a request, if it is one. `/{id}` is taken only for a
    /// well-formed paste ID, so it never shadows a fixed route such as
    /// `/healthz` (a test checks every route of the API document).
    fn of(method: &Method, path: &str) -> Option<Self> {
        let route = match *method {
            Method::GET if path.starts_with("/raw/") => Self::Raw,
            Method::GET => Self::View,
            Method::POST if path == "/" => return Some(Self::Create),
            _ => return None,
        };
        PasteId::check(route.id(path)).is_ok().then_some(route)
    }

    /// The ID segment of a path of this route, as the router's `Path` would
    /// give it: a hot one is a well-formed ID, which needs no percent-decoding.
    fn id(self, path: &str) -> &str {
        let prefix = match self {
            Self::Raw => "/raw/",
            Self::View | Self::Create => "/",
        };
        path.strip_prefix(prefix).unwrap_or_default()
    }

    fn template(self) -> &'static str {
        match self {
            Self::Raw => "/raw/{id}",
            Self::View => "/{id}",
            Self::Create => "/",
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
    /// The metrics' IDs of the hot routes, in `HotRoute` order.
    routes: [RouteId; 3],
}

impl App {
    /// `router` serves everything that is not hot; the hot routes use `state`.
    pub fn new(state: SharedState, router: Router) -> Self {
        let route = |hot: HotRoute| state.metrics.route(Some(hot.template()));
        let routes = [
            route(HotRoute::Raw),
            route(HotRoute::View),
            route(HotRoute::Create),
        ];
        Self(Arc::new(Services {
            state,
            router,
            routes,
        }))
    }

    /// The service of one connection from `peer`.
    pub fn connection(self, peer: SocketAddr) -> Connection {
        Connection { app: self, peer }
    }
}

/// [`App`] serving one connection: hyper calls it for each of the
/// connection's requests.
#[derive(Clone)]
pub struct Connection {
    app: App,
    peer: SocketAddr,
}

/// The future of a request on a hot route.
type HotFuture = BoxFuture<'static, Result<Response, Infallible>>;

impl hyper::service::Service<hyper::Request<Incoming>> for Connection {
    type Response = Response;
    type Error = Infallible;
    type Future = Either<HotFuture, <Router as Service<Request>>::Future>;

    fn call(&self, request: hyper::Request<Incoming>) -> Self::Future {
        let mut request = request.map(Body::new);
        let services = &self.app.0;
        let Some(route) = HotRoute::of(request.method(), request.uri().path()) else {
            // The router's layers find the peer here (`forwarded::peer_of`).
            request.extensions_mut().insert(ConnectInfo(self.peer));
            // A router is always ready, and each clone is called once.
            return Either::Right(services.router.clone().call(request));
        };
        let state = services.state.clone();
        let id = services.routes[route as usize];
        Either::Left(Box::pin(serve(state, route, id, self.peer.ip(), request)))
    }
}

/// Serves a hot request from `peer` as the router's layers and handler
/// would: begin the exchange, decide the caller, answer, end the exchange.
async fn serve(
    state: SharedState,
    route: HotRoute,
    id: RouteId,
    peer: IpAddr,
    request: Request,
) -> Result<Response, Infallible> {
    let (exchange, origin) = Exchange::begin(&state, &request, Some(id), peer);
    let decision = match auth::decide_now(&state, origin.client, request.headers()) {
        Some(decision) => decision,
        None => auth::decide(&state, origin.client, request.headers()).await,
    };
    let response = match decision {
        Ok((caller, verdict)) => {
            let response = answer(&state, route, caller, origin, request).await;
            auth::with_rate_headers(response, verdict)
        }
        Err(refusal) => refusal,
    };
    Ok(exchange.end(&state, response))
}

/// The hot route's handler, for an admitted `caller`.
async fn answer(
    state: &SharedState,
    route: HotRoute,
    caller: Caller,
    origin: Origin,
    mut request: Request,
) -> Response {
    let id = route.id(request.uri().path());
    match route {
        HotRoute::Raw => read::answer_raw(state, &caller, &origin, id, request.headers())
            .await
            .into_response(),
        HotRoute::View => read::answer_view(state, &caller, &origin, id, request.headers())
            .await
            .into_response(),
        HotRoute::Create => {
            let query = RawQuery(request.uri().query().map(str::to_owned));
            let headers = std::mem::take(request.headers_mut());
            let body = request.into_body();
            // Boxed: creating a paste needs a far larger future than reading
            // one, and the reads should not carry its size.
            let create = create::create(
                State(state.clone()),
                Extension(caller),
                Extension(origin),
                query,
                headers,
                body,
            );
            Box::pin(create).await.into_response()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::openapi;

    /// No fixed route of the API is ever taken for a hot one: the hot `/{id}`
    /// would otherwise shadow it.
    #[test]
    fn hot_routes_never_shadow_fixed_routes() {
        for template in openapi::route_templates() {
            if template.contains('{') {
                continue;
            }
            for method in [Method::GET, Method::POST] {
                let hot = HotRoute::of(&method, template);
                let expected =
                    (template == "/" && method == Method::POST).then_some(HotRoute::Create);
                assert_eq!(hot, expected, "{method} {template}");
            }
        }
    }

    #[test]
    fn recognises_only_well_formed_ids() {
        let id = PasteId::generate(12).unwrap();
        let id = id.as_str();
        let (raw, view) = (format!("/raw/{id}"), format!("/{id}"));
        assert_eq!(HotRoute::of(&Method::GET, &raw), Some(HotRoute::Raw));
        assert_eq!(HotRoute::Raw.id(&raw), id);
        assert_eq!(HotRoute::of(&Method::GET, &view), Some(HotRoute::View));
        assert_eq!(HotRoute::View.id(&view), id);
        // Everything unsure goes to the router.
        for path in [
            format!("/raw/{id}/"),
            format!("/{id}/reveal"),
            format!("//{id}"),
            format!("/%32{}", &id[1..]),
            "/raw/".to_owned(),
            "/".to_owned(),
        ] {
            assert_eq!(HotRoute::of(&Method::GET, &path), None, "{path}");
        }
        assert_eq!(HotRoute::of(&Method::HEAD, &format!("/{id}")), None);
        assert_eq!(HotRoute::of(&Method::DELETE, &format!("/{id}")), None);
        assert_eq!(HotRoute::of(&Method::PUT, "/"), None);
    }
}
