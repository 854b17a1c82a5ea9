//! `--redirect-http`: a plain-HTTP listener that sends every request to the
//! same path and query under the HTTPS public URL.
//!
//! `308 Permanent Redirect` rather than `301`: it keeps the method and body,
//! so a `curl --data-binary` aimed at `http://` still creates the paste, over
//! HTTPS. The target is the configured public URL, never the request's `Host`
//! header, so the listener cannot be made to redirect elsewhere.

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};

/// The router of the redirect listener; `base` is the HTTPS public URL without a trailing slash.
pub fn app(base: &str) -> Router {
    Router::new()
        .fallback(redirect)
        .with_state(Arc::<str>::from(base))
}

async fn redirect(State(base): State<Arc<str>>, uri: Uri) -> Response {
    let path = uri.path_and_query().map_or("/", |p| p.as_str());
    let location = format!("{base}{path}");
    (
        StatusCode::PERMANENT_REDIRECT,
        [(header::LOCATION, location.clone())],
        format!("{location}\n"),
    )
        .into_response()
}
