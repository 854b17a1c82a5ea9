//! The service the server runs ([`App`]): the three hot routes (reading a
//! paste raw, viewing it, creating one) are recognised by a plain match on
//! method and path, and everything else goes through axum's router.
//!
//! Why: axum's router costs about a quarter of a raw read's CPU (matching,
//! then a cloned, boxed route service and a boxed future per layer, then
//! extractors that clone and percent-decode). A hot request skips all of
//! that but passes through the same layers ([`Finish`], [`Authenticate`]) and
//! reaches the very same handler functions, so it answers byte for byte
//! what the router would. Anything the match is unsure of (`HEAD`, an ID
//! that does not parse, percent-encoded paths, every other route) is left
//! to the router.

use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::Extension;
use axum::Router;
use axum::extract::{Path, RawQuery, Request, State};
use axum::http::Method;
use axum::response::{IntoResponse, Response};
use futures_util::future::{BoxFuture, Either};
use tower::Service;

use super::auth::{AuthLayer, Authenticate, Caller};
use super::errors::ApiError;
use super::finish::{Finish, Finishing};
use super::forwarded::Origin;
use super::{SharedState, auth, create, read};
use crate::core::PasteId;

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

/// The whole HTTP API as one tower service: hot routes first, then the router.
///
/// One `Arc` inside: hyper's tower adapter clones the service for every
/// request, and every clone of a shared `Arc` is an atomic write to a cache
/// line both cores use.
#[derive(Clone)]
pub struct App(Arc<Services>);

struct Services {
    router: Router,
    raw: Finish<Authenticate<Handler>>,
    view: Finish<Authenticate<Handler>>,
    create: Finish<Authenticate<Handler>>,
}

impl App {
    /// `router` serves everything that is not hot; the hot routes use `state`.
    pub fn new(state: SharedState, router: Router) -> Self {
        let hot = |route: HotRoute| {
            let handler = Handler {
                state: state.clone(),
                route,
            };
            let authenticated = tower::Layer::layer(&AuthLayer::new(state.clone()), handler);
            Finish::for_route(state.clone(), route.template(), authenticated)
        };
        Self(Arc::new(Services {
            raw: hot(HotRoute::Raw),
            view: hot(HotRoute::View),
            create: hot(HotRoute::Create),
            router,
        }))
    }
}

type HotFuture = Finishing<auth::Authenticated<BoxFuture<'static, Result<Response, Infallible>>>>;

impl Service<Request> for App {
    type Response = Response;
    type Error = Infallible;
    type Future = Either<HotFuture, <Router as Service<Request>>::Future>;

    /// Always ready: the router and the hot services are (none of them holds a
    /// resource that could run out).
    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let services = &self.0;
        // Each service is ready at once and called once (the tower idiom for
        // a shared service: call a clone).
        let hot = match HotRoute::of(request.method(), request.uri().path()) {
            Some(HotRoute::Raw) => &services.raw,
            Some(HotRoute::View) => &services.view,
            Some(HotRoute::Create) => &services.create,
            None => return Either::Right(services.router.clone().call(request)),
        };
        Either::Left(hot.clone().call(request))
    }
}

/// Calls a hot route's handler with the extractors the router would have built.
#[derive(Clone)]
struct Handler {
    state: SharedState,
    route: HotRoute,
}

impl Service<Request> for Handler {
    type Response = Response;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let state = self.state.clone();
        // One box per route: a future is as large as its largest state, and
        // creating a paste needs far more than reading one.
        match self.route {
            HotRoute::Raw => {
                Box::pin(
                    async move { Ok(read_with(read::raw, HotRoute::Raw, state, request).await) },
                )
            }
            HotRoute::View => {
                Box::pin(
                    async move { Ok(read_with(read::view, HotRoute::View, state, request).await) },
                )
            }
            HotRoute::Create => Box::pin(async move { Ok(create(state, request).await) }),
        }
    }
}

/// The caller and origin the layers left (`Authenticate`, `Finish`), as the
/// router's `Extension` extractors give them; without them (which those
/// layers rule out) the router would answer 500 too.
fn extensions(request: &Request) -> Option<(Extension<Caller>, Extension<Origin>)> {
    let extensions = request.extensions();
    let caller = extensions.get::<Caller>()?.clone();
    let origin = extensions.get::<Origin>()?.clone();
    Some((Extension(caller), Extension(origin)))
}

/// Calls a read handler (`read::raw`, `read::view`) as the router would.
async fn read_with<H, F>(
    handler: H,
    route: HotRoute,
    state: SharedState,
    request: Request,
) -> Response
where
    H: FnOnce(State<SharedState>, Extension<Caller>, Extension<Origin>, Path<String>, Request) -> F,
    F: Future<Output = Result<Response, ApiError>>,
{
    let Some((caller, origin)) = extensions(&request) else {
        return ApiError::internal().into_response();
    };
    let id = Path(route.id(request.uri().path()).to_owned());
    handler(State(state), caller, origin, id, request)
        .await
        .into_response()
}

async fn create(state: SharedState, mut request: Request) -> Response {
    let Some((caller, origin)) = extensions(&request) else {
        return ApiError::internal().into_response();
    };
    let query = RawQuery(request.uri().query().map(str::to_owned));
    let headers = std::mem::take(request.headers_mut());
    let body = request.into_body();
    create::create(State(state), caller, origin, query, headers, body)
        .await
        .into_response()
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
