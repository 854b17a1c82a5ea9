//! Conversions between rows and the model: column lists, integer widths.

use bytes::Bytes;
use tokio_postgres::Row;

use super::StoreError;
use crate::core::PasteMeta;
use crate::core::paste::{KeyCheck, Visibility};
use crate::core::tenant::Person;
use crate::store::Encoding;
use crate::store::codec::Stored;

/// The metadata columns, in the order [`meta_from_row`] reads them.
pub const META_COLUMNS: &str = "id, created_at, expires_at, burn, encrypted, lang, name, \
     content_type, size, delete_token_hash, owner, visibility, redirect, \
     proof_verifier, proof_iterations, proof_salt, files, author_subject, author_name";

/// How many columns [`META_COLUMNS`] names: the columns after it start here.
pub const META_LEN: usize = 19;

/// Stored integers are `bigint`; Unix times and sizes fit with room to spare.
pub fn to_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

pub fn to_u64(n: i64) -> u64 {
    u64::try_from(n).unwrap_or(0)
}

pub fn meta_from_row(row: &Row) -> Result<PasteMeta, StoreError> {
    let corrupt =
        |what: &str| StoreError::Corrupt(format!("{what} of paste {}", row.get::<_, String>(0)));
    let hash: Vec<u8> = row.try_get(9).map_err(|_| corrupt("delete token hash"))?;
    let visibility: String = row.get(11);
    Ok(PasteMeta {
        id: row.get(0),
        created_at: to_u64(row.get(1)),
        expires_at: row.get::<_, Option<i64>>(2).map(to_u64),
        burn: row.get(3),
        encrypted: row.get(4),
        lang: row.get(5),
        name: row.get(6),
        content_type: row.get(7),
        size: to_u64(row.get(8)),
        delete_token_hash: hash.try_into().map_err(|_| corrupt("delete token hash"))?,
        owner: row.get(10),
        visibility: Visibility::parse(&visibility).ok_or_else(|| corrupt("visibility"))?,
        redirect: row.get(12),
        key_check: key_check_from_row(row).ok_or_else(|| corrupt("proof of key"))?,
        files: match row.get::<_, Option<String>>(16) {
            None => Vec::new(),
            Some(json) => serde_json::from_str(&json).map_err(|_| corrupt("file table"))?,
        },
        author: match (row.get(17), row.get(18)) {
            (Some(subject), Some(name)) => Some(Person { subject, name }),
            (None, None) => None,
            _ => return Err(corrupt("author")),
        },
    })
}

/// The `files` column of `meta`: the JSON of its file table, `NULL` for a
/// one-file paste.
pub fn files_column(meta: &PasteMeta) -> Option<String> {
    if meta.files.is_empty() {
        return None;
    }
    serde_json::to_string(&meta.files).ok()
}

/// The key check of a row: all three columns, or none (`Some(None)`);
/// `None` if they disagree.
fn key_check_from_row(row: &Row) -> Option<Option<KeyCheck>> {
    let verifier: Option<Vec<u8>> = row.try_get(13).ok()?;
    let iterations: Option<i32> = row.try_get(14).ok()?;
    let salt: Option<Vec<u8>> = row.try_get(15).ok()?;
    match (verifier, iterations, salt) {
        (None, None, None) => Some(None),
        (Some(verifier), Some(iterations), Some(salt)) => Some(Some(KeyCheck {
            verifier: verifier.try_into().ok()?,
            iterations: u32::try_from(iterations).ok()?,
            salt: salt.try_into().ok()?,
        })),
        _ => None,
    }
}

/// The key check's columns, as [`key_check_from_row`] reads them.
pub fn key_check_columns(check: Option<&KeyCheck>) -> (Option<&[u8]>, Option<i32>, Option<&[u8]>) {
    match check {
        None => (None, None, None),
        Some(check) => (
            Some(check.verifier.as_slice()),
            // Envelopes never ask for more than 10,000,000 iterations.
            Some(i32::try_from(check.iterations).unwrap_or(i32::MAX)),
            Some(check.salt.as_slice()),
        ),
    }
}

/// The columns after the metadata that [`stored_from_row`] reads.
pub const BODY_COLUMNS: &str = ", body, body_encoding";

/// A paste's metadata and its body as stored, from a row of
/// [`META_COLUMNS`] and [`BODY_COLUMNS`].
pub fn stored_from_row(row: &Row) -> Result<(PasteMeta, Stored), StoreError> {
    match withheld_from_row(row)? {
        (meta, Some(stored)) => Ok((meta, stored)),
        (meta, None) => Err(StoreError::Corrupt(format!("no body of paste {}", meta.id))),
    }
}

/// [`stored_from_row`] of a row whose body may be withheld (`NULL`).
pub fn withheld_from_row(row: &Row) -> Result<(PasteMeta, Option<Stored>), StoreError> {
    let meta = meta_from_row(row)?;
    let encoding = encoding_from_row(row, &meta)?;
    let stored = row.get::<_, Option<Vec<u8>>>(META_LEN).map(|body| Stored {
        bytes: Bytes::from(body),
        encoding,
    });
    Ok((meta, stored))
}

/// The body encoding of `meta`'s row.
fn encoding_from_row(row: &Row, meta: &PasteMeta) -> Result<Encoding, StoreError> {
    let encoding: String = row.get(META_LEN + 1);
    Encoding::from_name(&encoding)
        .ok_or_else(|| StoreError::Corrupt(format!("body encoding of paste {}", meta.id)))
}

/// A row read to open a paste for sending: the metadata, the body if the
/// database sent it, and the stored length and first bytes of the body.
pub struct OpenRow {
    pub meta: PasteMeta,
    pub body: Option<Stored>,
    pub encoding: Encoding,
    pub stored_len: u64,
    pub head: Vec<u8>,
}

impl OpenRow {
    /// The row of [`META_COLUMNS`], a body or `NULL`, its encoding, its
    /// stored length and its first bytes.
    pub fn from_row(row: &Row) -> Result<Self, StoreError> {
        let (meta, body) = withheld_from_row(row)?;
        let encoding = encoding_from_row(row, &meta)?;
        Ok(Self {
            body,
            encoding,
            stored_len: u64::try_from(row.get::<_, i32>(META_LEN + 2)).unwrap_or(0),
            head: row.get(META_LEN + 3),
            meta,
        })
    }
}

/// The `visibility` column of `v`: a team paste keeps the name its rows
/// always had, `private`.
pub fn visibility_text(v: Visibility) -> &'static str {
    match v {
        Visibility::Team => "private",
        other => other.as_str(),
    }
}

/// The author columns of `meta` (`author_subject`, `author_name`).
pub fn author_columns(meta: &PasteMeta) -> (Option<&str>, Option<&str>) {
    match &meta.author {
        Some(person) => (Some(person.subject.as_str()), Some(person.name.as_str())),
        None => (None, None),
    }
}
