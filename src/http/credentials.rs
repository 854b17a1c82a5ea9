//! The credentials a request carries, checked: a bearer token or a browser
//! session cookie resolved through the store to the tenant behind it
//! ([`caller_of`], [`page_caller`]), the cross-site guard of requests that
//! rely on the cookie ([`check_same_origin`]), the admin token
//! ([`AdminCaller`]), and the extra charge of a wrong proof of key
//! ([`charge_wrong_guess`]). The pipeline's authentication
//! ([`super::pipeline::auth`]) and the handlers of sign-in, pages and the
//! admin API use them alike.
//!
//! A session resolves to its token through the same lookup a bearer token
//! takes, so revoking the token (or deleting its tenant) ends every session
//! opened with it at the next request, on every instance. Any request that
//! is not a `GET` or `HEAD` and carries the cookie must come from the
//! server's own pages (`Sec-Fetch-Site: same-origin`, or an `Origin` equal to
//! the server's): a cookie is sent by the browser on its own, a bearer token
//! is not, so only the cookie needs this guard against cross-site requests.

use std::net::IpAddr;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use super::api_error::{ApiError, ErrorCode};
use super::context::session_cookie::session_cookie;
use super::context::{Caller, Origin};
use super::ratelimit::{Limit, Verdict};
use super::state::SharedState;
use crate::core::paste::{self, hash_token};
use crate::core::tenant::{Authority, LOGIN_PREFIX, Person};
use crate::metrics::Bucket;
use crate::store::StoreError;

/// What resolving a request's credentials looks at.
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
    /// session cookie ([`session_cookie_name`](super::context::session_cookie::session_cookie_name)).
    pub fn secure(&self) -> bool {
        self.base_url
            .as_deref()
            .is_some_and(|url| url.starts_with("https://"))
    }
}

/// The bearer token of a request, if it sends one: `Bearer TOKEN`, or the
/// bare `TOKEN` that rustypaste's clients (`rpaste -a`) send. Any other
/// scheme, or a malformed `Authorization`, is an error.
fn bearer(headers: &HeaderMap) -> Result<Option<&str>, ApiError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Ok(None);
    };
    let value = value
        .to_str()
        .map_err(|_| ApiError::unauthorized("malformed Authorization header"))?
        .trim();
    match value.split_once(' ') {
        Some((scheme, token))
            if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() =>
        {
            Ok(Some(token.trim()))
        }
        None if !value.is_empty() && !value.eq_ignore_ascii_case("bearer") => Ok(Some(value)),
        _ => Err(ApiError::unauthorized(
            "Authorization must be: Bearer TOKEN",
        )),
    }
}

/// The caller behind a request's bearer token or session cookie (anonymous
/// without either); `401` for credentials that do not hold.
pub async fn caller_of(state: &SharedState, asked: &Asked<'_>) -> Result<Caller, ApiError> {
    if let Some(token) = bearer(asked.headers)? {
        if let Some(session) = token.strip_prefix(LOGIN_PREFIX) {
            // A login credential: a session sent as a bearer token, which a
            // browser never attaches by itself, so no cross-site check.
            return session_caller(state, session).await;
        }
        return token_caller(state, &hash_token(token), None, None).await;
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
    person: Option<Person>,
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
        person: person.map(Box::new),
        teams: Vec::new(),
    })
}

/// Why a session cookie was refused.
const SESSION_ENDED: &str =
    "this browser session has ended (signed out, expired, or its token was revoked); sign in again";

/// Why a session opened through the identity provider was ended.
const GROUP_ENDED: &str = "your session has ended: the team you signed in for no longer accepts \
     any of your groups at the identity provider; sign in again";

/// The tenant of the session whose cookie value is `session`: its token,
/// looked up as a bearer token would be, so revoking it ends the session.
/// A session opened through the identity provider is checked again at the
/// provider when due ([`super::recheck`]) and needs its tenant to accept
/// one of the person's groups still (the session ends otherwise); one of a
/// person in no tenant is [`Caller::Teamless`].
async fn session_caller(state: &SharedState, session: &str) -> Result<Caller, ApiError> {
    let record = state
        .store
        .session(&hash_token(session))
        .await?
        .filter(|record| !record.is_expired(paste::now()))
        .ok_or_else(|| ApiError::unauthorized(SESSION_ENDED))?;
    let Some(token_hash) = record.token_hash else {
        return match record.person {
            Some(person) => Ok(Caller::Teamless {
                person: Box::new(person),
            }),
            None => Err(ApiError::unauthorized(SESSION_ENDED)),
        };
    };
    let record = super::recheck::recheck(state, record).await?;
    let mut caller = token_caller(state, &token_hash, Some(record.hash), record.person)
        .await
        .map_err(|e| match e.status {
            StatusCode::UNAUTHORIZED => ApiError::unauthorized(SESSION_ENDED),
            _ => e,
        })?;
    if let (Some(grant), Caller::Tenant { tenant, teams, .. }) = (&record.provider, &mut caller) {
        if !grant.admits(tenant) {
            state.store.delete_session(&record.hash).await?;
            return Err(ApiError::unauthorized(GROUP_ENDED));
        }
        *teams = grant
            .tenants
            .iter()
            .filter(|name| **name != tenant.name)
            .cloned()
            .collect();
    }
    Ok(caller)
}

/// The caller of a browser page request (`GET`) over HTTPS (`secure`) or
/// plain HTTP, from its session cookie: anonymous without one, `401` for a
/// cookie whose session has ended.
pub async fn page_caller(
    state: &SharedState,
    headers: &HeaderMap,
    secure: bool,
) -> Result<Caller, ApiError> {
    match session_cookie(headers, secure) {
        Some(session) => session_caller(state, session).await,
        None => Ok(Caller::Anonymous),
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
            let client = client_of_parts(parts).map_err(IntoResponse::into_response)?;
            let verdict = state
                .rate_limits
                .check_ip_anywhere(client)
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

/// The client's IP of a request whose parts are all that is left, as the
/// response layer decided it.
fn client_of_parts(parts: &Parts) -> Result<IpAddr, ApiError> {
    parts
        .extensions
        .get::<Origin>()
        .map(|origin| origin.client)
        .ok_or_else(|| ApiError::internal("the response layer left no origin"))
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

/// Counts one request against the caller's bucket: its tenant's, or its IP's.
pub async fn charge(
    state: &SharedState,
    caller: &Caller,
    client: IpAddr,
) -> Result<Verdict, StoreError> {
    match caller {
        Caller::Anonymous | Caller::Teamless { .. } => {
            state.rate_limits.check_ip_anywhere(client).await
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::http::context::test_headers as headers;

    /// `Bearer TOKEN` and a bare `TOKEN` (rustypaste's clients) name a
    /// token; another scheme, or nothing after `Bearer`, is refused.
    #[test]
    fn bearer_or_bare_tokens() {
        let token = |value: &str| {
            bearer(&headers(&[("authorization", value)]))
                .map(|t| t.map(str::to_owned))
                .map_err(|e| e.status)
        };
        assert_eq!(token("Bearer snip_abc"), Ok(Some("snip_abc".into())));
        assert_eq!(token("bearer  snip_abc "), Ok(Some("snip_abc".into())));
        assert_eq!(token("snip_abc"), Ok(Some("snip_abc".into())));
        assert_eq!(token(" snip_abc "), Ok(Some("snip_abc".into())));
        assert_eq!(token("Basic Zm9vOmJhcg=="), Err(StatusCode::UNAUTHORIZED));
        assert_eq!(token("Bearer "), Err(StatusCode::UNAUTHORIZED));
        assert_eq!(token(""), Err(StatusCode::UNAUTHORIZED));
        assert_eq!(bearer(&HeaderMap::new()).unwrap(), None);
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
