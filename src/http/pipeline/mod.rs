//! The request pipeline: what a request passes through before and after its
//! handler.
//!
//! [`hot`] takes each connection's requests and serves the hot routes itself,
//! the rest through axum's router. Around every route, [`finish`] decides the
//! request's origin ([`crate::http::forwarded`]: client IP, scheme, host
//! behind trusted proxies) and, on the way out, renders errors, adds the security headers and
//! records the request ([`observe`]). Around the paste routes, [`auth`]
//! establishes the [`Caller`](crate::http::context::Caller) and counts the
//! request against its bucket ([`crate::http::ratelimit`]). What these
//! stages establish, they leave in the request's extensions as its
//! [`crate::http::context`].

pub mod auth;
pub mod finish;
pub mod hot;
pub mod observe;
