//! The meta a program reads beside the body: a JSON object describing the
//! paste being created ([`CheckMeta`]).

use serde::Serialize;

use crate::core::paste::Visibility;

/// The paste being created, as `check` reads it.
#[derive(Debug, Clone, Serialize)]
pub struct CheckMeta<'a> {
    /// The tenant creating it.
    pub tenant: &'a str,
    /// Its file name, if it has one.
    pub name: Option<&'a str>,
    /// Its language for highlighting, if it names one.
    pub lang: Option<&'a str>,
    /// Its size in bytes.
    pub size: u64,
    /// `unlisted`, `team` or `me`.
    pub visibility: Visibility,
    /// Whether it is burnt after reading.
    pub burn: bool,
    /// Seconds it lives, `null` if it never expires.
    pub ttl: Option<u64>,
    /// Whether the body is an encryption envelope (ciphertext).
    pub encrypted: bool,
    /// Its files, when it has several.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub files: Option<Vec<FileMeta<'a>>>,
}

/// One file of a paste with several.
#[derive(Debug, Clone, Serialize)]
pub struct FileMeta<'a> {
    /// The file's name.
    pub name: Option<&'a str>,
    /// Its language, if it names one.
    pub lang: Option<&'a str>,
    /// Its size in bytes.
    pub size: u64,
}

impl CheckMeta<'_> {
    /// The JSON `check` receives.
    pub fn to_json(&self) -> Vec<u8> {
        // Plain strings, numbers and booleans: serialising cannot fail.
        serde_json::to_vec(self).unwrap_or_else(|_| b"{}".to_vec())
    }
}
