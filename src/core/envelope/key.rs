//! The link key: 256 random bits that travel only in the link's fragment.

use std::fmt;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use super::KEY_LEN;

/// The per-paste 256-bit link key. Its `Debug` form never shows the bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct Key(pub(super) [u8; KEY_LEN]);

/// Why a link fragment is not a key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the #key part of the link is not a key (expected 43 characters of base64url)")]
pub struct KeyError;

impl Key {
    /// A fresh key from the OS CSPRNG.
    pub fn generate() -> Result<Self, getrandom::Error> {
        let mut bytes = [0u8; KEY_LEN];
        getrandom::fill(&mut bytes)?;
        Ok(Self(bytes))
    }

    /// A key with the given bytes.
    pub fn from_bytes(bytes: [u8; KEY_LEN]) -> Self {
        Self(bytes)
    }

    /// Parses a link fragment (without its `#`): exactly 43 characters of
    /// canonical base64url without padding.
    pub fn from_fragment(fragment: &str) -> Result<Self, KeyError> {
        if fragment.len() != 43 {
            return Err(KeyError);
        }
        let mut bytes = [0u8; KEY_LEN];
        match URL_SAFE_NO_PAD.decode_slice(fragment, &mut bytes) {
            Ok(KEY_LEN) => Ok(Self(bytes)),
            _ => Err(KeyError),
        }
    }

    /// The link fragment (without its `#`): base64url without padding, 43 characters.
    pub fn to_fragment(&self) -> String {
        URL_SAFE_NO_PAD.encode(self.0)
    }

    /// The raw key bytes.
    pub fn as_bytes(&self) -> &[u8; KEY_LEN] {
        &self.0
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Key(…)")
    }
}
