//! Reading pastes, the steps of `pastes`: from the instance's cache
//! (`coherent_cache`), else one `SELECT` of a live row, whose result fills
//! the cache unless a removal raced it; a large body fetched while it is sent.

use std::sync::LazyLock;

use bytes::Bytes;
use tokio_postgres::Row;

use super::coherent_cache::Ticket;
use super::deadline::{self, Lease};
use super::errors::pool_error;
use super::rows::{BODY_COLUMNS, META_COLUMNS, stored_from_row, to_i64};
use super::{PostgresStore, db_error};
use crate::core::{PasteId, UnixTime};
use crate::store::codec;
use crate::store::opened::Fetch;
use crate::store::paste_cache::LARGEST;
use crate::store::{Paste, StoreError};

/// The body columns of [`PasteStore::open`](crate::store::PasteStore::open) ([`OpenRow`](super::rows::OpenRow)): a
/// small body, its encoding, the stored length and the first bytes (a zstd
/// frame's header). A burn paste's body is not even sent by the database,
/// nor is a large body, which is fetched once its response has room for it.
pub(super) static OPEN_COLUMNS: LazyLock<String> = LazyLock::new(|| {
    format!(
        ", CASE WHEN burn OR size >= {LARGEST} THEN NULL ELSE body END, body_encoding, \
         octet_length(body), substring(body from 1 for 6)"
    )
});

impl PostgresStore {
    /// Fetches paste `id`'s stored body (a large one, whose row was read
    /// without it): `None` if the row is gone.
    /// The fetch runs under the store's deadline, like every operation.
    pub(super) fn fetch_body(&self, id: &str) -> Fetch {
        let (pool, timeout) = (self.pool.clone(), self.timeout);
        let id = id.to_owned();
        Box::new(move || {
            Box::pin(deadline::within(timeout, async move {
                let client = pool.get().await.map(Lease::new).map_err(pool_error)?;
                let stmt = client
                    .prepare_cached("SELECT body FROM pastes WHERE id = $1")
                    .await
                    .map_err(db_error)?;
                let row = client.query_opt(&stmt, &[&id]).await.map_err(db_error)?;
                Ok(row.map(|row| Bytes::from(row.get::<_, Vec<u8>>(0))))
            }))
        })
    }

    /// A cached `hit`, or `read` from the database and `fill`ed into the
    /// cache with a ticket taken before the read starts (a future does
    /// nothing until awaited); a hit takes no ticket.
    pub(super) async fn read_through<T>(
        &self,
        hit: Option<T>,
        ticket: impl FnOnce() -> Ticket,
        read: impl Future<Output = Result<Option<T>, StoreError>>,
        fill: impl FnOnce(Ticket, &T),
    ) -> Result<Option<T>, StoreError> {
        if hit.is_some() {
            return Ok(hit);
        }
        let ticket = ticket();
        let found = read.await?;
        if let Some(found) = &found {
            fill(ticket, found);
        }
        Ok(found)
    }

    /// Reads one live paste (not expired at `now`): selects the metadata
    /// columns and `extra_columns` ([`BODY_COLUMNS`] or nothing), and decodes the row.
    pub(super) async fn read_live<T>(
        &self,
        id: &PasteId,
        now: UnixTime,
        extra_columns: &str,
        decode: fn(&Row) -> Result<T, StoreError>,
    ) -> Result<Option<T>, StoreError> {
        let client = self.client().await?;
        let stmt = client
            .prepare_cached(&format!(
                "SELECT {META_COLUMNS}{extra_columns} FROM pastes
                 WHERE id = $1 AND (expires_at IS NULL OR expires_at > $2)"
            ))
            .await
            .map_err(db_error)?;
        let row = client
            .query_opt(&stmt, &[&id.as_str(), &to_i64(now)])
            .await
            .map_err(db_error)?;
        row.as_ref().map(decode).transpose()
    }

    /// Reads one live paste with its body, decompressed where it is stored compressed.
    pub(super) async fn read_paste(
        &self,
        id: &PasteId,
        now: UnixTime,
    ) -> Result<Option<Paste>, StoreError> {
        match self
            .read_live(id, now, BODY_COLUMNS, stored_from_row)
            .await?
        {
            Some((meta, stored)) => codec::paste_off_runtime(meta, stored).await.map(Some),
            None => Ok(None),
        }
    }
}
