//! The end-to-end encryption envelope, version 1 (`docs/envelope.md` is the
//! contract; the browser implements the same bytes with WebCrypto).
//!
//! An encrypted paste is sealed by the client before upload. The server only
//! ever stores the envelope; the 256-bit [`Key`] travels in the link's
//! fragment (`https://host/ID#KEY`), which is never sent to the server.
//!
//! ```text
//! envelope  = "SNIP" ‖ version 1 ‖ flags ‖ u32_be iterations ‖ salt[16] ‖ nonce[12] ‖ ciphertext ‖ tag[16]
//! plaintext = u32_be(len(META)) ‖ META ‖ CONTENT      (META: JSON {lang, name, type})
//! aes key   = K                                                     without a password
//!           = PBKDF2-HMAC-SHA256(K ‖ UTF-8(password), salt, iterations, 32)  with one
//! ```
//!
//! The 38-byte header is AES-GCM's associated data, so it cannot be changed
//! without decryption failing. This module does no I/O: [`seal`] draws its
//! salt and nonce from the OS CSPRNG, [`seal_with`] takes them as arguments
//! (for the test vectors), and [`open`] reverses either.

use std::fmt;

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::Serialize;
use serde_json::Value;
use sha2::Sha256;

/// The first four bytes of every envelope.
pub const MAGIC: &[u8; 4] = b"SNIP";
/// The only version this module reads and writes.
pub const VERSION: u8 = 1;
/// Flag bit 0: the AES key is derived from the link key and a password.
pub const FLAG_PASSWORD: u8 = 0x01;
/// Length of the header (magic, version, flags, iterations, salt, nonce).
pub const HEADER_LEN: usize = 38;
/// Length of the AES-GCM tag appended to the ciphertext.
pub const TAG_LEN: usize = 16;
/// Length of the link key and of the AES-256 key.
pub const KEY_LEN: usize = 32;
/// Length of the PBKDF2 salt.
pub const SALT_LEN: usize = 16;
/// Length of the AES-GCM nonce.
pub const NONCE_LEN: usize = 12;
/// PBKDF2 iterations [`seal`] uses with a password.
pub const DEFAULT_ITERATIONS: u32 = 600_000;
/// Readers refuse envelopes asking for more PBKDF2 iterations than this.
pub const MAX_ITERATIONS: u32 = 10_000_000;

/// The shortest byte string that can be an envelope: a header and a tag.
const MIN_LEN: usize = HEADER_LEN + TAG_LEN;

/// The per-paste 256-bit link key. Its `Debug` form never shows the bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct Key([u8; KEY_LEN]);

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

/// The metadata sealed with the content, so the server never sees it.
///
/// Written as compact JSON with the present fields in the order `lang`,
/// `name`, `type` and absent fields left out (what `JSON.stringify` gives for
/// an object built in that order with `undefined` for absent fields).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Meta {
    /// Language for highlighting.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// File name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Media type of the content.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
}

impl Meta {
    /// The canonical `META` bytes.
    pub fn to_json(&self) -> Vec<u8> {
        // Serialising a struct of optional strings cannot fail.
        serde_json::to_vec(self).unwrap_or_else(|_| b"{}".to_vec())
    }

    /// Reads `META` leniently, as `JSON.parse` would: unknown fields are
    /// ignored, `null` counts as absent, a repeated key keeps its last value.
    /// Anything but a JSON object, or a known field that is neither a string
    /// nor `null`, is malformed.
    pub fn from_json(bytes: &[u8]) -> Result<Self, EnvelopeError> {
        let value: Value = serde_json::from_slice(bytes)
            .map_err(|_| EnvelopeError::Malformed("the metadata is not JSON"))?;
        let Value::Object(mut map) = value else {
            return Err(EnvelopeError::Malformed(
                "the metadata is not a JSON object",
            ));
        };
        let mut field = |key: &str| match map.remove(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(_) => Err(EnvelopeError::Malformed("a metadata field is not a string")),
        };
        Ok(Self {
            lang: field("lang")?,
            name: field("name")?,
            media_type: field("type")?,
        })
    }
}

/// Why an envelope cannot be opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvelopeError {
    /// Too short, or no `SNIP` magic.
    #[error("this is not an encrypted snip paste")]
    NotAnEnvelope,
    /// A version (or flag) this reader does not know.
    #[error(
        "this paste uses envelope version {version} with flags {flags:#04x}, which this snip cannot read"
    )]
    UnsupportedVersion {
        /// The envelope's version byte.
        version: u8,
        /// The envelope's flags byte.
        flags: u8,
    },
    /// The password flag is set but no password was given.
    #[error("this paste needs a password")]
    PasswordRequired,
    /// Authentication failed; GCM cannot tell which of these it was.
    #[error("wrong key or password, or the paste was tampered with")]
    Decrypt,
    /// The header is inconsistent, or the decrypted plaintext is not laid out as specified.
    #[error("the encrypted paste is malformed: {0}")]
    Malformed(&'static str),
    /// More PBKDF2 iterations than [`MAX_ITERATIONS`] (a denial-of-service guard).
    #[error(
        "this paste asks for {0} password iterations, more than the {MAX_ITERATIONS} snip allows"
    )]
    TooManyIterations(u32),
}

/// Why an envelope cannot be sealed.
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    /// The OS could not supply randomness for the salt or nonce.
    #[error("the operating system could not supply randomness: {0}")]
    Random(getrandom::Error),
    /// Iterations, salt and password do not fit together (see [`seal_with`]).
    #[error("invalid parameters: {0}")]
    Params(&'static str),
    /// The metadata or content is larger than the format allows.
    #[error("the paste is too large to encrypt")]
    TooLarge,
}

impl From<getrandom::Error> for SealError {
    fn from(e: getrandom::Error) -> Self {
        Self::Random(e)
    }
}

/// The parsed 38-byte header of an envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The flags byte ([`FLAG_PASSWORD`] is the only one defined).
    pub flags: u8,
    /// PBKDF2 iterations (0 without a password).
    pub iterations: u32,
    /// PBKDF2 salt (all zero without a password).
    pub salt: [u8; SALT_LEN],
    /// AES-GCM nonce.
    pub nonce: [u8; NONCE_LEN],
}

impl Header {
    /// Parses and checks the header, without any key: magic, version, flags,
    /// and iterations and salt consistent with the password flag.
    pub fn parse(envelope: &[u8]) -> Result<Self, EnvelopeError> {
        if envelope.len() < MAGIC.len() + 1 || &envelope[..4] != MAGIC {
            return Err(EnvelopeError::NotAnEnvelope);
        }
        let version = envelope[4];
        let flags = envelope.get(5).copied().unwrap_or(0);
        if version != VERSION {
            return Err(EnvelopeError::UnsupportedVersion { version, flags });
        }
        if envelope.len() < MIN_LEN {
            return Err(EnvelopeError::NotAnEnvelope);
        }
        if flags & !FLAG_PASSWORD != 0 {
            return Err(EnvelopeError::UnsupportedVersion { version, flags });
        }
        let iterations = u32::from_be_bytes([envelope[6], envelope[7], envelope[8], envelope[9]]);
        let mut salt = [0u8; SALT_LEN];
        salt.copy_from_slice(&envelope[10..26]);
        let mut nonce = [0u8; NONCE_LEN];
        nonce.copy_from_slice(&envelope[26..38]);
        let header = Self {
            flags,
            iterations,
            salt,
            nonce,
        };
        if header.needs_password() {
            if iterations == 0 {
                return Err(EnvelopeError::Malformed(
                    "a password is needed but the iteration count is 0",
                ));
            }
            if iterations > MAX_ITERATIONS {
                return Err(EnvelopeError::TooManyIterations(iterations));
            }
        } else if iterations != 0 || salt != [0; SALT_LEN] {
            return Err(EnvelopeError::Malformed(
                "no password is needed but the iterations or salt are not zero",
            ));
        }
        Ok(header)
    }

    /// Whether opening needs a password.
    pub fn needs_password(&self) -> bool {
        self.flags & FLAG_PASSWORD != 0
    }

    fn to_bytes(&self) -> [u8; HEADER_LEN] {
        let mut bytes = [0u8; HEADER_LEN];
        bytes[..4].copy_from_slice(MAGIC);
        bytes[4] = VERSION;
        bytes[5] = self.flags;
        bytes[6..10].copy_from_slice(&self.iterations.to_be_bytes());
        bytes[10..26].copy_from_slice(&self.salt);
        bytes[26..38].copy_from_slice(&self.nonce);
        bytes
    }
}

/// Seals `content` and `meta` under `key`, and `password` if given, with a
/// fresh random nonce (and salt, and [`DEFAULT_ITERATIONS`], with a password).
pub fn seal(
    content: &[u8],
    meta: &Meta,
    key: &Key,
    password: Option<&str>,
) -> Result<Vec<u8>, SealError> {
    seal_proved(content, meta, key, password).map(|(envelope, _)| envelope)
}

/// [`seal`], also giving the proof of key of the new envelope (from the same
/// final key, so the password is stretched once).
pub fn seal_proved(
    content: &[u8],
    meta: &Meta,
    key: &Key,
    password: Option<&str>,
) -> Result<(Vec<u8>, Proof), SealError> {
    let mut nonce = [0u8; NONCE_LEN];
    getrandom::fill(&mut nonce)?;
    let mut salt = [0u8; SALT_LEN];
    let mut iterations = 0;
    if password.is_some() {
        getrandom::fill(&mut salt)?;
        iterations = DEFAULT_ITERATIONS;
    }
    let (envelope, final_key) = seal_keyed(content, meta, key, password, salt, nonce, iterations)?;
    Ok((envelope, final_key.proof()))
}

/// Seals deterministically with the given salt, nonce and iterations; for
/// test vectors. Never reuse a nonce under the same key: [`seal`] is the API.
///
/// Without a password, `salt` must be all zero and `iterations` 0; with one,
/// `iterations` must be 1 to [`MAX_ITERATIONS`].
pub fn seal_with(
    content: &[u8],
    meta: &Meta,
    key: &Key,
    password: Option<&str>,
    salt: [u8; SALT_LEN],
    nonce: [u8; NONCE_LEN],
    iterations: u32,
) -> Result<Vec<u8>, SealError> {
    seal_keyed(content, meta, key, password, salt, nonce, iterations).map(|(envelope, _)| envelope)
}

/// [`seal_with`], also giving the final key it sealed with.
fn seal_keyed(
    content: &[u8],
    meta: &Meta,
    key: &Key,
    password: Option<&str>,
    salt: [u8; SALT_LEN],
    nonce: [u8; NONCE_LEN],
    iterations: u32,
) -> Result<(Vec<u8>, FinalKey), SealError> {
    let flags = match password {
        Some(_) if iterations == 0 || iterations > MAX_ITERATIONS => {
            return Err(SealError::Params(
                "with a password, iterations must be 1 to 10,000,000",
            ));
        }
        Some(_) => FLAG_PASSWORD,
        None if iterations != 0 || salt != [0; SALT_LEN] => {
            return Err(SealError::Params(
                "without a password, iterations and salt must be zero",
            ));
        }
        None => 0,
    };
    let header = Header {
        flags,
        iterations,
        salt,
        nonce,
    }
    .to_bytes();
    let meta = meta.to_json();
    let meta_len = u32::try_from(meta.len()).map_err(|_| SealError::TooLarge)?;
    let mut plaintext = Vec::with_capacity(4 + meta.len() + content.len());
    plaintext.extend_from_slice(&meta_len.to_be_bytes());
    plaintext.extend_from_slice(&meta);
    plaintext.extend_from_slice(content);
    let final_key = FinalKey::derive(key, password, &salt, iterations);
    let sealed = final_key
        .cipher()
        .encrypt(
            &Nonce::from(nonce),
            Payload {
                msg: &plaintext,
                aad: &header,
            },
        )
        .map_err(|_| SealError::TooLarge)?;
    let mut envelope = Vec::with_capacity(HEADER_LEN + sealed.len());
    envelope.extend_from_slice(&header);
    envelope.extend_from_slice(&sealed);
    Ok((envelope, final_key))
}

/// Opens an envelope with the link key (and the password, if it needs one),
/// returning the metadata and the content. A password given for an envelope
/// that needs none is ignored.
pub fn open(
    envelope: &[u8],
    key: &Key,
    password: Option<&str>,
) -> Result<(Meta, Vec<u8>), EnvelopeError> {
    let header = Header::parse(envelope)?;
    let password = match (header.needs_password(), password) {
        (true, None) => return Err(EnvelopeError::PasswordRequired),
        (true, Some(password)) => Some(password),
        (false, _) => None,
    };
    let final_key = FinalKey::derive(key, password, &header.salt, header.iterations);
    decrypt_with(envelope, &final_key.cipher())
}

/// Decrypts an envelope whose header has been checked, and splits the plaintext.
fn decrypt_with(envelope: &[u8], cipher: &Aes256Gcm) -> Result<(Meta, Vec<u8>), EnvelopeError> {
    let nonce: [u8; NONCE_LEN] = envelope[26..HEADER_LEN]
        .try_into()
        .map_err(|_| EnvelopeError::NotAnEnvelope)?;
    let plaintext = cipher
        .decrypt(
            &Nonce::from(nonce),
            Payload {
                msg: &envelope[HEADER_LEN..],
                aad: &envelope[..HEADER_LEN],
            },
        )
        .map_err(|_| EnvelopeError::Decrypt)?;
    let Some((len, rest)) = plaintext.split_first_chunk::<4>() else {
        return Err(EnvelopeError::Malformed("no metadata length"));
    };
    let meta_len = usize::try_from(u32::from_be_bytes(*len)).unwrap_or(usize::MAX);
    if meta_len > rest.len() {
        return Err(EnvelopeError::Malformed(
            "the metadata length is beyond the data",
        ));
    }
    let (meta, content) = rest.split_at(meta_len);
    Ok((Meta::from_json(meta)?, content.to_vec()))
}

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

    fn cipher(&self) -> Aes256Gcm {
        Aes256Gcm::new(&self.0.into())
    }
}

impl fmt::Debug for FinalKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("FinalKey(…)")
    }
}

/// HKDF-SHA256 (RFC 5869) without a salt, for 32 bytes of output: one block,
/// so extract with the default salt (32 zero bytes), then expand with
/// `info ‖ 0x01`.
fn hkdf_sha256_32(ikm: &[u8], info: &[u8]) -> [u8; 32] {
    let prk = hmac_sha256(&[0; 32], &[ikm]);
    hmac_sha256(&prk, &[info, &[1]])
}

fn hmac_sha256(key: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    use hmac::Mac;
    // HMAC takes a key of any length.
    let Ok(mut mac) = <hmac::Hmac<Sha256> as KeyInit>::new_from_slice(key) else {
        unreachable!("HMAC accepts keys of every length")
    };
    for part in parts {
        mac.update(part);
    }
    mac.finalize().into_bytes().into()
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

/// [`open`] with a final key derived beforehand (for the proof): the
/// password is not stretched again.
pub fn open_with(envelope: &[u8], final_key: &FinalKey) -> Result<(Meta, Vec<u8>), EnvelopeError> {
    Header::parse(envelope)?;
    decrypt_with(envelope, &final_key.cipher())
}

#[cfg(test)]
mod tests {
    use super::*;

    const FEW: u32 = 1000;

    fn key(byte: u8) -> Key {
        Key::from_bytes([byte; KEY_LEN])
    }

    fn meta() -> Meta {
        Meta {
            lang: Some("rust".into()),
            name: Some("main.rs".into()),
            media_type: None,
        }
    }

    fn sealed(password: Option<&str>) -> Vec<u8> {
        let (salt, iterations) = match password {
            Some(_) => ([7; SALT_LEN], FEW),
            None => ([0; SALT_LEN], 0),
        };
        seal_with(
            b"fn main() {}",
            &meta(),
            &key(1),
            password,
            salt,
            [9; NONCE_LEN],
            iterations,
        )
        .unwrap()
    }

    /// Without a password: the header is as specified and the round trip restores everything.
    #[test]
    fn round_trip_without_password() {
        let envelope = seal(b"hello", &meta(), &key(1), None).unwrap();
        assert_eq!(&envelope[..6], b"SNIP\x01\x00");
        assert_eq!(&envelope[6..26], &[0; 20]);
        assert_eq!(
            envelope.len(),
            HEADER_LEN + 4 + meta().to_json().len() + 5 + TAG_LEN
        );
        let (m, content) = open(&envelope, &key(1), None).unwrap();
        assert_eq!((m, content.as_slice()), (meta(), &b"hello"[..]));
        // A password given for an envelope that needs none is ignored.
        assert!(open(&envelope, &key(1), Some("x")).is_ok());
    }

    /// With a password: flag, iterations and a random salt are written; the round trip works.
    #[test]
    fn round_trip_with_password() {
        let envelope = sealed(Some("hunter2"));
        assert_eq!(envelope[5], FLAG_PASSWORD);
        assert_eq!(&envelope[6..10], &FEW.to_be_bytes());
        let (m, content) = open(&envelope, &key(1), Some("hunter2")).unwrap();
        assert_eq!((m, content.as_slice()), (meta(), &b"fn main() {}"[..]));
    }

    /// `seal` with a password uses the default iterations and fresh salt and nonce each time.
    #[test]
    fn seal_with_password_uses_defaults() {
        let a = seal(b"x", &Meta::default(), &key(1), Some("pw")).unwrap();
        let b = seal(b"x", &Meta::default(), &key(1), Some("pw")).unwrap();
        let (ha, hb) = (Header::parse(&a).unwrap(), Header::parse(&b).unwrap());
        assert_eq!(ha.iterations, DEFAULT_ITERATIONS);
        assert_ne!(ha.salt, hb.salt);
        assert_ne!(ha.nonce, hb.nonce);
        assert_eq!(open(&a, &key(1), Some("pw")).unwrap().1, b"x");
    }

    /// Another key fails authentication, with or without a password.
    #[test]
    fn wrong_key() {
        assert_eq!(
            open(&sealed(None), &key(2), None),
            Err(EnvelopeError::Decrypt)
        );
        assert_eq!(
            open(&sealed(Some("pw")), &key(2), Some("pw")),
            Err(EnvelopeError::Decrypt)
        );
    }

    /// Another password (including the empty one) fails authentication.
    #[test]
    fn wrong_password() {
        let envelope = sealed(Some("pw"));
        for wrong in ["pW", "pw ", ""] {
            assert_eq!(
                open(&envelope, &key(1), Some(wrong)),
                Err(EnvelopeError::Decrypt),
                "{wrong:?}"
            );
        }
    }

    /// The password flag without a password asks for one, before any decryption.
    #[test]
    fn password_flag_without_password() {
        assert_eq!(
            open(&sealed(Some("pw")), &key(1), None),
            Err(EnvelopeError::PasswordRequired)
        );
        assert!(Header::parse(&sealed(Some("pw"))).unwrap().needs_password());
        assert!(!Header::parse(&sealed(None)).unwrap().needs_password());
    }

    /// Flipping any bit of the nonce, tag or ciphertext fails authentication.
    #[test]
    fn tampered_body() {
        let envelope = sealed(Some("pw"));
        for pos in 26..envelope.len() {
            let mut bad = envelope.clone();
            bad[pos] ^= 0x01;
            assert_eq!(
                open(&bad, &key(1), Some("pw")),
                Err(EnvelopeError::Decrypt),
                "byte {pos}"
            );
        }
    }

    /// Header bytes are authenticated too; those that parse differently are refused early.
    #[test]
    fn tampered_header() {
        let envelope = sealed(Some("pw"));
        let mut flag = envelope.clone();
        flag[5] = 0;
        assert!(matches!(
            open(&flag, &key(1), Some("pw")),
            Err(EnvelopeError::Malformed(_))
        ));
        let mut unknown_flag = envelope.clone();
        unknown_flag[5] |= 0x80;
        assert_eq!(
            open(&unknown_flag, &key(1), Some("pw")),
            Err(EnvelopeError::UnsupportedVersion {
                version: 1,
                flags: 0x81
            })
        );
        // The low iteration bytes (high ones would ask for millions) and the salt.
        for pos in 8..26 {
            let mut bad = envelope.clone();
            bad[pos] ^= 0x01;
            assert_eq!(
                open(&bad, &key(1), Some("pw")),
                Err(EnvelopeError::Decrypt),
                "byte {pos}"
            );
        }
        let plain = sealed(None);
        let mut with_flag = plain.clone();
        with_flag[5] = FLAG_PASSWORD;
        with_flag[9] = 1;
        assert_eq!(
            open(&with_flag, &key(1), Some("pw")),
            Err(EnvelopeError::Decrypt)
        );
        let mut salted = plain;
        salted[20] = 1;
        assert!(matches!(
            open(&salted, &key(1), None),
            Err(EnvelopeError::Malformed(_))
        ));
    }

    /// Magic, version and iteration limits are checked before any key is used.
    #[test]
    fn header_checks() {
        let envelope = sealed(Some("pw"));
        let mut magic = envelope.clone();
        magic[0] = b's';
        assert_eq!(
            open(&magic, &key(1), None),
            Err(EnvelopeError::NotAnEnvelope)
        );
        let mut version = envelope.clone();
        version[4] = 2;
        assert_eq!(
            open(&version, &key(1), None),
            Err(EnvelopeError::UnsupportedVersion {
                version: 2,
                flags: 1
            })
        );
        let mut many = envelope.clone();
        many[6..10].copy_from_slice(&(MAX_ITERATIONS + 1).to_be_bytes());
        assert_eq!(
            open(&many, &key(1), None),
            Err(EnvelopeError::TooManyIterations(MAX_ITERATIONS + 1))
        );
        let mut zero = envelope;
        zero[6..10].copy_from_slice(&[0; 4]);
        assert!(matches!(
            open(&zero, &key(1), Some("pw")),
            Err(EnvelopeError::Malformed(_))
        ));
        assert_eq!(
            open(b"hello, world", &key(1), None),
            Err(EnvelopeError::NotAnEnvelope)
        );
    }

    /// Every truncation fails: short ones are not envelopes, longer ones do not authenticate.
    #[test]
    fn truncated() {
        let envelope = sealed(None);
        for len in 0..envelope.len() {
            let expected = if len < MIN_LEN {
                EnvelopeError::NotAnEnvelope
            } else {
                EnvelopeError::Decrypt
            };
            assert_eq!(
                open(&envelope[..len], &key(1), None),
                Err(expected),
                "length {len}"
            );
        }
        let mut longer = envelope;
        longer.push(0);
        assert_eq!(open(&longer, &key(1), None), Err(EnvelopeError::Decrypt));
    }

    /// Authentic plaintexts that break the layout are reported as malformed.
    #[test]
    fn malformed_plaintext() {
        let header = Header {
            flags: 0,
            iterations: 0,
            salt: [0; SALT_LEN],
            nonce: [3; NONCE_LEN],
        }
        .to_bytes();
        let seal_raw = |plaintext: &[u8]| {
            let sealed = FinalKey::derive(&key(1), None, &[0; SALT_LEN], 0)
                .cipher()
                .encrypt(
                    &Nonce::from([3; NONCE_LEN]),
                    Payload {
                        msg: plaintext,
                        aad: &header,
                    },
                )
                .unwrap();
            [header.as_slice(), &sealed].concat()
        };
        for plaintext in [
            &b""[..],
            b"\x00\x00\x00",
            b"\x00\x00\x00\x03{}",
            b"\x00\x00\x00\x02[]",
            b"\x00\x00\x00\x02no",
            b"\x00\x00\x00\x0d{\"lang\":true}x",
            b"\x00\x00\x00\x0c{\"name\":\"\xff\"}",
        ] {
            assert!(
                matches!(
                    open(&seal_raw(plaintext), &key(1), None),
                    Err(EnvelopeError::Malformed(_))
                ),
                "{plaintext:?}"
            );
        }
        // Lenient where JSON.parse is: unknown fields, null, repeated keys.
        let lenient = b"\x00\x00\x00\x29{\"x\":1,\"name\":null,\"lang\":\"a\",\"lang\":\"b\"}body";
        let (meta, content) = open(&seal_raw(lenient), &key(1), None).unwrap();
        assert_eq!(meta.lang.as_deref(), Some("b"));
        assert_eq!(meta.name, None);
        assert_eq!(content, b"body");
    }

    /// META is compact JSON, fields in the order lang, name, type, absent ones left out.
    #[test]
    fn meta_encoding() {
        assert_eq!(Meta::default().to_json(), b"{}");
        let all = Meta {
            lang: Some("py".into()),
            name: Some("a \"b\".py".into()),
            media_type: Some("text/x-python".into()),
        };
        assert_eq!(
            String::from_utf8(all.to_json()).unwrap(),
            r#"{"lang":"py","name":"a \"b\".py","type":"text/x-python"}"#
        );
        let name_only = Meta {
            name: Some("é\u{1}\u{1f}\n\u{7f}\u{2028}\"\\/".into()),
            ..Meta::default()
        };
        assert_eq!(
            String::from_utf8(name_only.to_json()).unwrap(),
            // Byte for byte what JSON.stringify writes.
            "{\"name\":\"é\\u0001\\u001f\\n\u{7f}\u{2028}\\\"\\\\/\"}"
        );
        assert_eq!(Meta::from_json(&all.to_json()).unwrap(), all);
    }

    /// Keys round-trip through fragments; anything but 43 canonical base64url characters is refused.
    #[test]
    fn key_fragments() {
        let k = Key::generate().unwrap();
        let fragment = k.to_fragment();
        assert_eq!(fragment.len(), 43);
        assert_eq!(Key::from_fragment(&fragment).unwrap(), k);
        assert_eq!(
            key(0xfb).to_fragment(),
            "-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_s"
        );
        let fb = key(0xfb).to_fragment();
        for text in [
            String::new(),
            fragment[..42].to_owned(),
            format!("{fragment}A"),
            format!("{fragment}="),
            format!("#{}", &fragment[..42]),
            format!("{}!", &fragment[..42]),
            // The standard alphabet's + and / instead of base64url's - and _.
            fb.replace('-', "+"),
            fb.replace('_', "/"),
            // Non-zero trailing bits: not the canonical encoding of any key.
            "-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_v7-_t".to_owned(),
        ] {
            assert_eq!(Key::from_fragment(&text), Err(KeyError), "{text:?}");
        }
        assert_eq!(format!("{k:?}"), "Key(…)");
    }

    /// RFC 5869, test case 3 (SHA-256, no salt, no info): the first 32
    /// bytes of its output.
    #[test]
    fn hkdf_matches_rfc_5869() {
        let okm = hkdf_sha256_32(&[0x0b; 22], b"");
        let hex = crate::core::hex::encode(&okm);
        assert_eq!(
            hex,
            "8da4e775a563c18f715f802a063c5a31b8a11f5c5ee1879ec3454e5f3c738d2d"
        );
    }

    /// The proof is derived from the final key: a password changes it, and
    /// `seal_proved` gives the proof a reader derives from the header.
    #[test]
    fn proof_follows_the_final_key() {
        let (envelope, proof) = seal_proved(b"x", &meta(), &key(1), None).unwrap();
        let header = Header::parse(&envelope).unwrap();
        assert_eq!(FinalKey::for_header(&key(1), None, &header).proof(), proof);
        assert_ne!(FinalKey::for_header(&key(2), None, &header).proof(), proof);
        let with = FinalKey::derive(&key(1), Some("pw"), &[7; SALT_LEN], FEW).proof();
        let other = FinalKey::derive(&key(1), Some("pw!"), &[7; SALT_LEN], FEW).proof();
        assert_ne!(with, other);
        assert_eq!(Proof::parse(&with.to_text()), Ok(with.clone()));
        assert_eq!(format!("{with:?}"), "Proof(…)");
        assert!(Proof::parse("short").is_err());
    }

    /// `seal_with` refuses parameters that would make an unreadable envelope.
    #[test]
    fn seal_with_checks_parameters() {
        let m = Meta::default();
        for (password, salt, iterations) in [
            (Some("pw"), [0; SALT_LEN], 0),
            (Some("pw"), [0; SALT_LEN], MAX_ITERATIONS + 1),
            (None, [0; SALT_LEN], 1),
            (None, [1; SALT_LEN], 0),
        ] {
            assert!(matches!(
                seal_with(
                    b"x",
                    &m,
                    &key(1),
                    password,
                    salt,
                    [0; NONCE_LEN],
                    iterations
                ),
                Err(SealError::Params(_))
            ));
        }
    }
}

/// Property tests of the envelope's parsers (the header, the sealed
/// metadata, the key in a link), which read what any client uploads;
/// `bench/fuzz` runs them long.
#[cfg(test)]
mod fuzz {
    use proptest::prelude::*;

    use super::*;

    /// Bytes that often start like an envelope, so the checks past the
    /// magic are reached.
    fn envelope_like() -> impl Strategy<Value = Vec<u8>> {
        let head = prop_oneof![
            Just(Vec::new()),
            Just(MAGIC.to_vec()),
            Just([&MAGIC[..], &[VERSION, 0]].concat()),
            Just([&MAGIC[..], &[VERSION, FLAG_PASSWORD]].concat()),
        ];
        (head, proptest::collection::vec(any::<u8>(), 0..200))
            .prop_map(|(head, tail)| [head, tail].concat())
    }

    proptest! {
        /// Any upload parses as a header or is refused, and opening it with
        /// a key (no password: no key stretching) fails cleanly or gives
        /// back metadata and content no larger than the upload.
        #[test]
        fn fuzz_envelopes(bytes in envelope_like(), fragment in "\\PC{0,60}", json in any::<Vec<u8>>()) {
            if let Ok(header) = Header::parse(&bytes) {
                prop_assert!(bytes.len() >= MIN_LEN);
                prop_assert!(header.iterations <= MAX_ITERATIONS);
            }
            if let Ok((_, content)) = open(&bytes, &Key::from_bytes([7; KEY_LEN]), None) {
                prop_assert!(content.len() <= bytes.len());
            }
            let _ = Key::from_fragment(&fragment);
            let _ = Meta::from_json(&json);
        }
    }
}
