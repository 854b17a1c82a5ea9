//! [`PasteStore`] on the embedded store: each operation as the store sees
//! it — which thread it runs on, what it notes if fjall is poisoned, when
//! it waits for durability — over the steps of `read`, `commit`, `remove`,
//! `listing` and `usage`.

use std::sync::Arc;

use async_trait::async_trait;

use super::read::Read;
use super::{EmbeddedStore, space};
use crate::core::envelope::Proof;
use crate::core::paste::ProofStanding;
use crate::core::tenant::Authority;
use crate::core::{PasteId, PasteMeta, UnixTime};
use crate::store::{
    ListPage, ListQuery, NewBody, Opened, OpenedBody, Paste, PasteStore, PutLimits, SearchQuery,
    StoreError, Taken, Usage, create_with_free_id,
};

#[async_trait]
impl PasteStore for EmbeddedStore {
    /// Stores a paste under the ID `meta` names, which the store did not
    /// number: from then on every new ID is checked against it.
    async fn put(
        &self,
        meta: PasteMeta,
        body: NewBody,
        limits: PutLimits,
    ) -> Result<(), StoreError> {
        let put = async {
            if self.inner.sequence.numbered_only() {
                self.blocking(|inner| {
                    inner.space.check(space::ENTRY_BYTES)?;
                    inner.sequence.mark_foreign()
                })
                .await?;
            }
            self.write_new(meta, None, body, limits).await
        };
        self.noted(put.await)
    }

    /// Stores a paste under a new numbered ID (see `sequence`) and returns
    /// the ID.
    async fn create(
        &self,
        meta: PasteMeta,
        body: NewBody,
        limits: PutLimits,
        random_len: usize,
    ) -> Result<String, StoreError> {
        // A numbered ID is taken only by a paste from elsewhere (restored)
        // that happens to have it: about one in 31^12 / pastes.
        let created = create_with_free_id(
            || {
                let (mut meta, body) = (meta.clone(), body.clone());
                async move {
                    let (number, id) = self.next_id(random_len).await?;
                    meta.id = id.to_string();
                    let id = meta.id.clone();
                    self.write_new(meta, Some(number), body, limits)
                        .await
                        .map(|()| id)
                }
            },
            "four numbered paste IDs in a row were taken",
        )
        .await;
        self.noted(created)
    }

    /// From the paste cache, else read inline if that needs no disk read,
    /// else on a blocking thread.
    async fn get(&self, id: &PasteId, now: UnixTime) -> Result<Option<Paste>, StoreError> {
        if let Some(paste) = self.inner.paste_cache.get(id.as_str()) {
            return Ok(Some(paste).filter(|p| !p.meta.is_expired(now)));
        }
        match self.inner.read_filling(id.as_str(), now, false, false)? {
            Read::Done(paste) => Ok(paste),
            Read::FileBacked(meta) => {
                self.blocking(move |inner| inner.read_body(*meta, None))
                    .await
            }
            Read::Cold | Read::Withheld(_) => self.read_cold(id, now).await,
        }
    }

    fn cached(&self, id: &PasteId, now: UnixTime) -> Option<Paste> {
        self.inner
            .paste_cache
            .get(id.as_str())
            .filter(|p| !p.meta.is_expired(now))
    }

    /// As [`Self::get`], but a body file is opened rather than read, and a
    /// burn paste's body is not read.
    async fn open(&self, id: &PasteId, now: UnixTime) -> Result<Option<Opened>, StoreError> {
        if let Some(paste) = self.cached(id, now) {
            return Ok(Some(paste.into()));
        }
        let paste = match self.inner.read_filling(id.as_str(), now, false, true)? {
            Read::Done(paste) => paste,
            Read::Withheld(meta) => {
                return Ok(Some(Opened {
                    meta: Arc::new(*meta),
                    body: OpenedBody::Withheld,
                }));
            }
            Read::FileBacked(meta) => {
                let size = meta.size;
                let id = meta.id.clone();
                let stored = self
                    .blocking(move |inner| inner.files.open_body(&id, size))
                    .await?;
                return Ok(stored.map(|stored| Opened {
                    meta: Arc::new(*meta),
                    body: OpenedBody::Stored(stored),
                }));
            }
            Read::Cold => self.read_cold(id, now).await?,
        };
        Ok(paste.map(Opened::from))
    }

    /// From the paste cache if it is there.
    async fn meta(&self, id: &PasteId, now: UnixTime) -> Result<Option<PasteMeta>, StoreError> {
        let meta = match self.inner.paste_cache.meta(id.as_str()) {
            Some(meta) => Some(meta),
            None => self.inner.read_meta(id.as_str())?,
        };
        Ok(meta.filter(|m| !m.is_expired(now)))
    }

    async fn take(
        &self,
        id: &PasteId,
        proof: Option<&Proof>,
        now: UnixTime,
    ) -> Result<Taken, StoreError> {
        // A cheap miss (or refusal) stays on the runtime thread; a take that
        // will remove something goes to a blocking thread (it re-reads and
        // re-checks the metadata under the ID's lock there), because its
        // write batch can meet fjall's writer stall, like a create's.
        let take = async {
            match self.inner.read_live_entry(id.as_str(), now)? {
                None => return Ok(Taken::Absent),
                Some((meta, _)) if meta.proof_standing(proof) != ProofStanding::Admitted => {
                    return Ok(Taken::Refused);
                }
                Some(_) => {}
            }
            let id = id.as_str().to_owned();
            let proof = proof.cloned();
            let taken = self
                .blocking(move |inner| inner.take(&id, proof.as_ref(), now))
                .await?;
            if let Taken::Paste(_) = taken {
                // A revealed burn paste must not come back after a power loss.
                self.durable().await?;
            }
            Ok(taken)
        };
        self.noted(take.await)
    }

    async fn list(
        &self,
        owner: &str,
        query: &ListQuery,
        now: UnixTime,
    ) -> Result<ListPage, StoreError> {
        // Up to MAX_LIST_SCAN index entries and their metadata: off the
        // async workers, which other requests need.
        let (owner, query) = (owner.to_owned(), query.clone());
        self.blocking(move |inner| inner.list(&owner, &query, now))
            .await
    }

    /// From the search index (`search`), on a blocking thread: it may wait
    /// for the index to catch up.
    async fn search(
        &self,
        owner: &str,
        query: &SearchQuery,
        now: UnixTime,
    ) -> Result<ListPage, StoreError> {
        let (owner, query) = (owner.to_owned(), query.clone());
        self.blocking(move |inner| inner.search.search(inner, &owner, &query, now))
            .await
    }

    async fn owner_usage(&self, owner: &str) -> Result<Usage, StoreError> {
        Ok(self.inner.owner_usage(owner))
    }

    /// Removes a paste, live or expired (with `authority`, as `Inner::delete`).
    async fn delete(
        &self,
        id: &PasteId,
        authority: Option<&Authority>,
    ) -> Result<bool, StoreError> {
        // On a blocking thread, as `take`.
        let id = id.as_str().to_owned();
        let authority = authority.copied();
        let delete = async {
            let deleted = self
                .blocking(move |inner| inner.delete(&id, authority.as_ref()))
                .await?;
            if deleted {
                self.durable().await?;
            }
            Ok(deleted)
        };
        self.noted(delete.await)
    }
}
