//! The proof of key: how a reader shows the server it holds a paste's key
//! without sending it (`docs/envelope.md`, "Proof of key"). A paste created
//! with a verifier (`SHA-256` of the proof) serves its ciphertext only to a
//! request that presents the proof.

use std::fmt;

use aes_gcm::Aes256Gcm;
use aes_gcm::aead::KeyInit;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hkdf::Hkdf;
use sha2::Sha256;

use super::{Header, KEY_LEN, Key, SALT_LEN};

/// The info string of the proof's HKDF (`docs/envelope.md`, "Proof of key").
pub const PROOF_INFO: &[u8] = b"snip reveal";
/// Length of a proof and of its verifier.
pub const PROOF_LEN: usize = 32;

/// The final key: the AES key of an envelope, `K` itself without a password,
/// PBKDF2 over `K ‖ password` with one. Its `Debug` form never shows the bytes.
#[derive(Clone)]
pub struct FinalKey([u8; KEY_LEN]);

impl FinalKey {
    /// Derives the final key from the link key and, when `password` is
    /// given, the envelope's salt and iterations (ignored without a password).
    pub fn derive(
        key: &Key,
        password: Option<&str>,
        salt: &[u8; SALT_LEN],
        iterations: u32,
    ) -> Self {
        match password {
            None => Self(key.0),
            Some(password) => {
                let mut secret = Vec::with_capacity(KEY_LEN + password.len());
                secret.extend_from_slice(&key.0);
                secret.extend_from_slice(password.as_bytes());
                Self(pbkdf2::pbkdf2_hmac_array::<Sha256, KEY_LEN>(
                    &secret, salt, iterations,
                ))
            }
        }
    }

    /// The final key of an envelope with `header`: a password is used only
    /// when the header asks for one.
    pub fn for_header(key: &Key, password: Option<&str>, header: &Header) -> Self {
        let password = password.filter(|_| header.needs_password());
        Self::derive(key, password, &header.salt, header.iterations)
    }

    /// The proof of key: `HKDF-SHA256(final key, salt = none, info = "snip reveal")`, 32 bytes.
    pub fn proof(&self) -> Proof {
        Proof(hkdf_sha256_32(&self.0, PROOF_INFO))
    }

    pub(super) fn cipher(&self) -> Aes256Gcm {
        Aes256Gcm::new(&self.0.into())
    }
}

impl fmt::Debug for FinalKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FinalKey(…)")
    }
}

/// HKDF-SHA256 (RFC 5869) without a salt, 32 bytes of output.
pub(super) fn hkdf_sha256_32(ikm: &[u8], info: &[u8]) -> [u8; 32] {
    let mut okm = [0u8; 32];
    // HKDF-SHA256 gives up to 255 × 32 bytes; 32 always fit.
    let Ok(()) = Hkdf::<Sha256>::new(None, ikm).expand(info, &mut okm) else {
        unreachable!("HKDF-SHA256 expands to 32 bytes")
    };
    okm
}

/// A proof of key: what a reader presents (`X-Snip-Proof`) to be served the
/// ciphertext of a paste created with a verifier. Its `Debug` form never
/// shows the bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct Proof([u8; PROOF_LEN]);

/// Why a header value is not a proof or a verifier.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not 32 bytes in base64url without padding (43 characters)")]
pub struct ProofSyntaxError;

impl Proof {
    /// A proof with the given bytes.
    pub fn from_bytes(bytes: [u8; PROOF_LEN]) -> Self {
        Self(bytes)
    }

    /// Parses a proof's text: 43 characters of canonical base64url.
    pub fn parse(text: &str) -> Result<Self, ProofSyntaxError> {
        decode_32(text).map(Self)
    }

    /// The proof's text: base64url without padding.
    pub fn to_text(&self) -> String {
        URL_SAFE_NO_PAD.encode(self.0)
    }

    /// The raw bytes.
    pub fn as_bytes(&self) -> &[u8; PROOF_LEN] {
        &self.0
    }

    /// The verifier the server keeps: `SHA-256(proof)`.
    pub fn verifier(&self) -> [u8; PROOF_LEN] {
        use sha2::Digest as _;
        Sha256::digest(self.0).into()
    }
}

impl fmt::Debug for Proof {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Proof(…)")
    }
}

/// Parses a verifier's text (as sent at creation): 43 characters of
/// canonical base64url, 32 bytes.
pub fn parse_verifier(text: &str) -> Result<[u8; PROOF_LEN], ProofSyntaxError> {
    decode_32(text)
}

fn decode_32(text: &str) -> Result<[u8; 32], ProofSyntaxError> {
    if text.len() != 43 {
        return Err(ProofSyntaxError);
    }
    let mut bytes = [0u8; 32];
    match URL_SAFE_NO_PAD.decode_slice(text, &mut bytes) {
        Ok(32) => Ok(bytes),
        _ => Err(ProofSyntaxError),
    }
}
