//! Walking pastes in order: a tenant's listing, newest first through the
//! `owners` index, paged by [`ListCursor`]; and the scan in ID order that
//! backups and migrations use.

use super::keys::{owner_key, owner_prefix};
use super::{Inner, meta_codec};
use crate::core::{PasteMeta, UnixTime};
use crate::store::{ListCursor, ListPage, ListQuery, StoreError};

impl Inner {
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
        for entry in self.owners.range(start..) {
            let key = entry.key()?;
            let Some(suffix) = key.strip_prefix(prefix.as_slice()) else {
                break;
            };
            let id = std::str::from_utf8(suffix.get(8..).unwrap_or_default()).unwrap_or_default();
            let Some(meta) = self.read_meta(id)?.filter(|m| !m.is_expired(now)) else {
                continue;
            };
            let wanted = match &query.name_prefix {
                Some(p) => meta
                    .name
                    .as_deref()
                    .is_some_and(|n| n.starts_with(p.as_str())),
                None => true,
            };
            if !wanted {
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

    /// Live pastes' metadata in ID order after `after`.
    pub(super) fn scan(
        &self,
        after: Option<&str>,
        limit: usize,
        now: UnixTime,
    ) -> Result<Vec<PasteMeta>, StoreError> {
        let start = after.map_or_else(Vec::new, |id| {
            let mut key = id.as_bytes().to_vec();
            key.push(0);
            key
        });
        let mut out = Vec::new();
        for entry in self.meta.range(start..) {
            if out.len() == limit {
                break;
            }
            let (key, value) = entry.into_inner()?;
            let meta = meta_codec::decode(&key, &value)?;
            if !meta.is_expired(now) {
                out.push(meta);
            }
        }
        Ok(out)
    }
}
