//! The request pipeline: what a request passes through before and after its
//! handler.
//!
//! [`hot`] takes each connection's requests and serves the hot routes itself,
//! the rest through axum's router. Around every route, [`finish`] decides the
//! request's origin ([`forwarded`]: client IP, scheme, host behind trusted
//! proxies) and, on the way out, renders errors, adds the security headers and
//! records the request ([`observe`]). Around the paste routes, [`auth`]
//! establishes the [`caller`] and counts the request against its bucket
//! ([`ratelimit`]); every per-client limit groups clients by [`client_net`].

pub mod auth;
pub mod caller;
pub mod client_net;
pub mod finish;
pub mod forwarded;
pub mod hot;
pub mod observe;
pub mod ratelimit;

/// A header map from name/value pairs, for the pipeline's unit tests.
#[cfg(test)]
fn test_headers(pairs: &[(&'static str, &str)]) -> axum::http::HeaderMap {
    let mut map = axum::http::HeaderMap::new();
    for (name, value) in pairs {
        map.append(*name, axum::http::HeaderValue::from_str(value).unwrap());
    }
    map
}
