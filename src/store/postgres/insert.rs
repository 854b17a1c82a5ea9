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
    /// Inserts a paste with an owner, with its body as stored, and its row
    /// of `paste_search` with what of it is searchable (migration 11), and
    /// reserves its quota in the same transaction.
    pub(super) async fn insert(
        &self,
        meta: &PasteMeta,
        body: &Stored,
        searchable: Option<&Searchable>,
        limits: PutLimits,
    ) -> Result<(), StoreError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db_error)?;
        if let Some(owner) = &meta.owner {
            // The owner's row, and its token's and session's, stay locked
            // until the commit, so a concurrent delete of the tenant (or
            // revocation, or sign-out) waits and then sees this paste; one
            // that committed first leaves no row, and the paste is refused.
            authority::lock_for(&tx, owner, limits.authority.as_ref(), paste::now()).await?;
            let quota = limits.owner_max_bytes.unwrap_or(u64::MAX);
            if meta.size > quota {
                return Err(StoreError::QuotaExceeded { limit: quota });
            }
            let stmt = tx
                .prepare_cached(
                    "INSERT INTO owner_usage AS u (owner, bytes, pastes) VALUES ($1, $2, 1)
                     ON CONFLICT (owner) DO UPDATE SET bytes = u.bytes + excluded.bytes, pastes = u.pastes + 1
                     WHERE u.bytes + excluded.bytes <= $3",
                )
                .await
                .map_err(db_error)?;
            let updated = tx
                .execute(&stmt, &[owner, &to_i64(meta.size), &to_i64(quota)])
                .await
                .map_err(db_error)?;
            if updated == 0 {
                return Err(StoreError::QuotaExceeded { limit: quota });
            }
        }
        let stmt = tx
            .prepare_cached(
                "WITH paste AS (
                    INSERT INTO pastes (id, created_at, expires_at, burn, encrypted, lang, name,
                        content_type, size, delete_token_hash, owner, visibility, redirect, body,
                        proof_verifier, proof_iterations, proof_salt, body_encoding, files,
                        author_subject, author_name)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16,
                        $17, $18, $19, $20, $21)
                    ON CONFLICT (id) DO NOTHING
                    RETURNING id, owner, created_at, expires_at
                 ), searchable AS (
                    INSERT INTO paste_search (id, owner, created_at, expires_at, words)
                    SELECT id, owner, created_at, expires_at, snip_search_vector($22, $23, $24)
                    FROM paste WHERE owner IS NOT NULL
                 )
                 SELECT count(*) FROM paste",
            )
            .await
            .map_err(db_error)?;
        let (proof_verifier, proof_iterations, proof_salt) =
            key_check_columns(meta.key_check.as_ref());
        let (author_subject, author_name) = author_columns(meta);
        let [names, langs, content] = vector_params(searchable);
        let inserted: i64 = tx
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
                ],
            )
            .await
            .map_err(db_error)?
            .get(0);
        if inserted == 0 {
            return Err(StoreError::IdTaken);
        }
        tx.commit().await.map_err(db_error)
    }
}
