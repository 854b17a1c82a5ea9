//! Conversions between rows and the model: column lists, integer widths.

use std::sync::Arc;

use bytes::Bytes;
use tokio_postgres::Row;

use super::StoreError;
use crate::core::PasteMeta;
use crate::core::paste::Visibility;
use crate::store::Paste;

/// The metadata columns, in the order [`meta_from_row`] reads them.
pub const META_COLUMNS: &str = "id, created_at, expires_at, burn, encrypted, lang, name, \
     content_type, size, delete_token_hash, owner, visibility, redirect";

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
        visibility: match visibility.as_str() {
            "private" => Visibility::Private,
            "unlisted" => Visibility::Unlisted,
            _ => return Err(corrupt("visibility")),
        },
        redirect: row.get(12),
    })
}

pub fn paste_from_row(row: &Row) -> Result<Paste, StoreError> {
    let body: Vec<u8> = row.get(13);
    Ok(Paste {
        meta: Arc::new(meta_from_row(row)?),
        body: Bytes::from(body),
    })
}

pub fn visibility_text(v: Visibility) -> &'static str {
    match v {
        Visibility::Unlisted => "unlisted",
        Visibility::Private => "private",
    }
}
