//! Who is calling: the client IP (honouring trusted proxies), the tenant behind
//! a bearer token, and the rate limit that applies to them.
//!
//! [`authenticate`] runs before every paste route and leaves a [`Caller`] in the
//! request's extensions. A request with a bad token is refused (`401`), never
//! downgraded to anonymous, so a revoked token cannot keep reading.

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use super::SharedState;
use super::errors::ApiError;
use super::forwarded::{self, ProxyConfig};
use super::ratelimit::{Limit, Verdict};
use crate::core::paste::{self, hash_token};
use crate::core::tenant::Tenant;
use crate::metrics::Bucket;

/// What anonymous (token-less) clients may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum AnonymousPolicy {
    /// Create and read.
    #[default]
    Allowed,
    /// Read only.
    ReadOnly,
    /// Nothing: every paste route needs a token.
    Off,
}

/// Authentication settings.
#[derive(Debug, Clone, Default)]
pub struct AuthConfig {
    /// What anonymous clients may do.
    pub anonymous: AnonymousPolicy,
    /// Whose forwarding headers are believed, and which.
    pub proxy: ProxyConfig,
    /// SHA-256 of the admin token; `None` disables the admin API.
    pub admin_token_hash: Option<[u8; 32]>,
}

/// The caller of a request, as established by [`authenticate`].
#[derive(Debug, Clone)]
pub enum Caller {
    /// No token.
    Anonymous,
    /// A valid token of a tenant.
    Tenant {
        /// The tenant's current settings.
        tenant: Tenant,
        /// The token's public ID.
        token_id: String,
        /// Whether the token may only read.
        read_only: bool,
    },
}

impl Caller {
    /// The tenant's name, if any.
    pub fn tenant_name(&self) -> Option<&str> {
        match self {
            Self::Anonymous => None,
            Self::Tenant { tenant, .. } => Some(&tenant.name),
        }
    }

    /// Whether this caller owns pastes of `owner`.
    pub fn owns(&self, owner: Option<&str>) -> bool {
        owner.is_some() && self.tenant_name() == owner
    }

    /// Refuses callers that may not write (read-only tokens, anonymous when not allowed).
    pub fn check_can_write(&self, anonymous: AnonymousPolicy) -> Result<(), ApiError> {
        match self {
            Self::Tenant {
                read_only: true, ..
            } => Err(ApiError::forbidden("this token is read-only")),
            Self::Tenant { .. } => Ok(()),
            Self::Anonymous if anonymous == AnonymousPolicy::Allowed => Ok(()),
            Self::Anonymous => Err(ApiError::unauthorized(
                "anonymous pastes are disabled on this server; send Authorization: Bearer TOKEN",
            )),
        }
    }
}

/// The client's address: the peer, or the forwarded client when the peer is a trusted proxy.
#[derive(Debug, Clone, Copy)]
pub struct ClientIp(pub IpAddr);

/// Middleware: establishes the [`Caller`], the [`ClientIp`] and the request's
/// [`forwarded::Origin`], and applies rate limits.
pub async fn authenticate(
    State(state): State<SharedState>,
    mut request: Request,
    next: Next,
) -> Response {
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::from([127, 0, 0, 1]), |c| c.0.ip());
    let origin = forwarded::resolve(peer, request.headers(), &state.auth.proxy);
    let ip = origin.client;
    let caller = match caller(&state, request.headers()).await {
        Ok(caller) => caller,
        Err(e) => {
            // A bad token counts against the client's IP like an anonymous
            // request, so guessing tokens is as limited as anything else.
            match state.rate_limits.check_ip_anywhere(ip).await {
                Ok(Verdict::Limited { limit, retry_after }) => {
                    state.metrics.rate_limited(Bucket::Ip);
                    return limited(limit, retry_after);
                }
                Ok(_) => {}
                Err(store) => return ApiError::from(store).into_response(),
            }
            return e.into_response();
        }
    };
    let verdict = match &caller {
        Caller::Anonymous => state.rate_limits.check_ip_anywhere(ip).await,
        Caller::Tenant { tenant, .. } => {
            let own = tenant.rate.map(|rate| Limit::new(rate, tenant.burst));
            state
                .rate_limits
                .check_tenant_anywhere(&tenant.name, own)
                .await
        }
    };
    let verdict = match verdict {
        Ok(verdict) => verdict,
        Err(store) => return ApiError::from(store).into_response(),
    };
    if let Verdict::Limited { limit, retry_after } = verdict {
        state.metrics.rate_limited(match caller {
            Caller::Anonymous => Bucket::Ip,
            Caller::Tenant { .. } => Bucket::Tenant,
        });
        return limited(limit, retry_after);
    }
    if matches!(caller, Caller::Anonymous) && state.auth.anonymous == AnonymousPolicy::Off {
        return ApiError::unauthorized(
            "this server needs a token: send Authorization: Bearer TOKEN",
        )
        .into_response();
    }
    request.extensions_mut().insert(ClientIp(ip));
    request.extensions_mut().insert(origin);
    request.extensions_mut().insert(caller);
    let mut response = next.run(request).await;
    if let Verdict::Allowed { limit, remaining } = verdict {
        let headers = response.headers_mut();
        headers.insert("ratelimit-limit", HeaderValue::from(limit));
        headers.insert("ratelimit-remaining", HeaderValue::from(remaining));
    }
    response
}

/// `429` with `Retry-After` (whole seconds, at least 1) and the bucket's size.
fn limited(limit: u32, retry_after: std::time::Duration) -> Response {
    let mut response = ApiError::rate_limited(retry_after).into_response();
    let secs = retry_after.as_secs() + u64::from(retry_after.subsec_nanos() > 0);
    let headers = response.headers_mut();
    headers.insert(header::RETRY_AFTER, HeaderValue::from(secs.max(1)));
    headers.insert("ratelimit-limit", HeaderValue::from(limit));
    headers.insert("ratelimit-remaining", HeaderValue::from(0));
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

async fn caller(state: &SharedState, headers: &HeaderMap) -> Result<Caller, ApiError> {
    let Some(token) = bearer(headers)? else {
        return Ok(Caller::Anonymous);
    };
    let record = state
        .store
        .token(&hash_token(token))
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
    })
}

/// Checks the admin token of a request, in constant time.
pub fn check_admin(state: &SharedState, headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(expected) = &state.auth.admin_token_hash else {
        return Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "admin_disabled",
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
