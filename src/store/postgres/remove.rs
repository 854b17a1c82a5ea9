//! Removing pastes: a delete, and a burn reveal that reads and deletes in
//! one step. Each gives the owner's bytes back and notifies every instance
//! in the statement that deletes; this instance evicts the paste once the
//! removal has committed.

use deadpool_postgres::GenericClient;
use tokio_postgres::Row;

use super::notify::{self, Invalidation};
use super::rows::{BODY_COLUMNS, META_COLUMNS, stored_from_row, to_i64, to_u64};
use super::{PostgresStore, db_error};
use crate::core::envelope::Proof;
use crate::core::{PasteId, UnixTime};
use crate::store::codec;
use crate::store::{Paste, StoreError};

impl PostgresStore {
    /// Deletes paste `id` if `filter` holds (`$1` is the ID; the filter's
    /// own parameters follow) and returns its row; gives its bytes back to
    /// its owner and notifies every instance in the same statement. Runs on
    /// `client`, a connection or a transaction; once the delete has
    /// committed, the caller calls [`Self::removed`].
    pub(super) async fn delete_returning(
        &self,
        client: &impl GenericClient,
        id: &PasteId,
        filter: &str,
        returning: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<Option<Row>, StoreError> {
        let channel_param = params.len() + 2;
        let sql = format!(
            "WITH gone AS (DELETE FROM pastes WHERE id = $1 AND {filter}
                           RETURNING {returning}, pg_notify(${channel_param}, '{}' || id)),
                  freed AS (UPDATE owner_usage u SET bytes = u.bytes - gone.size, pastes = u.pastes - 1
                            FROM gone WHERE u.owner = gone.owner)
             SELECT * FROM gone",
            notify::PASTE
        );
        let id_text = id.as_str();
        let mut all: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> = vec![&id_text];
        all.extend_from_slice(params);
        all.push(&self.channel);
        let stmt = client.prepare_cached(&sql).await.map_err(db_error)?;
        client.query_opt(&stmt, &all).await.map_err(db_error)
    }

    /// After the delete of paste `id` (its `row`, which has its `size`)
    /// committed: evicts it here, before the caller answers, and counts it.
    pub(super) fn removed(&self, id: &PasteId, row: &Row) {
        self.cache
            .invalidate(&Invalidation::Paste(id.as_str().to_owned()));
        self.totals.removed(to_u64(row.get("size")));
    }

    /// Takes a burn paste: deletes it and decodes its body in one
    /// transaction, which commits only if the body decodes, so a paste whose
    /// stored stream is damaged answers [`StoreError::Corrupt`] and stays.
    /// The delete locks the row until the commit or rollback, so of
    /// concurrent takers exactly one gets it. `None` if nothing was taken.
    pub(super) async fn reveal(
        &self,
        id: &PasteId,
        proof: Option<&Proof>,
        now: UnixTime,
    ) -> Result<Option<Paste>, StoreError> {
        // The proof is checked in the statement that deletes, so a wrong one
        // never takes and a right one takes exactly once. Comparing by
        // equality in SQL is not constant time, but what is compared is
        // SHA-256 of the proof: timing could only tell how many leading bytes
        // of a hash match, which does not help find a preimage.
        let verifier = proof.map(Proof::verifier);
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        let row = self
            .delete_returning(
                &tx,
                id,
                "(expires_at IS NULL OR expires_at > $2)
                 AND (proof_verifier IS NULL OR proof_verifier = $3)",
                &format!("{META_COLUMNS}{BODY_COLUMNS}"),
                &[&to_i64(now), &verifier.as_ref().map(<[u8; 32]>::as_slice)],
            )
            .await?;
        let Some(row) = row else {
            tx.rollback().await.map_err(db_error)?;
            return Ok(None);
        };
        let decoded = match stored_from_row(&row) {
            Ok((meta, stored)) => codec::paste_off_runtime(meta, stored).await,
            Err(e) => Err(e),
        };
        match decoded {
            Ok(paste) => {
                tx.commit().await.map_err(db_error)?;
                self.removed(id, &row);
                Ok(Some(paste))
            }
            Err(e) => {
                // Awaited, so the paste is there again before the error is
                // answered. A rollback that fails leaves a broken connection,
                // whose transaction the database rolls back when it closes;
                // the damage is still what the caller is told.
                if let Err(rollback) = tx.rollback().await {
                    tracing::warn!(id = %id, error = %rollback, "cannot roll back a failed reveal");
                }
                Err(e)
            }
        }
    }
}
