//! The paste model shared by the server, the stores and the CLI: metadata and
//! the policy deciding how raw bytes may be served.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::envelope::Proof;
use super::files::PasteFile;
use super::id::PasteId;
use super::random::OsRandom;
use super::tenant::Person;

/// The longest paste name, in bytes.
pub const MAX_NAME_BYTES: usize = 255;

/// The largest paste snip stores (1 GiB): the most PostgreSQL keeps in one
/// value, and so what a backup carries per paste. The server's
/// `--max-paste-size` and a tenant's limit are at most this.
pub const MAX_PASTE_BYTES: u64 = 1 << 30;

/// Whether `text` could be (the start of) a paste name: at most
/// [`MAX_NAME_BYTES`], no control characters and no format characters
/// ([`is_format_char`]). Checked when a paste is created, and on a listing's
/// name prefix, which otherwise could match nothing.
pub fn is_name_text(text: &str) -> bool {
    text.len() <= MAX_NAME_BYTES && !text.chars().any(|c| c.is_control() || is_format_char(c))
}

/// Whether `c` is in Unicode's general category Cf (format): invisible
/// characters such as bidi overrides (U+202E) that make a download name like
/// `invoice\u{202E}fdp.exe` display as `invoiceexe.pdf`.
pub fn is_format_char(c: char) -> bool {
    FORMAT_CHARS
        .binary_search_by(|&(first, last)| {
            if last < c {
                std::cmp::Ordering::Less
            } else if first > c {
                std::cmp::Ordering::Greater
            } else {
                std::cmp::Ordering::Equal
            }
        })
        .is_ok()
}

/// The ranges of category Cf (Unicode 15.1), sorted.
const FORMAT_CHARS: &[(char, char)] = &[
    ('\u{00AD}', '\u{00AD}'),
    ('\u{0600}', '\u{0605}'),
    ('\u{061C}', '\u{061C}'),
    ('\u{06DD}', '\u{06DD}'),
    ('\u{070F}', '\u{070F}'),
    ('\u{0890}', '\u{0891}'),
    ('\u{08E2}', '\u{08E2}'),
    ('\u{180E}', '\u{180E}'),
    ('\u{200B}', '\u{200F}'),
    ('\u{202A}', '\u{202E}'),
    ('\u{2060}', '\u{2064}'),
    ('\u{2066}', '\u{206F}'),
    ('\u{FEFF}', '\u{FEFF}'),
    ('\u{FFF9}', '\u{FFFB}'),
    ('\u{110BD}', '\u{110BD}'),
    ('\u{110CD}', '\u{110CD}'),
    ('\u{13430}', '\u{1343F}'),
    ('\u{1BCA0}', '\u{1BCA3}'),
    ('\u{1D173}', '\u{1D17A}'),
    ('\u{E0001}', '\u{E0001}'),
    ('\u{E0020}', '\u{E007F}'),
];

/// Seconds since the Unix epoch; the only clock unit stored anywhere.
pub type UnixTime = u64;

/// The current wall-clock time in seconds since the Unix epoch.
pub fn now() -> UnixTime {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// Formats a Unix time as RFC 3339 (`2026-11-23T09:35:47Z`).
pub fn rfc3339(t: UnixTime) -> String {
    // RFC 3339 ends at year 9999 (humantime panics past it, and `SystemTime`
    // overflows further on), while a TTL like `ttl=18446744073709551615` is
    // accepted and saturates `expires_at`: such a paste shows the last second.
    let t = t.min(LAST_RFC3339_SECOND);
    humantime::format_rfc3339_seconds(UNIX_EPOCH + Duration::from_secs(t)).to_string()
}

/// 9999-12-31T23:59:59Z.
const LAST_RFC3339_SECOND: UnixTime = 253_402_300_799;

/// Who may read a paste. The embedded store encodes it by position: new
/// kinds go last.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Visibility {
    /// Anyone holding the link.
    #[default]
    Unlisted,
    /// Only the owning tenant (its members, its tokens); `private` is the
    /// same, by its older name.
    #[serde(alias = "private")]
    Team,
    /// Only its author: the person who created it, signed in to its tenant.
    Me,
}

impl Visibility {
    /// Parses `unlisted`, `team` (or `private`) and `me`.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "unlisted" => Some(Self::Unlisted),
            "team" | "private" => Some(Self::Team),
            "me" => Some(Self::Me),
            _ => None,
        }
    }

    /// The name [`Self::parse`] reads.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Unlisted => "unlisted",
            Self::Team => "team",
            Self::Me => "me",
        }
    }
}

/// Everything known about a paste except its body.
///
/// Kept apart from the body in every store so that metadata reads, listing and
/// the expiry sweep never load paste contents.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PasteMeta {
    /// The paste's ID (canonical lower-case text).
    pub id: String,
    /// Creation time.
    pub created_at: UnixTime,
    /// When the paste stops being served; `None` keeps it until deleted.
    pub expires_at: Option<UnixTime>,
    /// Burn after reading: only `POST /{id}/reveal` reads it, and deletes it in the same step.
    pub burn: bool,
    /// The body is client-side ciphertext; the server never interprets it.
    pub encrypted: bool,
    /// A language name for highlighting, as given by the creator.
    pub lang: Option<String>,
    /// A file name, as given by the creator.
    pub name: Option<String>,
    /// The media type decided at creation (see [`content_type_for`]).
    pub content_type: String,
    /// Body length in bytes.
    pub size: u64,
    /// SHA-256 of the delete token; the token itself is only ever known to the creator.
    pub delete_token_hash: [u8; 32],
    /// The owning tenant, once tenants exist.
    #[serde(default)]
    pub owner: Option<String>,
    /// Who may read it.
    #[serde(default)]
    pub visibility: Visibility,
    /// For a short link: the `http(s)` URL that `GET /{id}` redirects to.
    #[serde(default)]
    pub redirect: Option<String>,
    /// For an encrypted paste created with a verifier: the proof of key a
    /// reader must present (`docs/envelope.md`). The embedded store reads
    /// records written without it by appending postcard's `None`.
    #[serde(default)]
    pub key_check: Option<KeyCheck>,
    /// A several-file paste's file table, in body order (`core::files`);
    /// empty for a one-file paste. The embedded store writes a one-file
    /// paste's record without it (and without `author`, when it has none).
    #[serde(default)]
    pub files: Vec<PasteFile>,
    /// The person who created it, when a person signed in to its tenant
    /// did. Must stay the last field: the embedded store writes a record
    /// without an author without it.
    #[serde(default)]
    pub author: Option<Person>,
}

/// What the server keeps to check a proof of key, and the public parameters
/// a reader needs to compute one before it has the ciphertext. Nothing here
/// lets the server decrypt: the verifier is a hash of the proof, which is
/// itself a one-way derivation of the final key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyCheck {
    /// `SHA-256(proof)`.
    pub verifier: [u8; 32],
    /// The envelope's PBKDF2 iterations; 0 when it needs no password.
    pub iterations: u32,
    /// The envelope's PBKDF2 salt (all zero without a password).
    pub salt: [u8; 16],
}

impl KeyCheck {
    /// Whether `proof` is the one this check was made from, compared in
    /// constant time.
    pub fn accepts(&self, proof: &Proof) -> bool {
        proof.verifier().ct_eq(&self.verifier).into()
    }
}

/// How a read's proof of key stands against a paste.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProofStanding {
    /// The paste asks for no proof, or the right one was presented.
    Admitted,
    /// The paste asks for a proof and none was presented.
    Missing,
    /// A proof was presented and it is not the right one.
    Wrong,
}

impl PasteMeta {
    /// Whether the paste is past its expiry at `now` (expired pastes are never served).
    pub fn is_expired(&self, now: UnixTime) -> bool {
        self.expires_at.is_some_and(|t| t <= now)
    }

    /// Whether `subject` names this paste's author.
    pub fn authored_by(&self, subject: &str) -> bool {
        self.author.as_ref().is_some_and(|a| a.subject == subject)
    }

    /// Compares a presented delete token with the stored hash in constant time.
    pub fn delete_token_matches(&self, token: &str) -> bool {
        hash_token(token).ct_eq(&self.delete_token_hash).into()
    }

    /// How `proof` stands against this paste's [`KeyCheck`], if it has one.
    pub fn proof_standing(&self, proof: Option<&Proof>) -> ProofStanding {
        match (&self.key_check, proof) {
            (None, _) => ProofStanding::Admitted,
            (Some(_), None) => ProofStanding::Missing,
            (Some(check), Some(proof)) if check.accepts(proof) => ProofStanding::Admitted,
            (Some(_), Some(_)) => ProofStanding::Wrong,
        }
    }

    /// The ID as a typed value. Stored IDs were valid when written.
    pub fn paste_id(&self) -> Option<PasteId> {
        PasteId::parse(&self.id).ok()
    }
}

/// SHA-256 of a secret token, the only form in which tokens are stored.
pub fn hash_token(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Makes a fresh delete token: 128 bits from the OS CSPRNG (through
/// `random`, which a create shares with the paste's ID), hex-encoded.
pub fn generate_token(random: &mut OsRandom) -> Result<String, getrandom::Error> {
    let mut raw = [0u8; 16];
    random.fill(&mut raw)?;
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut token = String::with_capacity(2 * raw.len());
    for b in raw {
        token.push(char::from(HEX[usize::from(b >> 4)]));
        token.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    Ok(token)
}

/// The plain-text type every textual paste is served as.
pub const TEXT_PLAIN: &str = "text/plain; charset=utf-8";
/// The type of opaque bytes.
pub const OCTET_STREAM: &str = "application/octet-stream";

/// Decides the media type a paste is stored and served with.
///
/// This is an allow-list: text of any kind (including HTML, SVG, XML and
/// scripts) becomes `text/plain`, a few inert media types keep their type, and
/// everything else is opaque bytes. So no paste is ever a document or script a
/// browser would render or run, whatever its name says.
pub fn content_type_for(name: Option<&str>, declared: Option<&str>, body: &[u8]) -> String {
    let guessed = name
        .and_then(|n| mime_guess::from_path(n).first_raw())
        .or(declared);
    if let Some(kind) = guessed.map(|t| {
        t.split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase()
    }) {
        if is_inert_media(&kind) {
            return kind;
        }
        if !is_textual(&kind) && kind != OCTET_STREAM && !kind.is_empty() {
            return OCTET_STREAM.to_owned();
        }
    }
    if std::str::from_utf8(body).is_ok() {
        TEXT_PLAIN.to_owned()
    } else {
        OCTET_STREAM.to_owned()
    }
}

/// Media types a browser displays without executing anything.
fn is_inert_media(kind: &str) -> bool {
    matches!(
        kind,
        "image/png"
            | "image/jpeg"
            | "image/gif"
            | "image/webp"
            | "image/avif"
            | "image/bmp"
            | "audio/mpeg"
            | "audio/ogg"
            | "audio/wav"
            | "audio/webm"
            | "video/mp4"
            | "video/webm"
            | "video/ogg"
    )
}

/// Types whose content is text (and is therefore served as `text/plain`).
fn is_textual(kind: &str) -> bool {
    kind.starts_with("text/")
        || kind.ends_with("+xml")
        || kind.ends_with("+json")
        || matches!(
            kind,
            "application/json"
                | "application/xml"
                | "application/javascript"
                | "application/x-sh"
                | "application/toml"
                | "application/x-yaml"
                | "application/yaml"
                | "application/sql"
        )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::core::Ttl;

    /// Times past year 9999 (a saturated `expires_at`) format as its last second instead of panicking.
    #[test]
    fn rfc3339_is_total() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(LAST_RFC3339_SECOND), "9999-12-31T23:59:59Z");
        assert_eq!(rfc3339(u64::MAX), "9999-12-31T23:59:59Z");
    }

    /// A paste created at any moment of second `now` is live for at least its whole TTL.
    #[test]
    fn expiry_is_never_early() {
        let ttl = Ttl::After(Duration::from_secs(1));
        let at = ttl.expires_at(1000).unwrap();
        // Created at 1000.999 s, it must still be live at 1001.998 s (second 1001).
        let meta = PasteMeta {
            expires_at: Some(at),
            ..test_meta()
        };
        assert!(!meta.is_expired(1001));
        assert!(meta.is_expired(1002));
        assert_eq!(Ttl::Never.expires_at(1000), None);
    }

    /// A plain text paste's metadata, for tests to vary.
    pub(crate) fn test_meta() -> PasteMeta {
        PasteMeta {
            id: "x".into(),
            created_at: 0,
            expires_at: None,
            burn: false,
            encrypted: false,
            lang: None,
            name: None,
            content_type: TEXT_PLAIN.into(),
            size: 0,
            delete_token_hash: [0; 32],
            owner: None,
            visibility: Visibility::Unlisted,
            redirect: None,
            key_check: None,
            files: Vec::new(),
            author: None,
        }
    }

    /// Names that would make a browser render or run the paste are served as text or bytes.
    #[test]
    fn dangerous_types_are_neutralised() {
        for name in [
            "x.html", "x.htm", "x.svg", "x.xhtml", "x.xml", "x.js", "x.css",
        ] {
            assert_eq!(
                content_type_for(Some(name), None, b"<b>hi</b>"),
                TEXT_PLAIN,
                "{name}"
            );
        }
        assert_eq!(content_type_for(Some("x.pdf"), None, b"%PDF"), OCTET_STREAM);
        assert_eq!(
            content_type_for(Some("x.swf"), None, b"\xff\x00"),
            OCTET_STREAM
        );
        assert_eq!(
            content_type_for(None, Some("text/html"), b"<script>"),
            TEXT_PLAIN
        );
    }

    /// Inert media keep their type; unnamed bodies are text when they are UTF-8.
    #[test]
    fn inert_and_unnamed_types() {
        assert_eq!(
            content_type_for(Some("cat.png"), None, b"\x89PNG"),
            "image/png"
        );
        assert_eq!(content_type_for(None, None, "héllo".as_bytes()), TEXT_PLAIN);
        assert_eq!(content_type_for(None, None, b"\xff\xfe\x00"), OCTET_STREAM);
    }

    /// Delete tokens verify against their hash and nothing else.
    #[test]
    fn delete_token_check() {
        let token = generate_token(&mut OsRandom::new().unwrap()).unwrap();
        assert_eq!(token.len(), 32);
        assert!(
            token
                .bytes()
                .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
        );
        let meta = PasteMeta {
            id: "x".into(),
            created_at: 0,
            expires_at: Some(10),
            burn: false,
            encrypted: false,
            lang: None,
            name: None,
            content_type: TEXT_PLAIN.into(),
            size: 0,
            delete_token_hash: hash_token(&token),
            owner: None,
            visibility: Visibility::Unlisted,
            redirect: None,
            key_check: None,
            files: Vec::new(),
            author: None,
        };
        assert!(meta.delete_token_matches(&token));
        assert!(!meta.delete_token_matches("0123"));
        assert!(meta.is_expired(10) && !meta.is_expired(9));
    }
}
