//! The web GUI's static assets, compiled into the binary.
//!
//! `build.rs` bundles `web/` with npm and esbuild, precompresses every file
//! with brotli and gzip, and generates the table included below. Assets are
//! served at `/assets/{file}` under content-hashed names (`app-6FE3UPYE.js`),
//! so they are cached for a year as `immutable`; pages reference them through
//! the generated constants ([`APP_JS`], [`SNIP_CSS`], …), which change
//! whenever the content does. The stable names (`/assets/app.js`) are served
//! too, for anyone linking to them, but revalidated (`no-cache`).
//!
//! Every response has a strong `ETag` per representation (`If-None-Match` →
//! `304`) and `Vary: Accept-Encoding`; the encoding is chosen from
//! `Accept-Encoding` (brotli, then gzip, then identity) without compressing
//! anything at request time.

use axum::extract::Path;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::http::api_error::{ApiError, ErrorCode};
use crate::http::render::negotiate::{AcceptEncoding, accept_encoding};

/// One embedded file and its precompressed variants.
#[derive(Debug)]
pub struct Asset {
    /// The content-hashed file name it is served under.
    pub file: &'static str,
    /// Its media type.
    pub content_type: &'static str,
    /// A strong validator of the uncompressed bytes, quoted.
    pub etag: &'static str,
    /// The bytes.
    pub identity: &'static [u8],
    /// Brotli-compressed bytes, when smaller.
    pub br: Option<&'static [u8]>,
    /// Gzip-compressed bytes, when smaller.
    pub gzip: Option<&'static [u8]>,
}

include!(concat!(env!("OUT_DIR"), "/assets.rs"));

/// Where the stylesheet is served (content-hashed).
pub const CSS_PATH: &str = SNIP_CSS;

/// A content coding of a response body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    /// `br`
    Brotli,
    /// `gzip`
    Gzip,
    /// No content coding.
    Identity,
}

/// The best coding the client accepts among `br`, `gzip` and identity.
///
/// Honours `q` values (`q=0` refuses a coding), `*`, and prefers brotli
/// when both compressions are equally acceptable.
pub fn negotiate_coding(headers: &HeaderMap) -> Coding {
    let AcceptEncoding { br, gzip, .. } = accept_encoding(headers);
    if br > 0.0 && br >= gzip {
        Coding::Brotli
    } else if gzip > 0.0 {
        Coding::Gzip
    } else {
        Coding::Identity
    }
}

/// `GET /assets/{file}`: an embedded asset, precompressed, cached by name.
pub async fn serve(Path(file): Path<String>, headers: HeaderMap) -> Result<Response, ApiError> {
    let (asset, immutable) = match by_file(&file) {
        Some(asset) => (asset, true),
        None => (by_name(&file).ok_or_else(not_found)?, false),
    };
    Ok(respond(asset, immutable, &headers))
}

fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, ErrorCode::NoAsset, "no such asset")
}

fn respond(asset: &'static Asset, immutable: bool, request: &HeaderMap) -> Response {
    let (coding, body) = match negotiate_coding(request) {
        Coding::Brotli if asset.br.is_some() => ("br", asset.br),
        Coding::Brotli | Coding::Gzip if asset.gzip.is_some() => ("gzip", asset.gzip),
        _ => ("", None),
    };
    let body = body.unwrap_or(asset.identity);
    // A strong ETag names one representation: each coding gets its own.
    let etag = if coding.is_empty() {
        asset.etag.to_owned()
    } else {
        format!("{}-{coding}\"", asset.etag.trim_end_matches('"'))
    };
    let fresh = request
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    let mut response = if fresh {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        body.into_response()
    };
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(asset.content_type),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static(if immutable {
            "public, max-age=31536000, immutable"
        } else {
            "public, no-cache"
        }),
    );
    headers.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    if let Ok(etag) = HeaderValue::from_str(&etag) {
        headers.insert(header::ETAG, etag);
    }
    if !coding.is_empty() {
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static(coding));
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(accept: &str) -> Coding {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCEPT_ENCODING,
            HeaderValue::from_str(accept).unwrap(),
        );
        negotiate_coding(&headers)
    }

    /// Browsers' headers pick brotli; q=0 and missing headers are respected.
    #[test]
    fn codings() {
        assert_eq!(with("gzip, deflate, br, zstd"), Coding::Brotli);
        assert_eq!(with("gzip, deflate"), Coding::Gzip);
        assert_eq!(with("br;q=0, gzip"), Coding::Gzip);
        assert_eq!(with("gzip;q=0.5, br;q=0.4"), Coding::Gzip);
        assert_eq!(with("*"), Coding::Brotli);
        assert_eq!(with("identity"), Coding::Identity);
        assert_eq!(with("*;q=0"), Coding::Identity);
        assert_eq!(negotiate_coding(&HeaderMap::new()), Coding::Identity);
    }

    /// The generated table is consistent: hashed names, lookups, smaller variants.
    #[test]
    fn table() {
        assert!(ASSETS.len() > 10);
        for asset in &ASSETS {
            assert!(std::ptr::eq(by_file(asset.file).unwrap(), asset));
            assert!(asset.etag.starts_with('"') && asset.etag.ends_with('"'));
            for variant in [asset.br, asset.gzip].into_iter().flatten() {
                assert!(variant.len() < asset.identity.len(), "{}", asset.file);
            }
        }
        for path in [APP_JS, SNIP_CSS, ICON_SVG, LICENSES_TXT] {
            let file = path.strip_prefix("/assets/").unwrap();
            assert!(by_file(file).is_some(), "{path}");
        }
        assert_eq!(by_name("app.js").unwrap().file, &APP_JS["/assets/".len()..]);
    }
}
