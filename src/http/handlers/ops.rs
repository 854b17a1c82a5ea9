//! Operator routes: `GET /healthz` (the process answers), `GET /readyz` (the
//! store answers), `GET /metrics` (Prometheus text format) and
//! `GET /api/openapi.json` (the API description), `GET /robots.txt` (keeps
//! crawlers out); and the answer to a path no route matches. The route table
//! (`src/http/routes.rs`) routes them.

use axum::extract::State;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::openapi;
use crate::http::api_error::{ApiError, ErrorCode};
use crate::http::state::SharedState;
use crate::metrics;

/// `200 ok` while the process answers at all.
pub async fn healthz() -> &'static str {
    "ok\n"
}

/// `GET /robots.txt`: no crawler is welcome anywhere. Pastes are shared by
/// link, not published, and a search engine listing them would publish them.
pub async fn robots() -> &'static str {
    "User-agent: *\nDisallow: /\n"
}

/// `200 ready` when the store answers a ping, else `503` saying why; the ping
/// is shared with the other probes of the same second ([`Readiness`](crate::http::Readiness)).
pub async fn readyz(State(state): State<SharedState>) -> Result<&'static str, ApiError> {
    match state.readiness.check(state.store.as_ref()).await {
        Ok(()) => Ok("ready\n"),
        Err(why) => Err(ApiError::new(
            StatusCode::SERVICE_UNAVAILABLE,
            ErrorCode::NotReady,
            why.message(),
        )),
    }
}

/// `GET /metrics`: every series in the text exposition format.
pub async fn render_metrics(State(state): State<SharedState>) -> Response {
    let text = state.metrics.render(
        state.store.used_bytes(),
        state.store.stored_pastes(),
        state.store.cache_stats(),
    );
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static(metrics::CONTENT_TYPE),
        )],
        text,
    )
        .into_response()
}

/// `GET /api/openapi.json`: the OpenAPI 3.1 document, as embedded at build time.
pub async fn spec() -> Response {
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        openapi::SPEC,
    )
        .into_response()
}

/// `404` for a path no route matches, with a hint of the ones that exist.
pub async fn no_route() -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        ErrorCode::NoRoute,
        "no such page; POST a paste to / or GET /{id}",
    )
}
