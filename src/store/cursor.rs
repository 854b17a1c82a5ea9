//! [`ListCursor`]: where a listing page ends, the same text for every backend,
//! so a client's cursor keeps working whichever store answers it.
//!
//! The text is the last paste's inverted creation time as 16 hex digits, then
//! its ID. Inverted, because listings are newest first and the embedded store
//! orders its owner index by that inverted time.

use crate::core::{PasteId, PasteMeta, UnixTime};

use super::StoreError;

/// The position after which the next page of a listing starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListCursor {
    /// Creation time of the last paste of the page.
    pub created_at: UnixTime,
    /// Its ID, which orders pastes created in the same second.
    pub id: String,
}

/// Hex digits of the time part.
const TIME_DIGITS: usize = 16;

impl ListCursor {
    /// The cursor of a page whose last paste is `meta`.
    pub fn after(meta: &PasteMeta) -> Self {
        Self {
            created_at: meta.created_at,
            id: meta.id.clone(),
        }
    }

    /// The text handed to clients as `next_cursor`.
    pub fn encode(&self) -> String {
        format!("{:016x}{}", !self.created_at, self.id)
    }

    /// Parses a cursor a client sent back; [`StoreError::BadCursor`] if no
    /// store could have handed it out.
    pub fn decode(text: &str) -> Result<Self, StoreError> {
        let (time, id) = text
            .split_at_checked(TIME_DIGITS)
            .ok_or(StoreError::BadCursor)?;
        let inverted = u64::from_str_radix(time, 16).map_err(|_| StoreError::BadCursor)?;
        if PasteId::check(id).is_err() {
            return Err(StoreError::BadCursor);
        }
        Ok(Self {
            created_at: !inverted,
            id: id.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text is the one clients already hold: inverted time in hex, then the ID.
    #[test]
    fn encodes_as_clients_know_it() {
        let id = PasteId::generate(12).unwrap().to_string();
        let cursor = ListCursor {
            created_at: 0x10,
            id: id.clone(),
        };
        let text = cursor.encode();
        assert_eq!(text, format!("ffffffffffffffef{id}"));
        assert_eq!(ListCursor::decode(&text).unwrap(), cursor);
    }

    /// Text that no store handed out is refused.
    #[test]
    fn refuses_what_no_store_handed_out() {
        let id = PasteId::generate(12).unwrap().to_string();
        let not_hex = format!("zzzzzzzzzzzzzzzz{id}");
        let bad_id = format!("ffffffffffffffef{}!", &id[..id.len() - 1]);
        for bad in ["", "nonsense", "ffffffffffffffef", &not_hex, &bad_id] {
            assert!(
                matches!(ListCursor::decode(bad), Err(StoreError::BadCursor)),
                "{bad:?}"
            );
        }
    }
}
