//! Error answers in the representation the client accepts: the
//! `{"error":{"code","message"}}` body for JSON clients, an error page for
//! browsers, the plain line for everyone else.

use std::borrow::Cow;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;

use super::i18n::Lang;
use super::negotiate::Accepts;
use super::pages;
use crate::core::api::{ErrorBody, ErrorDetail};
use crate::http::api_error::ApiError;

/// Renders an error response for what the client accepts, and gives axum's own
/// bare `404`/`405` answers the same shape as ours; `site` is the
/// instance's name, which an error page shows, in the reader's language at
/// the request's path (`page`).
pub fn render_for(wants: Accepts, response: Response, site: &str, page: &PageOf) -> Response {
    let error = match response.extensions().get::<ApiError>() {
        Some(e) => e.clone(),
        None if response.status() == StatusCode::METHOD_NOT_ALLOWED => {
            ApiError::method_not_allowed()
        }
        None => return response,
    };
    let (mut parts, body) = response.into_parts();
    let new_body = match wants {
        Accepts::Json => {
            let json = serde_json::to_string(&ErrorBody {
                error: ErrorDetail {
                    code: error.code,
                    message: Cow::Borrowed(&error.message),
                },
            })
            .unwrap_or_default();
            parts.headers.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            axum::body::Body::from(json)
        }
        Accepts::Html => {
            parts.headers.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            );
            parts.headers.remove(header::CONTENT_SECURITY_POLICY);
            axum::body::Body::from(pages::error_page(&error, site, page.lang, &page.here))
        }
        Accepts::Other if parts.status == StatusCode::METHOD_NOT_ALLOWED => {
            axum::body::Body::from(format!("{}\n", error.message))
        }
        Accepts::Other => body,
    };
    parts.headers.remove(header::CONTENT_LENGTH);
    // An error is about this moment (a rate limit, an outage, a paste not
    // yet or no longer there): no cache may keep it, and its form follows
    // the request's Accept.
    parts
        .headers
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    parts
        .headers
        .insert(header::VARY, HeaderValue::from_static("Accept"));
    Response::from_parts(parts, new_body)
}

/// What an error page needs of its request: the reader's language and the
/// path asked for (where the language menu sends the browser back).
#[derive(Debug, Clone, Default)]
pub struct PageOf {
    pub lang: Lang,
    pub here: String,
}
