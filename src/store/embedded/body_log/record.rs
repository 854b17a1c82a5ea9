//! The segment record: `magic | ID length (u8) | ID | body length (u32 LE) |
//! xxh3 of the body (u64 LE) | body`, the magic saying how the body is
//! encoded; the [`Location`] of a body that metadata entries hold; a body's
//! check against its checksum; and parsing records back, for the compactor.

use crate::store::{Encoding, StoreError};

/// The record magic of a body stored as it is.
pub(super) const MAGIC: &[u8; 4] = b"SNB1";
/// The record magic of a body stored zstd-compressed.
const MAGIC_ZSTD: &[u8; 4] = b"SNBZ";
/// The record magic of a body compressed with the store's dictionary.
const MAGIC_ZSTD_DICTIONARY: &[u8; 4] = b"SNBD";

/// The record magic of a body of `encoding`.
pub(super) fn magic(encoding: Encoding) -> &'static [u8; 4] {
    match encoding {
        Encoding::Identity => MAGIC,
        Encoding::Zstd => MAGIC_ZSTD,
        Encoding::ZstdDictionary => MAGIC_ZSTD_DICTIONARY,
    }
}

/// Where a body is and how it is encoded: part of the metadata entry (and
/// so of the on-disk format).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    pub segment: u32,
    /// Offset of the body (after its record header) in the segment.
    pub offset: u32,
    /// Bytes stored.
    pub len: u32,
    /// xxh3-64 of the bytes stored.
    pub checksum: u64,
    pub encoding: Encoding,
}

impl Location {
    /// Bytes of an encoded location: place and checksum, then the encoding.
    pub const ENCODED_LEN: usize = Self::PLACE_LEN + 1;

    /// Bytes of a location without its encoding (entries that have none
    /// hold identity bodies).
    pub const PLACE_LEN: usize = 20;

    pub fn encode_into(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.segment.to_le_bytes());
        out.extend_from_slice(&self.offset.to_le_bytes());
        out.extend_from_slice(&self.len.to_le_bytes());
        out.extend_from_slice(&self.checksum.to_le_bytes());
        out.push(self.encoding.to_byte());
    }

    /// Decodes a location from the start of `raw`; the rest follows it.
    pub fn decode(raw: &[u8]) -> Option<(Self, &[u8])> {
        let (location, rest) = Self::decode_place(raw)?;
        let (&encoding, rest) = rest.split_first()?;
        let encoding = Encoding::from_byte(encoding)?;
        Some((
            Self {
                encoding,
                ..location
            },
            rest,
        ))
    }

    /// Decodes a location written without an encoding (an identity body).
    pub fn decode_place(raw: &[u8]) -> Option<(Self, &[u8])> {
        let (head, rest) = raw.split_at_checked(Self::PLACE_LEN)?;
        let u32_at = |i: usize| u32::from_le_bytes(head[i..i + 4].try_into().unwrap_or_default());
        let location = Self {
            segment: u32_at(0),
            offset: u32_at(4),
            len: u32_at(8),
            checksum: u64::from_le_bytes(head[12..20].try_into().unwrap_or_default()),
            encoding: Encoding::Identity,
        };
        Some((location, rest))
    }
}

/// `body` if it matches the checksum of `at`.
pub(super) fn checked(at: Location, body: Vec<u8>) -> Result<Vec<u8>, StoreError> {
    if xxhash_rust::xxh3::xxh3_64(&body) != at.checksum {
        return Err(StoreError::Corrupt(format!(
            "body at {}:{} does not match its checksum",
            at.segment, at.offset
        )));
    }
    Ok(body)
}

/// The record at `at` in `bytes`: its ID, its body's location and where the
/// next record starts. `None` at the end or at bytes that are not a record
/// (the unwritten tail of a segment cut off by a crash).
pub(super) fn parse_record(
    bytes: &[u8],
    at: usize,
    segment: u32,
) -> Option<(String, Location, usize)> {
    let rest = bytes.get(at..)?;
    let (encoding, rest) = match rest.split_at_checked(MAGIC.len())? {
        (head, rest) if head == MAGIC => (Encoding::Identity, rest),
        (head, rest) if head == MAGIC_ZSTD => (Encoding::Zstd, rest),
        (head, rest) if head == MAGIC_ZSTD_DICTIONARY => (Encoding::ZstdDictionary, rest),
        _ => return None,
    };
    let (&id_len, rest) = rest.split_first()?;
    let (id, rest) = rest.split_at_checked(usize::from(id_len))?;
    let (len, rest) = rest.split_at_checked(4)?;
    let (checksum, rest) = rest.split_at_checked(8)?;
    let len = u32::from_le_bytes(len.try_into().ok()?);
    let body_at = bytes.len() - rest.len();
    let next = body_at.checked_add(len as usize)?;
    bytes.get(body_at..next)?;
    let location = Location {
        segment,
        offset: u32::try_from(body_at).ok()?,
        len,
        checksum: u64::from_le_bytes(checksum.try_into().ok()?),
        encoding,
    };
    Some((std::str::from_utf8(id).ok()?.to_owned(), location, next))
}
