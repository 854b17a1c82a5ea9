//! [`ErrorCode`]: every machine-readable code an error answer of the HTTP API
//! carries (`{"error":{"code":…}}`), one variant each, spelled on the wire in
//! `snake_case`. The server answers with them (its `ApiError`
//! pairs each with its status), the client matches on them, and
//! `docs/openapi.json` lists them as the `enum` of its `Error` schema (a test
//! keeps the two equal).

use serde::{Deserialize, Serialize};

/// Declares [`ErrorCode`] and [`ErrorCode::ALL`] from one list, so that a
/// code cannot be added without being listed for the test that compares the
/// codes with `docs/openapi.json`.
macro_rules! error_codes {
    ($($(#[doc = $doc:literal])+ $code:ident,)+) => {
        /// A stable identifier of an error answer, for clients to match on.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum ErrorCode {
            $($(#[doc = $doc])+ $code,)+
        }

        impl ErrorCode {
            /// Every code, in the order declared.
            pub const ALL: &[ErrorCode] = &[$(ErrorCode::$code,)+];
        }
    };
}

error_codes! {
    /// `400`: a parameter or the body is unacceptable.
    BadRequest,
    /// `400`: a sign-in through the identity provider failed (a callback
    /// this browser did not start, a wrong state, an ID token that does not
    /// verify).
    SigninFailed,
    /// `404`: no such paste (unknown, expired and burned look the same).
    NotFound,
    /// `404`: an ID whose check character does not match (a typo).
    MistypedId,
    /// `404`: a string that is not an ID at all.
    MalformedId,
    /// `404`: a path no route matches.
    NoRoute,
    /// `404`: no such embedded asset.
    NoAsset,
    /// `404`: the admin API is disabled (no `--admin-token`).
    AdminDisabled,
    /// `404`: sign-in through an identity provider is not configured (no `--oidc-issuer`).
    ProviderDisabled,
    /// `404`: no such tenant.
    NoSuchTenant,
    /// `404`: no such token.
    NoSuchToken,
    /// `404`: the tenant has no program.
    NoProgram,
    /// `401`: no valid credentials.
    Unauthorized,
    /// `403`: the credentials do not allow this.
    Forbidden,
    /// `403`: an encrypted paste is served only with a proof of its key.
    ProofRequired,
    /// `403`: the proof of key is wrong; the paste is intact.
    WrongProof,
    /// `405`: the route exists, the method does not.
    MethodNotAllowed,
    /// `406`: a paste asked for as text (`GET /documents/{id}`) is not UTF-8 text.
    NotText,
    /// `408`: the request body did not keep its pace.
    Timeout,
    /// `409`: a plain read of a burn-after-reading paste.
    BurnAfterReading,
    /// `409`: revealing an encrypted burn paste needs a script (or `snip get`).
    NeedsScript,
    /// `409`: a tenant with this name exists already.
    TenantExists,
    /// `409`: the tenant still owns pastes.
    TenantNotEmpty,
    /// `413`: over a size limit.
    TooLarge,
    /// `415`: an encoding or media type the server does not take.
    UnsupportedMediaType,
    /// `416`: a range outside the paste.
    RangeNotSatisfiable,
    /// `422`: the tenant's program refused the paste; the message is its reason.
    PolicyRefused,
    /// `422`: the tenant's program failed (it looped, trapped, went past a
    /// limit or answered outside the ABI), so the paste was refused.
    PolicyFailed,
    /// `429`: over a rate limit.
    RateLimited,
    /// `429`: the client's request bodies in flight hold its whole share.
    InflightShare,
    /// `429`: the client is being sent too many large pastes at once.
    TooManyDownloads,
    /// `500`: something broke on the server's side.
    Internal,
    /// `500`: the stored data the request needs is damaged.
    Corrupt,
    /// `501`: an oEmbed answer in a format other than JSON.
    FormatNotImplemented,
    /// `502`: the identity provider cannot be reached, or its answer is
    /// malformed, oversized or late.
    ProviderUnavailable,
    /// `503`: the server holds all the request bodies or responses it may.
    Busy,
    /// `503`: the store refuses writes until it is reopened.
    StoreBroken,
    /// `503`: the database did not answer in time.
    StoreTimeout,
    /// `503`: the database is unavailable.
    StoreUnavailable,
    /// `503`: the search index is being built, or cannot be written.
    SearchUnavailable,
    /// `503`: the readiness probe failed.
    NotReady,
    /// `507`: the server's storage limit is reached.
    StorageFull,
    /// `507`: the tenant's quota is used up.
    QuotaExceeded,
    /// `507`: the server's disk is full.
    DiskFull,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each code is its variant's name in `snake_case` on the wire, and reads back.
    #[test]
    fn codes_are_snake_case() {
        assert_eq!(
            serde_json::to_string(&ErrorCode::UnsupportedMediaType).unwrap(),
            r#""unsupported_media_type""#
        );
        for &code in ErrorCode::ALL {
            let text = serde_json::to_string(&code).unwrap();
            assert_eq!(serde_json::from_str::<ErrorCode>(&text).unwrap(), code);
        }
        assert!(serde_json::from_str::<ErrorCode>(r#""no_such_code""#).is_err());
    }
}
