//! Authentication as a layer: deciding who is calling (the tenant behind a
//! bearer token or a browser's session cookie, checked by
//! [`crate::http::credentials`], or an anonymous client known by its IP,
//! resolved behind trusted proxies by the response layer,
//! [`super::finish::FinishLayer`]) and the rate limit that applies to them.
//!
//! [`decide_now`] and [`decide`] establish the [`Caller`] and count the
//! request against its bucket; the hot routes call them directly
//! ([`super::hot`]), and [`Authenticate`], the layer over every routed paste
//! route, leaves their [`Caller`] in the request's extensions. A request with
//! a bad token is refused (`401`), never downgraded to anonymous, so a
//! revoked token cannot keep reading. [`limit_pages`] rate limits the page
//! routes by client IP alone.

use std::convert::Infallible;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use tower::Service;

use crate::http::api_error::ApiError;
use crate::http::context::session_cookie::{
    carries_session_cookie, clear_session_cookie, session_cookie,
};
use crate::http::context::{AnonymousPolicy, Caller, Origin};
use crate::http::credentials::{self, Asked};
use crate::http::forwarded;
use crate::http::ratelimit::Verdict;
use crate::http::state::SharedState;
use crate::metrics::Bucket;
use crate::store::StoreError;

/// Adds authentication ([`Authenticate`]) to every route it wraps.
#[derive(Clone)]
pub struct AuthLayer {
    state: SharedState,
}

impl AuthLayer {
    /// The layer, deciding with `state`'s tokens, rate limits and proxy settings.
    pub fn new(state: SharedState) -> Self {
        Self { state }
    }
}

impl<S> tower::Layer<S> for AuthLayer {
    type Service = Authenticate<S>;

    fn layer(&self, inner: S) -> Authenticate<S> {
        Authenticate {
            inner,
            state: self.state.clone(),
        }
    }
}

/// Establishes the [`Caller`] (left in the request's extensions), applies
/// rate limits to it or to the client IP of the request's
/// [`Origin`], and adds the `RateLimit-*` headers to the answer.
///
/// A hand-written service rather than `axum::middleware::from_fn`, because
/// most requests need no waiting: an anonymous request with in-process rate
/// buckets is decided at once, and its future is a plain struct around the
/// route's. Only token lookups and buckets shared through the store take the
/// boxed, asynchronous path.
#[derive(Clone)]
pub struct Authenticate<S> {
    inner: S,
    state: SharedState,
}

impl<S> Service<Request> for Authenticate<S>
where
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Authenticated<S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        let client = client_of(&self.state, &mut request);
        match decide_now(&self.state, client, request.headers()) {
            Some(Ok((caller, verdict))) => {
                request.extensions_mut().insert(caller);
                Authenticated::Admitted {
                    inner: self.inner.call(request),
                    verdict,
                }
            }
            Some(Err(refusal)) => Authenticated::Refused {
                response: Some(refusal),
            },
            None => {
                // The tower idiom: the clone that was made ready is the one called.
                let clone = self.inner.clone();
                let inner = std::mem::replace(&mut self.inner, clone);
                let state = self.state.clone();
                Authenticated::Waiting {
                    future: Box::pin(authenticate(state, client, request, inner)),
                }
            }
        }
    }
}

pin_project_lite::pin_project! {
    /// The future of [`Authenticate`].
    #[project = State]
    pub enum Authenticated<F> {
        /// Decided at once and let through: the route's own future.
        Admitted { #[pin] inner: F, verdict: Verdict },
        /// Decided at once and refused.
        Refused { response: Option<Response> },
        /// Waiting on the store (a token, or shared rate buckets), then the route.
        Waiting { future: futures_util::future::BoxFuture<'static, Response> },
    }
}

impl<F> Future for Authenticated<F>
where
    F: Future<Output = Result<Response, Infallible>>,
{
    type Output = Result<Response, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.project() {
            State::Admitted { inner, verdict } => match inner.poll(cx) {
                Poll::Ready(Ok(response)) => Poll::Ready(Ok(with_rate_headers(response, *verdict))),
                Poll::Ready(Err(never)) => match never {},
                Poll::Pending => Poll::Pending,
            },
            State::Refused { response } => Poll::Ready(Ok(response.take().unwrap_or_else(|| {
                ApiError::internal("a refusal was polled after it was answered").into_response()
            }))),
            State::Waiting { future } => future.as_mut().poll(cx).map(Ok),
        }
    }
}

/// The client's IP, from the origin the response layer decided
/// ([`super::finish`]); decided and recorded here only if the router is used
/// without that layer.
fn client_of(state: &SharedState, request: &mut Request) -> IpAddr {
    if let Some(origin) = request.extensions().get::<Origin>() {
        return origin.client;
    }
    let origin = forwarded::of_request(request, &state.auth.proxy);
    let client = origin.client;
    request.extensions_mut().insert(origin);
    client
}

/// The slow path of [`Authenticate`]: [`decide`], then the route.
async fn authenticate<S>(
    state: SharedState,
    client: IpAddr,
    mut request: Request,
    mut inner: S,
) -> Response
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    let origin = request.extensions().get::<Origin>().cloned();
    let asked = Asked {
        client,
        base_url: origin.as_ref().map(|o| state.base_url(o).into_owned()),
        method: request.method(),
        headers: request.headers(),
    };
    let (caller, verdict) = match decide(&state, &asked).await {
        Ok(admitted) => admitted,
        Err(refusal) => return refusal,
    };
    request.extensions_mut().insert(caller);
    let response = match inner.call(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    };
    with_rate_headers(response, verdict)
}

/// Who sent a request and their rate verdict, or the answer that refuses it.
pub type Decision = Result<(Caller, Verdict), Response>;

/// Decides a request from `client` without waiting, where that is possible:
/// an anonymous request with in-process rate buckets. `None` when the
/// decision needs the store (a token, or buckets shared through it): then
/// [`decide`]. Either way the request is counted against its bucket once.
pub fn decide_now(state: &SharedState, client: IpAddr, headers: &HeaderMap) -> Option<Decision> {
    if headers.contains_key(header::AUTHORIZATION) || carries_session_cookie(headers) {
        return None;
    }
    let verdict = state.rate_limits.check_ip_here(client)?;
    Some(admit(state, Caller::Anonymous, Ok(verdict)).map_err(IntoResponse::into_response))
}

/// Decides any request: looks up its token or session, then checks the
/// caller's bucket wherever it lives.
pub async fn decide(state: &SharedState, asked: &Asked<'_>) -> Decision {
    let client = asked.client;
    let caller = match credentials::caller_of(state, asked).await {
        Ok(caller) => caller,
        Err(e) => {
            // A bad token counts against the client's IP like an anonymous
            // request, so guessing tokens is as limited as anything else.
            // The client's own refusal is the answer, unless its bucket is
            // over the rate or unreadable (not the anonymous policy's 401,
            // which would hide why the credential failed).
            let verdict = state.rate_limits.check_ip_anywhere(client).await;
            return Err(match admit(state, Caller::Anonymous, verdict) {
                Err(Refusal::Error(policy)) if policy.status == StatusCode::UNAUTHORIZED => {
                    ended_session(asked, e.into_response())
                }
                Ok(_) => ended_session(asked, e.into_response()),
                Err(refusal) => refusal.into_response(),
            });
        }
    };
    let verdict = credentials::charge(state, &caller, client).await;
    admit(state, caller, verdict).map_err(IntoResponse::into_response)
}

/// Why [`admit`] refused a request.
enum Refusal {
    /// Over the rate: `429`.
    Limited { limit: u32, retry_after: Duration },
    /// Anything else, e.g. `401` or `503`.
    Error(ApiError),
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        match self {
            Self::Limited { limit, retry_after } => ApiError::rate_limited(limit, retry_after),
            Self::Error(e) => e.into_response(),
        }
    }
}

/// Lets `caller` through with its rate `verdict`, or refuses: `429` over the
/// rate, `401` for anonymous callers when the server needs a token, `503`
/// when shared buckets cannot be read.
fn admit(
    state: &SharedState,
    caller: Caller,
    verdict: Result<Verdict, StoreError>,
) -> Result<(Caller, Verdict), Refusal> {
    let verdict = verdict.map_err(|store| Refusal::Error(store.into()))?;
    if let Verdict::Limited { limit, retry_after } = verdict {
        state.metrics.rate_limited(match caller {
            Caller::Anonymous | Caller::Teamless { .. } => Bucket::Ip,
            Caller::Tenant { .. } => Bucket::Tenant,
        });
        return Err(Refusal::Limited { limit, retry_after });
    }
    if state.auth.anonymous == AnonymousPolicy::Off {
        match caller {
            Caller::Anonymous => {
                return Err(Refusal::Error(ApiError::unauthorized(
                    "this server needs a token: send Authorization: Bearer TOKEN",
                )));
            }
            Caller::Teamless { .. } => {
                return Err(Refusal::Error(ApiError::forbidden(
                    "you belong to no team on this server, and it serves only teams",
                )));
            }
            Caller::Tenant { .. } => {}
        }
    }
    Ok((caller, verdict))
}

/// Rate limits the page routes (`/`, `/new`, `/signin`, `/my`) by client IP
/// without deciding a caller: they answer anonymous browsers under every
/// `--anonymous` policy (with a sign-in offer), yet each request still
/// counts, so no route of the server is free to flood.
pub async fn limit_pages(
    axum::extract::State(state): axum::extract::State<SharedState>,
    mut request: Request,
    next: axum::middleware::Next,
) -> Response {
    let client = client_of(&state, &mut request);
    match state.rate_limits.check_ip_anywhere(client).await {
        Ok(Verdict::Limited { limit, retry_after }) => {
            state.metrics.rate_limited(Bucket::Ip);
            ApiError::rate_limited(limit, retry_after)
        }
        Ok(verdict) => with_rate_headers(next.run(request).await, verdict),
        Err(e) => ApiError::from(e).into_response(),
    }
}

/// `RateLimit-Limit` and `RateLimit-Remaining` of an admitted request.
pub fn with_rate_headers(mut response: Response, verdict: Verdict) -> Response {
    if let Verdict::Allowed { limit, remaining } = verdict {
        let headers = response.headers_mut();
        headers.insert("ratelimit-limit", HeaderValue::from(limit));
        headers.insert("ratelimit-remaining", HeaderValue::from(remaining));
    }
    response
}

/// A `401` to a request that relied on its session cookie also removes the
/// cookie, so a browser whose session ended is anonymous from the next
/// request on instead of refused everywhere.
fn ended_session(asked: &Asked<'_>, mut response: Response) -> Response {
    let secure = asked.secure();
    let by_cookie = !asked.headers.contains_key(header::AUTHORIZATION)
        && session_cookie(asked.headers, secure).is_some();
    if by_cookie
        && response.status() == StatusCode::UNAUTHORIZED
        && let Ok(cookie) = HeaderValue::from_str(&clear_session_cookie(secure))
    {
        response.headers_mut().insert(header::SET_COOKIE, cookie);
    }
    response
}
