//! Browser sessions: `GET /signin` (the form), `POST /signin` (an API token
//! exchanged for the session cookie: `__Host-snip_session` over HTTPS,
//! `snip_session` over plain HTTP) and `POST /signout`.
//!
//! The sign-in form is read like every request body ([`body`]): within its
//! size limit, its pace and the in-flight bounds.
//!
//! A token is checked exactly as a bearer token is (its hash looked up, its
//! expiry and tenant checked). Every attempt counts against the client's IP
//! bucket before the check, as admin requests do, so guessing tokens here is
//! no faster than through the API. Both posts must come from the server's own
//! pages (the cross-site check of [`credentials::check_same_origin`]): otherwise
//! another site could sign a browser into its own tenant, or out.

use axum::Extension;
use axum::extract::{RawQuery, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};

use crate::core::paste::{self, hash_token};
use crate::core::tenant::SESSION_SECS;
use crate::core::tenant::SessionRecord;
use crate::http::api_error::{ApiError, ErrorCode};
use crate::http::body;
use crate::http::context::Origin;
use crate::http::context::session_cookie;
use crate::http::credentials::{self, Asked};
use crate::http::ratelimit::Verdict;
use crate::http::render::account::{self, SigninRefusal, SigninWays};
use crate::http::state::SharedState;
use crate::metrics::Bucket;

/// Where a sign-in goes without a `next`.
const DEFAULT_NEXT: &str = "/my";

/// The largest sign-in form body: a token and a path.
const MAX_FORM_BYTES: u64 = 8 * 1024;

/// `GET /signin`: the form.
pub async fn form(State(state): State<SharedState>, RawQuery(raw): RawQuery) -> Response {
    let next = query_field(raw.as_deref().unwrap_or(""), "next");
    page(&state, StatusCode::OK, None, local_path(next.as_deref()))
}

/// `POST /signin`: checks the token, opens a session and sets its cookie,
/// then `303` to `next`.
pub async fn signin(
    State(state): State<SharedState>,
    Extension(origin): Extension<Origin>,
    request: Request,
) -> Result<Response, Response> {
    check_form_post(&state, &origin, request.method(), request.headers())
        .map_err(IntoResponse::into_response)?;
    if !state.auth.token_signin {
        return Err(ApiError::forbidden(
            "signing in with an API token is turned off on this server; sign in through your organisation",
        )
        .into_response());
    }
    let secure = is_secure(&state, &origin);
    let mut reservation = state.inflight.reservation(origin.client);
    let pace = state.limits.body_pace;
    let body = body::read_whole(request.into_body(), MAX_FORM_BYTES, pace, &mut reservation)
        .await
        .map_err(|e| e.into_answer(|_| form_too_large()))?;
    drop(reservation);
    let body = String::from_utf8_lossy(&body);
    let next = local_path(query_field(&body, "next").as_deref()).to_owned();
    if let Some(refusal) = count_attempt(&state, origin.client).await {
        return Err(refusal);
    }
    let token = query_field(&body, "token").unwrap_or_default();
    let token_hash = hash_token(token.trim());
    let refused = |why| page(&state, StatusCode::UNAUTHORIZED, Some(why), &next);
    let Some(record) = state.store.token(&token_hash).await.map_err(store_error)? else {
        return Err(refused(SigninRefusal::UnknownToken));
    };
    if record.is_expired(paste::now()) {
        return Err(refused(SigninRefusal::Expired));
    }
    let (secret, session) = SessionRecord::generate(token_hash, paste::now())
        .map_err(|e| ApiError::internal_from("no randomness for a session", e).into_response())?;
    state
        .store
        .create_session(session)
        .await
        .map_err(store_error)?;
    let cookie = session_cookie::set_session_cookie(&secret, SESSION_SECS, secure);
    Ok(see_other(&next, &cookie))
}

/// `POST /signout`: deletes the session (on every instance, as the store is
/// shared) and clears the cookie, then `303` to `/`; for a session opened
/// through the identity provider that offers an `end_session_endpoint`, the
/// sign-in page with a link to sign out there too.
pub async fn signout(
    State(state): State<SharedState>,
    Extension(origin): Extension<Origin>,
    method: Method,
    headers: HeaderMap,
) -> Result<Response, Response> {
    check_form_post(&state, &origin, &method, &headers).map_err(IntoResponse::into_response)?;
    let secure = is_secure(&state, &origin);
    if let Some(session) = session_cookie::session_cookie(&headers, secure) {
        let hash = hash_token(session);
        let record = state.store.session(&hash).await.map_err(store_error)?;
        state
            .store
            .delete_session(&hash)
            .await
            .map_err(store_error)?;
        // A person signed in through the provider is signed out there too,
        // when it offers that (and back here afterwards).
        if let (Some(oidc), Some(_)) = (&state.oidc, record.and_then(|r| r.person)) {
            let back = format!("{}/", state.base_url(&origin));
            if let Some(url) = oidc.end_session_url(&back).await {
                let page = account::signed_out(ways(&state), &url, &state.site.name);
                let mut response = Html(page).into_response();
                let headers = response.headers_mut();
                if let Ok(cookie) = HeaderValue::from_str(&clear_cookie(secure)) {
                    headers.insert(header::SET_COOKIE, cookie);
                }
                headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
                return Ok(response);
            }
        }
    }
    Ok(see_other("/", &clear_cookie(secure)))
}

/// The `Set-Cookie` value that removes the session cookie.
pub fn clear_cookie(secure: bool) -> String {
    session_cookie::clear_session_cookie(secure)
}

/// Whether the browser reached the server over HTTPS (directly, through a
/// trusted proxy, or as `--public-url` says): then the cookie is `Secure`
/// and named with the `__Host-` prefix.
pub fn is_secure(state: &SharedState, origin: &Origin) -> bool {
    state.base_url(origin).starts_with("https://")
}

/// Refuses a sign-in or sign-out post from another site (`403`).
pub(super) fn check_form_post(
    state: &SharedState,
    origin: &Origin,
    method: &Method,
    headers: &HeaderMap,
) -> Result<(), ApiError> {
    let asked = Asked {
        client: origin.client,
        base_url: Some(state.base_url(origin).into_owned()),
        method,
        headers,
    };
    credentials::check_same_origin(&asked)
}

/// Counts a sign-in attempt against the client's IP bucket; the refusal
/// (`429` over it, `503` when shared buckets cannot be read), if any.
pub(super) async fn count_attempt(
    state: &SharedState,
    client: std::net::IpAddr,
) -> Option<Response> {
    match state.rate_limits.check_ip_anywhere(client).await {
        Ok(Verdict::Limited { limit, retry_after }) => {
            state.metrics.rate_limited(Bucket::Ip);
            Some(ApiError::rate_limited(limit, retry_after))
        }
        Ok(_) => None,
        Err(e) => Some(store_error(e)),
    }
}

/// `413`: a sign-in form larger than [`MAX_FORM_BYTES`].
fn form_too_large() -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::TooLarge,
        "the sign-in form is too large",
    )
}

fn store_error(e: crate::store::StoreError) -> Response {
    ApiError::from(e).into_response()
}

/// The sign-in page with `status`.
fn page(
    state: &SharedState,
    status: StatusCode,
    refusal: Option<SigninRefusal>,
    next: &str,
) -> Response {
    let mut response = (
        status,
        Html(account::signin(
            refusal,
            next,
            ways(state),
            &state.site.name,
        )),
    )
        .into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The ways of signing in this server offers.
fn ways(state: &SharedState) -> SigninWays {
    SigninWays {
        provider: state.oidc.is_some(),
        token: state.auth.token_signin,
    }
}

/// `303 See Other` to `to` (a local path, or the provider's authorization
/// URL), setting `cookie`.
pub(super) fn see_other(to: &str, cookie: &str) -> Response {
    let mut response = StatusCode::SEE_OTHER.into_response();
    let headers = response.headers_mut();
    if let Ok(location) = HeaderValue::from_str(to) {
        headers.insert(header::LOCATION, location);
    }
    if let Ok(cookie) = HeaderValue::from_str(cookie) {
        headers.insert(header::SET_COOKIE, cookie);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// The value of `name` in a URL-encoded form or query.
pub(super) fn query_field(encoded: &str, name: &str) -> Option<String> {
    form_urlencoded::parse(encoded.as_bytes())
        .find(|(key, _)| key == name)
        .map(|(_, value)| value.into_owned())
}

/// `next` if it is a path on this server, else [`DEFAULT_NEXT`]: a sign-in
/// never sends the browser to another site (`//host` and `/\host` are
/// other sites to a browser).
pub(super) fn local_path(next: Option<&str>) -> &str {
    match next {
        Some(path)
            if path.starts_with('/')
                && !path.starts_with("//")
                && !path.starts_with("/\\")
                && path.len() <= 2048
                && path.bytes().all(|b| b.is_ascii_graphic()) =>
        {
            path
        }
        _ => DEFAULT_NEXT,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_stays_local() {
        assert_eq!(local_path(Some("/new")), "/new");
        assert_eq!(local_path(Some("/my?cursor=x")), "/my?cursor=x");
        for foreign in [
            "//evil.example",
            "/\\evil.example",
            "https://evil.example",
            "my",
            "",
        ] {
            assert_eq!(local_path(Some(foreign)), DEFAULT_NEXT, "{foreign}");
        }
        assert_eq!(local_path(None), DEFAULT_NEXT);
    }
}
