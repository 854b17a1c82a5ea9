//! Browser sign-in through the organisation's identity provider (OpenID
//! Connect): `GET /signin/oidc` sends the browser to the provider with a
//! fresh `state`, `nonce` and PKCE challenge, kept in a short-lived
//! `HttpOnly` cookie; `GET /signin/oidc/callback` checks the `state` against
//! that cookie, exchanges the code, verifies the ID token (`http::oidc`) and
//! opens a session for the first tenant by name the person's groups name
//! (`teams`: the header switches to the others), or, for a person in no
//! tenant, a session with an anonymous visitor's rights.
//!
//! The cookie is removed by every callback, so a callback replayed (or
//! forged without it) finds none and opens nothing; the provider refuses a
//! code used twice. Every failure is a page saying what went wrong and
//! opens no session; the log gets the reason, never a code or a token.
//! Both routes count against the client's IP bucket, as token sign-ins do.
//!
//! The session is the token sign-in's: behind it a token of the tenant made
//! for this sign-in, expiring with the session, so that deleting the tenant
//! ends it at the next request on every instance; beside it the person's
//! groups and the provider's refresh token (`ProviderGrant`).

use axum::Extension;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use subtle::ConstantTimeEq;

use super::session::{count_attempt, is_secure, local_path, query_field, see_other};
use super::teams;
use crate::core::paste;
use crate::http::api_error::{ApiError, ErrorCode};
use crate::http::context::Origin;
use crate::http::context::session_cookie::{self, set_signin_cookie, signin_cookie};
use crate::http::oidc::{OidcError, Pending};
use crate::http::state::SharedState;

/// The callback's path, which `{public URL}/signin/oidc/callback` registers
/// at the provider.
pub const CALLBACK_PATH: &str = "/signin/oidc/callback";

/// The longest `next`, `state` or `code` the callback takes.
const MAX_FIELD: usize = 2048;

/// `GET /signin/oidc?next=PATH`: sends the browser to the provider.
pub async fn start(
    State(state): State<SharedState>,
    Extension(origin): Extension<Origin>,
    RawQuery(raw): RawQuery,
) -> Result<Response, Response> {
    let Some(oidc) = state.oidc.as_ref() else {
        return Err(not_configured());
    };
    if let Some(refusal) = count_attempt(&state, origin.client).await {
        return Err(refusal);
    }
    let secure = is_secure(&state, &origin);
    let raw = raw.unwrap_or_default();
    let next = local_path(query_field(&raw, "next").as_deref()).to_owned();
    let redirect_uri = format!("{}{CALLBACK_PATH}", state.base_url(&origin));
    let (url, pending) = oidc
        .begin(&redirect_uri)
        .await
        .map_err(|e| failed(e, secure))?;
    let cookie = set_signin_cookie(&encode_pending(&pending, &next), secure);
    Ok(see_other(&url, &cookie))
}

/// `GET /signin/oidc/callback?code=…&state=…`: checks the answer, opens a
/// session and `303`s to the `next` the sign-in started with.
pub async fn callback(
    State(state): State<SharedState>,
    Extension(origin): Extension<Origin>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Result<Response, Response> {
    let Some(oidc) = state.oidc.as_ref() else {
        return Err(not_configured());
    };
    let secure = is_secure(&state, &origin);
    if let Some(refusal) = count_attempt(&state, origin.client).await {
        return Err(refusal);
    }
    let refused = |message: &'static str| refusal(signin_failed(message), secure);
    let raw = raw.unwrap_or_default();
    if raw.len() > 4 * MAX_FIELD {
        return Err(refused("the provider's answer is too long"));
    }
    let Some((pending, next)) = signin_cookie(&headers, secure).and_then(decode_pending) else {
        return Err(refused(
            "this sign-in was not started in this browser, was already used, or took longer \
             than 10 minutes; start again",
        ));
    };
    if let Some(error) = query_field(&raw, "error") {
        tracing::info!(error = %error.chars().take(64).collect::<String>(), "the identity provider refused a sign-in");
        return Err(refused(
            "the identity provider did not sign you in (refused or cancelled)",
        ));
    }
    let answered_state = query_field(&raw, "state").unwrap_or_default();
    if !bool::from(answered_state.as_bytes().ct_eq(pending.state.as_bytes())) {
        tracing::info!("a sign-in callback with the wrong state");
        return Err(refused(
            "this answer does not belong to the sign-in this browser started (wrong state)",
        ));
    }
    let Some(code) = query_field(&raw, "code").filter(|code| !code.is_empty()) else {
        return Err(refused("the provider's answer carries no code"));
    };
    let redirect_uri = format!("{}{CALLBACK_PATH}", state.base_url(&origin));
    let identity = oidc
        .finish(&redirect_uri, &pending, &code)
        .await
        .map_err(|e| failed(e, secure))?;
    let now = paste::now();
    let lifetime = oidc.session_secs();
    let (person, grant) = teams::grant_of(&state, identity, now)
        .await
        .map_err(|e| refusal(e, secure))?;
    // Of several tenants, the first by name; the header switches to the others.
    let tenant = grant.tenants.first().cloned();
    let secret = teams::open(
        &state,
        person,
        grant,
        tenant.as_deref(),
        now,
        now + lifetime,
    )
    .await
    .map_err(|e| refusal(e, secure))?;
    let mut response = see_other(
        &next,
        &session_cookie::set_session_cookie(&secret, lifetime, secure),
    );
    append_cookie(&mut response, &set_signin_cookie("", secure));
    Ok(response)
}

/// The sign-in cookie's value: `state`, `nonce`, PKCE verifier and `next`,
/// each base64url, joined by dots.
fn encode_pending(pending: &Pending, next: &str) -> String {
    let b64 = |s: &str| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(s);
    format!(
        "{}.{}.{}.{}",
        b64(&pending.state),
        b64(&pending.nonce),
        b64(&pending.verifier),
        b64(next)
    )
}

/// The reverse of [`encode_pending`]; `None` for anything else.
fn decode_pending(value: &str) -> Option<(Pending, String)> {
    if value.len() > 4 * MAX_FIELD {
        return None;
    }
    let b64 = |s: &str| {
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(s)
            .ok()
            .and_then(|bytes| String::from_utf8(bytes).ok())
    };
    let mut parts = value.split('.');
    let pending = Pending {
        state: b64(parts.next()?)?,
        nonce: b64(parts.next()?)?,
        verifier: b64(parts.next()?)?,
    };
    let next = local_path(Some(&b64(parts.next()?)?)).to_owned();
    if parts.next().is_some() || pending.state.is_empty() || pending.nonce.is_empty() {
        return None;
    }
    Some((pending, next))
}

/// `404`: no `--oidc-issuer`.
pub(super) fn not_configured() -> Response {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::ProviderDisabled,
        "sign-in through an identity provider is not configured on this server",
    )
    .into_response()
}

/// `400 signin_failed` with `message`.
fn signin_failed(message: impl Into<std::borrow::Cow<'static, str>>) -> ApiError {
    ApiError::new(StatusCode::BAD_REQUEST, ErrorCode::SigninFailed, message)
}

/// The answer to a sign-in the provider's side failed: `502` when it cannot
/// be reached, `400` when its answer is not acceptable. The reason goes to
/// the log; the page says which of the two it was.
fn failed(error: OidcError, secure: bool) -> Response {
    tracing::warn!(error = %error, "sign-in through the identity provider failed");
    let answer = match error {
        OidcError::Unreachable(_) => ApiError::new(
            StatusCode::BAD_GATEWAY,
            ErrorCode::ProviderUnavailable,
            "the identity provider cannot be reached or did not answer in time; try again later",
        ),
        OidcError::Refused(_) => signin_failed(
            "the identity provider's answer could not be verified, so you are not signed in; \
             start again",
        ),
    };
    refusal(answer, secure)
}

/// `error` as a response that also removes the sign-in cookie.
fn refusal(error: ApiError, secure: bool) -> Response {
    let mut response = error.into_response();
    append_cookie(&mut response, &set_signin_cookie("", secure));
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Adds a `Set-Cookie` header.
fn append_cookie(response: &mut Response, cookie: &str) {
    if let Ok(value) = HeaderValue::from_str(cookie) {
        response.headers_mut().append(header::SET_COOKIE, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cookie's value reads back; a tampered or foreign one does not.
    #[test]
    fn pending_round_trips() {
        let pending = Pending {
            state: "s".into(),
            nonce: "n".into(),
            verifier: "v".into(),
        };
        let value = encode_pending(&pending, "/my?x=1");
        let (back, next) = decode_pending(&value).unwrap();
        assert_eq!((back.state.as_str(), back.nonce.as_str()), ("s", "n"));
        assert_eq!((back.verifier.as_str(), next.as_str()), ("v", "/my?x=1"));
        let foreign = encode_pending(&pending, "//evil.example");
        assert_eq!(decode_pending(&foreign).unwrap().1, "/my");
        for bad in ["", "a.b", "!!.b.c.d", &format!("{value}.x")] {
            assert!(decode_pending(bad).is_none(), "{bad}");
        }
    }
}
