//! Every error the HTTP API can answer, in one place: [`ApiError`], a status,
//! a stable code and a one-line message, and the statuses store errors map to.
//!
//! An [`ApiError`] answers as one plain-text line and rides along in the
//! response's extensions; the pipeline then shows it in the representation
//! the client accepts ([`super::render::error_answer`]), so handlers never
//! look at `Accept` for errors.

use std::borrow::Cow;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::core::IdError;
use crate::store::StoreError;

/// An error answer: status, stable machine-readable code, one-line message.
#[derive(Debug, Clone)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// A stable identifier clients can match on (`not_found`, `too_large`, …).
    pub code: &'static str,
    /// One human-readable line.
    pub message: Cow<'static, str>,
}

impl ApiError {
    /// An error with its own status and code.
    pub fn new(
        status: StatusCode,
        code: &'static str,
        message: impl Into<Cow<'static, str>>,
    ) -> Self {
        Self {
            status,
            code,
            message: message.into(),
        }
    }

    /// `400`: a parameter or the body is unacceptable.
    pub fn bad_request(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    /// `404`: unknown, expired and burned pastes all look the same.
    pub fn not_found() -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            "not_found",
            "no such paste (it may have expired or been burned)",
        )
    }

    /// `404` for an ID that fails its own check: answered without touching storage.
    pub fn bad_id(e: IdError) -> Self {
        let code = if e == IdError::Checksum {
            "mistyped_id"
        } else {
            "malformed_id"
        };
        Self::new(StatusCode::NOT_FOUND, code, e.to_string())
    }

    /// `401`: no valid credentials (answered with `WWW-Authenticate: Bearer`).
    pub fn unauthorized(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
    }

    /// `429`: over a rate limit.
    pub fn rate_limited(retry_after: std::time::Duration) -> Self {
        Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            format!(
                "too many requests; retry in {:.1} s",
                retry_after.as_secs_f64().max(0.1)
            ),
        )
    }

    /// `403`: the delete token is missing or wrong.
    pub fn forbidden(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(StatusCode::FORBIDDEN, "forbidden", message)
    }

    /// `405`: the route exists, the method does not.
    pub fn method_not_allowed() -> Self {
        Self::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            "method not allowed on this route",
        )
    }

    /// `408`: the request body did not keep its pace; `message` names the rule.
    pub fn body_too_slow(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(StatusCode::REQUEST_TIMEOUT, "timeout", message)
    }

    /// `429`: the client's bodies in flight hold its whole share.
    pub fn inflight_share(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(StatusCode::TOO_MANY_REQUESTS, "inflight_share", message)
    }

    /// `503`: the bodies in flight hold all the server may hold.
    pub fn busy(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(StatusCode::SERVICE_UNAVAILABLE, "busy", message)
    }

    /// `409`: a plain GET of a burn paste, with the command that reads it.
    pub fn burn_conflict(reveal_url: &str) -> Self {
        Self::new(
            StatusCode::CONFLICT,
            "burn_after_reading",
            format!("this paste is deleted when read; to read it: curl -X POST {reveal_url}"),
        )
    }

    /// `403`: the paste is served only with a proof of its key, and none was sent.
    pub fn proof_required() -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "proof_required",
            "this encrypted paste is served only with a proof of its key (the X-Snip-Proof header); \
             open the whole link (with its #key) in a browser, or use snip get",
        )
    }

    /// `403`: the proof of key is wrong; nothing was read or destroyed.
    pub fn wrong_proof() -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "wrong_proof",
            "wrong password or key: the proof of key does not match; the paste is intact",
        )
    }

    /// `409` for an encrypted burn paste read only with a proof of key: a
    /// bare `curl -X POST` would be refused, so the hint names the clients
    /// that derive the proof.
    pub fn burn_conflict_proved() -> Self {
        Self::new(
            StatusCode::CONFLICT,
            "burn_after_reading",
            "this encrypted paste is deleted when read; to read it: snip get with the whole link \
             (with its #key), or open that link in a browser",
        )
    }

    /// `409`: a browser's form (no script) asked to reveal an encrypted burn
    /// paste, which only a script or `snip get` can decrypt; it is intact.
    pub fn reveal_needs_script() -> Self {
        Self::new(
            StatusCode::CONFLICT,
            "needs_script",
            "this paste is end-to-end encrypted: it is decrypted with the key in the link, \
             which needs JavaScript in the browser (or: snip get with the whole link). \
             It has not been revealed and is still there.",
        )
    }

    /// `413`: over the paste size limit.
    pub fn too_large(limit: u64) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            format!(
                "the paste is larger than the limit of {}",
                crate::core::units::format_size(limit)
            ),
        )
    }

    /// `415`: an encoding or media type the server does not take.
    pub fn unsupported(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "unsupported_media_type",
            message,
        )
    }

    /// `416`: a range outside the paste.
    pub fn range_not_satisfiable(size: u64) -> Response {
        let mut response = Self::new(
            StatusCode::RANGE_NOT_SATISFIABLE,
            "range_not_satisfiable",
            format!("the requested range is outside the paste's {size} bytes"),
        )
        .into_response();
        if let Ok(v) = HeaderValue::from_str(&format!("bytes */{size}")) {
            response.headers_mut().insert(header::CONTENT_RANGE, v);
        }
        response
    }

    /// `500`: something broke on our side; details go to the log, not the client.
    pub fn internal() -> Self {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "internal server error",
        )
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Full { .. } => Self::new(
                StatusCode::INSUFFICIENT_STORAGE,
                "storage_full",
                "the server's storage limit is reached; try again after old pastes expire",
            ),
            StoreError::QuotaExceeded { limit } => Self::new(
                StatusCode::INSUFFICIENT_STORAGE,
                "quota_exceeded",
                format!(
                    "your tenant's quota of {limit} bytes is used up; delete pastes or ask for more"
                ),
            ),
            StoreError::DiskFull(detail) => {
                tracing::error!(error = %detail, "the data dir's disk is full");
                Self::new(
                    StatusCode::INSUFFICIENT_STORAGE,
                    "disk_full",
                    "the server's disk is full; nothing can be stored, changed or deleted \
                     until space is freed",
                )
            }
            StoreError::Poisoned(detail) => {
                tracing::error!(error = %detail, "the store refuses writes");
                Self::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "store_broken",
                    "the server's store failed a write and refuses writes until it is reopened; \
                     the server is restarting, try again shortly",
                )
            }
            StoreError::TimedOut(deadline) => {
                tracing::warn!(?deadline, "the database did not answer in time");
                Self::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "store_timeout",
                    format!(
                        "the database did not answer within {} s; try again shortly",
                        deadline.as_secs_f64()
                    ),
                )
            }
            StoreError::Corrupt(detail) => {
                tracing::error!(error = %detail, "stored data is damaged");
                Self::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "corrupt",
                    "the stored data this request needs is damaged (it fails its checksum or does not decompress) \
                     and cannot be served",
                )
            }
            StoreError::TenantExists => Self::new(
                StatusCode::CONFLICT,
                "tenant_exists",
                "a tenant with this name exists already",
            ),
            StoreError::NoSuchTenant => {
                Self::new(StatusCode::NOT_FOUND, "no_such_tenant", "no such tenant")
            }
            // The answer a request with that token gets from now on.
            StoreError::AuthorityGone => Self::unauthorized(
                "unknown or revoked token: the token (or browser session) that authorised this request was revoked, or its tenant deleted, before it was carried out; nothing was changed",
            ),
            e @ StoreError::TenantNotEmpty(_) => {
                Self::new(StatusCode::CONFLICT, "tenant_not_empty", e.to_string())
            }
            StoreError::Unavailable(detail) => {
                tracing::warn!(error = %detail, "the database is unavailable");
                Self::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "store_unavailable",
                    "the database is unavailable; try again shortly",
                )
            }
            StoreError::BadCursor => {
                Self::bad_request("invalid cursor; pass the next_cursor of a previous page")
            }
            other => {
                tracing::error!(error = %other, "store operation failed");
                Self::internal()
            }
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = format!("{}\n", self.message);
        let mut response = (
            self.status,
            [(header::CONTENT_TYPE, crate::core::paste::TEXT_PLAIN)],
            body,
        )
            .into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"snip\""),
            );
        }
        response.extensions_mut().insert(self);
        response
    }
}
