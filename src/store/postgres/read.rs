//! Reading pastes: from the instance's cache (`cache`), else one `SELECT`
//! of a live row, whose result fills the cache unless a removal raced it.

use std::sync::{Arc, LazyLock};

use bytes::Bytes;
use tokio_postgres::Row;

use super::cache::Ticket;
use super::deadline::{self, Lease};
use super::errors::pool_error;
use super::rows::{BODY_COLUMNS, META_COLUMNS, OpenRow, meta_from_row, stored_from_row, to_i64};
use super::{PostgresStore, db_error};
use crate::core::{PasteId, PasteMeta, UnixTime};
use crate::store::codec;
use crate::store::hot::LARGEST;
use crate::store::opened::{Fetch, decoder_bytes};
use crate::store::{Encoding, Opened, OpenedBody, Paste, StoreError, StoredBody};

/// The body columns of [`PostgresStore::open_paste`] ([`OpenRow`]): a
/// small body, its encoding, the stored length and the first bytes (a zstd
/// frame's header). A burn paste's body is not even sent by the database,
/// nor is a large body, which is fetched once its response has room for it.
static OPEN_COLUMNS: LazyLock<String> = LazyLock::new(|| {
    format!(
        ", CASE WHEN burn OR size >= {LARGEST} THEN NULL ELSE body END, body_encoding, \
         octet_length(body), substring(body from 1 for 6)"
    )
});

impl PostgresStore {
    /// A live paste: from the cache, else read and cached.
    pub(super) async fn get_paste(
        &self,
        id: &PasteId,
        now: UnixTime,
    ) -> Result<Option<Paste>, StoreError> {
        self.read_through(
            self.cache.paste(id, now),
            || self.cache.paste_ticket(id.as_str()),
            self.read_paste(id, now),
            |ticket, paste| self.cache.fill_paste(ticket, paste),
        )
        .await
    }

    /// A live paste opened for sending: from the cache, else read in one
    /// query. A small body is decoded and cached as [`Self::get_paste`]
    /// does; a large one is kept as stored (its zstd stream, for text),
    /// decoded while it is sent; a burn paste's body is not read.
    pub(super) async fn open_paste(
        &self,
        id: &PasteId,
        now: UnixTime,
    ) -> Result<Option<Opened>, StoreError> {
        if let Some(paste) = self.cache.paste(id, now) {
            return Ok(Some(paste.into()));
        }
        let ticket = self.cache.paste_ticket(id.as_str());
        let Some(row) = self
            .read_live(id, now, &OPEN_COLUMNS, OpenRow::from_row)
            .await?
        else {
            return Ok(None);
        };
        let OpenRow {
            meta,
            body,
            encoding,
            stored_len,
            head,
        } = row;
        let stored = match body {
            Some(stored) => stored,
            None if meta.burn => {
                return Ok(Some(Opened {
                    meta: Arc::new(meta),
                    body: OpenedBody::Withheld,
                }));
            }
            None => {
                let decoder = match encoding {
                    Encoding::Identity => 0,
                    _ => decoder_bytes(&head, meta.size),
                };
                let fetch = self.fetch_body(id.as_str());
                let body = StoredBody::database(fetch, stored_len, encoding, decoder);
                return Ok(Some(Opened {
                    meta: Arc::new(meta),
                    body: OpenedBody::Stored(body),
                }));
            }
        };
        let paste = codec::paste_off_runtime(meta, stored).await?;
        self.cache.fill_paste(ticket, &paste);
        Ok(Some(paste.into()))
    }

    /// Fetches paste `id`'s stored body (a large one, whose row was read
    /// without it): `None` if the row is gone.
    /// The fetch runs under the store's deadline, like every operation.
    fn fetch_body(&self, id: &str) -> Fetch {
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

    /// A live paste's metadata: from a cached paste, else read.
    pub(super) async fn live_meta(
        &self,
        id: &PasteId,
        now: UnixTime,
    ) -> Result<Option<PasteMeta>, StoreError> {
        if let Some(paste) = self.cache.paste(id, now) {
            return Ok(Some(PasteMeta::clone(&paste.meta)));
        }
        self.read_live(id, now, "", meta_from_row).await
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
