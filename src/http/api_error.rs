//! Every error the HTTP API can answer, in one place: [`ApiError`], a status,
//! a stable [`ErrorCode`] and a one-line message, the statuses store errors
//! map to, and, for failures on the server's side, the [`Fault`] the log
//! needs.
//!
//! An [`ApiError`] answers as one plain-text line and rides along in the
//! response's extensions; the finishing layer ([`super::pipeline::finish`])
//! then shows it in the representation the client accepts
//! ([`super::render::error_answer`]), so handlers never look at `Accept` for
//! errors, and logs its [`Fault`], if it has one: once per request, in one
//! place, and never as a side effect of building the error.

use std::borrow::Cow;
use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

pub use crate::core::ErrorCode;
use crate::core::IdError;
use crate::store::StoreError;

/// An error answer: status, stable machine-readable code, one-line message,
/// and what went wrong on the server's side, if anything did.
#[derive(Debug, Clone)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// A stable identifier clients can match on.
    pub code: ErrorCode,
    /// One human-readable line.
    pub message: Cow<'static, str>,
    /// Why the server failed, for the log; never sent to the client.
    pub fault: Option<Fault>,
}

/// What went wrong on the server's side, kept with the answer until the
/// finishing layer logs it ([`Fault::log`]). The client sees only the
/// answer's code and message.
#[derive(Debug, Clone)]
pub struct Fault {
    /// What the log line says happened.
    what: &'static str,
    severity: Severity,
    /// The error behind it, named in the log line. Errors that reach here
    /// describe storage, the OS or the runtime: none carries a token, a
    /// paste or a key.
    cause: Option<Arc<dyn std::error::Error + Send + Sync>>,
}

/// How loudly a [`Fault`] is logged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Severity {
    /// Someone must act (a damaged store, a full disk, a bug).
    Error,
    /// It may pass by itself (the database is slow or away).
    Warning,
}

impl Fault {
    fn new(
        severity: Severity,
        what: &'static str,
        cause: Option<Arc<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Self {
            what,
            severity,
            cause,
        }
    }

    /// Logs the fault of a request on `route` answered with `status`: one
    /// line, naming what happened and its cause.
    pub fn log(&self, status: StatusCode, route: &str) {
        let status = status.as_u16();
        let cause = self.cause.as_deref().map(tracing::field::display);
        match self.severity {
            Severity::Error => tracing::error!(status, route, error = cause, "{}", self.what),
            Severity::Warning => tracing::warn!(status, route, error = cause, "{}", self.what),
        }
    }
}

impl ApiError {
    /// An error with its own status and code.
    pub fn new(status: StatusCode, code: ErrorCode, message: impl Into<Cow<'static, str>>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            fault: None,
        }
    }

    /// This answer, with the server's side of the story for the log.
    fn with_fault(self, fault: Fault) -> Self {
        Self {
            fault: Some(fault),
            ..self
        }
    }

    /// `400`: a parameter or the body is unacceptable.
    pub fn bad_request(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, ErrorCode::BadRequest, message)
    }

    /// `404` for what is not there, of a paste that is (a file name).
    pub fn not_found_because(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(StatusCode::NOT_FOUND, ErrorCode::NotFound, message)
    }

    /// `404`: unknown, expired and burned pastes all look the same.
    pub fn not_found() -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            ErrorCode::NotFound,
            "no such paste (it may have expired or been burned)",
        )
    }

    /// `404` for an ID that fails its own check: answered without touching storage.
    pub fn bad_id(e: IdError) -> Self {
        let code = if e == IdError::Checksum {
            ErrorCode::MistypedId
        } else {
            ErrorCode::MalformedId
        };
        Self::new(StatusCode::NOT_FOUND, code, e.to_string())
    }

    /// `401`: no valid credentials (answered with `WWW-Authenticate: Bearer`).
    pub fn unauthorized(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized, message)
    }

    /// `429`: over a rate limit of `limit` requests, with `Retry-After`
    /// (whole seconds, at least 1) and the bucket's size.
    pub fn rate_limited(limit: u32, retry_after: Duration) -> Response {
        let mut response = Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::RateLimited,
            format!(
                "too many requests; retry in {:.1} s",
                retry_after.as_secs_f64().max(0.1)
            ),
        )
        .into_response();
        let secs = retry_after.as_secs() + u64::from(retry_after.subsec_nanos() > 0);
        let headers = response.headers_mut();
        headers.insert(header::RETRY_AFTER, HeaderValue::from(secs.max(1)));
        headers.insert("ratelimit-limit", HeaderValue::from(limit));
        headers.insert("ratelimit-remaining", HeaderValue::from(0));
        response
    }

    /// `403`: the delete token is missing or wrong.
    pub fn forbidden(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(StatusCode::FORBIDDEN, ErrorCode::Forbidden, message)
    }

    /// `405`: the route exists, the method does not.
    pub fn method_not_allowed() -> Self {
        Self::new(
            StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::MethodNotAllowed,
            "method not allowed on this route",
        )
    }

    /// `408`: the request body did not keep its pace; `message` names the rule.
    pub fn body_too_slow(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(StatusCode::REQUEST_TIMEOUT, ErrorCode::Timeout, message)
    }

    /// `429`: the client's bodies in flight hold its whole share.
    pub fn inflight_share(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::InflightShare,
            message,
        )
    }

    /// `503`: the bodies in flight hold all the server may hold.
    pub fn busy(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(StatusCode::SERVICE_UNAVAILABLE, ErrorCode::Busy, message)
    }

    /// `409`: a plain GET of a burn paste, with the command that reads it.
    pub fn burn_conflict(reveal_url: &str) -> Self {
        Self::new(
            StatusCode::CONFLICT,
            ErrorCode::BurnAfterReading,
            format!("this paste is deleted when read; to read it: curl -X POST {reveal_url}"),
        )
    }

    /// `403`: the paste is served only with a proof of its key, and none was sent.
    pub fn proof_required() -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            ErrorCode::ProofRequired,
            "this encrypted paste is served only with a proof of its key (the X-Snip-Proof header); \
             open the whole link (with its #key) in a browser, or use snip get",
        )
    }

    /// `403`: the proof of key is wrong; nothing was read or destroyed.
    pub fn wrong_proof() -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            ErrorCode::WrongProof,
            "wrong password or key: the proof of key does not match; the paste is intact",
        )
    }

    /// `409` for an encrypted burn paste read only with a proof of key: a
    /// bare `curl -X POST` would be refused, so the hint names the clients
    /// that derive the proof.
    pub fn burn_conflict_proved() -> Self {
        Self::new(
            StatusCode::CONFLICT,
            ErrorCode::BurnAfterReading,
            "this encrypted paste is deleted when read; to read it: snip get with the whole link \
             (with its #key), or open that link in a browser",
        )
    }

    /// `409`: a browser's form (no script) asked to reveal an encrypted burn
    /// paste, which only a script or `snip get` can decrypt; it is intact.
    pub fn reveal_needs_script() -> Self {
        Self::new(
            StatusCode::CONFLICT,
            ErrorCode::NeedsScript,
            "this paste is end-to-end encrypted: it is decrypted with the key in the link, \
             which needs JavaScript in the browser (or: snip get with the whole link). \
             It has not been revealed and is still there.",
        )
    }

    /// `406`: the paste `id` is not text, and so has no text representation.
    pub fn not_text(id: &str) -> Self {
        Self::new(
            StatusCode::NOT_ACCEPTABLE,
            ErrorCode::NotText,
            format!("this paste is not text; its bytes are at /raw/{id}"),
        )
    }

    /// `413`: over the paste size limit.
    pub fn too_large(limit: u64) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::TooLarge,
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
            ErrorCode::UnsupportedMediaType,
            message,
        )
    }

    /// `416`: a range outside the paste.
    pub fn range_not_satisfiable(size: u64) -> Response {
        let mut response = Self::new(
            StatusCode::RANGE_NOT_SATISFIABLE,
            ErrorCode::RangeNotSatisfiable,
            format!("the requested range is outside the paste's {size} bytes"),
        )
        .into_response();
        if let Ok(v) = HeaderValue::from_str(&format!("bytes */{size}")) {
            response.headers_mut().insert(header::CONTENT_RANGE, v);
        }
        response
    }

    /// `500`: something broke on our side while doing `what`; the log
    /// says so, the client only that it happened.
    pub fn internal(what: &'static str) -> Self {
        Self::internal_answer().with_fault(Fault::new(Severity::Error, what, None))
    }

    /// `500`: doing `what` failed with `cause`, which the log names.
    pub fn internal_from(
        what: &'static str,
        cause: impl std::error::Error + Send + Sync + 'static,
    ) -> Self {
        Self::internal_answer().with_fault(Fault::new(Severity::Error, what, Some(Arc::new(cause))))
    }

    fn internal_answer() -> Self {
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::Internal,
            "internal server error",
        )
    }
}

impl From<StoreError> for ApiError {
    /// The answer to a failed store operation; the failures the operator
    /// should hear of keep the store's error as their [`Fault`].
    fn from(e: StoreError) -> Self {
        let (answer, logged) = match &e {
            StoreError::Full { .. } => (
                Self::new(
                    StatusCode::INSUFFICIENT_STORAGE,
                    ErrorCode::StorageFull,
                    "the server's storage limit is reached; try again after old pastes expire",
                ),
                None,
            ),
            StoreError::QuotaExceeded { limit } => (
                Self::new(
                    StatusCode::INSUFFICIENT_STORAGE,
                    ErrorCode::QuotaExceeded,
                    format!(
                        "your tenant's quota of {limit} bytes is used up; delete pastes or ask for more"
                    ),
                ),
                None,
            ),
            StoreError::DiskFull(_) => (
                Self::new(
                    StatusCode::INSUFFICIENT_STORAGE,
                    ErrorCode::DiskFull,
                    "the server's disk is full; nothing can be stored, changed or deleted \
                     until space is freed",
                ),
                Some((Severity::Error, "the data dir's disk is full")),
            ),
            StoreError::Poisoned(_) => (
                Self::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    ErrorCode::StoreBroken,
                    "the server's store failed a write and refuses writes until it is reopened; \
                     the server is restarting, try again shortly",
                ),
                Some((Severity::Error, "the store refuses writes")),
            ),
            StoreError::TimedOut(deadline) => (
                Self::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    ErrorCode::StoreTimeout,
                    format!(
                        "the database did not answer within {} s; try again shortly",
                        deadline.as_secs_f64()
                    ),
                ),
                Some((Severity::Warning, "the database did not answer in time")),
            ),
            StoreError::Corrupt(_) => (
                Self::new(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    ErrorCode::Corrupt,
                    "the stored data this request needs is damaged (it fails its checksum or does not decompress) \
                     and cannot be served",
                ),
                Some((Severity::Error, "stored data is damaged")),
            ),
            StoreError::TenantExists => (
                Self::new(
                    StatusCode::CONFLICT,
                    ErrorCode::TenantExists,
                    "a tenant with this name exists already",
                ),
                None,
            ),
            StoreError::NoSuchTenant => (
                Self::new(
                    StatusCode::NOT_FOUND,
                    ErrorCode::NoSuchTenant,
                    "no such tenant",
                ),
                None,
            ),
            // The answer a request with that token gets from now on.
            StoreError::AuthorityGone => (
                Self::unauthorized(
                    "unknown or revoked token: the token (or browser session) that authorised this request was revoked, or its tenant deleted, before it was carried out; nothing was changed",
                ),
                None,
            ),
            StoreError::TenantNotEmpty(_) => (
                Self::new(
                    StatusCode::CONFLICT,
                    ErrorCode::TenantNotEmpty,
                    e.to_string(),
                ),
                None,
            ),
            StoreError::Unavailable(_) => (
                Self::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    ErrorCode::StoreUnavailable,
                    "the database is unavailable; try again shortly",
                ),
                Some((Severity::Warning, "the database is unavailable")),
            ),
            StoreError::SearchUnavailable(why) => (
                Self::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    ErrorCode::SearchUnavailable,
                    format!("search is unavailable: {why}"),
                ),
                Some((Severity::Warning, "search is unavailable")),
            ),
            StoreError::BadCursor => (
                Self::bad_request("invalid cursor; pass the next_cursor of a previous page"),
                None,
            ),
            _ => (
                Self::internal_answer(),
                Some((Severity::Error, "store operation failed")),
            ),
        };
        match logged {
            Some((severity, what)) => {
                answer.with_fault(Fault::new(severity, what, Some(Arc::new(e))))
            }
            None => answer,
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
