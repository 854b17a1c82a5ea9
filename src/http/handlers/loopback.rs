//! `snip login` where the provider offers no device flow: the loopback
//! redirect of RFC 8252. The CLI listens on `127.0.0.1` on a port of its
//! own, keeps `state`, `nonce` and the PKCE verifier, and asks the server
//! for the provider's authorization URL back to
//! `http://127.0.0.1:PORT/snip-login` (`POST /api/login/loopback`); the
//! browser signs in there and is sent back to the CLI, which hands the code
//! and the verifier to the server (`POST /api/login/loopback/token`). The
//! server redeems it with its client secret (the CLI never holds the
//! secret), verifies the ID token with the browser callback's checks and the
//! CLI's nonce, and answers the login credential the device flow answers.
//!
//! The server keeps no state between the two requests, as in the device
//! flow: the code is useless without the verifier and the client secret.
//! The redirect URI must be that loopback form exactly, so the server never
//! sends a code anywhere else; the provider must accept it on any port
//! (RFC 8252 §7.3).

use axum::Extension;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;

use super::admin::json;
use super::login::{cli_request, credential_for, provider_failed};
use crate::http::api_error::ApiError;
use crate::http::context::Origin;
use crate::http::oidc::Pending;
use crate::http::state::SharedState;

/// The path of the CLI's loopback redirect URI.
pub const LOOPBACK_PATH: &str = "/snip-login";

/// The body of `POST /api/login/loopback`.
#[derive(Deserialize)]
struct StartBody {
    redirect_uri: String,
    state: String,
    nonce: String,
    code_challenge: String,
}

/// The body of `POST /api/login/loopback/token`.
#[derive(Deserialize)]
struct TokenBody {
    redirect_uri: String,
    code: String,
    code_verifier: String,
    nonce: String,
}

/// `POST /api/login/loopback`: the provider's authorization URL for the
/// CLI's loopback redirect.
pub async fn start(
    State(state): State<SharedState>,
    Extension(origin): Extension<Origin>,
    request: Request,
) -> Result<Response, ApiError> {
    let shape = r#"{"redirect_uri", "state", "nonce", "code_challenge"}"#;
    let (oidc, asked) = match cli_request::<StartBody>(&state, &origin, request, shape).await {
        Ok(asked) => asked,
        Err(answer) => return Ok(answer),
    };
    let redirect_uri = loopback_uri(&asked.redirect_uri)?;
    random_field("state", &asked.state, 16, 128)?;
    random_field("nonce", &asked.nonce, 16, 128)?;
    random_field("code_challenge", &asked.code_challenge, 43, 43)?;
    let url = oidc
        .authorization_url(
            redirect_uri,
            &asked.state,
            &asked.nonce,
            &asked.code_challenge,
        )
        .await
        .map_err(provider_failed)?;
    Ok(json(
        StatusCode::OK,
        &serde_json::json!({ "authorization_url": url }),
    ))
}

/// `POST /api/login/loopback/token`: redeems the code the browser brought
/// to the CLI; `200` and the login credential.
pub async fn token(
    State(state): State<SharedState>,
    Extension(origin): Extension<Origin>,
    request: Request,
) -> Result<Response, ApiError> {
    let shape = r#"{"redirect_uri", "code", "code_verifier", "nonce"}"#;
    let (oidc, asked) = match cli_request::<TokenBody>(&state, &origin, request, shape).await {
        Ok(asked) => asked,
        Err(answer) => return Ok(answer),
    };
    let redirect_uri = loopback_uri(&asked.redirect_uri)?;
    random_field("code", &asked.code, 1, 2048)?;
    random_field("code_verifier", &asked.code_verifier, 43, 128)?;
    random_field("nonce", &asked.nonce, 16, 128)?;
    let pending = Pending {
        state: String::new(),
        nonce: asked.nonce,
        verifier: asked.code_verifier,
    };
    let identity = oidc
        .finish(redirect_uri, &pending, &asked.code)
        .await
        .map_err(provider_failed)?;
    tracing::info!("a person signed in from the command line (loopback)");
    credential_for(&state, identity).await
}

/// `uri` if it is `http://127.0.0.1:PORT/snip-login` (or `[::1]`) exactly,
/// with a port and nothing more; `400` otherwise, so a code is never sent
/// anywhere but the CLI's own loopback listener.
fn loopback_uri(uri: &str) -> Result<&str, ApiError> {
    let refused = || {
        ApiError::bad_request(format!(
            "redirect_uri must be http://127.0.0.1:PORT{LOOPBACK_PATH} (a loopback redirect, RFC 8252)"
        ))
    };
    let url = url::Url::parse(uri).map_err(|_| refused())?;
    let loopback = matches!(
        url.host(),
        Some(url::Host::Ipv4(ip)) if ip.is_loopback()
    ) || matches!(url.host(), Some(url::Host::Ipv6(ip)) if ip.is_loopback());
    let exact = url.scheme() == "http"
        && loopback
        && url.port().is_some_and(|port| port != 0)
        && url.path() == LOOPBACK_PATH
        && url.query().is_none()
        && url.fragment().is_none()
        && url.username().is_empty()
        && url.password().is_none()
        && url.as_str() == uri;
    if exact { Ok(uri) } else { Err(refused()) }
}

/// Refuses `value` of field `name` unless it is `min..=max` characters of
/// the URL-safe set a random value, code or verifier is made of (`400`).
fn random_field(name: &str, value: &str, min: usize, max: usize) -> Result<(), ApiError> {
    let safe = value
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'));
    if safe && (min..=max).contains(&value.len()) {
        Ok(())
    } else {
        Err(ApiError::bad_request(format!(
            "{name} must be {min} to {max} characters of A-Z, a-z, 0-9, -, ., _ and ~"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Only the CLI's loopback redirect URI is taken.
    #[test]
    fn only_loopback_redirects() {
        assert!(loopback_uri("http://127.0.0.1:49152/snip-login").is_ok());
        assert!(loopback_uri("http://[::1]:49152/snip-login").is_ok());
        for bad in [
            "http://127.0.0.1/snip-login",
            "http://127.0.0.1:0/snip-login",
            "https://127.0.0.1:49152/snip-login",
            "http://localhost:49152/snip-login",
            "http://evil.example:49152/snip-login",
            "http://127.0.0.1:49152/other",
            "http://127.0.0.1:49152/snip-login?x=1",
            "http://127.0.0.1:49152/snip-login#x",
            "http://u@127.0.0.1:49152/snip-login",
            "http://127.0.0.1:49152/snip-login/../snip-login",
            "not a url",
        ] {
            assert!(loopback_uri(bad).is_err(), "{bad}");
        }
    }
}
