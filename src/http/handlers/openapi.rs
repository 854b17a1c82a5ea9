//! The OpenAPI 3.1 description of the HTTP API, `docs/openapi.json`,
//! embedded in the binary and served at `GET /api/openapi.json`.
//!
//! It is written by hand (the handlers stay free of annotations) and kept in
//! sync with the router by `tests/it/openapi.rs`, which fails when a route or
//! method exists on one side only, and fuzzes the running server against it
//! with schemathesis. Its paths are also the route templates the metrics
//! pre-register.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::IgnoredAny;

/// The document.
pub const SPEC: &str = include_str!("../../../docs/openapi.json");

#[derive(Deserialize)]
struct Paths<'a> {
    #[serde(borrow)]
    paths: BTreeMap<&'a str, IgnoredAny>,
}

/// The route templates of the API (the document's paths, e.g. `/raw/{id}`).
pub fn route_templates() -> Vec<&'static str> {
    // The document is compiled in and checked by the tests; should it ever
    // fail to parse, metrics just label every route `unmatched`.
    serde_json::from_str::<Paths<'static>>(SPEC)
        .map(|p| p.paths.into_keys().collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The embedded document parses and lists the paste routes.
    #[test]
    fn templates() {
        let routes = route_templates();
        assert!(routes.contains(&"/raw/{id}"), "{routes:?}");
        assert!(routes.contains(&"/api/admin/tenants/{name}"));
    }
}
