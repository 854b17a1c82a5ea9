//! Listing: an owner's live pastes newest first (by cursor), every live
//! paste in ID order (how backups walk the store), and what an owner keeps.

use super::rows::{META_COLUMNS, meta_from_row, to_i64, to_u64};
use super::{PostgresStore, db_error};
use crate::core::UnixTime;
use crate::store::{ListCursor, ListPage, ListQuery, ScanPage, StoreError, Usage};

impl PostgresStore {
    /// A page of `owner`'s live pastes, newest first.
    pub(super) async fn list_pastes(
        &self,
        owner: &str,
        query: &ListQuery,
        now: UnixTime,
    ) -> Result<ListPage, StoreError> {
        let (after_time, after_id) = match &query.cursor {
            Some(cursor) => {
                let after = ListCursor::decode(cursor)?;
                (Some(to_i64(after.created_at)), Some(after.id))
            }
            None => (None, None),
        };
        let client = self.client().await?;
        // Newest first, ties by ID ascending: the order of the embedded store.
        let stmt = client
            .prepare_cached(&format!(
                "SELECT {META_COLUMNS} FROM pastes
                 WHERE owner = $1 AND (expires_at IS NULL OR expires_at > $2)
                   AND ($3::text IS NULL OR starts_with(name, $3))
                   AND ($4::bigint IS NULL OR created_at < $4 OR (created_at = $4 AND id > $5))
                 ORDER BY created_at DESC, id
                 LIMIT $6"
            ))
            .await
            .map_err(db_error)?;
        let limit = to_i64(query.limit as u64).saturating_add(1);
        let rows = client
            .query(
                &stmt,
                &[
                    &owner,
                    &to_i64(now),
                    &query.name_prefix,
                    &after_time,
                    &after_id,
                    &limit,
                ],
            )
            .await
            .map_err(db_error)?;
        let mut page = ListPage::default();
        for row in &rows {
            if page.pastes.len() == query.limit {
                page.next_cursor = page.pastes.last().map(|m| ListCursor::after(m).encode());
                break;
            }
            page.pastes.push(meta_from_row(row)?);
        }
        Ok(page)
    }

    /// Up to `limit` live pastes' metadata in ID order; the cursor is the
    /// last ID of the page before.
    pub(super) async fn scan_pastes(
        &self,
        after: Option<&str>,
        limit: usize,
        now: UnixTime,
    ) -> Result<ScanPage, StoreError> {
        let client = self.client().await?;
        let rows = client
            .query(
                &format!(
                    "SELECT {META_COLUMNS} FROM pastes
                     WHERE ($1::text IS NULL OR id > $1) AND (expires_at IS NULL OR expires_at > $2)
                     ORDER BY id LIMIT $3"
                ),
                &[&after, &to_i64(now), &to_i64(limit as u64)],
            )
            .await
            .map_err(db_error)?;
        let pastes = rows
            .iter()
            .map(meta_from_row)
            .collect::<Result<Vec<_>, _>>()?;
        let next = pastes
            .last()
            .filter(|_| pastes.len() == limit)
            .map(|meta| meta.id.clone());
        Ok(ScanPage { pastes, next })
    }

    /// What `owner` keeps, from its usage row.
    pub(super) async fn usage_of(&self, owner: &str) -> Result<Usage, StoreError> {
        let client = self.client().await?;
        let stmt = client
            .prepare_cached("SELECT bytes, pastes FROM owner_usage WHERE owner = $1")
            .await
            .map_err(db_error)?;
        let row = client.query_opt(&stmt, &[&owner]).await.map_err(db_error)?;
        Ok(row.map_or_else(Usage::default, |r| Usage {
            bytes: to_u64(r.get(0)),
            pastes: to_u64(r.get(1)),
        }))
    }
}
