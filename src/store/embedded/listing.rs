//! Walking pastes in order: a tenant's listing, newest first through the
//! `owners` index, paged by [`ListCursor`]; and the scan in key order that
//! backups and migrations use.

use std::ops::Bound;

use super::keys::{owner_key, owner_prefix};
use super::{Inner, meta_codec};
use crate::core::{UnixTime, hex};
use crate::store::{ListCursor, ListPage, ListQuery, MAX_LIST_SCAN, ScanPage, StoreError};

impl Inner {
    /// A page of `owner`'s live pastes, newest first, after reading at most
    /// [`MAX_LIST_SCAN`] index entries (expired and filtered-out pastes
    /// count): a filter that matches little ends the page early, with a
    /// cursor at the last entry read. Blocks; runs on a blocking thread.
    pub(super) fn list(
        &self,
        owner: &str,
        query: &ListQuery,
        now: UnixTime,
    ) -> Result<ListPage, StoreError> {
        let prefix = owner_prefix(owner);
        let start = match &query.cursor {
            // Resume strictly after the cursor's key.
            Some(cursor) => {
                let after = ListCursor::decode(cursor)?;
                let mut key = owner_key(owner, after.created_at, &after.id);
                key.push(0);
                key
            }
            None => prefix.clone(),
        };
        let mut page = ListPage::default();
        let mut last_read = None;
        for (scanned, entry) in self.owners.range(start..).enumerate() {
            let key = entry.key()?;
            let Some(suffix) = key.strip_prefix(prefix.as_slice()) else {
                break;
            };
            if scanned == MAX_LIST_SCAN {
                // More entries follow, but this request has read its share.
                page.next_cursor = last_read.map(|c: ListCursor| c.encode());
                break;
            }
            let Some(position) = position(suffix) else {
                continue;
            };
            let meta = self.read_meta(&position.id)?;
            last_read = Some(position);
            let Some(meta) = meta.filter(|m| !m.is_expired(now)) else {
                continue;
            };
            if !query.admits(&meta) {
                continue;
            }
            if page.pastes.len() == query.limit {
                page.next_cursor = page.pastes.last().map(|m| ListCursor::after(m).encode());
                break;
            }
            page.pastes.push(meta);
        }
        Ok(page)
    }

    /// Live pastes' metadata in key order (numbered pastes first, by
    /// number), from `from`, the cursor of the page before: the key it
    /// ended at, in hex.
    pub(super) fn scan(
        &self,
        from: Option<&str>,
        limit: usize,
        now: UnixTime,
    ) -> Result<ScanPage, StoreError> {
        let start = match from {
            Some(cursor) => Bound::Excluded(hex::decode(cursor).ok_or(StoreError::BadCursor)?),
            None => Bound::Unbounded,
        };
        let mut page = ScanPage::default();
        if limit == 0 {
            return Ok(page);
        }
        for entry in self.meta.range((start, Bound::Unbounded)) {
            let (key, value) = entry.into_inner()?;
            let meta = meta_codec::decode(&key, &value)?;
            if !meta.is_expired(now) {
                page.pastes.push(meta);
                if page.pastes.len() == limit {
                    page.next = Some(hex::encode(&key));
                    break;
                }
            }
        }
        Ok(page)
    }
}

/// The creation time and ID an owner index key names after its owner part
/// (`suffix`); `None` for a key no write makes.
fn position(suffix: &[u8]) -> Option<ListCursor> {
    let (time, id) = suffix.split_first_chunk::<8>()?;
    Some(ListCursor {
        created_at: !u64::from_be_bytes(*time),
        id: std::str::from_utf8(id).ok()?.to_owned(),
    })
}
