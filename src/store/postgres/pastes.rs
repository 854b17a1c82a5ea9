//! [`PasteStore`] on PostgreSQL: every operation under the store's deadline
//! (`deadline`), over the steps of `insert` and `batch` (new pastes), `read`
//! (the cache, then one `SELECT`), `remove` (deletes that give the owner's
//! bytes back and notify every instance), `listing` (the page query) and
//! `search`.

use std::sync::Arc;

use async_trait::async_trait;
use tokio_postgres::types::ToSql;

use super::batch::Pending;
use super::listing::{HIT_COLUMN, list_statement};
use super::read::OPEN_COLUMNS;
use super::rows::{OpenRow, meta_from_row, to_i64, to_u64};
use super::{PostgresStore, authority, db_error};
use crate::core::envelope::Proof;
use crate::core::search::{INDEXED_BYTES, Searchable, content_searchable};
use crate::core::tenant::Authority;
use crate::core::{PasteId, PasteMeta, UnixTime, paste};
use crate::store::opened::decoder_bytes;
use crate::store::{
    Encoding, ListCursor, ListPage, ListQuery, MAX_LIST_SCAN, NewBody, Opened, OpenedBody, Paste,
    PasteStore, PutLimits, SearchQuery, StoreError, StoredBody, Taken, Usage, codec,
};

#[async_trait]
impl PasteStore for PostgresStore {
    /// The body compressed if that is worth it (`codec`), then inserted with
    /// the others of its group (`batch`), or, with an owner (or an author), alone in a
    /// transaction that reserves its quota (`insert`).
    async fn put(
        &self,
        meta: PasteMeta,
        body: NewBody,
        limits: PutLimits,
    ) -> Result<(), StoreError> {
        self.within(async {
            self.totals.reserve(meta.size)?;
            // Only tenants search, so only their pastes are made searchable.
            let searchable = meta.owner.is_some().then(|| {
                let head = match content_searchable(&meta) {
                    true => body.head(INDEXED_BYTES),
                    false => None,
                };
                Searchable::of(&meta, head.as_deref())
            });
            let body = body.into_stored_off_runtime(&meta, None).await;
            if meta.owner.is_none() && meta.author.is_none() {
                // The inserter counts the paste, or gives its bytes back.
                return self
                    .combiner
                    .submit(Pending { meta, body }, &self.inserter)
                    .await;
            }
            self.insert(&meta, &body, searchable.as_ref(), limits)
                .await
                .inspect(|()| self.totals.created())
                .inspect_err(|_| self.totals.release(meta.size))
        })
        .await
    }

    /// From the cache, else read and cached.
    async fn get(&self, id: &PasteId, now: UnixTime) -> Result<Option<Paste>, StoreError> {
        self.within(self.read_through(
            self.cache.paste(id, now),
            || self.cache.paste_ticket(id.as_str()),
            self.read_paste(id, now),
            |ticket, paste| self.cache.fill_paste(ticket, paste),
        ))
        .await
    }

    fn cached(&self, id: &PasteId, now: UnixTime) -> Option<Paste> {
        self.cache.paste(id, now)
    }

    /// From the cache, else read in one query. A small body is decoded and
    /// cached as [`Self::get`] does; a large one is kept as stored (its zstd
    /// stream, for text), decoded while it is sent; a burn paste's body is
    /// not read.
    async fn open(&self, id: &PasteId, now: UnixTime) -> Result<Option<Opened>, StoreError> {
        self.within(async {
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
        })
        .await
    }

    /// From a cached paste, else read.
    async fn meta(&self, id: &PasteId, now: UnixTime) -> Result<Option<PasteMeta>, StoreError> {
        self.within(async {
            if let Some(paste) = self.cache.paste(id, now) {
                return Ok(Some(PasteMeta::clone(&paste.meta)));
            }
            self.read_live(id, now, "", meta_from_row).await
        })
        .await
    }

    /// Reveals a live paste (`remove`), or says why not.
    async fn take(
        &self,
        id: &PasteId,
        proof: Option<&Proof>,
        now: UnixTime,
    ) -> Result<Taken, StoreError> {
        self.within(async {
            if let Some(paste) = self.reveal(id, proof, now).await? {
                return Ok(Taken::Paste(paste));
            }
            // Not taken: refused if a live paste with a key check is still there.
            let still_there = self
                .read_live(id, now, "", meta_from_row)
                .await?
                .is_some_and(|meta| meta.key_check.is_some());
            Ok(if still_there {
                Taken::Refused
            } else {
                Taken::Absent
            })
        })
        .await
    }

    /// From at most [`MAX_LIST_SCAN`] of the owner's rows (expired and
    /// filtered-out ones count), read in index order (`pastes_owner`) from
    /// the cursor on: a filter that matches little ends the page early, with
    /// a cursor at the last row read.
    async fn list(
        &self,
        owner: &str,
        query: &ListQuery,
        now: UnixTime,
    ) -> Result<ListPage, StoreError> {
        self.within(async {
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
            let mut params: Vec<&(dyn ToSql + Sync)> = vec![
                &owner,
                &now,
                &query.name_prefix,
                &scan,
                &limit,
                &query.viewer,
                &query.mine,
            ];
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
        })
        .await
    }

    /// From the `search` column (`search`).
    async fn search(
        &self,
        owner: &str,
        query: &SearchQuery,
        now: UnixTime,
    ) -> Result<ListPage, StoreError> {
        self.within(self.search_page(owner, query, now)).await
    }

    /// From the owner's usage row.
    async fn owner_usage(&self, owner: &str) -> Result<Usage, StoreError> {
        self.within(async {
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
        })
        .await
    }

    /// With `authority`, in a transaction that first locks the rows that
    /// authorise it for the paste's owner (`authority`), or refuses.
    async fn delete(
        &self,
        id: &PasteId,
        authority: Option<&Authority>,
    ) -> Result<bool, StoreError> {
        self.within(async {
            let mut client = self.client().await?;
            let Some(authority) = authority else {
                let row = self
                    .delete_returning(&*client, id, "true", "owner, size", &[])
                    .await?;
                if let Some(row) = &row {
                    self.removed(id, row);
                }
                return Ok(row.is_some());
            };
            let tx = client.transaction().await.map_err(db_error)?;
            let owner: Option<Option<String>> = tx
                .query_opt("SELECT owner FROM pastes WHERE id = $1", &[&id.as_str()])
                .await
                .map_err(db_error)?
                .map(|row| row.get(0));
            let Some(owner) = owner else {
                return Ok(false);
            };
            let owner = owner.ok_or(StoreError::AuthorityGone)?;
            authority::lock_for(&tx, &owner, Some(authority), paste::now()).await?;
            let row = self
                .delete_returning(&tx, id, "owner = $2", "owner, size", &[&owner])
                .await?;
            tx.commit().await.map_err(db_error)?;
            if let Some(row) = &row {
                self.removed(id, row);
            }
            Ok(row.is_some())
        })
        .await
    }
}
