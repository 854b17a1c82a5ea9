//! Authentication: deciding who is calling, the tenant behind a bearer token
//! or a browser's session cookie ([`SESSION_COOKIE`]), or an anonymous client known by its IP (resolved, honouring trusted
//! proxies, by the response layer, [`super::finish::FinishLayer`]), and the
//! rate limit that applies to them; and the admin token's check.
//!
//! [`decide_now`] and [`decide`] establish the [`Caller`] and count the
//! request against its bucket; the hot routes call them directly
//! ([`super::hot`]), and [`Authenticate`], the layer over every routed paste
//! route, leaves their [`Caller`] in the request's extensions. A request with
//! a bad token is refused (`401`), never downgraded to anonymous, so a
//! revoked token cannot keep reading.
//!
//! A session resolves to its token through the same lookup a bearer token
//! takes, so revoking the token (or deleting its tenant) ends every session
//! opened with it at the next request, on every instance. Any request that
//! is not a `GET` or `HEAD` and carries the cookie must come from the
//! server's own pages (`Sec-Fetch-Site: same-origin`, or an `Origin` equal to
//! the server's): a cookie is sent by the browser on its own, a bearer token
//! is not, so only the cookie needs this guard against cross-site requests.

use std::convert::Infallible;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::extract::{FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;
use tower::Service;

use super::caller::{AnonymousPolicy, Caller};
use super::forwarded;
use super::ratelimit::{Limit, Verdict};
use crate::core::paste::{self, hash_token};
use crate::core::tenant::{Authority, Tenant};
use crate::http::api_error::{ApiError, ErrorCode};
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
/// [`forwarded::Origin`], and adds the `RateLimit-*` headers to the answer.
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
    if let Some(origin) = request.extensions().get::<forwarded::Origin>() {
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
    let origin = request.extensions().get::<forwarded::Origin>().cloned();
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

/// What [`decide`] looks at in a request.
pub struct Asked<'a> {
    /// The client's IP, whose bucket anonymous and failed requests count against.
    pub client: IpAddr,
    /// The server's own origin as this request sees it (`scheme://host`), for
    /// the cross-site check of cookie requests; the `Host` header's without it.
    pub base_url: Option<String>,
    /// The request's method.
    pub method: &'a Method,
    /// The request's headers.
    pub headers: &'a HeaderMap,
}

impl Asked<'_> {
    /// Whether the browser reached the server over HTTPS, which names the
    /// session cookie ([`session_cookie_name`]).
    fn secure(&self) -> bool {
        self.base_url
            .as_deref()
            .is_some_and(|url| url.starts_with("https://"))
    }
}

/// Decides any request: looks up its token or session, then checks the
/// caller's bucket wherever it lives.
pub async fn decide(state: &SharedState, asked: &Asked<'_>) -> Decision {
    let client = asked.client;
    let caller = match caller(state, asked).await {
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
    let verdict = charge(state, &caller, client).await;
    admit(state, caller, verdict).map_err(IntoResponse::into_response)
}

/// Counts one request against the caller's bucket: its tenant's, or its IP's.
async fn charge(
    state: &SharedState,
    caller: &Caller,
    client: IpAddr,
) -> Result<Verdict, StoreError> {
    match caller {
        Caller::Anonymous => state.rate_limits.check_ip_anywhere(client).await,
        Caller::Tenant { tenant, .. } => {
            let own = tenant.rate.map(|rate| Limit::new(rate, tenant.burst));
            state
                .rate_limits
                .check_tenant_anywhere(&tenant.name, own)
                .await
        }
    }
}

/// Counts a wrong proof of key against the bucket of the caller (its
/// tenant's, or its IP's), on top of the request itself: each wrong guess
/// costs twice, so a guesser is throttled sooner than a reader.
pub async fn charge_wrong_guess(state: &SharedState, caller: &Caller, client: IpAddr) {
    // The answer is already decided (`403`); only the count matters here.
    let _ = charge(state, caller, client).await;
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
            Caller::Anonymous => Bucket::Ip,
            Caller::Tenant { .. } => Bucket::Tenant,
        });
        return Err(Refusal::Limited { limit, retry_after });
    }
    if matches!(caller, Caller::Anonymous) && state.auth.anonymous == AnonymousPolicy::Off {
        return Err(Refusal::Error(ApiError::unauthorized(
            "this server needs a token: send Authorization: Bearer TOKEN",
        )));
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

/// The bearer token of a request, if it sends one. A malformed `Authorization` is an error.
fn bearer(headers: &HeaderMap) -> Result<Option<&str>, ApiError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let value = value
        .to_str()
        .map_err(|_| ApiError::unauthorized("malformed Authorization header"))?;
    match value.split_once(' ') {
        Some((scheme, token))
            if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() =>
        {
            Ok(Some(token.trim()))
        }
        _ => Err(ApiError::unauthorized(
            "Authorization must be: Bearer TOKEN",
        )),
    }
}

async fn caller(state: &SharedState, asked: &Asked<'_>) -> Result<Caller, ApiError> {
    if let Some(token) = bearer(asked.headers)? {
        return token_caller(state, &hash_token(token), None).await;
    }
    let Some(session) = session_cookie(asked.headers, asked.secure()) else {
        return Ok(Caller::Anonymous);
    };
    check_same_origin(asked)?;
    session_caller(state, session).await
}

/// The tenant behind the token whose hash is `hash`, as every bearer request
/// and every session (whose hash is `session`) resolves it.
async fn token_caller(
    state: &SharedState,
    hash: &[u8; 32],
    session: Option<[u8; 32]>,
) -> Result<Caller, ApiError> {
    let record = state
        .store
        .token(hash)
        .await?
        .ok_or_else(|| ApiError::unauthorized("unknown or revoked token"))?;
    if record.is_expired(paste::now()) {
        return Err(ApiError::unauthorized("this token has expired"));
    }
    let tenant = state
        .store
        .tenant(&record.tenant)
        .await?
        .ok_or_else(|| ApiError::unauthorized("unknown or revoked token"))?;
    Ok(Caller::Tenant {
        tenant,
        token_id: record.id,
        read_only: record.read_only,
        authority: Authority {
            token_hash: record.hash,
            session_hash: session,
        },
    })
}

/// The name of the browser session cookie over plain HTTP.
pub const SESSION_COOKIE: &str = "snip_session";

/// Its name over HTTPS. A browser keeps a `__Host-` cookie only if it is
/// `Secure`, has `Path=/` and no `Domain`, so no other host (a sibling
/// subdomain, or a plain-HTTP page on the same name) can set one and plant
/// its own session in the browser. Browsers refuse the prefix without
/// `Secure`, which plain HTTP cannot have, hence two names.
pub const SECURE_SESSION_COOKIE: &str = "__Host-snip_session";

/// The session cookie's name over HTTPS (`secure`) or plain HTTP.
pub fn session_cookie_name(secure: bool) -> &'static str {
    if secure {
        SECURE_SESSION_COOKIE
    } else {
        SESSION_COOKIE
    }
}

/// The value of the session cookie a request over HTTPS (`secure`) or plain
/// HTTP carries, if any. Over HTTPS only the `__Host-` name counts: a plain
/// one may have been planted by another host.
pub fn session_cookie(headers: &HeaderMap, secure: bool) -> Option<&str> {
    cookie(headers, session_cookie_name(secure))
}

/// Whether a request carries a session cookie of either name (it then needs
/// the store to be decided).
fn carries_session_cookie(headers: &HeaderMap) -> bool {
    cookie(headers, SESSION_COOKIE).is_some() || cookie(headers, SECURE_SESSION_COOKIE).is_some()
}

/// The non-empty value of the cookie called `name`.
fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(found, _)| *found == name)
        .map(|(_, value)| value.trim())
        .filter(|value| !value.is_empty())
}

/// The `Set-Cookie` value that sets the session cookie to `secret` for `max_age` seconds.
pub fn set_session_cookie(secret: &str, max_age: u64, secure: bool) -> String {
    format!(
        "{}={secret}; Max-Age={max_age}; Path=/; HttpOnly; SameSite=Strict{}",
        session_cookie_name(secure),
        if secure { "; Secure" } else { "" }
    )
}

/// The `Set-Cookie` value that removes the session cookie.
pub fn clear_session_cookie(secure: bool) -> String {
    set_session_cookie("", 0, secure)
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

/// Why a session cookie was refused.
const SESSION_ENDED: &str =
    "this browser session has ended (signed out, expired, or its token was revoked); sign in again";

/// The tenant of the session whose cookie value is `session`: its token,
/// looked up as a bearer token would be, so revoking it ends the session.
async fn session_caller(state: &SharedState, session: &str) -> Result<Caller, ApiError> {
    let record = state
        .store
        .session(&hash_token(session))
        .await?
        .filter(|record| !record.is_expired(paste::now()))
        .ok_or_else(|| ApiError::unauthorized(SESSION_ENDED))?;
    token_caller(state, &record.token_hash, Some(record.hash))
        .await
        .map_err(|e| match e.status {
            StatusCode::UNAUTHORIZED => ApiError::unauthorized(SESSION_ENDED),
            _ => e,
        })
}

/// The signed-in tenant of a browser page request (`GET`) over HTTPS
/// (`secure`) or plain HTTP: `None` without a session cookie, `401` for a
/// cookie whose session has ended.
pub async fn page_tenant(
    state: &SharedState,
    headers: &HeaderMap,
    secure: bool,
) -> Result<Option<(Tenant, bool)>, ApiError> {
    let Some(session) = session_cookie(headers, secure) else {
        return Ok(None);
    };
    match session_caller(state, session).await? {
        Caller::Tenant {
            tenant, read_only, ..
        } => Ok(Some((tenant, read_only))),
        Caller::Anonymous => Ok(None),
    }
}

/// Refuses a state-changing request with a session cookie that does not come
/// from the server's own pages (`403`).
pub fn check_same_origin(asked: &Asked<'_>) -> Result<(), ApiError> {
    if matches!(*asked.method, Method::GET | Method::HEAD) {
        return Ok(());
    }
    let headers = asked.headers;
    if let Some(site) = headers.get("sec-fetch-site") {
        return if site.as_bytes() == b"same-origin" {
            Ok(())
        } else {
            Err(ApiError::forbidden(
                "a request with a session cookie must come from this server's own pages (Sec-Fetch-Site is not same-origin)",
            ))
        };
    }
    let own = |origin: &str| {
        asked.base_url.as_deref() == Some(origin)
            || headers
                .get(header::HOST)
                .and_then(|host| host.to_str().ok())
                .zip(origin.split_once("://"))
                .is_some_and(|(host, (_, rest))| rest == host)
    };
    match headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) {
        Some(origin) if own(origin) => Ok(()),
        Some(_) => Err(ApiError::forbidden(
            "a request with a session cookie must come from this server's own pages (its Origin is another site)",
        )),
        None => Err(ApiError::forbidden(
            "a request with a session cookie must come from this server's own pages (it has neither Origin nor Sec-Fetch-Site)",
        )),
    }
}

/// A request that carries the admin token. As an admin handler's first
/// argument it checks the token before any other part of the request is
/// read, so an unauthorised caller learns nothing from a bad body or path.
///
/// Every request to an enabled admin API counts against its client's IP
/// bucket before the token is compared, so guessing the admin token is as
/// limited as anything else. Counting only wrong guesses would not do: a
/// guesser past the limit would still tell a right guess by its answer.
#[derive(Debug, Clone, Copy)]
pub struct AdminCaller;

impl FromRequestParts<SharedState> for AdminCaller {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &SharedState) -> Result<Self, Response> {
        if state.auth.admin_token_hash.is_some() {
            let verdict = state
                .rate_limits
                .check_ip_anywhere(client_of_parts(state, parts))
                .await
                .map_err(|e| ApiError::from(e).into_response())?;
            if let Verdict::Limited { limit, retry_after } = verdict {
                state.metrics.rate_limited(Bucket::Ip);
                return Err(ApiError::rate_limited(limit, retry_after));
            }
        }
        check_admin(state, &parts.headers)
            .map(|()| Self)
            .map_err(IntoResponse::into_response)
    }
}

/// The client's IP of a request whose parts are all that is left: the origin
/// the response layer decided, else the peer.
fn client_of_parts(state: &SharedState, parts: &Parts) -> IpAddr {
    if let Some(origin) = parts.extensions.get::<forwarded::Origin>() {
        return origin.client;
    }
    let peer = forwarded::peer_in(&parts.extensions);
    forwarded::of_peer(peer, &parts.headers, &state.auth.proxy).client
}

/// Checks the admin token of a request, in constant time.
fn check_admin(state: &SharedState, headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(expected) = &state.auth.admin_token_hash else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            ErrorCode::AdminDisabled,
            "the admin API is disabled; start the server with --admin-token",
        ));
    };
    let token = bearer(headers)?.ok_or_else(|| {
        ApiError::unauthorized("the admin API needs Authorization: Bearer ADMIN_TOKEN")
    })?;
    if bool::from(hash_token(token).ct_eq(expected)) {
        Ok(())
    } else {
        Err(ApiError::forbidden("wrong admin token"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::pipeline::test_headers as headers;

    /// The session cookie is found among others and in any `Cookie` header;
    /// an empty value or a look-alike name is no session. Over HTTPS only
    /// the `__Host-` name counts, over plain HTTP only the plain one.
    #[test]
    fn finds_the_session_cookie() {
        let two = headers(&[
            ("cookie", "theme=dark"),
            (
                "cookie",
                "a=1; snip_session=abc ; __Host-snip_session=def; b=2",
            ),
        ]);
        assert_eq!(session_cookie(&two, false), Some("abc"));
        assert_eq!(session_cookie(&two, true), Some("def"));
        for none in [
            "snip_session=",
            "snip_session_x=abc",
            "xsnip_session=abc",
            "__host-snip_session=abc",
            "theme=dark",
        ] {
            for secure in [false, true] {
                assert_eq!(
                    session_cookie(&headers(&[("cookie", none)]), secure),
                    None,
                    "{none}"
                );
            }
        }
        let planted = headers(&[("cookie", "snip_session=planted")]);
        assert_eq!(session_cookie(&planted, true), None);
        assert!(carries_session_cookie(&planted));
        assert_eq!(session_cookie(&HeaderMap::new(), false), None);
    }

    /// Cross-site check: reads pass; writes need same-origin fetch metadata
    /// or the server's own Origin (its public URL, or the Host it was asked as).
    #[test]
    fn cookie_writes_must_be_same_origin() {
        let check = |method: Method, pairs: &[(&'static str, &str)]| {
            let headers = headers(pairs);
            let asked = Asked {
                client: IpAddr::from([127, 0, 0, 1]),
                base_url: Some("https://paste.example".into()),
                method: &method,
                headers: &headers,
            };
            check_same_origin(&asked).is_ok()
        };
        assert!(check(Method::GET, &[]));
        assert!(check(Method::HEAD, &[("origin", "https://evil.example")]));
        assert!(check(Method::POST, &[("sec-fetch-site", "same-origin")]));
        assert!(check(Method::POST, &[("origin", "https://paste.example")]));
        assert!(check(
            Method::DELETE,
            &[
                ("origin", "http://10.0.0.5:8080"),
                ("host", "10.0.0.5:8080")
            ]
        ));
        assert!(!check(Method::POST, &[]));
        assert!(!check(Method::POST, &[("origin", "null")]));
        assert!(!check(Method::POST, &[("origin", "https://evil.example")]));
        assert!(!check(Method::POST, &[("sec-fetch-site", "same-site")]));
        assert!(!check(
            Method::POST,
            &[
                ("sec-fetch-site", "cross-site"),
                ("origin", "https://paste.example")
            ]
        ));
    }
}
