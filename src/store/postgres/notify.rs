//! The notifications that keep the instances' caches coherent (`coherent_cache`):
//! the channel a deployment uses, and what a payload names.
//!
//! A payload is one letter for the kind of change, then its key: `p` and a
//! paste ID (removed), `k` and a token hash in hex (revoked), `t` and a
//! tenant name (settings changed), `d` and a tenant name (deleted, with its
//! tokens). The statement that makes the change builds the payload itself
//! (`pg_notify($n, 'p' || id)`), so PostgreSQL delivers it exactly when the
//! change commits, and never for a change that rolled back.

use sha2::{Digest, Sha256};

/// Payload prefixes, as the SQL writes them.
pub const PASTE: &str = "p";
pub const TOKEN: &str = "k";
pub const TENANT: &str = "t";
pub const TENANT_GONE: &str = "d";

/// What a notification says to forget.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Invalidation {
    /// A paste was deleted, revealed or swept.
    Paste(String),
    /// A token (by its hash) was revoked.
    Token([u8; 32]),
    /// A tenant's settings changed.
    Tenant(String),
    /// A tenant was deleted, and its tokens with it.
    TenantGone(String),
    /// A payload this version does not understand (a newer instance sent
    /// it): everything is forgotten, which is always safe.
    Unknown,
}

impl Invalidation {
    /// Reads a payload.
    pub fn parse(payload: &str) -> Self {
        let Some(kind) = payload.get(..1) else {
            return Self::Unknown;
        };
        let key = &payload[1..];
        match kind {
            PASTE => Self::Paste(key.to_owned()),
            TOKEN => token_hash(key).map_or(Self::Unknown, Self::Token),
            TENANT => Self::Tenant(key.to_owned()),
            TENANT_GONE => Self::TenantGone(key.to_owned()),
            _ => Self::Unknown,
        }
    }
}

/// 64 hex digits as 32 bytes.
fn token_hash(hex: &str) -> Option<[u8; 32]> {
    if hex.len() != 64 {
        return None;
    }
    let mut hash = [0; 32];
    for (byte, pair) in hash.iter_mut().zip(hex.as_bytes().chunks(2)) {
        *byte = u8::from_str_radix(std::str::from_utf8(pair).ok()?, 16).ok()?;
    }
    Some(hash)
}

/// Longest channel name (PostgreSQL identifiers are at most 63 bytes).
const CHANNEL_MAX: usize = 63;

/// The channel of a deployment: `snip`, or `snip_SCHEMA` with
/// `--store-schema`, so that deployments sharing a database never hear each
/// other. A schema name too long for that is cut and a hash of the whole
/// name appended, so two long names still get two channels.
pub fn channel(schema: Option<&str>) -> String {
    let Some(schema) = schema else {
        return "snip".into();
    };
    let whole = format!("snip_{schema}");
    if whole.len() <= CHANNEL_MAX {
        return whole;
    }
    let digest = Sha256::digest(schema.as_bytes());
    let hash = crate::core::hex::encode(&digest[..8]);
    // Schema names are ASCII (validated), so any cut is on a character boundary.
    let kept = CHANNEL_MAX - "snip_".len() - 1 - hash.len();
    format!("snip_{}_{hash}", &schema[..kept])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind reads back; a malformed or unknown payload forgets everything.
    #[test]
    fn payloads() {
        assert_eq!(
            Invalidation::parse("pabc"),
            Invalidation::Paste("abc".into())
        );
        assert_eq!(
            Invalidation::parse(&format!("k{}", "0a".repeat(32))),
            Invalidation::Token([10; 32])
        );
        assert_eq!(
            Invalidation::parse("tteam"),
            Invalidation::Tenant("team".into())
        );
        assert_eq!(
            Invalidation::parse("dteam"),
            Invalidation::TenantGone("team".into())
        );
        for bad in ["", "x1", "kzz", &format!("k{}", "g".repeat(64)), "é"] {
            assert_eq!(Invalidation::parse(bad), Invalidation::Unknown, "{bad}");
        }
    }

    /// Channels name the schema, fit in an identifier, and differ for long
    /// names that share their beginning.
    #[test]
    fn channels() {
        assert_eq!(channel(None), "snip");
        assert_eq!(channel(Some("team_a")), "snip_team_a");
        let long_a = format!("{}a", "x".repeat(62));
        let long_b = format!("{}b", "x".repeat(62));
        assert!(channel(Some(&long_a)).len() <= CHANNEL_MAX);
        assert_ne!(channel(Some(&long_a)), channel(Some(&long_b)));
    }
}
