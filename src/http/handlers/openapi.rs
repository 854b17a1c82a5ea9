//! The OpenAPI 3.1 description of the HTTP API, `docs/openapi.json`,
//! embedded in the binary and served at `GET /api/openapi.json`.
//!
//! It is written by hand (the handlers stay free of annotations) and kept in
//! sync with the route table (`src/http/routes.rs`) by `tests/it/openapi.rs`,
//! which fails when a route or method exists on one side only, and fuzzes
//! the running server against it with schemathesis. Its paths are also the route templates the metrics
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
    use std::collections::BTreeSet;

    use super::*;
    use crate::core::ErrorCode;

    /// The embedded document parses and lists the paste routes.
    #[test]
    fn templates() {
        let routes = route_templates();
        assert!(routes.contains(&"/raw/{id}"), "{routes:?}");
        assert!(routes.contains(&"/api/admin/tenants/{name}"));
    }

    /// The `enum` of the `Error` schema's `code` is exactly the codes of
    /// [`ErrorCode`]: a code the server can answer is documented, and the
    /// document names no code the server does not have.
    #[test]
    fn error_codes_match_the_document() {
        let spec: serde_json::Value = serde_json::from_str(SPEC).unwrap();
        let listed = &spec["components"]["schemas"]["Error"]["properties"]["error"]["properties"]["code"]
            ["enum"];
        let documented: Vec<ErrorCode> = serde_json::from_value(listed.clone())
            .unwrap_or_else(|e| panic!("the document lists a code the server lacks: {e}"));
        let documented: BTreeSet<String> = documented.iter().map(wire_name).collect();
        let answered: BTreeSet<String> = ErrorCode::ALL.iter().map(wire_name).collect();
        assert_eq!(
            listed.as_array().map(Vec::len),
            Some(documented.len()),
            "a code is listed twice"
        );
        assert_eq!(documented, answered);
    }

    fn wire_name(code: &ErrorCode) -> String {
        serde_json::to_value(code)
            .unwrap()
            .as_str()
            .unwrap()
            .to_owned()
    }
}
