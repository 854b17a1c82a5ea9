//! Storing new pastes: those without an owner in groups through the
//! store-wide combiner (`batch`), those with one each in a transaction of its
//! own that reserves the owner's quota, so that one refused for its quota
//! rolls back no other.

use super::authority;
use super::rows::{author_columns, files_column, key_check_columns, to_i64, visibility_text};
use super::search::vector_params;
use super::{PostgresStore, db_error};
use crate::core::search::Searchable;
use crate::core::{PasteMeta, paste};
use crate::store::codec::Stored;
use crate::store::{PutLimits, StoreError};

impl PostgresStore {
    /// Inserts a paste with an owner (or an author), with its body as
    /// stored, its row of `paste_search` with what of it is searchable
    /// (migration 11), and its bytes in its owner's usage, within its quota
    /// (`insert.sql`), in a transaction that first locks the authority it
    /// was created with.
    pub(super) async fn insert(
        &self,
        meta: &PasteMeta,
        body: &Stored,
        searchable: Option<&Searchable>,
        limits: PutLimits,
    ) -> Result<(), StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        let quota = limits.owner_max_bytes.unwrap_or(u64::MAX);
        if let Some(owner) = &meta.owner {
            // The owner's row, and its token's and session's, stay locked
            // until the commit, so a concurrent delete of the tenant (or
            // revocation, or sign-out) waits and then sees this paste; one
            // that committed first leaves no row, and the paste is refused.
            authority::lock_for(&tx, owner, limits.authority.as_ref(), paste::now()).await?;
            if meta.size > quota {
                return Err(StoreError::QuotaExceeded { limit: quota });
            }
        }
        let stmt = tx
            .prepare_cached(include_str!("insert.sql"))
            .await
            .map_err(db_error)?;
        let (proof_verifier, proof_iterations, proof_salt) =
            key_check_columns(meta.key_check.as_ref());
        let (author_subject, author_name) = author_columns(meta);
        let [names, langs, content] = vector_params(searchable);
        let row = tx
            .query_one(
                &stmt,
                &[
                    &meta.id,
                    &to_i64(meta.created_at),
                    &meta.expires_at.map(to_i64),
                    &meta.burn,
                    &meta.encrypted,
                    &meta.lang,
                    &meta.name,
                    &meta.content_type,
                    &to_i64(meta.size),
                    &meta.delete_token_hash.as_slice(),
                    &meta.owner,
                    &visibility_text(meta.visibility),
                    &meta.redirect,
                    &&body.bytes[..],
                    &proof_verifier,
                    &proof_iterations,
                    &proof_salt,
                    &body.encoding.name(),
                    &files_column(meta),
                    &author_subject,
                    &author_name,
                    &names,
                    &langs,
                    &content,
                    &to_i64(quota),
                ],
            )
            .await
            .map_err(db_error)?;
        let (inserted, counted): (i64, i64) = (row.get(0), row.get(1));
        if inserted == 0 {
            return Err(StoreError::IdTaken);
        }
        if meta.owner.is_some() && counted == 0 {
            // Dropping the transaction rolls the paste back.
            return Err(StoreError::QuotaExceeded { limit: quota });
        }
        tx.commit().await.map_err(db_error)
    }
}
