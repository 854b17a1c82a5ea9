//! Content negotiation: who is asking, a browser, a JSON client, or `curl`?
//! And which content codings (compressions) it takes.

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
/// text or bytes for others), so that caches keep the variants apart; an
/// answer that also varies by something else (a compressed paste's raw
/// bytes, by `Accept-Encoding`) keeps saying so.
pub fn vary_by_accept(mut response: Response) -> Response {
    let headers = response.headers_mut();
    let vary = match headers.get(header::VARY).and_then(|v| v.to_str().ok()) {
        Some(other) => HeaderValue::from_str(&format!("Accept, {other}")).ok(),
        None => None,
    };
    headers.insert(
        header::VARY,
        vary.unwrap_or(HeaderValue::from_static("Accept")),
    );
    response
}

/// How much a request's `Accept-Encoding` takes each content coding snip
/// can send: its `q` values, where 0 refuses (a coding it does not name
/// gets the value of `*`, or 0).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct AcceptEncoding {
    /// `br`
    pub br: f32,
    /// `gzip` (or `x-gzip`)
    pub gzip: f32,
    /// `zstd`
    pub zstd: f32,
}

/// Reads a request's `Accept-Encoding`; without one, nothing but identity
/// is taken.
pub fn accept_encoding(headers: &HeaderMap) -> AcceptEncoding {
    let Some(accept) = headers
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
    else {
        return AcceptEncoding::default();
    };
    let (mut br, mut gzip, mut zstd, mut star) = (None, None, None, None);
    for part in accept.split(',') {
        let mut pieces = part.split(';');
        let coding = pieces.next().unwrap_or("").trim();
        let q = pieces
            .filter_map(|p| p.trim().strip_prefix("q="))
            .find_map(|q| q.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        let named = |name: &str| coding.eq_ignore_ascii_case(name);
        if named("br") {
            br = Some(q);
        } else if named("gzip") || named("x-gzip") {
            gzip = Some(q);
        } else if named("zstd") {
            zstd = Some(q);
        } else if coding == "*" {
            star = Some(q);
        }
    }
    let q = |named: Option<f32>| named.or(star).unwrap_or(0.0);
    AcceptEncoding {
        br: q(br),
        gzip: q(gzip),
        zstd: q(zstd),
    }
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

    fn encodings(accept: &str) -> AcceptEncoding {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_str(accept).unwrap(),
        );
        accept_encoding(&headers)
    }

    /// Browsers', curl's and odd headers give each coding its `q` value.
    #[test]
    fn reads_accept_encoding() {
        let all = |br, gzip, zstd| AcceptEncoding { br, gzip, zstd };
        assert_eq!(encodings("gzip, deflate, br, zstd"), all(1.0, 1.0, 1.0));
        assert_eq!(encodings("ZSTD;q=0.5, GZIP"), all(0.0, 1.0, 0.5));
        assert_eq!(encodings("zstd;q=0, *"), all(1.0, 1.0, 0.0));
        assert_eq!(encodings("*;q=0.2, br"), all(1.0, 0.2, 0.2));
        assert_eq!(encodings("identity"), AcceptEncoding::default());
        assert_eq!(
            accept_encoding(&HeaderMap::new()),
            AcceptEncoding::default()
        );
    }

    /// An answer that varies by encoding too says both.
    #[test]
    fn vary_keeps_what_was_there() {
        let plain = vary_by_accept(Response::new(axum::body::Body::empty()));
        assert_eq!(plain.headers()[header::VARY], "Accept");
        let mut compressed = Response::new(axum::body::Body::empty());
        compressed
            .headers_mut()
            .insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
        let both = vary_by_accept(compressed);
        assert_eq!(both.headers()[header::VARY], "Accept, Accept-Encoding");
    }
}
