//! The JSON of the HTTP API: every body the server sends or takes as JSON,
//! defined once and used by the server (`http`) and the client (`cli`) alike,
//! so the two cannot drift apart. `docs/openapi.json` describes the same
//! shapes, and `tests/it/openapi.rs` checks the server against it.
//!
//! Field order is the order on the wire. `Option` fields are sent as `null`
//! unless marked to be left out.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use super::error_code::ErrorCode;
use super::files::PasteFile;
use super::paste::{KeyCheck, PasteMeta, Visibility, rfc3339};
use super::tenant::{Person, ProgramInfo, Tenant, TokenRecord};

/// The header that carries a paste's delete token (answer to a create, and `DELETE`).
pub const DELETE_TOKEN_HEADER: &str = "x-delete-token";

/// The answer to a create (`POST /` with `Accept: application/json`).
///
/// Borrows what the server already holds, so an answer copies no more than
/// it must; the client reads it into owned strings (`Created<'static>`).
#[derive(Debug, Serialize, Deserialize)]
pub struct Created<'a> {
    /// The paste's ID.
    pub id: Cow<'a, str>,
    /// Where it is read (and viewed in a browser).
    pub url: Cow<'a, str>,
    /// Where its raw bytes are read.
    pub raw_url: Cow<'a, str>,
    /// The secret that deletes it, shown this once.
    pub delete_token: Cow<'a, str>,
    /// When it expires (RFC 3339), or `null` for never.
    pub expires_at: Option<String>,
    /// Whether the first read destroys it.
    pub burn: bool,
    /// Its size in bytes.
    pub size: u64,
    /// A several-file paste's files (each read at `raw_url` + `/` + its
    /// name); left out for a one-file paste.
    #[serde(default, skip_serializing_if = "<[PasteFile]>::is_empty")]
    pub files: Cow<'a, [PasteFile]>,
}

/// A paste's public metadata (`GET /api/pastes/{id}`, and each listed paste):
/// never the delete token's hash or the owner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PasteInfo {
    /// The paste's ID.
    pub id: String,
    /// Its size in bytes.
    pub size: u64,
    /// The language it is highlighted as.
    pub lang: Option<String>,
    /// Its file name.
    pub name: Option<String>,
    /// The media type its raw bytes are served as.
    pub content_type: String,
    /// When it was created (RFC 3339).
    pub created_at: String,
    /// When it expires (RFC 3339), or `null` for never.
    pub expires_at: Option<String>,
    /// Whether the first read destroys it.
    pub burn: bool,
    /// Whether it is sealed in an envelope the server cannot open.
    pub encrypted: bool,
    /// Who may read it.
    pub visibility: Visibility,
    /// A short link's target; left out for every other paste.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// For an encrypted paste read only with a proof of key: what a reader
    /// needs to compute it; left out for every other paste.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proof: Option<ProofParams>,
    /// A several-file paste's files, in order; left out for a one-file paste.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<PasteFile>,
    /// The person who created it (signed in through the identity provider);
    /// left out for a paste created otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<Person>,
}

/// The public parameters of a paste's proof of key (`docs/envelope.md`):
/// the envelope's PBKDF2 salt and iterations, so that a reader can derive
/// the final key before it has the ciphertext.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProofParams {
    /// PBKDF2 iterations; 0 when the envelope needs no password.
    pub iterations: u32,
    /// The PBKDF2 salt, base64url without padding (all zero bytes without a password).
    pub salt: String,
}

impl ProofParams {
    /// The parameters of a paste's key check.
    pub fn of(check: &KeyCheck) -> Self {
        Self {
            iterations: check.iterations,
            salt: URL_SAFE_NO_PAD.encode(check.salt),
        }
    }

    /// The salt's bytes, if it is 16 bytes of base64url.
    pub fn salt_bytes(&self) -> Option<[u8; 16]> {
        let mut salt = [0u8; 16];
        match URL_SAFE_NO_PAD.decode_slice(&self.salt, &mut salt) {
            Ok(16) => Some(salt),
            _ => None,
        }
    }
}

impl From<PasteMeta> for PasteInfo {
    fn from(meta: PasteMeta) -> Self {
        Self {
            id: meta.id,
            size: meta.size,
            lang: meta.lang,
            name: meta.name,
            content_type: meta.content_type,
            created_at: rfc3339(meta.created_at),
            expires_at: meta.expires_at.map(rfc3339),
            burn: meta.burn,
            encrypted: meta.encrypted,
            visibility: meta.visibility,
            url: meta.redirect,
            proof: meta.key_check.as_ref().map(ProofParams::of),
            files: meta.files,
            author: meta.author,
        }
    }
}

/// One page of a tenant's pastes, newest first (`GET /api/pastes`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PastePage {
    /// The pastes of this page.
    pub pastes: Vec<PasteInfo>,
    /// Pass as `cursor` to get the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

/// What a tenant keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Body bytes of its live pastes.
    pub bytes: u64,
    /// Number of its live pastes.
    pub pastes: u64,
}

/// A tenant as the admin sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TenantView {
    /// The tenant's name.
    pub name: String,
    /// When it was created (RFC 3339).
    pub created_at: String,
    /// Bytes of live pastes it may keep; `null` for no limit.
    pub max_bytes: Option<u64>,
    /// Its largest paste; `null` for the server's limit.
    pub max_paste_bytes: Option<u64>,
    /// Its request rate (`50/s`); `null` for the server's.
    pub rate: Option<String>,
    /// Requests allowed in a burst above the rate; `null` for the default.
    pub burst: Option<u32>,
    /// Fuel for one run of its program; `null` for the server's default.
    pub program_fuel: Option<u64>,
    /// Memory for one run of its program, in bytes; `null` for the server's default.
    pub program_memory: Option<u64>,
    /// The identity provider's group whose members sign in to it (its own
    /// name unless one was set).
    #[serde(default)]
    pub group: String,
    /// What it keeps now.
    pub usage: Usage,
}

impl TenantView {
    /// The view of `tenant`, which keeps `usage`.
    pub fn new(tenant: Tenant, usage: Usage) -> Self {
        Self {
            created_at: rfc3339(tenant.created_at),
            rate: tenant.rate.map(|r| r.to_string()),
            group: tenant.accepted_group().to_owned(),
            name: tenant.name,
            max_bytes: tenant.max_bytes,
            max_paste_bytes: tenant.max_paste_bytes,
            burst: tenant.burst,
            program_fuel: tenant.program_fuel,
            program_memory: tenant.program_memory,
            usage,
        }
    }
}

/// An API token as the admin sees it: its public ID, never its hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenView {
    /// The token's public ID (`tok_…`).
    pub id: String,
    /// The tenant it acts for.
    pub tenant: String,
    /// Whether it may only read.
    pub read_only: bool,
    /// When it was created (RFC 3339).
    pub created_at: String,
    /// When it expires (RFC 3339), or `null` for never.
    pub expires_at: Option<String>,
    /// The secret itself: only in the answer to a create, shown this once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

impl TokenView {
    /// The view of `record`, with its `secret` when it has just been made.
    pub fn new(record: TokenRecord, secret: Option<String>) -> Self {
        Self {
            id: record.id,
            tenant: record.tenant,
            read_only: record.read_only,
            created_at: rfc3339(record.created_at),
            expires_at: record.expires_at.map(rfc3339),
            token: secret,
        }
    }
}

/// The answer to creating a tenant: the tenant and its first token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TenantCreated {
    /// The new tenant.
    pub tenant: TenantView,
    /// Its first token, with the secret.
    pub token: TokenView,
}

/// A new tenant's settings (`POST /api/admin/tenants`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewTenant {
    /// The tenant's name.
    pub name: String,
    /// Bytes of live pastes it may keep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_bytes: Option<u64>,
    /// Its largest paste.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_paste_bytes: Option<u64>,
    /// Its request rate (`50/s`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<String>,
    /// Requests allowed in a burst above the rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<u32>,
    /// The identity provider's group whose members sign in to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

/// A change of a tenant's settings (`PATCH /api/admin/tenants/{name}`): a
/// field left out stays as it is, `null` removes the limit.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TenantChange {
    /// Bytes of live pastes it may keep.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_bytes: Option<Option<u64>>,
    /// Its largest paste.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub max_paste_bytes: Option<Option<u64>>,
    /// Its request rate (`50/s`).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub rate: Option<Option<String>>,
    /// Requests allowed in a burst above the rate.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub burst: Option<Option<u32>>,
    /// Fuel for one run of its program.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub program_fuel: Option<Option<u64>>,
    /// Memory for one run of its program, in bytes.
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub program_memory: Option<Option<u64>>,
    /// The identity provider's group whose members sign in to it (`null`:
    /// the group named like the tenant).
    #[serde(
        default,
        deserialize_with = "present",
        skip_serializing_if = "Option::is_none"
    )]
    pub group: Option<Option<String>>,
}

/// A tenant's program as the admin sees it
/// (`GET`/`PUT /api/admin/tenants/{name}/program`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProgramView {
    /// The tenant it runs for.
    pub tenant: String,
    /// The module's size in bytes.
    pub size: u64,
    /// The module's SHA-256, in hex.
    pub sha256: String,
    /// When it was set (RFC 3339).
    pub set_at: String,
    /// Fuel for one run (the tenant's limit, else the server's default).
    pub fuel: u64,
    /// Memory for one run, in bytes (likewise).
    pub memory: u64,
}

impl ProgramView {
    /// The view of `tenant`'s `program`, run under `fuel` and `memory`.
    pub fn new(tenant: &str, program: ProgramInfo, fuel: u64, memory: u64) -> Self {
        Self {
            tenant: tenant.to_owned(),
            size: program.size,
            sha256: super::hex::encode(&program.sha256),
            set_at: rfc3339(program.set_at),
            fuel,
            memory,
        }
    }
}

/// Distinguishes a field sent as `null` (`Some(None)`) from one not sent (`None`).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// A new token's settings (`POST /api/admin/tenants/{name}/tokens`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewToken {
    /// Whether it may only read.
    #[serde(default)]
    pub read_only: bool,
    /// A lifetime like `30d`, or `null` for none.
    #[serde(default)]
    pub expires: Option<String>,
}

/// Every error answer a JSON client gets: `{"error":{"code","message"}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody<'a> {
    /// What went wrong.
    pub error: ErrorDetail<'a>,
}

/// The inside of an [`ErrorBody`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorDetail<'a> {
    /// A stable identifier clients can match on (`not_found`, `too_large`, …).
    pub code: ErrorCode,
    /// One human-readable line.
    pub message: Cow<'a, str>,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A short link's target and a new token's secret are the only fields
    /// left out when empty; every other `None` is sent as `null`.
    #[test]
    fn empty_fields_on_the_wire() {
        let token = TokenView {
            id: "tok_a".into(),
            tenant: "t".into(),
            read_only: false,
            created_at: "2026-01-01T00:00:00Z".into(),
            expires_at: None,
            token: None,
        };
        assert_eq!(
            serde_json::to_string(&token).unwrap(),
            r#"{"id":"tok_a","tenant":"t","read_only":false,"created_at":"2026-01-01T00:00:00Z","expires_at":null}"#
        );
        let back: TokenView =
            serde_json::from_str(&serde_json::to_string(&token).unwrap()).unwrap();
        assert_eq!(back, token);
    }

    /// A change tells a field sent as `null` from one left out, both ways.
    #[test]
    fn tenant_change_keeps_null_apart_from_absent() {
        let change: TenantChange = serde_json::from_str(r#"{"max_bytes":null,"burst":5}"#).unwrap();
        assert_eq!(change.max_bytes, Some(None));
        assert_eq!(change.max_paste_bytes, None);
        assert_eq!(change.burst, Some(Some(5)));
        assert_eq!(
            serde_json::to_string(&change).unwrap(),
            r#"{"max_bytes":null,"burst":5}"#
        );
    }

    /// The error body lists the code before the message.
    #[test]
    fn error_body() {
        let body = ErrorBody {
            error: ErrorDetail {
                code: ErrorCode::NotFound,
                message: "no such paste".into(),
            },
        };
        assert_eq!(
            serde_json::to_string(&body).unwrap(),
            r#"{"error":{"code":"not_found","message":"no such paste"}}"#
        );
    }
}
