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
//! The last two fields, `files` and `author`, are written only when a paste
//! has them, so that an entry is what it was before they existed and an
//! older snip reads it. A paste without an author is written without
//! `author` (`None`, one zero byte); a one-file one also without `files`
//! (an empty table, one zero byte):
//!
//! | version (plain, located) | fields written            |
//! |--------------------------|---------------------------|
//! | 3, 5                     | up to `key_check`         |
//! | 6, 7                     | up to `files`             |
//! | 8, 9                     | all, `files` and `author` |
//!
//! so a paste with an author is written as version 8 or 9 whether it has
//! one file or several. Version 4 is a
//! located entry whose location has no encoding byte (20 bytes): its body is
//! stored as it is. Versions 1 and 2 are versions 3 and 4 without
//! `key_check` too, and are still read: postcard is positional and encodes
//! `None` and an empty table as one zero byte each, so such a record
//! followed by zero bytes is exactly a record without them.

use crate::core::PasteMeta;

use super::StoreError;
use super::body_log::Location;

/// The first byte of a postcard-encoded entry without `key_check`.
const POSTCARD_V1: u8 = 1;
/// The first byte of a body location followed by a postcard encoding without `key_check`.
const LOCATED_V2: u8 = 2;
/// The first byte of a postcard-encoded entry without `files`.
const POSTCARD_V3: u8 = 3;
/// The first byte of a body location without its encoding followed by a postcard encoding.
const LOCATED_V4: u8 = 4;
/// The first byte of a body location followed by a postcard encoding without `files`.
const LOCATED_V5: u8 = 5;
/// The first byte of a postcard-encoded entry with its file table.
const POSTCARD_V6: u8 = 6;
/// The first byte of a body location followed by a postcard encoding with its file table.
const LOCATED_V7: u8 = 7;
/// The first byte of a postcard-encoded entry with its file table and author.
const POSTCARD_V8: u8 = 8;
/// The first byte of a body location followed by a postcard encoding with
/// its file table and author.
const LOCATED_V9: u8 = 9;

/// Encodes `meta` for the `meta` keyspace, without a body location.
pub fn encode(meta: &PasteMeta) -> Result<Vec<u8>, StoreError> {
    // Sized for a typical entry, so the encoder does not grow it step by step.
    let mut entry = Vec::with_capacity(160);
    let (version, dropped) = match (meta.author.is_some(), meta.files.is_empty()) {
        (true, _) => (POSTCARD_V8, 0),
        // `author: None`'s zero byte.
        (false, false) => (POSTCARD_V6, 1),
        // And the empty table's.
        (false, true) => (POSTCARD_V3, 2),
    };
    entry.push(version);
    let mut entry =
        postcard::to_extend(meta, entry).map_err(|e| StoreError::Corrupt(e.to_string()))?;
    entry.truncate(entry.len() - dropped);
    Ok(entry)
}

/// Turns an entry made by [`encode`] into one that records where the body is.
pub fn with_location(encoded: &[u8], at: &Location) -> Vec<u8> {
    let payload = encoded.get(1..).unwrap_or_default();
    let mut entry = Vec::with_capacity(1 + Location::ENCODED_LEN + payload.len());
    entry.push(match encoded.first() {
        Some(&POSTCARD_V8) => LOCATED_V9,
        Some(&POSTCARD_V6) => LOCATED_V7,
        _ => LOCATED_V5,
    });
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
    // A record without its last `missing` fields (each `None` or an empty
    // table: one zero byte).
    let padded = |rest: &[u8], missing: usize| {
        let mut padded = Vec::with_capacity(rest.len() + missing);
        padded.extend_from_slice(rest);
        padded.resize(rest.len() + missing, 0);
        postcard::from_bytes(&padded).map_err(|e| corrupt(&e))
    };
    let no_author = |rest| padded(rest, 1); // `author: None`
    let one_file = |rest| padded(rest, 2); // `files: [], author: None`
    let legacy = |rest| padded(rest, 3); // `key_check: None, files: [], author: None`
    let located = |rest| Location::decode(rest).ok_or_else(|| corrupt(&"bad location"));
    let placed = |rest| Location::decode_place(rest).ok_or_else(|| corrupt(&"truncated location"));
    match raw.split_first() {
        Some((&LOCATED_V9, rest)) => {
            let (at, rest) = located(rest)?;
            Ok((postcard(rest)?, Some(at)))
        }
        Some((&LOCATED_V7, rest)) => {
            let (at, rest) = located(rest)?;
            Ok((no_author(rest)?, Some(at)))
        }
        Some((&LOCATED_V5, rest)) => {
            let (at, rest) = located(rest)?;
            Ok((one_file(rest)?, Some(at)))
        }
        Some((&LOCATED_V4, rest)) => {
            let (at, rest) = placed(rest)?;
            Ok((one_file(rest)?, Some(at)))
        }
        Some((&POSTCARD_V8, rest)) => Ok((postcard(rest)?, None)),
        Some((&POSTCARD_V6, rest)) => Ok((no_author(rest)?, None)),
        Some((&POSTCARD_V3, rest)) => Ok((one_file(rest)?, None)),
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
            visibility: Visibility::Team,
            redirect: None,
            key_check: Some(KeyCheck {
                verifier: [3; 32],
                iterations: 600_000,
                salt: [5; 16],
            }),
            files: Vec::new(),
            author: None,
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

    /// A several-file paste's entry (versions 6 and 7) carries its file
    /// table; a one-file paste's entry has no byte of it (versions 3 and 5,
    /// what a snip without files wrote and reads).
    #[test]
    fn several_files_round_trip() {
        let one = sample();
        let encoded = encode(&one).unwrap();
        let mut full = postcard::to_allocvec(&one).unwrap();
        assert_eq!(full.pop(), Some(0), "no author is one zero byte");
        assert_eq!(full.pop(), Some(0), "the empty table is one zero byte");
        assert_eq!(&encoded[1..], &full[..]);
        let meta = PasteMeta {
            files: vec![
                crate::core::files::PasteFile {
                    name: "a.rs".into(),
                    size: 1000,
                    lang: Some("rust".into()),
                    content_type: "text/plain; charset=utf-8".into(),
                },
                crate::core::files::PasteFile {
                    name: "notes.md".into(),
                    size: 234,
                    lang: None,
                    content_type: "text/plain; charset=utf-8".into(),
                },
            ],
            ..sample()
        };
        let encoded = encode(&meta).unwrap();
        assert_eq!(encoded[0], POSTCARD_V6);
        assert_eq!(decode(b"k", &encoded).unwrap(), meta);
        let at = Location {
            segment: 3,
            offset: 4096,
            len: 1234,
            checksum: 99,
            encoding: Encoding::Zstd,
        };
        let entry = with_location(&encoded, &at);
        assert_eq!(entry[0], LOCATED_V7);
        assert_eq!(decode_entry(b"k", &entry).unwrap(), (meta, Some(at)));
    }

    /// A paste with an author is written as version 8 (plain) or 9
    /// (located), with or without files; one without keeps the entry it
    /// had before authors existed, byte for byte.
    #[test]
    fn authors_round_trip() {
        let anonymous = sample();
        let mut before = postcard::to_allocvec(&anonymous).unwrap();
        before.truncate(before.len() - 2);
        before.insert(0, POSTCARD_V3);
        assert_eq!(encode(&anonymous).unwrap(), before);
        let at = Location {
            segment: 4,
            offset: 512,
            len: 1234,
            checksum: 5,
            encoding: Encoding::Identity,
        };
        for files in [
            Vec::new(),
            vec![crate::core::files::PasteFile {
                name: "a.rs".into(),
                size: 1234,
                lang: None,
                content_type: "text/plain; charset=utf-8".into(),
            }],
        ] {
            let meta = PasteMeta {
                files,
                author: Some(crate::core::tenant::Person {
                    subject: "248289761001".into(),
                    name: "Ann Example".into(),
                }),
                visibility: Visibility::Me,
                ..sample()
            };
            let encoded = encode(&meta).unwrap();
            assert_eq!(encoded[0], POSTCARD_V8);
            assert_eq!(decode(b"k", &encoded).unwrap(), meta);
            let entry = with_location(&encoded, &at);
            assert_eq!(entry[0], LOCATED_V9);
            assert_eq!(decode_entry(b"k", &entry).unwrap(), (meta, Some(at)));
        }
    }

    #[test]
    fn refuses_unknown_and_truncated_entries() {
        assert!(matches!(decode(b"k", b""), Err(StoreError::Corrupt(_))));
        assert!(matches!(
            decode(b"k", b"\x0aabc"),
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
