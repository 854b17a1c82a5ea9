//! Reading pastes: from the instance's cache (`cache`), else one `SELECT`
//! of a live row, whose result fills the cache unless a removal raced it.

use tokio_postgres::Row;

use std::sync::Arc;

use super::cache::Ticket;
use super::rows::{
    BODY_COLUMNS, META_COLUMNS, meta_from_row, stored_from_row, to_i64, withheld_from_row,
};
use super::{PostgresStore, db_error};
use crate::core::{PasteId, PasteMeta, UnixTime};
use crate::store::codec::{self, Stored};
use crate::store::hot::LARGEST;
use crate::store::{Encoding, Opened, OpenedBody, Paste, StoreError, StoredBody};

/// The body columns of [`PostgresStore::open_paste`]: a burn paste's body is
/// not even sent by the database.
const OPEN_COLUMNS: &str = ", CASE WHEN burn THEN NULL ELSE body END, body_encoding";

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
            |ticket, paste| self.cache.fill_paste(ticket, paste, now),
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
        let Some((meta, stored)) = self
            .read_live(id, now, OPEN_COLUMNS, withheld_from_row)
            .await?
        else {
            return Ok(None);
        };
        let Some(stored) = stored else {
            return Ok(Some(Opened {
                meta: Arc::new(meta),
                body: OpenedBody::Withheld,
            }));
        };
        if meta.size >= LARGEST && stored.encoding != Encoding::ZstdDictionary {
            let Stored { bytes, encoding } = stored;
            let body = StoredBody::memory(bytes, encoding, meta.size);
            return Ok(Some(Opened {
                meta: Arc::new(meta),
                body: OpenedBody::Stored(body),
            }));
        }
        let paste = codec::paste_off_runtime(meta, stored).await?;
        self.cache.fill_paste(ticket, &paste, now);
        Ok(Some(paste.into()))
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
