//! Checking, inside a write's transaction, that what authorised it still
//! holds ([`Authority`]): the owner's tenant row, and the token and session
//! rows, are read `FOR SHARE`, so a concurrent tenant delete, revocation or
//! sign-out waits for the write's commit and then sees its effect, and one
//! that committed first leaves no row and the write is refused. Every
//! instance checks the database itself, never its cache, so a token revoked
//! through any instance authorises no write on any other from then on.

use deadpool_postgres::GenericClient;

use super::db_error;
use super::rows::to_i64;
use crate::core::UnixTime;
use crate::core::tenant::Authority;
use crate::store::StoreError;

/// The owner's tenant, locked; for writes the server makes on its own authority.
const TENANT: &str = "SELECT 1 FROM tenants WHERE name = $1 FOR SHARE";

/// The owner's tenant and the token acting for it, locked.
const TOKEN: &str = "SELECT 1 FROM tenants t JOIN tokens k ON k.tenant = t.name
     WHERE t.name = $1 AND k.hash = $2 AND (k.expires_at IS NULL OR k.expires_at > $3)
     FOR SHARE";

/// The owner's tenant, the token acting for it and the session opened with it, locked.
const SESSION: &str = "SELECT 1 FROM tenants t JOIN tokens k ON k.tenant = t.name
        JOIN sessions s ON s.token_hash = k.hash
     WHERE t.name = $1 AND k.hash = $2 AND (k.expires_at IS NULL OR k.expires_at > $3)
        AND s.hash = $4 AND s.expires_at > $3
     FOR SHARE";

/// Locks the rows that authorise a write for `owner` in `tx` (a transaction
/// that is to make the write), or refuses it ([`StoreError::AuthorityGone`]):
/// the tenant must exist and `authority`, if any, hold for it at `now`.
pub async fn lock_for(
    tx: &impl GenericClient,
    owner: &str,
    authority: Option<&Authority>,
    now: UnixTime,
) -> Result<(), StoreError> {
    let now = to_i64(now);
    let row = match authority {
        None => {
            let stmt = tx.prepare_cached(TENANT).await.map_err(db_error)?;
            tx.query_opt(&stmt, &[&owner]).await
        }
        Some(Authority {
            token_hash,
            session_hash: None,
        }) => {
            let stmt = tx.prepare_cached(TOKEN).await.map_err(db_error)?;
            tx.query_opt(&stmt, &[&owner, &token_hash.as_slice(), &now])
                .await
        }
        Some(Authority {
            token_hash,
            session_hash: Some(session_hash),
        }) => {
            let stmt = tx.prepare_cached(SESSION).await.map_err(db_error)?;
            tx.query_opt(
                &stmt,
                &[
                    &owner,
                    &token_hash.as_slice(),
                    &now,
                    &session_hash.as_slice(),
                ],
            )
            .await
        }
    };
    match row.map_err(db_error)? {
        Some(_) => Ok(()),
        None => Err(StoreError::AuthorityGone),
    }
}
