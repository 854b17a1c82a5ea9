//! How the embedded store encodes [`PasteMeta`] in its `meta` keyspace.
//!
//! Metadata is decoded on every read, so its encoding is on the hot path:
//! JSON (the first format) cost about a quarter of a raw read's CPU, mostly
//! parsing the 32-number token-hash array. Entries are now a version byte
//! followed by [postcard](https://docs.rs/postcard) (serde's compact,
//! positional, varint format with a stable wire specification). JSON entries
//! written by earlier versions always start with `{`, so they are still read;
//! they are rewritten only when the paste is rewritten.

use crate::core::PasteMeta;

use super::StoreError;

/// The first byte of a postcard-encoded entry (`{` starts a legacy JSON one).
const POSTCARD_V1: u8 = 1;

/// Encodes `meta` for the `meta` keyspace.
pub fn encode(meta: &PasteMeta) -> Result<Vec<u8>, StoreError> {
    postcard::to_extend(meta, vec![POSTCARD_V1]).map_err(|e| StoreError::Corrupt(e.to_string()))
}

/// Decodes an entry of the `meta` keyspace; `key` names it in errors.
pub fn decode(key: &[u8], raw: &[u8]) -> Result<PasteMeta, StoreError> {
    let corrupt = |e: &dyn std::fmt::Display| {
        StoreError::Corrupt(format!("metadata of {}: {e}", String::from_utf8_lossy(key)))
    };
    match raw.split_first() {
        Some((&POSTCARD_V1, rest)) => postcard::from_bytes(rest).map_err(|e| corrupt(&e)),
        Some((b'{', _)) => serde_json::from_slice(raw).map_err(|e| corrupt(&e)),
        _ => Err(corrupt(&"unknown encoding")),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::core::Visibility;

    fn sample() -> PasteMeta {
        PasteMeta {
            id: "k7m3q9xw2hd4p".into(),
            created_at: 1_700_000_000,
            expires_at: Some(1_700_003_600),
            burn: true,
            encrypted: false,
            lang: Some("rust".into()),
            name: Some("main.rs".into()),
            content_type: "text/plain; charset=utf-8".into(),
            size: 1234,
            delete_token_hash: [7; 32],
            owner: Some("team-a".into()),
            visibility: Visibility::Private,
            redirect: None,
        }
    }

    #[test]
    fn round_trips() {
        let meta = sample();
        let encoded = encode(&meta).unwrap();
        assert_eq!(encoded[0], POSTCARD_V1);
        assert_eq!(decode(b"k", &encoded).unwrap(), meta);
    }

    #[test]
    fn reads_legacy_json_entries() {
        let meta = sample();
        let json = serde_json::to_vec(&meta).unwrap();
        assert_eq!(decode(b"k", &json).unwrap(), meta);
    }

    #[test]
    fn refuses_unknown_and_truncated_entries() {
        assert!(matches!(decode(b"k", b""), Err(StoreError::Corrupt(_))));
        assert!(matches!(
            decode(b"k", b"\x09abc"),
            Err(StoreError::Corrupt(_))
        ));
        let encoded = encode(&sample()).unwrap();
        let truncated = &encoded[..encoded.len() - 3];
        assert!(matches!(
            decode(b"k", truncated),
            Err(StoreError::Corrupt(_))
        ));
    }
}
