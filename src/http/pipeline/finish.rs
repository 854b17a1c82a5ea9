//! What every request and response passes through, as an [`Exchange`]: on
//! the way in it decides the request's [`Origin`] (client IP,
//! scheme, host); on the way out, errors are rendered for what the client
//! accepts, then the security headers are added (a handler's own value, e.g.
//! the raw CSP, wins), then an error's fault on the server's side is logged
//! (the one place it is: [`crate::http::api_error::Fault`]), then the
//! request's metrics and log line ([`super::observe`]).
//! The hot routes use [`Exchange`] directly ([`super::hot`]); the router's
//! routes get it from the [`Finish`] layer, which leaves the origin in the
//! request's extensions.
//!
//! A hand-written tower layer rather than `axum::middleware::from_fn`: its
//! future is a plain struct, so the read path pays no boxed future and no
//! cloned, boxed inner service for it (`from_fn` costs both on every
//! request). It is added with `Router::layer`, so it runs after routing and
//! sees the matched route's template.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::extract::Request;
use axum::http::header;
use axum::response::Response;
use tower::Service;

use super::observe::Probe;
use crate::http::api_error::ApiError;
use crate::http::context::Origin;
use crate::http::forwarded;
use crate::http::render::error_answer::{self, PageOf};
use crate::http::render::language;
use crate::http::render::negotiate::{self, Accepts};
use crate::http::render::security_headers::SECURITY_HEADERS;
use crate::http::state::SharedState;
use crate::metrics::RouteId;

/// Adds [`Finish`] to every route.
#[derive(Clone)]
pub struct FinishLayer {
    state: SharedState,
}

impl FinishLayer {
    /// The layer, recording into `state`'s metrics.
    pub fn new(state: SharedState) -> Self {
        Self { state }
    }
}

impl<S> tower::Layer<S> for FinishLayer {
    type Service = Finish<S>;

    fn layer(&self, inner: S) -> Finish<S> {
        Finish {
            inner,
            state: self.state.clone(),
        }
    }
}

/// Wraps a route so that every response is finished.
#[derive(Clone)]
pub struct Finish<S> {
    inner: S,
    state: SharedState,
}

impl<S> Service<Request> for Finish<S>
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Finishing<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        let (exchange, origin) = Exchange::begin(
            &self.state,
            &request,
            None,
            forwarded::peer_in(request.extensions()),
        );
        request.extensions_mut().insert(origin);
        Finishing {
            inner: self.inner.call(request),
            finish: Some((exchange, self.state.clone())),
        }
    }
}

/// One request on its way through [`Finish`] (or the hot routes' equivalent,
/// [`super::hot`]): begun when it arrives, ended with its response.
pub struct Exchange {
    wants: Accepts,
    /// For a browser, what an error page needs of the request.
    page: PageOf,
    probe: Probe,
}

impl Exchange {
    /// Begins `request` from `peer`: decides its [`Origin`] (the one
    /// place it is decided; the log line, the authentication and the handlers
    /// all use this) and starts timing. `route` is given for a route served
    /// outside the router.
    pub fn begin<B>(
        state: &SharedState,
        request: &axum::http::Request<B>,
        route: Option<RouteId>,
        peer: forwarded::Peer,
    ) -> (Self, Origin) {
        let wants = negotiate::accepts(request.headers());
        let page = match wants {
            Accepts::Html => PageOf {
                lang: language::of_request(request.headers()),
                here: request
                    .uri()
                    .path_and_query()
                    .map_or("/", |p| p.as_str())
                    .to_owned(),
            },
            _ => PageOf::default(),
        };
        let origin = forwarded::of_peer(peer, request.headers(), &state.auth.proxy);
        let probe = Probe::start(state, request, route, origin.client);
        (Self { wants, page, probe }, origin)
    }

    /// Finishes `response` (error rendering, security headers), logs the
    /// server's fault behind an error answer, if any, records the request in
    /// the metrics and logs the request line.
    pub fn end(self, state: &SharedState, response: Response) -> Response {
        if let Some(fault) = response
            .extensions()
            .get::<ApiError>()
            .and_then(|error| error.fault.as_ref())
        {
            fault.log(
                response.status(),
                state.metrics.route_label(self.probe.route()),
            );
        }
        let mut response = finish(self.wants, response, &state.site.name, &self.page);
        if let Some(hsts) = &state.hsts {
            response
                .headers_mut()
                .insert(header::STRICT_TRANSPORT_SECURITY, hsts.clone());
        }
        self.probe.finish(state, &response);
        response
    }
}

pin_project_lite::pin_project! {
    /// The future of [`Finish`]: the inner response, then [`finish`].
    pub struct Finishing<F> {
        #[pin]
        inner: F,
        // Taken when the response is ready (a future is not polled again after that).
        finish: Option<(Exchange, SharedState)>,
    }
}

impl<F> Future for Finishing<F>
where
    F: Future<Output = Result<Response, Infallible>>,
{
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        match this.inner.poll(cx) {
            Poll::Ready(Ok(response)) => Poll::Ready(Ok(match this.finish.take() {
                Some((exchange, state)) => exchange.end(&state, response),
                None => response,
            })),
            Poll::Ready(Err(never)) => match never {},
            Poll::Pending => Poll::Pending,
        }
    }
}

/// Renders an error for `wants` (a page showing `site`, the instance's
/// name, in the reader's language), marks a page as varying by language
/// and adds the security headers.
fn finish(wants: Accepts, response: Response, site: &str, page: &PageOf) -> Response {
    let mut response = error_answer::render_for(wants, response, site, page);
    if wants == Accepts::Html {
        language::vary_by_language(&mut response);
    }
    let headers = response.headers_mut();
    // Only answers built with all of `SECURITY_HEADERS` (the raw answers)
    // carry these two: two lookups then instead of four. An error page
    // drops its CSP for the page's own, so it still gets the loop.
    if headers.contains_key(header::X_CONTENT_TYPE_OPTIONS)
        && headers.contains_key(header::CONTENT_SECURITY_POLICY)
    {
        return response;
    }
    for (name, value) in SECURITY_HEADERS {
        // One lookup: a handler's own value (the raw CSP) is kept.
        headers.entry(name).or_insert(value);
    }
    response
}
