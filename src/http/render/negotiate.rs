//! Content negotiation: who is asking, a browser, a JSON client, or `curl`?

use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::Response;

/// The representation a client prefers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accepts {
    /// A browser: `Accept` names `text/html`.
    Html,
    /// An API client: `Accept` names `application/json` (and not HTML).
    Json,
    /// Anything else, e.g. `curl` with `*/*`: raw bytes and plain text.
    Other,
}

/// Classifies a request by its `Accept` header.
///
/// Deliberately coarse: browsers always list `text/html` explicitly, while
/// command-line clients send `*/*` or nothing, and `q` values never decide
/// between these three in practice.
pub fn accepts(headers: &HeaderMap) -> Accepts {
    let Some(accept) = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()) else {
        return Accepts::Other;
    };
    let names = |kind: &str| {
        accept.split(',').any(|part| {
            part.split(';')
                .next()
                .is_some_and(|t| t.trim().eq_ignore_ascii_case(kind))
        })
    };
    if names("text/html") {
        Accepts::Html
    } else if names("application/json") {
        Accepts::Json
    } else {
        Accepts::Other
    }
}

/// Marks an answer chosen by the request's `Accept` (a page for browsers,
/// text or bytes for others), so that caches keep the variants apart.
pub fn vary_by_accept(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::VARY, HeaderValue::from_static("Accept"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn with(accept: &str) -> Accepts {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT, HeaderValue::from_str(accept).unwrap());
        accepts(&headers)
    }

    /// Real browser, API and curl Accept headers land in the right class.
    #[test]
    fn classifies_common_clients() {
        assert_eq!(
            with("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"),
            Accepts::Html
        );
        assert_eq!(with("application/json"), Accepts::Json);
        assert_eq!(with("application/json, text/plain;q=0.5"), Accepts::Json);
        assert_eq!(with("*/*"), Accepts::Other);
        assert_eq!(with("text/htmlx"), Accepts::Other);
        assert_eq!(accepts(&HeaderMap::new()), Accepts::Other);
    }
}
