//! The end-to-end encryption envelope, version 1 (`docs/envelope.md` is the
//! contract; the browser implements the same bytes with WebCrypto).
//!
//! An encrypted paste is sealed by the client before upload. The server only
//! ever stores the envelope; the 256-bit [`Key`] travels in the link's
//! fragment (`https://host/ID#KEY`), which is never sent to the server.
//!
//! ```text
//! envelope  = "SNIP" ‖ version 1 ‖ flags ‖ u32_be iterations ‖ salt[16] ‖ nonce[12] ‖ ciphertext ‖ tag[16]
//! plaintext = u32_be(len(META)) ‖ META ‖ CONTENT      (META: JSON {lang, name, type, files})
//! aes key   = K                                                     without a password
//!           = PBKDF2-HMAC-SHA256(K ‖ UTF-8(password), salt, iterations, 32)  with one
//! ```
//!
//! The 38-byte header is AES-GCM's associated data, so it cannot be changed
//! without decryption failing. This module does no I/O: [`seal`] draws its
//! salt and nonce from the OS CSPRNG, [`seal_with`] takes them as arguments
//! (for the test vectors), and [`open`] reverses either.
//!
//! Several files are sealed in one envelope: `META.files` lists each one's
//! name, size and language, and `CONTENT` is their bytes one after the
//! other ([`Meta::files`], [`split`]).
//!
//! The link key is in `key`, the proof of key (how a reader of a protected
//! paste shows it holds the key) in `proof`.

use aes_gcm::Aes256Gcm;
use aes_gcm::Nonce;
use aes_gcm::aead::{Aead, Payload};
use serde::Serialize;
use serde_json::Value;

use super::files::{self, PasteFile};

mod key;
mod proof;

pub use key::{Key, KeyError};
pub use proof::{FinalKey, PROOF_INFO, PROOF_LEN, Proof, ProofSyntaxError, parse_verifier};

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
    /// The files of a several-file paste, in content order; empty for one
    /// file. Their names and sizes are checked when an envelope is opened.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<SealedFile>,
}

/// One file of a several-file envelope (an entry of `META.files`), written
/// with its fields in the order `name`, `size`, `lang`, `type`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SealedFile {
    /// A safe base name ([`files::safe_base_name`]), unique in the paste.
    pub name: String,
    /// Its length in bytes (never 0).
    pub size: u64,
    /// Language for highlighting.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// Media type of the file.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
}

impl SealedFile {
    /// Reads one entry of `META.files` as leniently as [`Meta::from_json`].
    fn from_value(value: Value) -> Result<Self, EnvelopeError> {
        let Value::Object(mut map) = value else {
            return Err(EnvelopeError::Malformed(
                "a file entry is not a JSON object",
            ));
        };
        let mut text = |key: &str| optional_string(&mut map, key, "a file field is not a string");
        let name = text("name")?.ok_or(EnvelopeError::Malformed("a file has no name"))?;
        let lang = text("lang")?;
        let media_type = text("type")?;
        let size = map
            .get("size")
            .and_then(Value::as_u64)
            .ok_or(EnvelopeError::Malformed(
                "a file's size is not a whole number",
            ))?;
        Ok(Self {
            name,
            size,
            lang,
            media_type,
        })
    }
}

/// Takes the optional string field `key` of a JSON object: absent or `null`
/// is `None`; anything but a string is malformed (`what`).
fn optional_string(
    map: &mut serde_json::Map<String, Value>,
    key: &str,
    what: &'static str,
) -> Result<Option<String>, EnvelopeError> {
    match map.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(EnvelopeError::Malformed(what)),
    }
}

/// The files of an opened several-file envelope, each with its bytes, in
/// order; empty for a one-file envelope. [`open`] has checked that the
/// sizes add up to the content's length, so every slice is in bounds.
pub fn split<'a>(meta: &'a Meta, content: &'a [u8]) -> Vec<(&'a SealedFile, &'a [u8])> {
    let mut rest = content;
    meta.files
        .iter()
        .map(|file| {
            let at = usize::try_from(file.size)
                .unwrap_or(usize::MAX)
                .min(rest.len());
            let (bytes, after) = rest.split_at(at);
            rest = after;
            (file, bytes)
        })
        .collect()
}

/// Checks `META.files` against the content: each name a safe base name,
/// used once, no file empty, sizes adding up to the content's length (the
/// rules of a plain several-file paste, `core::files::check_table`).
fn check_files(meta: &Meta, content_len: usize) -> Result<(), EnvelopeError> {
    let table: Vec<PasteFile> = meta
        .files
        .iter()
        .map(|file| PasteFile {
            name: file.name.clone(),
            size: file.size,
            lang: None,
            content_type: String::new(),
        })
        .collect();
    files::check_table(&table, content_len as u64, None).map_err(|e| match e {
        files::FileError::Sizes { .. } => {
            EnvelopeError::Malformed("the files' sizes do not add up to the content")
        }
        files::FileError::Duplicate(_) => EnvelopeError::Malformed("two files have one name"),
        files::FileError::Empty(_) => EnvelopeError::Malformed("a file is empty"),
        _ => EnvelopeError::Malformed("a file name is not a safe base name"),
    })
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
        let mut field =
            |key: &str| optional_string(&mut map, key, "a metadata field is not a string");
        let lang = field("lang")?;
        let name = field("name")?;
        let media_type = field("type")?;
        let files = match map.remove("files") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(list)) => list
                .into_iter()
                .map(SealedFile::from_value)
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(EnvelopeError::Malformed("the file list is not an array")),
        };
        Ok(Self {
            lang,
            name,
            media_type,
            files,
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
    let meta = Meta::from_json(meta)?;
    check_files(&meta, content.len())?;
    Ok((meta, content.to_vec()))
}

/// [`open`] with a final key derived beforehand (for the proof): the
/// password is not stretched again.
pub fn open_with(envelope: &[u8], final_key: &FinalKey) -> Result<(Meta, Vec<u8>), EnvelopeError> {
    Header::parse(envelope)?;
    decrypt_with(envelope, &final_key.cipher())
}

#[cfg(test)]
mod fuzz;
#[cfg(test)]
mod tests;
