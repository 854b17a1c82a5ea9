//! Listing: an owner's live pastes newest first (by cursor), every live
//! paste in ID order (how backups walk the store), and what an owner keeps.

use tokio_postgres::types::ToSql;

use super::rows::{META_COLUMNS, meta_from_row, to_i64, to_u64};
use super::{PostgresStore, db_error};
use crate::core::UnixTime;
use crate::store::{ListCursor, ListPage, ListQuery, MAX_LIST_SCAN, ScanPage, StoreError, Usage};

/// The column of [`list_statement`]'s rows after [`META_COLUMNS`]: `true` for
/// a paste of the page, `false` for the last row the scan read.
const HIT_COLUMN: usize = 16;

/// The listing query. Parameters: `$1` owner, `$2` now, `$3` name prefix
/// (or null), `$4` most rows read, `$5` most pastes returned (the page's
/// limit plus one, which tells whether another page follows), and with a
/// cursor `$6`, `$7` its creation time and ID.
///
/// `scanned` reads at most `$4` of the owner's rows in the order of the
/// `pastes_owner` index (newest first, ties by ID), from the cursor on;
/// the page is picked from those alone. When it read all `$4`, its last row
/// comes after the page's (`hit` false): where the next page starts.
fn list_statement(with_cursor: bool) -> String {
    // `created_at <= $6` bounds the index scan; the rest skips the rows of
    // the cursor's own second up to its ID.
    let after = if with_cursor {
        "AND created_at <= $6 AND (created_at < $6 OR id > $7)"
    } else {
        ""
    };
    format!(
        "WITH scanned AS (
             SELECT {META_COLUMNS} FROM pastes
             WHERE owner = $1 {after}
             ORDER BY created_at DESC, id
             LIMIT $4
         ),
         hits AS (
             SELECT *, true AS hit FROM scanned
             WHERE (expires_at IS NULL OR expires_at > $2)
               AND ($3::text IS NULL OR starts_with(name, $3))
             ORDER BY created_at DESC, id
             LIMIT $5
         ),
         last_read AS (
             SELECT *, false AS hit FROM scanned
             WHERE (SELECT count(*) FROM scanned) = $4
             ORDER BY created_at, id DESC
             LIMIT 1
         )
         SELECT * FROM (SELECT * FROM hits UNION ALL SELECT * FROM last_read) AS page
         ORDER BY hit DESC, created_at DESC, id"
    )
}

impl PostgresStore {
    /// A page of `owner`'s live pastes, newest first, from at most
    /// [`MAX_LIST_SCAN`] of its rows (expired and filtered-out ones count),
    /// read in index order (`pastes_owner`) from the cursor on: a filter that
    /// matches little ends the page early, with a cursor at the last row read.
    pub(super) async fn list_pastes(
        &self,
        owner: &str,
        query: &ListQuery,
        now: UnixTime,
    ) -> Result<ListPage, StoreError> {
        let after = query
            .cursor
            .as_deref()
            .map(ListCursor::decode)
            .transpose()?;
        let client = self.client().await?;
        // Two statements rather than one with `$n IS NULL OR …`, whose
        // generic plan could not start the index scan at the cursor.
        let stmt = client
            .prepare_cached(&list_statement(after.is_some()))
            .await
            .map_err(db_error)?;
        let scan = to_i64(MAX_LIST_SCAN as u64);
        let limit = to_i64(query.limit as u64).saturating_add(1);
        let now = to_i64(now);
        let cursor_time = after.as_ref().map(|a| to_i64(a.created_at));
        let mut params: Vec<&(dyn ToSql + Sync)> =
            vec![&owner, &now, &query.name_prefix, &scan, &limit];
        if let (Some(time), Some(after)) = (&cursor_time, &after) {
            params.extend([time as &(dyn ToSql + Sync), &after.id]);
        }
        let rows = client.query(&stmt, &params).await.map_err(db_error)?;
        let mut page = ListPage::default();
        for row in &rows {
            let meta = meta_from_row(row)?;
            if !row.get::<_, bool>(HIT_COLUMN) {
                // The last row read, sent when the scan read its whole share.
                page.next_cursor = Some(ListCursor::after(&meta).encode());
                break;
            }
            if page.pastes.len() == query.limit {
                page.next_cursor = page.pastes.last().map(|m| ListCursor::after(m).encode());
                break;
            }
            page.pastes.push(meta);
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
