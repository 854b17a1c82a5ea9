//! How the embedded store encodes [`PasteMeta`] in its `meta` keyspace.
//!
//! Metadata is decoded on every read, so its encoding is on the hot path:
//! entries are a version byte followed by [postcard](https://docs.rs/postcard)
//! (serde's compact, positional, varint format with a stable wire
//! specification), which decodes without parsing text.
//!
//! A paste whose body is in the body log (`body_log`) has a located entry:
//! the body's [`Location`] (where, its checksum, and its encoding: 21 bytes),
//! then the same postcard encoding. Other entries are pastes whose body is a
//! file (`body_files`, whose trailer says the encoding).
//!
//! Versions 3 (plain) and 5 (located) are written. Version 4 is a located
//! entry whose location has no encoding byte (20 bytes): its body is stored
//! as it is. Versions 1 and 2 are versions 3 and 4 without the last field,
//! `key_check`, and are still read: postcard is positional and encodes
//! `None` as one zero byte, so such a record followed by a zero byte is
//! exactly a version 3 or 4 record without a key check.

use crate::core::PasteMeta;

use super::StoreError;
use super::body_log::Location;

/// The first byte of a postcard-encoded entry without `key_check`.
const POSTCARD_V1: u8 = 1;
/// The first byte of a body location followed by a postcard encoding without `key_check`.
const LOCATED_V2: u8 = 2;
/// The first byte of a postcard-encoded entry.
const POSTCARD_V3: u8 = 3;
/// The first byte of a body location without its encoding followed by a postcard encoding.
const LOCATED_V4: u8 = 4;
/// The first byte of a body location followed by a postcard encoding.
const LOCATED_V5: u8 = 5;

/// Encodes `meta` for the `meta` keyspace, without a body location.
pub fn encode(meta: &PasteMeta) -> Result<Vec<u8>, StoreError> {
    // Sized for a typical entry, so the encoder does not grow it step by step.
    let mut entry = Vec::with_capacity(160);
    entry.push(POSTCARD_V3);
    postcard::to_extend(meta, entry).map_err(|e| StoreError::Corrupt(e.to_string()))
}

/// Turns an entry made by [`encode`] into one that records where the body is.
pub fn with_location(encoded: &[u8], at: &Location) -> Vec<u8> {
    let payload = encoded.get(1..).unwrap_or_default();
    let mut entry = Vec::with_capacity(1 + Location::ENCODED_LEN + payload.len());
    entry.push(LOCATED_V5);
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
    let legacy = |rest: &[u8]| {
        let mut padded = Vec::with_capacity(rest.len() + 1);
        padded.extend_from_slice(rest);
        padded.push(0); // `key_check: None`
        postcard::from_bytes(&padded).map_err(|e| corrupt(&e))
    };
    let located = |rest| Location::decode(rest).ok_or_else(|| corrupt(&"bad location"));
    let placed = |rest| Location::decode_place(rest).ok_or_else(|| corrupt(&"truncated location"));
    match raw.split_first() {
        Some((&LOCATED_V5, rest)) => {
            let (at, rest) = located(rest)?;
            Ok((postcard(rest)?, Some(at)))
        }
        Some((&LOCATED_V4, rest)) => {
            let (at, rest) = placed(rest)?;
            Ok((postcard(rest)?, Some(at)))
        }
        Some((&POSTCARD_V3, rest)) => Ok((postcard(rest)?, None)),
        Some((&LOCATED_V2, rest)) => {
            let (at, rest) = placed(rest)?;
            Ok((legacy(rest)?, Some(at)))
        }
        Some((&POSTCARD_V1, rest)) => Ok((legacy(rest)?, None)),
        _ => Err(corrupt(&"unknown encoding")),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::core::Visibility;
    use crate::core::paste::KeyCheck;
    use crate::store::Encoding;

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
            key_check: Some(KeyCheck {
                verifier: [3; 32],
                iterations: 600_000,
                salt: [5; 16],
            }),
        }
    }

    #[test]
    fn round_trips() {
        let meta = sample();
        let encoded = encode(&meta).unwrap();
        assert_eq!(encoded[0], POSTCARD_V3);
        assert_eq!(decode(b"k", &encoded).unwrap(), meta);
    }

    /// Entries of versions 1 and 2, which have no key check, read as having none.
    #[test]
    fn reads_entries_without_a_key_check() {
        let meta = PasteMeta {
            key_check: None,
            ..sample()
        };
        let encoded = encode(&meta).unwrap();
        // The old encoding is the new one without the trailing `None` byte.
        assert_eq!(encoded.last(), Some(&0));
        let mut old = encoded[..encoded.len() - 1].to_vec();
        old[0] = POSTCARD_V1;
        assert_eq!(decode(b"k", &old).unwrap(), meta);
        let at = Location {
            segment: 1,
            offset: 0,
            len: 1234,
            checksum: 7,
            encoding: Encoding::Identity,
        };
        let mut located = vec![LOCATED_V2];
        located.extend_from_slice(&with_location(&old, &at)[1..=Location::PLACE_LEN]);
        located.extend_from_slice(&old[1..]);
        assert_eq!(decode_entry(b"k", &located).unwrap(), (meta, Some(at)));
    }

    /// Entries of version 4, whose location has no encoding, hold identity bodies.
    #[test]
    fn reads_located_entries_without_an_encoding() {
        let meta = sample();
        let encoded = encode(&meta).unwrap();
        let at = Location {
            segment: 2,
            offset: 64,
            len: 1234,
            checksum: 11,
            encoding: Encoding::Identity,
        };
        let mut v4 = vec![LOCATED_V4];
        v4.extend_from_slice(&with_location(&encoded, &at)[1..=Location::PLACE_LEN]);
        v4.extend_from_slice(&encoded[1..]);
        assert_eq!(decode_entry(b"k", &v4).unwrap(), (meta, Some(at)));
    }

    #[test]
    fn round_trips_with_a_location() {
        let meta = sample();
        let at = Location {
            segment: 3,
            offset: 4096,
            len: 1234,
            checksum: 99,
            encoding: Encoding::Zstd,
        };
        let entry = with_location(&encode(&meta).unwrap(), &at);
        assert_eq!(entry[0], LOCATED_V5);
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
