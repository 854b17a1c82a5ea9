//! What is known about a request beyond its own parts, as every stage reads
//! it: where it comes from ([`Origin`]), who is calling ([`Caller`], with
//! the server's [`AnonymousPolicy`]), and the browser session cookie it
//! carries ([`session_cookie`]).
//!
//! A leaf: it depends on `core` and the HTTP types alone, so the pipeline
//! (which establishes the context), the handlers and the pages (which read
//! it) all depend on it and not on each other.

pub mod caller;
pub mod origin;
pub mod session_cookie;

pub use caller::{AnonymousPolicy, Caller};
pub use origin::{Origin, Scheme};

/// A header map from name/value pairs, for unit tests.
#[cfg(test)]
pub(crate) fn test_headers(pairs: &[(&'static str, &str)]) -> axum::http::HeaderMap {
    let mut map = axum::http::HeaderMap::new();
    for (name, value) in pairs {
        map.append(*name, axum::http::HeaderValue::from_str(value).unwrap());
    }
    map
}
