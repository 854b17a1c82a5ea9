//! How the embedded store encodes [`PasteMeta`] in its `meta` keyspace.
//!
//! Metadata is decoded on every read, so its encoding is on the hot path:
//! entries are a version byte followed by [postcard](https://docs.rs/postcard)
//! (serde's compact, positional, varint format with a stable wire
//! specification), which decodes without parsing text.
//!
//! A paste whose body is in the body log (`body_log`) has a version 2 entry:
//! the body's [`Location`] (20 bytes), then the same postcard encoding.
//! Version 1 entries are pastes whose body is a file (`body_files`).

use crate::core::PasteMeta;

use super::StoreError;
use super::body_log::Location;

/// The first byte of a postcard-encoded entry.
const POSTCARD_V1: u8 = 1;
/// The first byte of a body location followed by a postcard encoding.
const LOCATED_V2: u8 = 2;

/// Encodes `meta` for the `meta` keyspace, without a body location.
pub fn encode(meta: &PasteMeta) -> Result<Vec<u8>, StoreError> {
    // Sized for a typical entry, so the encoder does not grow it step by step.
    let mut entry = Vec::with_capacity(160);
    entry.push(POSTCARD_V1);
    postcard::to_extend(meta, entry).map_err(|e| StoreError::Corrupt(e.to_string()))
}

/// Turns an entry made by [`encode`] into one that records where the body is.
pub fn with_location(encoded: &[u8], at: &Location) -> Vec<u8> {
    let payload = encoded.get(1..).unwrap_or_default();
    let mut entry = Vec::with_capacity(1 + Location::ENCODED_LEN + payload.len());
    entry.push(LOCATED_V2);
    at.encode_into(&mut entry);
    entry.extend_from_slice(payload);
    entry
}

/// Decodes an entry of the `meta` keyspace; `key` names it in errors.
pub fn decode(key: &[u8], raw: &[u8]) -> Result<PasteMeta, StoreError> {
    decode_entry(key, raw).map(|(meta, _)| meta)
}

/// Decodes an entry and the location of its body, if it is in the body log.
pub fn decode_entry(key: &[u8], raw: &[u8]) -> Result<(PasteMeta, Option<Location>), StoreError> {
    let corrupt = |e: &dyn std::fmt::Display| {
        StoreError::Corrupt(format!("metadata of {}: {e}", String::from_utf8_lossy(key)))
    };
    let postcard = |rest| postcard::from_bytes(rest).map_err(|e| corrupt(&e));
    match raw.split_first() {
        Some((&LOCATED_V2, rest)) => {
            let (at, rest) =
                Location::decode(rest).ok_or_else(|| corrupt(&"truncated location"))?;
            Ok((postcard(rest)?, Some(at)))
        }
        Some((&POSTCARD_V1, rest)) => Ok((postcard(rest)?, None)),
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
    fn round_trips_with_a_location() {
        let meta = sample();
        let at = Location {
            segment: 3,
            offset: 4096,
            len: 1234,
            checksum: 99,
        };
        let entry = with_location(&encode(&meta).unwrap(), &at);
        assert_eq!(entry[0], LOCATED_V2);
        assert_eq!(
            decode_entry(b"k", &entry).unwrap(),
            (meta.clone(), Some(at))
        );
        assert_eq!(decode(b"k", &entry).unwrap(), meta);
        assert!(matches!(
            decode_entry(b"k", &entry[..12]),
            Err(StoreError::Corrupt(_))
        ));
    }

    #[test]
    fn refuses_unknown_and_truncated_entries() {
        assert!(matches!(decode(b"k", b""), Err(StoreError::Corrupt(_))));
        assert!(matches!(
            decode(b"k", b"\x09abc"),
            Err(StoreError::Corrupt(_))
        ));
        assert!(matches!(
            decode(b"k", b"{\"id\":\"k\"}"),
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
